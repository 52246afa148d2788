// `openai` 7's own parse of a response, `parseResponseWithTimeout(client,
// props)`: `text()`, then `JSON.parse`. A JSON reply the client hook
// observes at `fetchWithTimeout` is handed to it here, so the reply is taken
// from the value the client parsed and the body is not parsed a second time
// (http/reply-reader.ts `ParsedReply`). Absent before 7.x's body timeouts
// and in `@anthropic-ai/sdk`, whose parse reads the body with `json()`, so
// the reply is parsed once there already.

import type { ParsedReply } from '../http/reply-reader';

type ParseResponse = (this: unknown, client: unknown, props: unknown, ...rest: unknown[]) => unknown;

/** JSON replies observed at `fetchWithTimeout`, by response, waiting for the client's parse (`takeParsedReplies`). */
const parsedReplies = new WeakMap<object, ParsedReply>();

/** `response`'s reply is to be taken from the client's parse of it, if that parse runs. */
export function handToParse(response: unknown, parsed: ParsedReply): void {
  if (typeof response === 'object' && response !== null) parsedReplies.set(response, parsed);
}

/**
 * The wrapper of `parseResponseWithTimeout`: the reply is taken from the
 * value the original returns, before its caller sees it (this reaction is
 * registered first). Taken only from the response the parse started with: a
 * body timed out and retried in there parses another response, whose own
 * `text()` gives the reply as before.
 */
export function takeParsedReplies(original: ParseResponse): ParseResponse {
  return function parseResponseWithTimeout(this: unknown, client, props, ...rest) {
    const response = typeof props === 'object' && props !== null ? (props as { response?: unknown }).response : undefined;
    const parsed = typeof response === 'object' && response !== null ? parsedReplies.get(response) : undefined;
    if (parsed === undefined) return original.call(this, client, props, ...rest);
    parsedReplies.delete(response as object);
    parsed.claim();
    let result: unknown;
    try {
      result = original.call(this, client, props, ...rest);
    } finally {
      if (!(result instanceof Promise)) parsed.release();
    }
    if (!(result instanceof Promise)) return result;
    const take = (value: unknown): void | Promise<void> =>
      (props as { response?: unknown }).response === response ? parsed.take(value) : undefined;
    if (!parsed.settles) {
      result.then(take, () => {});
      return result;
    }
    // A shared store: the parse's caller gets the value once the reply's recording settled (bounded; never rejects).
    return result.then((value: unknown) => {
      const recorded = take(value);
      return recorded === undefined ? value : recorded.then(() => value);
    });
  };
}
