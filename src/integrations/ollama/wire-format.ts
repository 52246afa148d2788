// Ollama's own chat API as the transport seams read it.

import type { WireFormat } from '../wire-format';
import { isOllamaChatPath, ollamaBodyRequest } from './model-request';
import { ollamaAssembler, ollamaReplyFromBody } from './replies';

/** `POST /api/chat`, streamed (NDJSON, the API's default) or not. */
export const ollamaChatWireFormat: WireFormat = {
  name: 'ollama.chat',
  mayBeModelURL: (url) => url.includes('/api/chat'),
  isModelPath: isOllamaChatPath,
  request: ollamaBodyRequest,
  replyFromBody: ollamaReplyFromBody,
  assembler: ollamaAssembler,
};
