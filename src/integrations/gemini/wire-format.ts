// Google Gemini `generateContent` and `streamGenerateContent`, on the Gemini
// API and on Vertex AI, as the transport seams read them.

import type { WireFormat } from '../wire-format';
import { geminiBodyRequest, isGeminiGeneratePath } from './model-request';
import { geminiAssembler, geminiReplyFromBody } from './replies';

/** The Gemini API and Vertex AI `generateContent` (streamed or not). */
export const geminiWireFormat: WireFormat = {
  name: 'gemini.generateContent',
  mayBeModelURL: (url) => /generatecontent/i.test(url),
  isModelPath: isGeminiGeneratePath,
  request: geminiBodyRequest,
  replyFromBody: geminiReplyFromBody,
  assembler: geminiAssembler,
};
