// Gemini replies: a `GenerateContentResponse` body, the JSON array of them,
// or its stream of chunks (every candidate).

import type { Message } from '../../model/messages';
import { isObject } from '../../reading/canonical';
import type { Reply, ReplyAssembler } from '../http/reply-assemblers';
import { fromGeminiReply } from './adapter';

/**
 * The reply in a JSON body: a `GenerateContentResponse`, or the JSON array of
 * them `streamGenerateContent` answers without `alt=sse`.
 */
export function geminiReplyFromBody(body: unknown): Reply | undefined {
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
export function geminiAssembler(): ReplyAssembler {
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
