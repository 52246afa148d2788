// Finds the kept conversation whose bytes a request's bytes start with, the
// longest first. Conversations are grouped by the key of their first
// non-system element; within a group, by the lengths at which they keep a
// boundary digest, then by that digest. A request is hashed once, front to
// back, and digested only at the kept lengths where it has an element
// boundary too (a `,` or `]` follows): the lengths of other conversations
// that start alike cost one character comparison each, and a hash is taken
// where the request could end an element there, so the cost does not grow
// with how many are kept or how many start alike beyond that comparison.

import type { ByteHasher, PrefixStream } from './byte-hash';
import { objectEndsAt } from './json-scan';

interface Group<T> {
  /** The lengths at which some member keeps a digest, ascending, each once. */
  lengths: number[];
  /** By length, then digest: the member whose bytes up to that length hash so. */
  at: Map<number, Map<bigint, T>>;
}

/** A match: the member, how many bytes from p0 it shares with the request, and the stream that hashed them. */
export interface PrefixMatch<T> {
  value: T;
  length: number;
  digest: bigint;
  /** The request's stream; at `p0 + length` unless a longer kept length was hashed on the way (then `restream`). */
  stream: PrefixStream;
}

export class PrefixIndex<T> {
  readonly #groups = new Map<bigint, Group<T>>();

  /** Keeps `value` under `key` at `length` with `digest`; one value per (key, length, digest), the latest added. */
  add(key: bigint, length: number, digest: bigint, value: T): void {
    let group = this.#groups.get(key);
    if (group === undefined) {
      group = { lengths: [], at: new Map() };
      this.#groups.set(key, group);
    }
    let byDigest = group.at.get(length);
    if (byDigest === undefined) {
      byDigest = new Map();
      group.at.set(length, byDigest);
      insertSorted(group.lengths, length);
    }
    byDigest.set(digest, value);
  }

  /** Forgets `value` at (key, length, digest), if it is the one kept there. */
  delete(key: bigint, length: number, digest: bigint, value: T): void {
    const group = this.#groups.get(key);
    const byDigest = group?.at.get(length);
    if (group === undefined || byDigest === undefined || byDigest.get(digest) !== value) return;
    byDigest.delete(digest);
    if (byDigest.size > 0) return;
    group.at.delete(length);
    group.lengths.splice(group.lengths.indexOf(length), 1);
    if (group.lengths.length === 0) this.#groups.delete(key);
  }

  /** Keeps only the entries `keep` accepts; returns how many are left. */
  retain(keep: (value: T, key: bigint, length: number, digest: bigint) => boolean): number {
    let left = 0;
    for (const [key, group] of this.#groups) {
      for (const [length, byDigest] of group.at) {
        for (const [digest, value] of byDigest) {
          if (keep(value, key, length, digest)) left++;
          else byDigest.delete(digest);
        }
        if (byDigest.size === 0) {
          group.at.delete(length);
          group.lengths.splice(group.lengths.indexOf(length), 1);
        }
      }
      if (group.lengths.length === 0) this.#groups.delete(key);
    }
    return left;
  }

  /** How many keys have members (for tests and the heap figure). */
  get keys(): number {
    return this.#groups.size;
  }

  /**
   * The member under `key` whose kept bytes the body `s` carries from `p0`,
   * the longest, or undefined. `limit` bounds where the request's elements
   * can end (the end of its array, or the body's length). `started`, when
   * given, is the body's stream from `p0` (at or before the first element's
   * end), which the lookup goes on with.
   */
  longest(hasher: ByteHasher, s: string, p0: number, key: bigint, limit: number, started?: PrefixStream): PrefixMatch<T> | undefined {
    const group = this.#groups.get(key);
    if (group === undefined) return undefined;
    let stream = started;
    let best: PrefixMatch<T> | undefined;
    for (const length of group.lengths) {
      const end = p0 + length;
      if (end > limit) break;
      if (!objectEndsAt(s, end)) continue;
      stream ??= hasher.stream(s, p0);
      const digest = stream.digestTo(end);
      const value = group.at.get(length)!.get(digest);
      if (value !== undefined) best = { value, length, digest, stream };
    }
    return best;
  }
}

/** A stream over `s` from `p0` at `p0 + match.length`: the match's own, or a new one when a longer length was hashed past it. */
export function restream<T>(hasher: ByteHasher, s: string, p0: number, match: PrefixMatch<T>): PrefixStream {
  if (match.stream.end === p0 + match.length) return match.stream;
  const stream = hasher.stream(s, p0);
  stream.digestTo(p0 + match.length);
  return stream;
}

function insertSorted(xs: number[], x: number): void {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  xs.splice(lo, 0, x);
}
