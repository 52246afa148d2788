// What a conversation keeps of the bytes it was sent, with no text: the one
// place that decides the byte fields of a conversation record (the Redis
// codec serialises exactly these).
//
// Offsets are relative to p0, the start of the conversation's first
// non-system element of `messages` (Chat, Anthropic) or `input`
// (Responses): leading system elements are left out of the bytes, since
// their content is exempt from the check and often changes between requests.

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
 * Appends element ends (relative to p0, ascending, past the current last)
 * and the digests at the boundaries among them that are now among the
 * latest. Returns the boundary digests that dropped out (to unindex).
 */
export function appendElements(record: ByteRecord, ends: readonly number[], digests: ReadonlyMap<number, bigint>): BoundaryDigest[] {
  if (record.count + ends.length > record.ends.length) {
    const grown = new Uint32Array(Math.max(record.count + ends.length, record.ends.length * 2));
    grown.set(record.ends.subarray(0, record.count));
    record.ends = grown;
  }
  for (const end of ends) record.ends[record.count++] = end;
  for (const end of ends) {
    const digest = digests.get(end);
    if (digest !== undefined) record.boundaries.push({ length: end, digest });
  }
  const dropped =
    record.boundaries.length > BOUNDARY_DIGESTS ? record.boundaries.splice(0, record.boundaries.length - BOUNDARY_DIGESTS) : [];
  return dropped;
}

/** Where block `k`'s bytes lie, relative to p0, by the ends `endAt` gives (an element's end by its index). */
export function markRange(k: number, endAt: (element: number) => number): { start: number; end: number } {
  return { start: k === 0 ? 0 : endAt(k * MARK_EVERY - 1), end: endAt((k + 1) * MARK_EVERY - 1) };
}

/** The ranges (relative to p0) of the blocks that `ends`, about to be appended to `record`, complete (ascending). */
export function markRanges(record: ByteRecord, ends: readonly number[]): { start: number; end: number }[] {
  const endAt = (e: number): number => (e < record.count ? record.ends[e]! : ends[e - record.count]!);
  const ranges: { start: number; end: number }[] = [];
  for (let k = record.markCount; (k + 1) * MARK_EVERY <= record.count + ends.length; k++) ranges.push(markRange(k, endAt));
  return ranges;
}

/** Appends the marks of the blocks `markRanges` gave, in order. */
export function appendMarks(record: ByteRecord, digests: readonly bigint[]): void {
  if (record.markCount + digests.length > record.marks.length) {
    const grown = new BigUint64Array(Math.max(record.markCount + digests.length, record.marks.length * 2));
    grown.set(record.marks.subarray(0, record.markCount));
    record.marks = grown;
  }
  for (const digest of digests) record.marks[record.markCount++] = digest;
}

/** The ends of the last `BOUNDARY_DIGESTS` of `ends` (those whose digests a record keeps). */
export function latestBoundaries(ends: readonly number[]): readonly number[] {
  return ends.length <= BOUNDARY_DIGESTS ? ends : ends.slice(ends.length - BOUNDARY_DIGESTS);
}
