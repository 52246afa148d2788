// What a conversation keeps of the bytes it was sent, with no text: the one
// place that decides the byte fields of a conversation record (the Redis
// codec serialises exactly these).
//
// Offsets are relative to p0, the start of the conversation's first
// non-system element of `messages` (Chat, Anthropic) or `input`
// (Responses): leading system elements are left out of the bytes, since
// their content is exempt from the check and often changes between requests.

import type { PrefixStream } from './byte-hash';
import type { ElementSpan } from './json-scan';

/** How many of the latest element boundaries keep the digest of the bytes up to them. */
export const BOUNDARY_DIGESTS = 4;

/**
 * Every how many elements a conversation keeps a mark: the digest of the
 * bytes of one block of `MARK_EVERY` elements, from the end of the element
 * before the block (the separator included) to the end of its last element.
 * A request that does not extend the bytes is compared block by block: the
 * blocks equal at their place are the elements before its first difference,
 * and a block found equal further on (shifted by the elements dropped or
 * inserted) is part of what follows the difference; neither is read (the
 * violation path, divergence.ts, reads the rest). 8 bytes per 16 messages.
 */
export const MARK_EVERY = 16;

/** The digest of the bytes `[p0, p0 + length)`, at an element boundary. */
export interface BoundaryDigest {
  readonly length: number;
  readonly digest: bigint;
}

/** A conversation's bytes, as fingerprints of them. */
export interface ByteRecord {
  /** The xxh64 of the first non-system element's bytes: the key the conversation is found by. */
  readonly key: bigint;
  /** Each element's end, relative to p0, in order; `count` of them are in use. */
  ends: Uint32Array;
  count: number;
  /** The digests at the last `BOUNDARY_DIGESTS` element ends, oldest first: the newest is the bytes seen so far. */
  boundaries: BoundaryDigest[];
  /** `marks[k]`: the digest of block `k`'s bytes (`markRange`); `markCount` of them are in use. */
  marks: BigUint64Array;
  markCount: number;
}

/** A record for a conversation whose first non-system element's bytes hash to `key`, with no elements yet. */
export function newByteRecord(key: bigint): ByteRecord {
  return { key, ends: new Uint32Array(8), count: 0, boundaries: [], marks: new BigUint64Array(2), markCount: 0 };
}

/** The length of the bytes the conversation has been sent (from p0 to the end of its last element). */
export function bytesSeen(record: ByteRecord): number {
  return record.count === 0 ? 0 : record.ends[record.count - 1]!;
}

/**
 * Appends the ends of `spans[first..]` (the elements a request added; body
 * positions, `p0` where the record's bytes start) and, in the same pass, the
 * digests the record keeps among them: a mark for each block of
 * `MARK_EVERY` elements they complete, from `block` (the digest of a range
 * of the body), and a boundary digest at each of the latest
 * `BOUNDARY_DIGESTS`, taken from `stream` (over the body from p0, at or
 * before the first new end), front to back. Returns how many boundary digests it added: they are the last of
 * `record.boundaries`, which may now hold more than `BOUNDARY_DIGESTS`; the
 * caller unindexes the oldest and drops them.
 */
export function appendSpans(
  record: ByteRecord,
  spans: readonly ElementSpan[],
  first: number,
  p0: number,
  stream: PrefixStream,
  block: (start: number, end: number) => bigint,
): number {
  const added = spans.length - first;
  const total = record.count + added;
  if (total > record.ends.length) {
    const grown = new Uint32Array(Math.max(total, record.ends.length * 2));
    grown.set(record.ends.subarray(0, record.count));
    record.ends = grown;
  }
  const marks = Math.floor(total / MARK_EVERY);
  if (marks > record.marks.length) {
    const grown = new BigUint64Array(Math.max(marks, record.marks.length * 2));
    grown.set(record.marks.subarray(0, record.markCount));
    record.marks = grown;
  }
  const latestFrom = total - BOUNDARY_DIGESTS;
  let boundaries = 0;
  for (let i = first; i < spans.length; i++) {
    const index = record.count;
    const end = spans[i]!.end - p0;
    record.ends[record.count++] = end;
    if ((index + 1) % MARK_EVERY === 0) {
      const start = markRange(record.markCount, (e) => record.ends[e]!).start;
      record.marks[record.markCount++] = block(p0 + start, p0 + end);
    }
    if (index < latestFrom) continue;
    record.boundaries.push({ length: end, digest: stream.digestTo(p0 + end) });
    boundaries++;
  }
  return boundaries;
}

/** Where block `k`'s bytes lie, relative to p0, by the ends `endAt` gives (an element's end by its index). */
export function markRange(k: number, endAt: (element: number) => number): { start: number; end: number } {
  return { start: k === 0 ? 0 : endAt(k * MARK_EVERY - 1), end: endAt((k + 1) * MARK_EVERY - 1) };
}
