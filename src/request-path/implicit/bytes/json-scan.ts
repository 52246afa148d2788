// A structural scan of a serialised JSON body: where a top-level value is and
// where the elements of an array begin and end, without parsing anything.
// Only structural characters are looked at; strings are skipped with
// `indexOf` to their closing quote. The input is the string an SDK is about
// to send, usually `JSON.stringify` output, but whitespace is allowed
// wherever JSON allows it. Malformed input gives -1, never a throw: the
// caller then reads the request the slow way (the rules), which reports it
// as it always did.

const QUOTE = 0x22; // "
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The index of the first non-whitespace character at or after `i`. */
export function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string whose opening quote is at `i`, or -1. */
function skipString(s: string, i: number): number {
  let at = i + 1;
  for (;;) {
    const close = s.indexOf('"', at);
    if (close < 0) return -1;
    // A quote is escaped when an odd number of backslashes precede it.
    let slashes = 0;
    for (let k = close - 1; k > i && s.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if ((slashes & 1) === 0) return close + 1;
    at = close + 1;
  }
}

/**
 * The index just past the JSON value that starts at `i` (no leading
 * whitespace), or -1 if there is none. Objects and arrays are skipped by
 * bracket depth; strings inside them by their quotes.
 */
export function skipValue(s: string, i: number): number {
  const first = s.charCodeAt(i);
  if (first === QUOTE) return skipString(s, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    let at = i;
    while (at < s.length) {
      const code = s.charCodeAt(at);
      if (code === QUOTE) {
        at = skipString(s, at);
        if (at < 0) return -1;
        continue;
      }
      if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return at + 1;
      }
      at++;
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let at = i;
  while (at < s.length) {
    const code = s.charCodeAt(at);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    at++;
  }
  return at > i ? at : -1;
}

/**
 * The index where the value of `key` starts in the JSON object that starts
 * at `start` in `s` (by default the body itself), or -1 (no such key, not an
 * object, malformed). Other values are skipped, not read. Keys are compared
 * as they are written: a key spelled with escapes is not found, and the slow
 * path reads the request instead.
 */
export function topLevelValue(s: string, key: string, start = 0): number {
  let at = skipSpace(s, start);
  if (s.charCodeAt(at) !== OPEN_BRACE) return -1;
  at = skipSpace(s, at + 1);
  if (s.charCodeAt(at) === CLOSE_BRACE) return -1;
  for (;;) {
    if (s.charCodeAt(at) !== QUOTE) return -1;
    const keyEnd = skipString(s, at);
    if (keyEnd < 0) return -1;
    const matches = keyEnd - at - 2 === key.length && s.startsWith(key, at + 1);
    at = skipSpace(s, keyEnd);
    if (s.charCodeAt(at) !== COLON) return -1;
    at = skipSpace(s, at + 1);
    if (matches) return at < s.length ? at : -1;
    at = skipValue(s, at);
    if (at < 0) return -1;
    at = skipSpace(s, at);
    const next = s.charCodeAt(at);
    if (next === CLOSE_BRACE) return -1;
    if (next !== COMMA) return -1;
    at = skipSpace(s, at + 1);
  }
}

/** Where one element of an array lies in the body: `[start, end)`. */
export interface ElementSpan {
  start: number;
  end: number;
}

/**
 * The elements of the array whose `[` is at `open`, in order, or undefined
 * if it is not a well-formed array. `from`, when given, is a position just
 * past an element already known (its end): only the elements after it are
 * scanned, which is what reading a request's new tail costs.
 */
export function arrayElements(s: string, open: number, from?: number): ElementSpan[] | undefined {
  const spans: ElementSpan[] = [];
  let at: number;
  if (from === undefined) {
    if (s.charCodeAt(open) !== OPEN_BRACKET) return undefined;
    at = skipSpace(s, open + 1);
    if (s.charCodeAt(at) === CLOSE_BRACKET) return spans;
  } else {
    at = skipSpace(s, from);
    if (s.charCodeAt(at) === CLOSE_BRACKET) return spans;
    if (s.charCodeAt(at) !== COMMA) return undefined;
    at = skipSpace(s, at + 1);
  }
  for (;;) {
    const end = skipValue(s, at);
    if (end < 0) return undefined;
    spans.push({ start: at, end });
    at = skipSpace(s, end);
    const next = s.charCodeAt(at);
    if (next === CLOSE_BRACKET) return spans;
    if (next !== COMMA) return undefined;
    at = skipSpace(s, at + 1);
  }
}

/**
 * Whether an object element of an array may end just before `at`: `}` at
 * `at - 1`, then (after whitespace) `]`, or `,` and the `{` of another
 * object. Conversation arrays hold objects, so this is where a kept length
 * can be a boundary of the request too; inside a message it matches only
 * between objects of a nested list.
 */
export function objectEndsAt(s: string, at: number): boolean {
  if (s.charCodeAt(at - 1) !== CLOSE_BRACE) return false;
  const next = skipSpace(s, at);
  const code = s.charCodeAt(next);
  return code === CLOSE_BRACKET || (code === COMMA && s.charCodeAt(skipSpace(s, next + 1)) === OPEN_BRACE);
}
