// A 53-bit structural hash per message such that two messages that match
// (`messagesMatch`) always get the same fingerprint. The check uses it only
// after a mismatch, to pair the messages it cannot line up; the implicit
// conversation log keeps fingerprints instead of message text.

import { jsonOfDate } from '../log/json-safe';
import { FLAT_FALSE, FLAT_NUMBER, FLAT_STRING, FLAT_TRUE, readFlatObject } from './flat-json';
import { CACHE_MARKER, NO_ARGUMENTS, isEmptyContent, parseJson, singleText } from './message-equality';

/** A message's fingerprint: an integer in [0, 2**53). */
export type Fingerprint = number;

/** Every system message has this fingerprint: system content is never compared. */
export const SYSTEM_FINGERPRINT: Fingerprint = 1;

/** Options of `fingerprintOf`. The check passes none; the implicit log sets `ignoreToolResultName` (docs/behaviour.md §4.2). */
export interface FingerprintOptions {
  /**
   * Leave the name of tool messages out. Providers send no name with a tool
   * result; adapters derive it from the call, so on the request side it
   * repeats what the call already says.
   */
  ignoreToolResultName?: boolean;
}

/**
 * The fingerprint of a request entry or fold message. Hashes role, content,
 * tool calls, tool call id and name, with the equalities `messagesMatch`
 * applies (a string and its one-text-part list, JSON-string and parsed tool
 * arguments, absent and null, empty assistant content, no assistant name);
 * object key order never matters. Any value is accepted: malformed entries
 * get a fingerprint of their own. Linear in the entry's size even for shared
 * sub-structures, and never throws for a plain value (a throwing getter does
 * throw; callers guard).
 */
export function fingerprintOf(entry: unknown, options: FingerprintOptions = {}): Fingerprint {
  if (typeof entry !== 'object' || entry === null) return tagged(T_NOT_A_MESSAGE, hashValue(entry, newWalk()));
  const m = entry as Record<string, unknown>;
  const role = m.role;
  if (role === 'system') return SYSTEM_FINGERPRINT;
  const walk = newWalk();
  // Every part is hashed before the message's own state is seeded: nested hashing reuses the state.
  const roleHash = typeof role === 'string' ? hashString(role, T_STRING) : hashValue(role, walk);
  const contentPart = contentHash(m.content, role === 'assistant', walk);
  const callsPart = toolCallsHash(m.toolCalls, walk);
  const idPart = hashValue(m.toolCallId ?? null, walk);
  const name = role === 'assistant' || (role === 'tool' && options.ignoreToolResultName) ? null : (m.name ?? null);
  const namePart = hashValue(name, walk);
  seed(T_MESSAGE);
  mix(roleHash);
  mix(contentPart);
  mix(callsPart);
  mix(idPart);
  mix(namePart);
  const fingerprint = finish();
  return fingerprint === SYSTEM_FINGERPRINT ? fingerprint + 1 : fingerprint;
}

// Tags keep values of different kinds apart ("1" the string and 1 the number, say).
const T_NULL = 0x01;
const T_STRING = 0x02;
const T_NUMBER = 0x03;
const T_TRUE = 0x04;
const T_FALSE = 0x05;
const T_ARRAY = 0x06;
const T_OBJECT = 0x07;
const T_OTHER = 0x09;
const T_CYCLE = 0x0a;
const T_TOO_LONG = 0x0b;
const T_MESSAGE = 0x0c;
const T_NOT_A_MESSAGE = 0x0d;
const T_ARGS_TEXT = 0x0f;
const T_CALLS = 0x10;
const T_NOT_A_LIST = 0x11;
const T_PAIR = 0x12;
const T_CALL = 0x13;

/** Arrays longer than this are hashed by length alone: a sparse `length = 2**32 - 1` must not be walked. */
const MAX_HASHED_ARRAY = 1_000_000;
/** Nodes one fingerprint walks before it starts remembering shared objects (a DAG would otherwise cost exponential time). */
const NODES_BEFORE_MEMO = 10_000;

/**
 * Levels of nesting hashed by recursion; deeper values (valid JSON may nest
 * 100,000 levels) are hashed by `hashDeep`, to the same hash, so no depth
 * exhausts the call stack.
 */
const RECURSION_DEPTH = 200;

interface Walk {
  nodes: number;
  /** The objects being hashed, outermost first: meeting one again is a cycle. */
  path: object[];
  /** `path` as a set, while `hashDeep` walks a path too long to search. */
  onPath: Set<object> | undefined;
  memo: Map<object, number> | undefined;
}

