// Ollama's own chat API as the transport seams read it.

import type { WireFormat } from '../wire-format';
import { lazyPart } from '../../lazy-part';

type Reading = typeof import('./model-request') & typeof import('./replies');
/**
 * How ollama's requests and replies are read, loaded at the first request that needs them, not at start-up
 * (docs/performance.md "Cold start").
 */
export const ollamaReading = lazyPart('ollama/reading', (): Reading => ({
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  ...(require('./model-request') as typeof import('./model-request')),
  ...(require('./replies') as typeof import('./replies')),
  /* eslint-enable @typescript-eslint/no-require-imports */
}));

/** `POST /api/chat`, streamed (NDJSON, the API's default) or not. */
export const ollamaChatWireFormat: WireFormat = {
  name: 'ollama.chat',
  mayBeModelURL: (url) => url.includes('/api/chat'),
  isModelPath: (path) => ollamaReading().isOllamaChatPath(path),
  request: (path, body) => ollamaReading().ollamaBodyRequest(path, body),
  replyFromBody: (body) => ollamaReading().ollamaReplyFromBody(body),
  assembler: () => ollamaReading().ollamaAssembler(),
};
