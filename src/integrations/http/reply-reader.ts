// Reading the model's reply from an HTTP response as its caller reads it,
// without touching what the caller gets, bounded in size, every failure
// swallowed. A reply that cannot be read is simply not observed, and the
// next request supplies it. The response's own ways of reading its body
// (`body`, `text()`, `json()`) are shadowed on the instance and hand the
// package what the caller reads: no second branch of the body, nothing read
// ahead of the caller, and a cancel that reaches the connection at once.
// Only a node-fetch stream of events (an old SDK's; its body is a Node
// stream) is still read from a clone, see sdk-client/node-fetch-response.ts.

import type { ReplyFormat } from '../../request-path/model-request';
import type { PendingReply } from '../../request-path/reply';
import { reportInternalError } from '../../telemetry/internal-error';
import { passThroughBody } from './pass-through-body';
import { replyFromBody } from '../providers';
import type { Reply } from './reply-assemblers';
import { MAX_REPLY_BYTES, ReplyCollector, framingOf, replyFromText } from './reply-collector';

export { MAX_REPLY_BYTES } from './reply-collector';

/** The parts of a fetch Response this reads. */
export interface ResponseLike {
  ok: boolean;
  headers: { get(name: string): string | null };
  clone(): ResponseLike;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Hands the reply the caller reads from `response` to the request's pending
 * check (observeReplyAsRead), the one way both transport seams do it: the
 * caller's read waits for the check's asynchronous record when it has one.
 * For an SDK client's response (sdk-client/client-hook.ts), `cloneable`
 * prepares a node-fetch one, and a JSON reply's hand-off to the client's
 * own parse is returned (`ParsedReply`); the fetch seam has no parse to
 * hand it to.
 */
export function observeReplyFor(
  response: unknown,
  format: ReplyFormat,
  pending: PendingReply,
  cloneable?: (response: unknown) => unknown,
): ParsedReply | undefined {
  return observeReplyAsRead(
    response,
    format,
    (reply) => {
      pending.reply(reply.messages, reply.items, reply);
      return pending.settled?.();
    },
    cloneable,
    pending.settled !== undefined,
  );
}

/**
 * Hands the reply in `response` to `onReply` as its caller reads it: from
 * the chunks the caller reads from `body` (at its end, or, for a stream of
 * events, once they amount to a reply: the SDKs cancel after the last one),
 * or from the caller's own `text()` or `json()` (once it resolves, before
 * the caller's continuation runs). Only what a Response inherits is
 * shadowed (non-enumerable own properties): a plain object, a test's double
 * say, is left exactly as it is. A caller that reads the body some other way
 * leaves the reply unobserved. `cloneable` prepares a node-fetch response
 * for cloning (see sdk-client/node-fetch-response.ts). With `settles`
 * (the request is checked on a shared store), the caller's `text()` or
 * `json()` resolves once `onReply`'s promise has settled: the check's
 * report, bounded to a few milliseconds (shared-logs.ts). Returns at once
 * (for a JSON body, the hand-off to a client's own parse, `ParsedReply`);
 * never throws.
 */
export function observeReplyAsRead(
  response: unknown,
  format: ReplyFormat,
  onReply: (reply: Reply) => void | Promise<void>,
  cloneable?: (response: unknown) => unknown,
  settles = false,
): ParsedReply | undefined {
  try {
    if (typeof response !== 'object' || response === null) return undefined;
    const r = response as ResponseLike & Record<string, unknown>;
    if (r.ok !== true || typeof r.headers?.get !== 'function') return undefined;
    const framing = framingOf(r.headers.get('content-type'));
    const streamed = framing !== 'json';
    if (!streamed && Number(r.headers.get('content-length')) > MAX_REPLY_BYTES) return undefined;
    let taken = false;
    let delivered = false;
    /** The client's own parse reads the body (`ParsedReply.claim`): the reply comes from what it parsed, not from the text. */
    let claimed = false;
    /** Made when the body is read in chunks: a JSON body read whole (`text()`, `json()`, the client's parse) needs none. */
    let collector: ReplyCollector | undefined;
    const collecting = (): ReplyCollector => (collector ??= new ReplyCollector(format, framing));
    /** The first way the caller reads the body is the one the reply comes from, once. */
    const take = (): boolean => !taken && (taken = true);
    // A shared store's report is waited for (bounded) at the end of a streamed body, or its cancel at the last event (the
    // SDKs cancel there), or the chunk that finished it (pass-through-body.ts).
    const deliverOnce = (ended: boolean): void | Promise<void> => {
      if (delivered) return undefined;
      delivered = true;
      const recorded = deliver(() => collecting().reply(ended), onReply);
      return settles ? recorded : undefined;
    };
    const body = inheritedGetter(r, 'body');
    const current = body?.call(r);
    if (body && isWebStream(current)) shadowBody(r, body, collecting, take, deliverOnce);
    else if (streamed && cloneable && current !== null && current !== undefined) {
      observeReply(cloneable(response), format, onReply); // a node-fetch body: read from its clone
      return undefined;
    }
    shadowRead(
      r,
      'text',
      (text) => {
        if (claimed || !take() || typeof text !== 'string') return undefined;
        if (!streamed) return deliver(() => replyFromText(format, text), onReply);
        const events = collecting();
        events.pushText(text);
        return deliver(() => events.reply(true), onReply);
      },
      settles,
    );
    shadowRead(r, 'json', (value) => (!claimed && take() ? deliver(() => replyFromBody(format, value), onReply) : undefined), settles);
    if (streamed) return undefined;
    return {
      settles,
      claim: () => void (claimed = true),
      release: () => void (claimed = false),
      take: (value) =>
        take()
          ? deliver(() => (typeof value === 'string' ? replyFromText(format, value) : replyFromBody(format, value)), onReply)
          : undefined,
    };
  } catch {
    // not a fetch Response, or one that cannot take the shadowing reads: the reply is not observed
    return undefined;
  }
}

/**
 * A JSON reply handed to the client's own parse of it (sdk-client/client-hook.ts,
 * `openai`'s `parseResponseWithTimeout`), so the body is parsed once, by the
 * client: from `claim()` on, the caller's `text()` or `json()` no longer
 * builds the reply, and `take(value)` builds it from what the parse returned
 * (text it returned for a body not typed JSON is parsed, as the text would
 * have been), before the caller's continuation sees that value. `release()`
 * gives the body back to the caller's read. With `settles`, `take`
 * returns the recording the parse's caller waits for.
 */
export interface ParsedReply {
  readonly settles: boolean;
  claim(): void;
  release(): void;
  take(value: unknown): void | Promise<void>;
}

/** `body` shadowed by a pass-through of the response's own body, made at its first read (the same stream on every read after). */
function shadowBody(
  r: Record<string, unknown>,
  body: () => unknown,
  collecting: () => ReplyCollector,
  take: () => boolean,
  deliverOnce: (ended: boolean) => void | Promise<void>,
): void {
  let shadow: ReadableStream<Uint8Array> | null | undefined;
  const source = () => body.call(r) as ReadableStream<Uint8Array>;
  Object.defineProperty(r, 'body', {
    configurable: true,
    enumerable: false,
    get(this: unknown) {
      if (this !== r) return body.call(this);
      if (shadow !== undefined) return shadow;
      const current = source();
      if (!isWebStream(current)) return current;
      let watching: boolean | undefined;
      return (shadow = passThroughBody(source, isByteStream(current), {
        chunk(bytes) {
          if (!(watching ??= take())) return undefined;
          const collector = collecting();
          collector.push(bytes);
          // A stream whose last event came (Ollama's `done: true`): its caller may never read the end, so it is taken now.
          return collector.finished() ? deliverOnce(true) : undefined;
        },
        settle(how) {
          if (watching ?? take()) return deliverOnce(how === 'end');
          return undefined;
        },
      }));
    },
  });
}

/** `name` shadowed on the instance by a call of the inherited method that hands `seen` its promise's value. */
function shadowRead(r: Record<string, unknown>, name: string, seen: (value: unknown) => unknown, settles: boolean): void {
  if (Object.prototype.hasOwnProperty.call(r, name)) return;
  const read = r[name];
  if (typeof read !== 'function') return;
  Object.defineProperty(r, name, {
    configurable: true,
    enumerable: false,
    writable: true,
    value: function (this: unknown, ...args: unknown[]): unknown {
      const result: unknown = read.apply(this, args);
      if (this !== r || !(result instanceof Promise)) return result;
      const recorded = result.then(seen, () => {});
      // The caller's own promise, unless the reply's recording must be settled first (bounded; never rejects).
      return settles ? result.then((value: unknown) => recorded.then(() => value)) : result;
    },
  });
}

/** The getter `name` has on `r`'s prototype chain; undefined when `r` has it as its own (a plain object) or as a value. */
function inheritedGetter(r: object, name: string): (() => unknown) | undefined {
  if (Object.prototype.hasOwnProperty.call(r, name)) return undefined;
  for (let proto = Object.getPrototypeOf(r) as object | null; proto; proto = Object.getPrototypeOf(proto) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return descriptor.get;
  }
  return undefined;
}

function isWebStream(value: unknown): value is ReadableStream<Uint8Array> {
  return value instanceof ReadableStream;
}

/** Whether `stream` takes BYOB readers (a fetch body does); the reader taken to find out is released at once. */
function isByteStream(stream: ReadableStream<Uint8Array>): boolean {
  try {
    stream.getReader({ mode: 'byob' }).releaseLock();
    return true;
  } catch {
    return false;
  }
}

/** Builds the reply (a body that is not one is no reply) and hands it on; nothing thrown escapes. */
function deliver(build: () => Reply | undefined, onReply: (reply: Reply) => void | Promise<void>): void | Promise<void> {
  let reply: Reply | undefined;
  try {
    reply = build();
  } catch {
    return; // not JSON, or not a reply
  }
  if (reply === undefined || reply.messages.length === 0) return;
  try {
    return onReply(reply);
  } catch (error) {
    reportInternalError('reading a reply', error, 'the caller got the reply unchanged; the package did not record it');
  }
}

/**
 * Clones `response` and hands the reply it carries to `onReply` once read
 * (a node-fetch response, whose clone is drained as it flows). Returns at
 * once; never throws; the caller's response is the one it passed.
 */
export function observeReply(response: unknown, format: ReplyFormat, onReply: (reply: Reply) => void | Promise<void>): void {
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
  const collector = new ReplyCollector(format, framingOf(response.headers.get('content-type')));
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
      collector.push(value);
    }
  } catch {
    return undefined; // aborted, or the connection failed: the caller sees that on its own branch
  }
  return collector.reply(true);
}
