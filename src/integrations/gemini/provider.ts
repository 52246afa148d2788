// The Google Gemini provider (the Gemini API and Vertex AI): `@google/genai`
// calls `globalThis.fetch`, so its requests are checked at the fetch seam,
// with no client hook.

import type { Provider } from '../provider';
import { geminiWireFormat } from './wire-format';

export const geminiProvider: Provider = {
  name: 'gemini',
  wireFormats: [geminiWireFormat],
};
