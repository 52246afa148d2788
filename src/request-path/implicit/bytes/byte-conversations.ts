// The byte side of the implicit log's conversations: per conversation, what
// it keeps of the bytes of the last request that extended it (byte-record.ts),
// and the index that finds the conversation a request's bytes continue
// (prefix-index.ts). The one place that decides when a conversation's bytes
// are known: after a request the rules passed, or one this fast path took.

import type { SerialisedBody } from '../../model-request';
import type { ByteHasher, PrefixStream } from './byte-hash';
import { appendSpans, BOUNDARY_DIGESTS, bytesSeen, MARK_EVERY, newByteRecord, type ByteRecord } from './byte-record';
import { bodyLayout, type BodyLayout, type ConversationArrayKey } from './body-layout';
import { arrayElements, objectEndsAt, type ElementSpan } from './json-scan';
import { PrefixIndex, restream } from './prefix-index';

/** The array a wire format's conversation is in; undefined for a format the byte path does not read. */
export function arrayKeyOf(format: SerialisedBody['format']): ConversationArrayKey | undefined {
  if (format === 'openai.chat' || format === 'anthropic.messages') return 'messages';
  if (format === 'openai.responses') return 'input';
  return undefined;
}

/** Where a body's conversation is, the key it is found by, and the stream that hashed the key. */
interface Located {
  text: string;
  layout: BodyLayout;
  /** The digest of the first non-system element's bytes. */
  key: bigint;
  /** The body's stream from p0, at the first element's end: the lookup and the commit go on with it, so no byte is hashed twice. */
  stream: PrefixStream;
}

/**
 * Where `body`'s conversation is in its bytes (`bodyLayout`) and the key the
 * conversation is found by: the digest of its first non-system element.
 * Undefined for a format or body the byte path does not read.
 */
function locate(hasher: ByteHasher, body: SerialisedBody): Located | undefined {
  const arrayKey = arrayKeyOf(body.format);
  if (arrayKey === undefined) return undefined;
  const layout = bodyLayout(body.text, arrayKey);
  if (layout === undefined) return undefined;
  const stream = hasher.stream(body.text, layout.p0);
  return { text: body.text, layout, key: stream.digestTo(layout.firstEnd), stream };
}

/** A conversation's byte record, and how long the conversation was (in messages) when those bytes were its last request. */
interface KeptBytes<C extends object> extends ByteRecord {
  /** The conversation's length right after the request these bytes are (before its reply). */
  messages: number;
  /** What the conversation's last request was when these bytes were recorded: they are its bytes only while it still is. */
  since: unknown;
  /** What the index holds it by (one reference, so an entry can be deleted). */
  reference: WeakRef<C>;
}

/** A request whose bytes continue a kept conversation's last request: where its new elements are. */
export interface ByteContinuation<C> {
  conversation: C;
  /** The conversation's length when its bytes were recorded. */
  messagesAt: number;
  /** The token `since` given when the bytes were recorded (see `KeptBytes.since`). */
  since: unknown;
  /** The new elements, after the bytes already seen. */
  tail: ElementSpan[];
  /** Records the new elements as the conversation's bytes, now `messages` long after a request `since` stands for. */
  commit(messages: number, since: unknown): void;
}

/**
 * A request whose bytes do not extend a kept conversation's but start like
 * them: how many of its leading non-system elements are known equal to that
 * conversation's last request's (by the marks), and where they are.
 */
export interface ByteDivergence<C> {
  conversation: C;
  /** The conversation's length when its bytes were recorded, and how many non-system elements those bytes had. */
  messagesAt: number;
  elementsAt: number;
  /** The token `since` given when the bytes were recorded. */
  since: unknown;
  layout: BodyLayout;
  /** The counts of leading elements known equal, largest first (each a multiple of `MARK_EVERY`, or all of the recorded bytes). */
  equal: number[];
  /** The request's elements after its first `count` non-system ones (undefined when the array does not scan). */
  tailAfter(count: number): ElementSpan[] | undefined;
}

/** How many conversations that start alike (by their first element's bytes) the violation path compares a request with, the latest first. */
const ALIKE = 4;

