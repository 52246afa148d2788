// The byte side of the implicit log's conversations: per conversation, what
// it keeps of the bytes of the last request that extended it (byte-record.ts),
// and the index that finds the conversation a request's bytes continue
// (prefix-index.ts). The one place that decides when a conversation's bytes
// are known: after a request the rules passed, or one this fast path took.

import type { SerialisedBody } from '../../model-request';
import type { ByteHasher, PrefixStream } from './byte-hash';
import { appendSpans, BOUNDARY_DIGESTS, bytesSeen, MARK_EVERY, markRange, newByteRecord, type ByteRecord } from './byte-record';
import { bodyLayout, type BodyLayout, type ConversationArrayKey } from './body-layout';
import { arrayElements, objectEndsAt, skipSpace, skipValue, type ElementSpan } from './json-scan';
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
  /** The counts of leading elements known equal, largest first (each a multiple of `MARK_EVERY`). */
  equal: number[];
  /** The request's elements after its first `count` non-system ones (undefined when the array does not scan). */
  tailAfter(count: number): ElementSpan[] | undefined;
  /** The elements after the first difference found equal to recorded ones, block by block (`resumedAfter`); undefined when none are. */
  resumed: ResumedElements | undefined;
  /** Where the request has the recorded non-system elements `from` to `to`, when they are there `shift` characters from their recorded place. */
  recordedSpans(from: number, to: number, shift: number): ElementSpan[];
}

/**
 * A run of a request's elements after its first difference that are, byte
 * for byte, whole blocks of the recorded elements (shifted by what was
 * dropped or inserted before them), and the request's other elements
 * around them: only those need reading.
 */
export interface ResumedElements {
  /** The request's non-system elements from the known equal ones (`equal[0]`) up to the run. */
  between: ElementSpan[];
  /** The index of the run's first element among the recorded non-system elements, and how many elements it has. */
  recordedAt: number;
  count: number;
  /** How many characters the run is from its recorded place. */
  shift: number;
  /** The request's elements after the run, to the end. */
  after: ElementSpan[];
}

/** How far (in elements) a block of recorded elements is looked for from its own place: the elements dropped or inserted before it. */
const MAX_SHIFT = 32;

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
        this.#extend(record, hasher, text, layout.p0, tail, 0, stream, messages);
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
    this.#extend(record, hasher, body.text, layout.p0, elements, layout.systemCount, stream, messages);
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
      resumed: resumedAfter(hasher, text, layout, record, best.equal[0]!),
      recordedSpans: (from, to, shift) => {
        const spans: ElementSpan[] = [];
        for (let j = from; j < to; j++) {
          const start = j === 0 ? layout.p0 : skipSpace(text, skipSpace(text, layout.p0 + record.ends[j - 1]! + shift) + 1);
          spans.push({ start: j === 0 ? start + shift : start, end: layout.p0 + record.ends[j]! + shift });
        }
        return spans;
      },
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

  /**
   * Records `spans[first..]` (new elements of `text`, body positions) in `record`, their boundary digests from
   * `stream` and their blocks' marks from `hasher`, and indexes its latest boundaries.
   */
  #extend(
    record: KeptBytes<C>,
    hasher: ByteHasher,
    text: string,
    p0: number,
    spans: readonly ElementSpan[],
    first: number,
    stream: PrefixStream,
    messages: number,
  ): void {
    const added = appendSpans(record, spans, first, p0, stream, (start, end) => hasher.digest(text, start, end));
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
 * bytes, as far as its marks tell: each count known equal, largest first.
 * Hashes each block of the request once, front to back, up to its first
 * unequal block.
 */
function equalElements(hasher: ByteHasher, s: string, p0: number, record: ByteRecord): number[] {
  const equal: number[] = [];
  const endAt = (e: number): number => record.ends[e]!;
  for (let k = 0; k < record.markCount; k++) {
    const { start, end } = markRange(k, endAt);
    if (p0 + end > s.length || !objectEndsAt(s, p0 + end)) return equal;
    if (hasher.digest(s, p0 + start, p0 + end) !== record.marks[k]) return equal;
    equal.unshift((k + 1) * MARK_EVERY);
  }
  return equal;
}

/**
 * The elements after the first `known` of the request `s` that are whole
 * recorded blocks, found by scanning the request's elements from there one
 * by one until a recorded block (at most `MAX_SHIFT` elements from its own
 * place) starts at one of them with equal bytes, then taking the blocks
 * after it at the same shift while their bytes are equal. Bytes equal to a
 * recorded run of whole elements, starting where a request element starts,
 * are those same elements. Undefined when no block is found.
 */
function resumedAfter(hasher: ByteHasher, s: string, layout: BodyLayout, record: ByteRecord, known: number): ResumedElements | undefined {
  const endAt = (e: number): number => record.ends[e]!;
  const firstBlock = known / MARK_EVERY;
  if (!Number.isInteger(firstBlock) || firstBlock >= record.markCount) return undefined;
  const p0 = layout.p0;
  const between: ElementSpan[] = [];
  // `at`: just past the request's element `i - 1` (where a block, with the separator before it, would start).
  let at = p0 + record.ends[known - 1]!;
  for (let i = known; i <= (record.markCount - 1) * MARK_EVERY + MAX_SHIFT; i++) {
    const lowest = Math.max(firstBlock, Math.ceil((i - MAX_SHIFT) / MARK_EVERY));
    const highest = Math.min(record.markCount - 1, Math.floor((i + MAX_SHIFT) / MARK_EVERY));
    for (let k = lowest; k <= highest; k++) {
      // The first block not equal at its own place is known unequal there.
      if (k === firstBlock && i === known) continue;
      let end = blockAt(hasher, s, at, k, record, endAt);
      if (end < 0) continue;
      let last = k;
      while (last + 1 < record.markCount) {
        const next = blockAt(hasher, s, end, last + 1, record, endAt);
        if (next < 0) break;
        end = next;
        last++;
      }
      const after = arrayElements(s, layout.open, end);
      if (after === undefined) return undefined;
      const shift = at - (p0 + markRange(k, endAt).start);
      return { between, recordedAt: k * MARK_EVERY, count: (last - k + 1) * MARK_EVERY, shift, after };
    }
    // The next element of the request, if any.
    let start = skipSpace(s, at);
    if (s.charCodeAt(start) !== 0x2c) return undefined; // `]` or malformed: no block follows
    start = skipSpace(s, start + 1);
    const end = skipValue(s, start);
    if (end < 0) return undefined;
    between.push({ start, end });
    at = end;
  }
  return undefined;
}

/** Where recorded block `k`, placed at `at` in `s` (just past an element), ends when its bytes are there; -1 when not. */
function blockAt(hasher: ByteHasher, s: string, at: number, k: number, record: ByteRecord, endAt: (e: number) => number): number {
  const { start, end } = markRange(k, endAt);
  const to = at + (end - start);
  if (to > s.length || !objectEndsAt(s, to)) return -1;
  return hasher.digest(s, at, to) === record.marks[k] ? to : -1;
}