function newWalk(): Walk {
  return { nodes: 0, path: [], onPath: undefined, memo: undefined };
}

function contentHash(content: unknown, assistant: boolean, walk: Walk): number {
  if (content === undefined || content === null || (assistant && isEmptyContent(content))) return T_NULL;
  if (typeof content === 'string') return hashString(content, T_STRING);
  const text = singleText(content);
  if (text !== undefined) return hashString(text, T_STRING);
  return Array.isArray(content) ? sequence(T_ARRAY, content, walk, partHash) : hashValue(content, walk);
}

/** A content part hashes without its prompt-cache marker, which `messagesMatch` does not compare. */
function partHash(part: unknown, walk: Walk): number {
  if (typeof part !== 'object' || part === null || Array.isArray(part) || part instanceof Date || !(CACHE_MARKER in part))
    return hashValue(part, walk);
  const { [CACHE_MARKER]: _marker, ...rest } = part as Record<string, unknown>;
  return hashValue(rest, walk);
}

function toolCallsHash(toolCalls: unknown, walk: Walk): number {
  if (toolCalls === undefined || toolCalls === null) return T_CALLS;
  if (!Array.isArray(toolCalls)) return tagged(T_NOT_A_LIST, hashValue(toolCalls, walk));
  if (toolCalls.length === 0) return T_CALLS;
  return sequence(T_CALLS, toolCalls, walk, toolCallHash);
}

function toolCallHash(call: unknown, walk: Walk): number {
  if (typeof call !== 'object' || call === null) return hashValue(call, walk);
  const c = call as Record<string, unknown>;
  const id = hashValue(c.id, walk);
  const name = hashValue(c.name, walk);
  const args = argumentsHash(c.arguments, walk);
  seed(T_CALL);
  mix(id);
  mix(name);
  mix(args);
  return finish();
}

/** A JSON string hashes as the value it parses to, so it matches that value in any spacing or key order. */
function argumentsHash(args: unknown, walk: Walk): number {
  // A value hashes as `hashValue` has it, a text that is not JSON under a tag of its own.
  if (typeof args !== 'string') return hashValue(args === undefined ? NO_ARGUMENTS : args, walk);
  const flat = flatObjectHash(args);
  if (flat !== undefined) return flat;
  const parsed = parseJson(args);
  return parsed ? hashValue(parsed.value, walk) : hashString(args, T_ARGS_TEXT);
}

/** Structural hash: arrays in order, objects by the sum of their key/value pairs (order-free), `undefined` keys absent. */
function hashValue(value: unknown, walk: Walk): number {
  const shallow = shallowHash(value, walk);
  if (shallow !== WALK_INTO) return shallow;
  const obj = value as object;
  if (walk.path.length >= RECURSION_DEPTH) return hashDeep(obj, walk);
  walk.path.push(obj);
  const hash = Array.isArray(obj) ? hashArray(obj, walk) : hashObject(obj as Record<string, unknown>, walk);
  walk.path.pop();
  walk.memo?.set(obj, hash);
  return hash;
}

/** What `shallowHash` returns for an array or object whose items must be hashed first. */
const WALK_INTO = -1;

/** `hashValue` of anything but an array or object to walk into (a cycle and a remembered object included), else `WALK_INTO`. */
function shallowHash(value: unknown, walk: Walk): number {
  switch (typeof value) {
    case 'string':
      return hashString(value, T_STRING);
    case 'number':
      return tagged(T_NUMBER, numberBits(value));
    case 'boolean':
      return value ? T_TRUE : T_FALSE;
    case 'undefined':
      return T_NULL;
    case 'object':
      break;
    default:
      return tagged(T_OTHER, hashString(typeof value, T_STRING));
  }
  if (value === null) return T_NULL;
  if (value instanceof Date) {
    // Hashed as the string JSON makes of it, which is what the log stores (deepEqual agrees).
    const json = jsonOfDate(value);
    return json === null ? T_NULL : hashString(json, T_STRING);
  }
  if (walk.onPath === undefined ? walk.path.includes(value) : walk.onPath.has(value)) return T_CYCLE;
  if (walk.memo === undefined && ++walk.nodes > NODES_BEFORE_MEMO) walk.memo = new Map();
  return walk.memo?.get(value) ?? WALK_INTO;
}

/** An array or object being hashed by `hashDeep`: where its items are, and its hash so far. */
interface Frame {
  value: object;
  /** An array's items, or an object's own keys. */
  items: readonly unknown[];
  isArray: boolean;
  next: number;
  /** An array's saved lanes (see `sequence`), or an object's pair sums (see `hashObject`). */
  a: number;
  b: number;
  count: number;
}

