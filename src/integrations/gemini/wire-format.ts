// Google Gemini `generateContent` and `streamGenerateContent`, on the Gemini
// API and on Vertex AI, as the transport seams read them.

import type { WireFormat } from '../wire-format';
import { lazyPart } from '../../lazy-part';

type Reading = typeof import('./model-request') & typeof import('./replies');
/**
 * How gemini's requests and replies are read, loaded at the first request that needs them, not at start-up
 * (docs/performance.md "Cold start").
 */
export const geminiReading = lazyPart('gemini/reading', (): Reading => ({
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on demand */
  ...(require('./model-request') as typeof import('./model-request')),
  ...(require('./replies') as typeof import('./replies')),
  /* eslint-enable @typescript-eslint/no-require-imports */
}));

/** The Gemini API and Vertex AI `generateContent` (streamed or not). */
export const geminiWireFormat: WireFormat = {
  name: 'gemini.generateContent',
  mayBeModelURL: (url) => /generatecontent/i.test(url),
  isModelPath: (path) => geminiReading().isGeminiGeneratePath(path),
  request: (path, body) => geminiReading().geminiBodyRequest(path, body),
  replyFromBody: (body) => geminiReading().geminiReplyFromBody(body),
  assembler: () => geminiReading().geminiAssembler(),
};
