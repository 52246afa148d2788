// Reading the model's reply from an HTTP response without touching what the
// caller gets, bounded in size, every failure swallowed. A reply that cannot
// be read is simply not observed, and the next request supplies it. Two ways:
// from a clone of the response (the body is teed), read in the background,
// for a caller whose way of reading the body is not known (the fetch seam);
// or, for a JSON body read by a client known to read it whole with `text()`
// or `json()` (the SDK client hook), from that read itself, which costs no
// second branch of the body and sees the reply before the caller does.

import type { ReplyFormat } from '../../request-path/model-request';
import { reportInternalError } from '../../telemetry/internal-error';
import { replyAssembler, replyFromBody, type Reply } from './reply-assemblers';
import { EventStreamParser } from './server-sent-events';

/** A reply body longer than this is not read further (its branch of the body is cancelled). */
export const MAX_REPLY_BYTES = 16 * 1024 * 1024;

/** The parts of a fetch Response this reads. */
export interface ResponseLike {
  ok: boolean;
  headers: { get(name: string): string | null };
  clone(): ResponseLike;
  body: ReadableStream<Uint8Array> | null;
}

/** The body reads `observeReplyAsRead` takes the reply from, and the JSON value each one's result is. */
const BODY_READS = {
  text: (text: unknown): unknown => (typeof text === 'string' && text.length <= MAX_REPLY_BYTES ? JSON.parse(text) : undefined),
  json: (body: unknown): unknown => body,
} as const;

/**
 * Hands the reply in `response` to `onReply` as its caller reads it: a JSON
 * body from the caller's own `text()` or `json()` (once it resolves, before
 * the caller's continuation runs), so the body is neither teed nor read
 * twice; a stream of server-sent events, which the caller reads piece by
 * piece, from a clone as `observeReply` does. The two reads are shadowed on
 * the response itself (non-enumerable own properties) that call the
 * originals and return what they return. A caller that reads the body some
 * other way leaves the reply unobserved. `cloneable` prepares the response
 * for cloning (a node-fetch response, see sdk-client/node-fetch-response.ts).
 * Returns at once; never throws.
 */
export function observeReplyAsRead(
  response: unknown,
  format: ReplyFormat,
  onReply: (reply: Reply) => void,
  cloneable: (response: unknown) => unknown = (same) => same,
): void {
  try {
    const r = response as ResponseLike & Record<string, unknown>;
    if (!r || r.ok !== true || typeof r.headers?.get !== 'function') return;
    if (isEventStream(r)) return observeReply(cloneable(response), format, onReply);
    if (Number(r.headers.get('content-length')) > MAX_REPLY_BYTES) return;
    let taken = false;
    for (const name of Object.keys(BODY_READS) as Array<keyof typeof BODY_READS>) {
      const read = r[name];
      if (typeof read !== 'function') continue;
      Object.defineProperty(r, name, {
        configurable: true,
        enumerable: false,
        writable: true,
        value: function (this: unknown, ...args: unknown[]): unknown {
          const result: unknown = read.apply(this, args);
          if (!taken && this === r && result instanceof Promise) {
            taken = true;
            result.then(
              (value) => deliver(() => replyFromBody(format, BODY_READS[name](value)), onReply),
              () => {},
            );
          }
          return result;
        },
      });
    }
  } catch {
    // not a fetch Response, or one that cannot take the shadowing reads: the reply is not observed
  }
}

function isEventStream(response: ResponseLike): boolean {
  return (response.headers.get('content-type') ?? '').includes('text/event-stream');
}

/** Builds the reply (a body that is not one is no reply) and hands it on; nothing thrown escapes. */
function deliver(build: () => Reply | undefined, onReply: (reply: Reply) => void): void {
  let reply: Reply | undefined;
  try {
    reply = build();
  } catch {
    return; // not JSON, or not a reply
  }
  if (reply === undefined || reply.messages.length === 0) return;
  try {
    onReply(reply);
  } catch (error) {
    reportInternalError('reading a reply', error);
  }
}

/**
 * Clones `response` and hands the reply it carries to `onReply` once read.
 * Returns at once; never throws; the caller's response is the one it passed.
 */
export function observeReply(response: unknown, format: ReplyFormat, onReply: (reply: Reply) => void): void {
  let copy: ResponseLike;
  try {
    const r = response as ResponseLike;
    if (!r || r.ok !== true || typeof r.clone !== 'function') return;
    copy = r.clone();
  } catch {
    return; // the body was already used, or this is not a fetch Response
  }
  void readReply(copy, format).then(
    (reply) => deliver(() => reply, onReply),
    () => {},
  );
}

async function readReply(response: ResponseLike, format: ReplyFormat): Promise<Reply | undefined> {
  const body = response.body;
  if (body === null) return undefined;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const streamed = isEventStream(response);
  const assembler = streamed ? replyAssembler(format) : undefined;
  const events = assembler
    ? new EventStreamParser(({ data, event }) => {
        if (data === '[DONE]') return;
        try {
          assembler.event(JSON.parse(data) as unknown, event);
        } catch {
          // not JSON: not part of a reply
        }
      })
    : undefined;
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > MAX_REPLY_BYTES) {
        await reader.cancel();
        return undefined;
      }
      const chunk = decoder.decode(value, { stream: true });
      if (events) events.push(chunk);
      else text += chunk;
    }
  } catch {
    return undefined; // aborted, or the connection failed: the caller sees that on its own branch
  }
  if (events && assembler) {
    events.push(decoder.decode());
    events.end();
    return assembler.reply();
  }
  try {
    return replyFromBody(format, JSON.parse(text + decoder.decode()) as unknown);
  } catch {
    return undefined;
  }
}
