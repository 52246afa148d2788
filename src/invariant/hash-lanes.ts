// The hashing primitives under a fingerprint: the tags that keep kinds of
// value apart, and the two-lane hash state every value is mixed into
// (fingerprint.ts says what a message hashes as, value-hash.ts how a value is
// walked). The one place that decides the hash function.

// Tags keep values of different kinds apart ("1" the string and 1 the number, say).
export const T_NULL = 0x01;
export const T_STRING = 0x02;
export const T_NUMBER = 0x03;
export const T_TRUE = 0x04;
export const T_FALSE = 0x05;
export const T_ARRAY = 0x06;
export const T_OBJECT = 0x07;
export const T_OTHER = 0x09;
export const T_CYCLE = 0x0a;
export const T_TOO_LONG = 0x0b;
export const T_MESSAGE = 0x0c;
export const T_NOT_A_MESSAGE = 0x0d;
export const T_ARGS_TEXT = 0x0f;
export const T_CALLS = 0x10;
export const T_NOT_A_LIST = 0x11;
export const T_PAIR = 0x12;
export const T_CALL = 0x13;

// Two 32-bit lanes (cyrb53-style). `seed` and `mix` work on one shared
// state instead of allocating one per value: hashing runs once per message
// of every request, so it must not feed the garbage collector. A caller
// either hashes nested values before it seeds its own state, or saves and
// restores the state around them (`sequence`).

/** The state, one for the process: fingerprints are computed one at a time. */
export const lanes = { a: 0, b: 0 };

export function seed(tag: number): void {
  lanes.a = Math.imul(0xdeadbeef ^ tag, 2654435761);
  lanes.b = Math.imul(0x41c6ce57 ^ tag, 1597334677);
}

/** Mixes a 53-bit integer into the state. */
export function mix(n: number): void {
  // For a non-negative integer below 2**53: ToUint32 is the low word, and the quotient truncates to the high one.
  const lo = n >>> 0;
  const hi = (n / 0x100000000) | 0;
  lanes.a = Math.imul(Math.imul(lanes.a ^ lo, 2654435761) ^ hi, 1597334677);
  lanes.b = Math.imul(Math.imul(lanes.b ^ lo, 1597334677) ^ hi, 2654435761);
}

/** The state as a 53-bit integer. */
export function finish(): number {
  return finishLanes(lanes.a, lanes.b);
}

function finishLanes(a: number, b: number): number {
  a = Math.imul(a ^ (a >>> 16), 2246822507);
  a ^= Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507);
  b ^= Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

export function hashString(s: string, tag: number): number {
  return hashRange(s, 0, s.length, tag);
}

/**
 * The hash of `s.slice(start, end)`, without the slice. Two UTF-16 units per
 * step: the loop runs once per pair of characters, which halves the
 * multiplications.
 */
export function hashRange(s: string, start: number, end: number, tag: number): number {
  let a = 0xdeadbeef ^ tag;
  let b = 0x41c6ce57 ^ (end - start);
  const even = start + ((end - start) & ~1);
  for (let i = start; i < even; i += 2) {
    const pair = (s.charCodeAt(i) << 16) | s.charCodeAt(i + 1);
    a = Math.imul(a ^ pair, 2654435761);
    b = Math.imul(b ^ pair, 1597334677);
  }
  if (even !== end) {
    const last = s.charCodeAt(even);
    a = Math.imul(a ^ last, 2654435761);
    b = Math.imul(b ^ last, 1597334677);
  }
  return finishLanes(a, b);
}

const numberView = new Float64Array(1);
const numberWords = new Int32Array(numberView.buffer);

/** The bits of a double folded to 32 (0 and -0 alike, as `===` has them). */
export function numberBits(n: number): number {
  numberView[0] = n === 0 ? 0 : n;
  return (numberWords[0]! ^ Math.imul(numberWords[1]!, 0x9e3779b1)) >>> 0;
}

/** The hash of one already-hashed value under a tag. */
export function tagged(tag: number, value: number): number {
  seed(tag);
  mix(value);
  return finish();
}
