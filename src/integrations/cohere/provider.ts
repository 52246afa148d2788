// Cohere: the `cohere-ai` client calls `globalThis.fetch`, so its v2 chat
// requests are checked at the fetch seam, with no client hook.

import type { Provider } from '../provider';
import { cohereChatWireFormat } from './wire-format';

export const cohereProvider: Provider = {
  name: 'cohere',
  wireFormats: [cohereChatWireFormat],
};
