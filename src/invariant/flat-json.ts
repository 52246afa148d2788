// Tool-call arguments are JSON text, fingerprinted as the value they parse
// to. Most are one flat object of strings, numbers, booleans and nulls
// (`{"city":"Paris"}`): read here in place, as positions in the text, they
// are hashed without `JSON.parse` building an object to walk. Anything else
// (nesting, escapes, a repeated key, a malformed text) is left to
// `JSON.parse`, so this reading never has to agree with it on a hard case.

/** What a value in a flat object is (the kind `readFlatObject` writes). */
export const FLAT_STRING = 0;
export const FLAT_NUMBER = 1;
export const FLAT_TRUE = 2;
export const FLAT_FALSE = 3;
export const FLAT_NULL = 4;

/** Keys read in place at most: a larger object is left to `JSON.parse` (repeated keys are looked for pairwise). */
const MAX_KEYS = 16;

/**
 * Reads `text` as a flat JSON object into `out`, five numbers per key: the
 * key's start and end (its characters, quotes excluded), the value's kind,
 * start and end (a string's characters, quotes excluded; a literal's text).
 * Returns the number of keys, or -1 when the text is anything else than a
 * flat object with distinct keys whose strings hold no escape.
 */
export function readFlatObject(text: string, out: number[]): number {
  const n = text.length;
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 0x7b /* { */) return -1;
  i = skipSpace(text, i + 1);
  let keys = 0;
  if (text.charCodeAt(i) === 0x7d /* } */) return skipSpace(text, i + 1) === n ? 0 : -1;
  for (;;) {
    if (keys === MAX_KEYS || text.charCodeAt(i) !== 0x22 /* " */) return -1;
    const keyStart = i + 1;
    const keyEnd = stringEnd(text, keyStart);
    if (keyEnd < 0) return -1;
    i = skipSpace(text, keyEnd + 1);
    if (text.charCodeAt(i) !== 0x3a /* : */) return -1;
    i = skipSpace(text, i + 1);
    const c = text.charCodeAt(i);
    let kind: number;
    let valueStart = i;
    let valueEnd: number;
    if (c === 0x22) {
      kind = FLAT_STRING;
      valueStart = i + 1;
      valueEnd = stringEnd(text, valueStart);
      if (valueEnd < 0) return -1;
      i = valueEnd + 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      kind = FLAT_NUMBER;
      valueEnd = numberEnd(text, i);
      if (valueEnd < 0) return -1;
      i = valueEnd;
    } else if (text.startsWith('true', i)) {
      kind = FLAT_TRUE;
      i = valueEnd = i + 4;
    } else if (text.startsWith('false', i)) {
      kind = FLAT_FALSE;
      i = valueEnd = i + 5;
    } else if (text.startsWith('null', i)) {
      kind = FLAT_NULL;
      i = valueEnd = i + 4;
    } else return -1;
    for (let k = 0; k < keys; k++) if (sameRange(text, out[k * 5]!, out[k * 5 + 1]!, keyStart, keyEnd)) return -1;
    const at = keys * 5;
    out[at] = keyStart;
    out[at + 1] = keyEnd;
    out[at + 2] = kind;
    out[at + 3] = valueStart;
    out[at + 4] = valueEnd;
    keys++;
    i = skipSpace(text, i);
    const next = text.charCodeAt(i);
    if (next === 0x7d) return skipSpace(text, i + 1) === n ? keys : -1;
    if (next !== 0x2c /* , */) return -1;
    i = skipSpace(text, i + 1);
  }
}

/** JSON whitespace: space, tab, line feed, carriage return. */
function skipSpace(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** The position of the closing quote of a string starting at `i`, or -1 for an escape, a control character or no end. */
function stringEnd(text: string, i: number): number {
  for (const n = text.length; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i;
    if (c === 0x5c /* \ */ || c < 0x20) return -1;
  }
  return -1;
}

/** The end of a JSON number starting at `i` (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?), or -1. */
function numberEnd(text: string, i: number): number {
  if (text.charCodeAt(i) === 0x2d) i++;
  if (text.charCodeAt(i) === 0x30) i++;
  else if (isDigit(text.charCodeAt(i))) while (isDigit(text.charCodeAt(i))) i++;
  else return -1;
  if (text.charCodeAt(i) === 0x2e /* . */) {
    if (!isDigit(text.charCodeAt(++i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45 /* e E */) {
    const sign = text.charCodeAt(++i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) return -1;
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function sameRange(text: string, a: number, aEnd: number, b: number, bEnd: number): boolean {
  if (aEnd - a !== bEnd - b) return false;
  for (; a < aEnd; a++, b++) if (text.charCodeAt(a) !== text.charCodeAt(b)) return false;
  return true;
}
