// Ollama's own API: the `ollama` client calls `globalThis.fetch`, so its
// requests are checked at the fetch seam, with no client hook. (Ollama's
// OpenAI-compatible endpoint is read by the openai provider's formats.)

import type { Provider } from '../provider';
import { ollamaChatWireFormat } from './wire-format';

export const ollamaProvider: Provider = {
  name: 'ollama',
  wireFormats: [ollamaChatWireFormat],
};
