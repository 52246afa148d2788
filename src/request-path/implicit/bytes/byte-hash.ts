// The one place that decides how the bytes of a serialised body are hashed:
// xxh64 (the `xxhash-wasm` package, WebAssembly) over the UTF-8 encoding of
// a range of the body string. docs/performance.md says why this hash.
//
// The WebAssembly module is compiled once, asynchronously, when the first
// request asks for it. Until it is ready (and for good, if it cannot be
// loaded) `byteHasher()` is undefined and requests take the rules' path,
// which reads them whole: the hash only ever makes a check cheaper.
//
// Ranges are given in UTF-16 code units of the body string and are always
// cut at structural characters of the JSON (a `,`, `[` or `]`), never inside
// a surrogate pair, so hashing a range in pieces gives the digest of the
// whole. A lone surrogate encodes as U+FFFD: two bodies that differ only in
// which lone surrogate they carry hash alike. `JSON.stringify` (which every
// SDK uses) escapes lone surrogates, so its bodies never carry one.

import { warnOnce } from '../../../warnings';

interface XXHash64Stream {
  update(input: string): XXHash64Stream;
  digest(): bigint;
}
interface XXHashModule {
  h64(input: string): bigint;
  create64(): XXHash64Stream;
}

/** Hashes ranges of a body string. */
export interface ByteHasher {
  /** The xxh64 of `s[start, end)`. */
  digest(s: string, start: number, end: number): bigint;
  /** A stream over `s` from `start`: each `digestTo(end)` extends it to `end` (never backwards) and digests. */
  stream(s: string, start: number): PrefixStream;
}

/** The digest of a growing range of one string, hashed once front to back. */
export interface PrefixStream {
  /** Where the hashed range ends now. */
  readonly end: number;
  /** Extends the range to `end` (at or past the current end) and returns its digest. */
  digestTo(end: number): bigint;
}

let hasher: ByteHasher | undefined;
let loading: Promise<ByteHasher | undefined> | undefined;

/** The hasher, once its module is compiled; undefined before (the first call starts compiling it) or if it failed. */
export function byteHasher(): ByteHasher | undefined {
  if (hasher === undefined && loading === undefined) void loadByteHasher();
  return hasher;
}

/** Compiles the hash module once; resolves to the hasher, or undefined if it cannot be loaded (warned once). */
export function loadByteHasher(): Promise<ByteHasher | undefined> {
  loading ??= import('xxhash-wasm')
    .then((module) => module.default())
    .then(
      (xx: XXHashModule) => (hasher = hasherOf(xx)),
      (error: unknown) => {
        warnOnce('byte-hash', `the byte hash could not be loaded, so requests with no session bound are read whole: ${String(error)}`);
        return undefined;
      },
    );
  return loading;
}

function hasherOf(xx: XXHashModule): ByteHasher {
  return {
    digest: (s, start, end) => xx.h64(start === 0 && end === s.length ? s : s.slice(start, end)),
    stream(s, start) {
      const state = xx.create64();
      let at = start;
      return {
        get end() {
          return at;
        },
        digestTo(end) {
          if (end < at) throw new RangeError('a prefix stream only grows');
          if (end > at) state.update(s.slice(at, end));
          at = end;
          return state.digest();
        },
      };
    },
  };
}
