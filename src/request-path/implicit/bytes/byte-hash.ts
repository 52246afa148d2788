// The one place that decides how the bytes of a serialised body are hashed:
// xxh64 (the `xxhash-wasm` package, WebAssembly) over a range of the body
// string. docs/performance.md says why this hash, and gives its floors.
//
// The encoding of a range is decided by its content, so equal text always
// hashes alike: a range with no code unit above 0xFF (`narrow`) is hashed
// as its UTF-8 (written by `TextEncoder.encodeInto` straight into the
// module's memory, fast for such strings); a range with one (`wide`) as its
// UTF-16LE code units, with another seed. Both encodings are one-to-one, and
// the seeds keep a narrow and a wide range from sharing a digest, so equal
// digests still mean equal text. UTF-16LE is there because V8 encodes a
// two-byte string to UTF-8 at about a nanosecond a character (250 µs for a
// 1,000-message body, half its `JSON.stringify`), where copying its code
// units out is a memory copy; the hash then reads twice the bytes, which
// still costs a fifth of that.
//
// The WebAssembly module is compiled once, asynchronously, when the first
// request asks for it. Until it is ready (and for good, if it cannot be
// loaded) `byteHasher()` is undefined and requests take the rules' path,
// which reads them whole: the hash only ever makes a check cheaper.
//
// Ranges are given in UTF-16 code units of the body string and are always
// cut at structural characters of the JSON (a `,`, `[` or `]`), never inside
// a surrogate pair, so hashing a range in pieces gives the digest of the
// whole. In a narrow range a lone surrogate cannot occur; in a wide one it
// is hashed as its code unit. `JSON.stringify` (which every SDK uses)
// escapes lone surrogates, so its bodies never carry one.

import { warnOnce } from '../../../warnings';

interface XXHash64Stream {
  update(input: string | Uint8Array): XXHash64Stream;
  digest(): bigint;
}
interface XXHashModule {
  h64(input: string): bigint;
  create64(seed?: bigint): XXHash64Stream;
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

/** The seed of wide ranges (hashed as UTF-16LE): narrow ranges use xxh64's default, 0. */
const WIDE_SEED = 0x5554_462d_3136n; // "UTF-16"

/** A code unit above 0xFF. V8 answers at once for a string it holds one byte a character (it cannot match). */
const WIDE = /[^\0-\xff]/g;
const HAS_WIDE = /[^\0-\xff]/;

/** Where the first code unit above 0xFF is in `s` at or after `from`, or `s.length` when there is none. */
function firstWide(s: string, from: number): number {
  WIDE.lastIndex = from;
  return WIDE.test(s) ? WIDE.lastIndex - 1 : s.length;
}

/** Characters copied out per piece when hashing a wide range (a reused buffer of twice as many bytes, small enough to stay in cache). */
const WIDE_CHUNK = 16_384;
const wideBuffer = Buffer.allocUnsafe(2 * WIDE_CHUNK);

/** Feeds the UTF-16LE code units of `s[start, end)` to `state`, a piece at a time. */
function updateWide(state: XXHash64Stream, s: string, start: number, end: number): void {
  for (let at = start; at < end; at += WIDE_CHUNK) {
    const written = wideBuffer.write(s.slice(at, Math.min(end, at + WIDE_CHUNK)), 0, 'utf16le');
    state.update(wideBuffer.subarray(0, written));
  }
}

function hasherOf(xx: XXHashModule): ByteHasher {
  return {
    digest(s, start, end) {
      const range = start === 0 && end === s.length ? s : s.slice(start, end);
      if (!HAS_WIDE.test(range)) return xx.h64(range);
      const state = xx.create64(WIDE_SEED);
      updateWide(state, s, start, end);
      return state.digest();
    },
    stream(s, start) {
      let state: XXHash64Stream | undefined;
      let wideAt = s.length;
      let wide = false;
      let at = start;
      return {
        get end() {
          return at;
        },
        digestTo(end) {
          if (end < at) throw new RangeError('a prefix stream only grows');
          if (state === undefined) {
            wideAt = firstWide(s, start);
            state = xx.create64();
          }
          if (!wide && end > wideAt) {
            // The range now holds a wide code unit: it is hashed as UTF-16LE from its start.
            wide = true;
            state = xx.create64(WIDE_SEED);
            updateWide(state, s, start, end);
          } else if (end > at) {
            if (wide) updateWide(state, s, at, end);
            else state.update(s.slice(at, end));
          }
          at = end;
          return state.digest();
        },
      };
    },
  };
}