/**
 * `hashValue` of an array or object with an explicit stack instead of
 * recursion: the same hash, `sequence` and `hashObject` step by step.
 */
function hashDeep(root: object, walk: Walk): number {
  const outermost = walk.onPath === undefined;
  if (outermost) walk.onPath = new Set(walk.path);
  const frames: Frame[] = [];
  let hash = enter(root, walk, frames);
  while (frames.length > 0) {
    const frame = frames[frames.length - 1]!;
    if (hash !== WALK_INTO) absorb(frame, hash);
    const item = nextItem(frame);
    if (item !== NO_ITEM) {
      const shallow = shallowHash(item, walk);
      hash = shallow === WALK_INTO ? enter(item as object, walk, frames) : shallow;
      continue;
    }
    frames.pop();
    hash = close(frame, walk);
  }
  if (outermost) walk.onPath = undefined;
  return hash;
}

/** Puts `obj` on the path and pushes its frame; returns `WALK_INTO`, or the hash of an array too long to walk. */
function enter(obj: object, walk: Walk, frames: Frame[]): number {
  walk.path.push(obj);
  walk.onPath!.add(obj);
  if (Array.isArray(obj)) {
    if (obj.length > MAX_HASHED_ARRAY) return close({ value: obj, items: [], isArray: true, next: 0, a: 0, b: 0, count: -1 }, walk);
    seed(T_ARRAY);
    frames.push({ value: obj, items: obj, isArray: true, next: 0, a: laneA, b: laneB, count: 0 });
  } else {
    const keys: string[] = [];
    for (const key in obj) if (Object.prototype.hasOwnProperty.call(obj, key)) keys.push(key);
    frames.push({ value: obj, items: keys, isArray: false, next: 0, a: 0, b: 0, count: 0 });
  }
  return WALK_INTO;
}

const NO_ITEM: unique symbol = Symbol('no item');

/** The frame's next item to hash, past an object's `undefined` values (as `hashObject` skips them), or `NO_ITEM`. */
function nextItem(frame: Frame): unknown {
  if (frame.isArray) return frame.next < frame.items.length ? frame.items[frame.next] : NO_ITEM;
  const obj = frame.value as Record<string, unknown>;
  for (; frame.next < frame.items.length; frame.next++) {
    const item = obj[frame.items[frame.next] as string];
    if (item !== undefined) return item;
  }
  return NO_ITEM;
}

/** Adds the hash of the frame's current item. */
function absorb(frame: Frame, itemHash: number): void {
  if (frame.isArray) {
    laneA = frame.a;
    laneB = frame.b;
    mix(itemHash);
    frame.a = laneA;
    frame.b = laneB;
  } else {
    const pair = pairHash(hashString(frame.items[frame.next] as string, T_STRING), itemHash);
    frame.a = (frame.a + (pair >>> 0)) | 0;
    frame.b = (frame.b + ((pair / 0x100000000) | 0)) | 0;
    frame.count++;
  }
  frame.next++;
}

/** The frame's finished hash, as `sequence` or `hashObject` would return it; leaves the path and remembers it. */
function close(frame: Frame, walk: Walk): number {
  let hash: number;
  if (frame.count < 0) hash = tagged(T_TOO_LONG, (frame.value as unknown[]).length);
  else if (frame.isArray) {
    laneA = frame.a;
    laneB = frame.b;
    mix(frame.items.length);
    hash = finish();
  } else hash = objectHash(frame.a, frame.b, frame.count);
  walk.path.pop();
  walk.onPath?.delete(frame.value);
  walk.memo?.set(frame.value, hash);
  return hash;
}

function hashArray(array: unknown[], walk: Walk): number {
  return sequence(T_ARRAY, array, walk, hashValue);
}

/** An ordered hash of `items`, each hashed by `hashItem`; the state is saved around every item, which may hash nested values. */
function sequence(tag: number, items: readonly unknown[], walk: Walk, hashItem: (item: unknown, walk: Walk) => number): number {
  if (items.length > MAX_HASHED_ARRAY) return tagged(T_TOO_LONG, items.length);
  seed(tag);
  let a = laneA;
  let b = laneB;
  for (let i = 0; i < items.length; i++) {
    const item = hashItem(items[i], walk);
    laneA = a;
    laneB = b;
    mix(item);
    a = laneA;
    b = laneB;
  }
  laneA = a;
  laneB = b;
  mix(items.length);
  return finish();
}

