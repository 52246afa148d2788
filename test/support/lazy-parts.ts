// Vitest runs the sources through its own module loader, where the package's
// `require` of a part loaded on demand (src/lazy-part.ts) would find no
// source: each part is loaded here the runner's way and provided, so every
// test file holds one copy of each. The built package, which the zero-code
// tests run, requires them itself.

import { provideLazyPart } from '../../src/lazy-part';
import * as channelCheck from '../../src/integrations/ai-sdk/channel-check';
import * as converseCheck from '../../src/integrations/bedrock/converse-check';
import * as fetchSeam from '../../src/integrations/fetch/fetch-seam';
import * as replyReader from '../../src/integrations/http/reply-reader';
import * as modelCall from '../../src/integrations/openai-agents/model-call';
import * as turnRecorder from '../../src/integrations/openai-agents/turn-recorder';
import * as openaiRequests from '../../src/integrations/openai/model-request';
import * as openaiReplies from '../../src/integrations/openai/replies';
import * as anthropicRequests from '../../src/integrations/anthropic/model-request';
import * as anthropicReplies from '../../src/integrations/anthropic/replies';
import * as cohereRequests from '../../src/integrations/cohere/model-request';
import * as cohereReplies from '../../src/integrations/cohere/replies';
import * as geminiRequests from '../../src/integrations/gemini/model-request';
import * as geminiReplies from '../../src/integrations/gemini/replies';
import * as ollamaRequests from '../../src/integrations/ollama/model-request';
import * as ollamaReplies from '../../src/integrations/ollama/replies';
import * as checkRequest from '../../src/request-path/check-request';
import * as sharedLogs from '../../src/request-path/implicit/shared-logs';
import * as redisBuckets from '../../src/request-path/implicit/redis-buckets';
import * as redisConnection from '../../src/request-path/implicit/redis-connection';

provideLazyPart('ai-sdk/channel-check', channelCheck);
provideLazyPart('bedrock/converse-check', converseCheck);
provideLazyPart('fetch/fetch-seam', fetchSeam);
provideLazyPart('http/reply-reader', replyReader);
provideLazyPart('request-path/check-request', checkRequest);
provideLazyPart('openai-agents/model-call', modelCall);
provideLazyPart('openai-agents/turn-recorder', turnRecorder);
provideLazyPart('implicit/shared-store', { ...sharedLogs, ...redisBuckets, ...redisConnection });
provideLazyPart('openai/reading', { ...openaiRequests, ...openaiReplies });
provideLazyPart('anthropic/reading', { ...anthropicRequests, ...anthropicReplies });
provideLazyPart('cohere/reading', { ...cohereRequests, ...cohereReplies });
provideLazyPart('gemini/reading', { ...geminiRequests, ...geminiReplies });
provideLazyPart('ollama/reading', { ...ollamaRequests, ...ollamaReplies });