/** The byte records of a set of conversations, and the lookup by bytes. */
export class ByteConversations<C extends object> {
  readonly #records = new WeakMap<C, KeptBytes<C>>();
  readonly #index = new PrefixIndex<WeakRef<C>>();
  /** By key, the conversations last recorded under it, oldest first (at most `ALIKE`): where a request that diverges is compared. */
  readonly #latest = new Map<bigint, WeakRef<C>[]>();
  #indexed = 0;
  readonly #alive: (conversation: C) => boolean;
  readonly #limit: number;

  /** `alive` says whether a conversation is still kept; `limit` bounds index entries before a sweep of dead ones. */
  constructor(alive: (conversation: C) => boolean, limit: number) {
    this.#alive = alive;
    this.#limit = limit;
  }

  /**
   * The kept conversation whose last request `body` extends, byte for byte,
   * with its new elements; undefined when there is none (the rules then read
   * the request). `commit` records the new bytes once the request is taken.
   */
  continuation(hasher: ByteHasher, body: SerialisedBody): ByteContinuation<C> | undefined {
    const located = locate(hasher, body);
    if (located === undefined) return undefined;
    const { text, layout, key } = located;
    const match = this.#index.longest(hasher, text, layout.p0, key, text.length, located.stream);
    if (match === undefined) return undefined;
    const conversation = match.value.deref();
    const record = conversation === undefined ? undefined : this.#records.get(conversation);
    // Only the whole of the last request's bytes: a shorter match (an earlier boundary) is for the rules.
    if (conversation === undefined || record === undefined || !this.#alive(conversation) || match.length !== bytesSeen(record))
      return undefined;
    const tail = arrayElements(text, layout.open, layout.p0 + match.length);
    if (tail === undefined || tail.length === 0) return undefined;
    const stream = restream(hasher, text, layout.p0, match);
    return {
      conversation,
      messagesAt: record.messages,
      since: record.since,
      tail,
      commit: (messages, since) => {
        record.since = since;
        this.#noteLatest(record);
        this.#extend(record, layout.p0, tail, 0, stream, messages);
      },
    };
  }

  /** Records `body` as the bytes of the request that just made `conversation` `messages` long (the rules passed it); `since` stands for that request. */
  remember(hasher: ByteHasher, conversation: C, body: SerialisedBody, messages: number, since: unknown): void {
    this.forget(conversation);
    const located = locate(hasher, body);
    if (located === undefined) return;
    const { layout, key, stream } = located;
    const elements = arrayElements(body.text, layout.open);
    if (elements === undefined) return;
    const record: KeptBytes<C> = {
      ...newByteRecord(key),
      messages,
      since,
      reference: new WeakRef(conversation),
    };
    this.#records.set(conversation, record);
    this.#noteLatest(record);
    this.#extend(record, layout.p0, elements, layout.systemCount, stream, messages);
  }

  /**
   * The kept conversation, among the latest that start like `body`, whose
   * last request's bytes `body` shares the most leading elements with,
   * compared mark by mark; undefined when none shares a mark. For a request
   * the fast path did not take (it does not extend those bytes): the
   * elements before its first difference need not be read.
   */
  divergence(hasher: ByteHasher, body: SerialisedBody): ByteDivergence<C> | undefined {
    const located = locate(hasher, body);
    if (located === undefined) return undefined;
    const { text, layout } = located;
    const latest = this.#latest.get(located.key);
    let best: { conversation: C; record: KeptBytes<C>; equal: number[] } | undefined;
    for (let i = (latest?.length ?? 0) - 1; i >= 0; i--) {
      const conversation = latest![i]!.deref();
      const record = conversation === undefined ? undefined : this.#records.get(conversation);
      if (conversation === undefined || record === undefined || !this.#alive(conversation)) continue;
      const equal = equalElements(hasher, text, layout.p0, record);
      if (equal.length > 0 && (best === undefined || equal[0]! > best.equal[0]!)) best = { conversation, record, equal };
    }
    if (best === undefined) return undefined;
    const { record } = best;
    return {
      conversation: best.conversation,
      messagesAt: record.messages,
      elementsAt: record.count,
      since: record.since,
      layout,
      equal: best.equal,
      tailAfter: (count) => arrayElements(text, layout.open, layout.p0 + record.ends[count - 1]!),
    };
  }

  /** Forgets what `conversation` kept of its bytes (something other than a request with a body changed it). */
  forget(conversation: C): void {
    // Its index entries are dropped by the next sweep; until then a match on them finds no record.
    this.#records.delete(conversation);
  }

  /** Makes `record`'s conversation the latest recorded under its key. */
  #noteLatest(record: KeptBytes<C>): void {
    const reference = record.reference;
    const latest = this.#latest.get(record.key);
    if (latest === undefined) {
      this.#latest.set(record.key, [reference]);
      return;
    }
    if (latest[latest.length - 1] === reference) return; // already the latest: the usual continuation
    const at = latest.indexOf(reference);
    if (at >= 0) latest.splice(at, 1);
    else if (latest.length >= ALIKE) latest.shift();
    latest.push(reference);
  }

  /** Records `spans[first..]` (new elements, body positions) in `record`, their digests from `stream`, and indexes its latest boundaries. */
  #extend(record: KeptBytes<C>, p0: number, spans: readonly ElementSpan[], first: number, stream: PrefixStream, messages: number): void {
    const added = appendSpans(record, spans, first, p0, stream);
    const boundaries = record.boundaries;
    const reference = record.reference;
    for (let i = boundaries.length - added; i < boundaries.length; i++) {
      this.#index.add(record.key, boundaries[i]!.length, boundaries[i]!.digest, reference);
      this.#indexed++;
    }
    while (boundaries.length > BOUNDARY_DIGESTS) {
      const dropped = boundaries.shift()!;
      this.#index.delete(record.key, dropped.length, dropped.digest, reference);
    }
    record.messages = messages;
    if (this.#indexed > this.#limit) this.#sweep();
  }

  /** Drops index entries of conversations no longer kept or whose bytes moved on. */
  #sweep(): void {
    for (const [key, latest] of this.#latest) {
      const kept = latest.filter((reference) => {
        const conversation = reference.deref();
        return conversation !== undefined && this.#alive(conversation) && this.#records.get(conversation)?.reference === reference;
      });
      if (kept.length === 0) this.#latest.delete(key);
      else this.#latest.set(key, kept);
    }
    this.#indexed = this.#index.retain((reference, key, length, digest) => {
      const conversation = reference.deref();
      const record = conversation === undefined ? undefined : this.#records.get(conversation);
      return (
        conversation !== undefined &&
        record !== undefined &&
        record.key === key &&
        this.#alive(conversation) &&
        record.boundaries.some((b) => b.length === length && b.digest === digest)
      );
    });
  }
}

/**
 * How many leading non-system elements `s` (from `p0`) shares with `record`'s
 * bytes, as far as its marks tell: each count known equal, largest first
 * (all of the recorded elements when the whole recorded bytes are equal).
 * Hashes the request once, front to back, up to its first unequal mark.
 */
function equalElements(hasher: ByteHasher, s: string, p0: number, record: ByteRecord): number[] {
  const equal: number[] = [];
  let stream: PrefixStream | undefined;
  for (let k = 0; k < record.markCount; k++) {
    const count = (k + 1) * MARK_EVERY;
    const end = p0 + record.ends[count - 1]!;
    if (end > s.length || !objectEndsAt(s, end)) return equal;
    stream ??= hasher.stream(s, p0);
    if (stream.digestTo(end) !== record.marks[k]) return equal;
    equal.unshift(count);
  }
  const seen = bytesSeen(record);
  const last = record.boundaries[record.boundaries.length - 1];
  if (record.count > (equal[0] ?? 0) && last !== undefined && last.length === seen && p0 + seen <= s.length && objectEndsAt(s, p0 + seen)) {
    stream ??= hasher.stream(s, p0);
    if (stream.digestTo(p0 + seen) === last.digest) equal.unshift(record.count);
  }
  return equal;
}