/** The hash of one already-hashed value under a tag. */
function tagged(tag: number, value: number): number {
  seed(tag);
  mix(value);
  return finish();
}

/** Positions `readFlatObject` writes, reused: fingerprints are computed one at a time. */
const flatRanges: number[] = [];

/**
 * `hashValue(JSON.parse(text))` for a flat object read in place (see
 * flat-json.ts), the same pairs summed as `hashObject` sums them; undefined
 * for any other text.
 */
function flatObjectHash(text: string): number | undefined {
  const keys = readFlatObject(text, flatRanges);
  if (keys < 0) return undefined;
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < keys; k++) {
    const at = k * 5;
    const valueHash = flatValueHash(text, flatRanges[at + 2]!, flatRanges[at + 3]!, flatRanges[at + 4]!);
    const pair = pairHash(hashRange(text, flatRanges[at]!, flatRanges[at + 1]!, T_STRING), valueHash);
    lo = (lo + (pair >>> 0)) | 0;
    hi = (hi + ((pair / 0x100000000) | 0)) | 0;
  }
  return objectHash(lo, hi, keys);
}

/** `hashValue` of one value of a flat object, from its position in the text. */
function flatValueHash(text: string, kind: number, start: number, end: number): number {
  switch (kind) {
    case FLAT_STRING:
      return hashRange(text, start, end, T_STRING);
    case FLAT_NUMBER:
      return tagged(T_NUMBER, numberBits(Number(text.slice(start, end))));
    case FLAT_TRUE:
      return T_TRUE;
    case FLAT_FALSE:
      return T_FALSE;
    default:
      return T_NULL;
  }
}

function hashObject(obj: Record<string, unknown>, walk: Walk): number {
  let lo = 0;
  let hi = 0;
  let count = 0;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const item = obj[key];
    if (item === undefined) continue;
    const pair = pairHash(hashString(key, T_STRING), hashValue(item, walk));
    // Summing the pairs' hashes makes the object's hash independent of key order.
    lo = (lo + (pair >>> 0)) | 0;
    hi = (hi + ((pair / 0x100000000) | 0)) | 0;
    count++;
  }
  return objectHash(lo, hi, count);
}

/** One key/value pair of an object, both already hashed (the value first: it may hash nested values). */
function pairHash(keyHash: number, valueHash: number): number {
  seed(T_PAIR);
  mix(keyHash);
  mix(valueHash);
  return finish();
}

/** An object from the sum of its pairs' hashes (low and high words) and their count. */
function objectHash(lo: number, hi: number, count: number): number {
  seed(T_OBJECT);
  mix(lo >>> 0);
  mix(hi >>> 0);
  mix(count);
  return finish();
}

// Two 32-bit lanes (cyrb53-style). `seed` and `mix` work on one module-level
// state instead of allocating one per value: hashing runs once per message
// of every request, so it must not feed the garbage collector. A caller
// either hashes nested values before it seeds its own state, or saves and
// restores the state around them (`sequence`).

let laneA = 0;
let laneB = 0;

function seed(tag: number): void {
  laneA = Math.imul(0xdeadbeef ^ tag, 2654435761);
  laneB = Math.imul(0x41c6ce57 ^ tag, 1597334677);
}

/** Mixes a 53-bit integer into the state. */
function mix(n: number): void {
  // For a non-negative integer below 2**53: ToUint32 is the low word, and the quotient truncates to the high one.
  const lo = n >>> 0;
  const hi = (n / 0x100000000) | 0;
  laneA = Math.imul(Math.imul(laneA ^ lo, 2654435761) ^ hi, 1597334677);
  laneB = Math.imul(Math.imul(laneB ^ lo, 1597334677) ^ hi, 2654435761);
}

/** The state as a 53-bit integer. */
function finish(): number {
  return finishLanes(laneA, laneB);
}

function finishLanes(a: number, b: number): number {
  a = Math.imul(a ^ (a >>> 16), 2246822507);
  a ^= Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507);
  b ^= Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

function hashString(s: string, tag: number): number {
  return hashRange(s, 0, s.length, tag);
}

/**
 * The hash of `s.slice(start, end)`, without the slice. Two UTF-16 units per
 * step: the loop runs once per pair of characters, which halves the
 * multiplications.
 */
function hashRange(s: string, start: number, end: number, tag: number): number {
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
function numberBits(n: number): number {
  numberView[0] = n === 0 ? 0 : n;
  return (numberWords[0]! ^ Math.imul(numberWords[1]!, 0x9e3779b1)) >>> 0;
}
