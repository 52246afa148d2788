// OpenAI Chat Completions and Responses as the transport seams read them
// (Azure's deployment paths included: only the path's end is read).

import type { WireFormat } from '../wire-format';
import { lazyPart } from '../../lazy-part';

type Reading = typeof import('./model-request') & typeof import('./replies');
/**
 * How openai's requests and replies are read, loaded at the first request that needs them, not at start-up
 * (docs/performance.md "Cold start").
 */
export const openaiReading = lazyPart('openai/reading', (): Reading => ({
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  ...(require('./model-request') as typeof import('./model-request')),
  ...(require('./replies') as typeof import('./replies')),
  /* eslint-enable @typescript-eslint/no-require-imports */
}));

/** `…/chat/completions`. */
export const openaiChatWireFormat: WireFormat = {
  name: 'openai.chat',
  mayBeModelURL: (url) => url.includes('completions'),
  isModelPath: (path) => openaiReading().isChatCompletionsPath(path),
  request: (path, body) => openaiReading().openAIBodyRequest(path, body),
  replyFromBody: (body) => openaiReading().chatReplyFromBody(body),
  assembler: () => openaiReading().chatAssembler(),
};

/** `…/responses`. */
export const openaiResponsesWireFormat: WireFormat = {
  name: 'openai.responses',
  mayBeModelURL: (url) => url.includes('responses'),
  isModelPath: (path) => openaiReading().isResponsesPath(path),
  request: (path, body) => openaiReading().openAIBodyRequest(path, body),
  replyFromBody: (body) => openaiReading().responsesReplyFromBody(body),
  assembler: () => openaiReading().responsesAssembler(),
};
