// Google Gemini `generateContent` and `streamGenerateContent`, on the Gemini
// API and on Vertex AI, as the transport seams read them. `@google/genai`
// calls `globalThis.fetch`, so its requests reach the fetch seam with no
// hook of its own.

import type { Message } from '../../model/messages';
import type { ModelRequest } from '../../request-path/model-request';
import { isObject } from '../../reading/canonical';
import type { Reply, ReplyAssembler } from '../http/reply-assemblers';
import type { WireFormat } from '../wire-format';
import { fromGemini, fromGeminiReply } from './adapter';

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

/** The Gemini API and Vertex AI `generateContent` (streamed or not). */
export const geminiWireFormat: WireFormat = {
  name: 'gemini.generateContent',
  mayBeModelURL: (url) => /generatecontent/i.test(url),
  isModelPath: (path) => GEMINI_PATH.test(path),
  request: geminiBodyRequest,
  replyFromBody: geminiReplyFromBody,
  assembler: geminiAssembler,
};

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
  return { provider, model, messages, replyFormat: geminiWireFormat.name };
}

function decodedModel(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The reply in a JSON body: a `GenerateContentResponse`, or the JSON array of
 * them `streamGenerateContent` answers without `alt=sse`.
 */
function geminiReplyFromBody(body: unknown): Reply | undefined {
  const assembler = geminiAssembler();
  for (const chunk of Array.isArray(body) ? (body as unknown[]) : [body]) assembler.event(chunk, undefined);
  return assembler.reply();
}

/** One candidate of a reply as its chunks arrive. */
interface CandidateState {
  parts: unknown[];
  done: boolean;
}

/** Most candidates read from one reply (`candidateCount` is small). */
const MAX_CANDIDATES = 16;

/**
 * `GenerateContentResponse` chunks: each candidate's parts (by `index`) in
 * the order they arrive, finished by a `finishReason`. The reply is
 * candidate 0's (else the lowest index's) once it finished; the other
 * finished candidates are its siblings, replies the model sent as well.
 * A JSON body is one chunk holding every part.
 */
function geminiAssembler(): ReplyAssembler {
  const candidates = new Map<number, CandidateState>();
  return {
    event(data) {
      if (!isObject(data) || !Array.isArray(data.candidates)) return;
      for (const candidate of data.candidates as unknown[]) {
        if (!isObject(candidate)) continue;
        const index = typeof candidate.index === 'number' ? candidate.index : 0;
        let state = candidates.get(index);
        if (state === undefined) {
          if (candidates.size >= MAX_CANDIDATES) continue;
          candidates.set(index, (state = { parts: [], done: false }));
        }
        const content = candidate.content;
        if (isObject(content) && Array.isArray(content.parts)) state.parts.push(...(content.parts as unknown[]));
        if (candidate.finishReason != null) state.done = true;
      }
    },
    reply() {
      const finished = [...candidates.entries()].filter(([, state]) => state.done && state.parts.length > 0);
      if (finished.length === 0) return undefined;
      finished.sort(([a], [b]) => a - b);
      const [main, ...rest] = finished.map(([, state]): Message[] => fromGeminiReply({ role: 'model', parts: state.parts }));
      if (candidates.has(0) && finished[0]![0] !== 0) return undefined; // candidate 0 has not finished yet
      return rest.length > 0 ? { messages: main!, siblings: rest } : { messages: main! };
    },
  };
}
