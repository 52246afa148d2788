// Which Gemini requests (the Gemini API and Vertex AI) are model requests,
// and their messages in canonical form. `@google/genai` calls
// `globalThis.fetch`, so these requests reach the fetch seam with no hook of
// their own.

import type { ModelRequest } from '../../request-path/model-request';
import { fromGemini } from './adapter';

/** `gen_ai.provider.name` of Gemini API requests, as the OpenTelemetry GenAI conventions name the provider. */
export const GEMINI_PROVIDER = 'gcp.gemini';
/** `gen_ai.provider.name` of Vertex AI requests. */
export const VERTEX_PROVIDER = 'gcp.vertex_ai';

/**
 * `…/models/{model}:generateContent` and `:streamGenerateContent`, after any
 * prefix: `/v1beta/models/…` (Gemini API),
 * `/v1/projects/{p}/locations/{l}/publishers/google/models/…` and
 * `/v1/publishers/google/models/…` (Vertex AI), `tunedModels/…`.
 */
const GEMINI_PATH = /\/(?:models|tunedModels)\/([^/:]+):(?:stream)?generateContent$/i;
/** Vertex AI's paths name a publisher. */
const VERTEX_PATH = /\/publishers\//;

/** Whether `path` is a `generateContent` call, streamed or not (the one place that says so). */
export function isGeminiGeneratePath(path: string): boolean {
  return GEMINI_PATH.test(path);
}

/**
 * The model request a POST of `body` to `path` is. The model is named by the
 * path. A request with `cachedContent` continues a prefix the provider holds
 * (a context cache): it carries only the rest, so it is stateful.
 */
export function geminiBodyRequest(path: string, body: Record<string, unknown>): ModelRequest | undefined {
  const match = GEMINI_PATH.exec(path);
  if (!match) return undefined;
  const provider = VERTEX_PATH.test(path) ? VERTEX_PROVIDER : GEMINI_PROVIDER;
  const model = decodedModel(match[1]!);
  if (body.cachedContent != null) return { provider, model, messages: [], stateful: 'cachedContent' };
  const messages = Array.isArray(body.contents)
    ? fromGemini({ systemInstruction: body.systemInstruction, contents: body.contents })
    : body.contents;
  return { provider, model, messages, replyFormat: 'gemini.generateContent' };
}

function decodedModel(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
