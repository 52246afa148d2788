// A 53-bit structural hash per message such that two messages that match
// (`messagesMatch`) always get the same fingerprint. The check uses it only
// after a mismatch, to pair the messages it cannot line up; the implicit
// conversation log keeps fingerprints instead of message text.

import { isEmptyContent, parseJson, singleText } from './message-equality';

/** A message's fingerprint: an integer in [0, 2**53). */
export type Fingerprint = number;

/** Every system message has this fingerprint: system content is never compared. */
export const SYSTEM_FINGERPRINT: Fingerprint = 1;

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
  if (typeof entry !== 'object' || entry === null) return finish(mix(seed(T_NOT_A_MESSAGE), hashValue(entry, newWalk())));
  const m = entry as Record<string, unknown>;
  const role = m.role;
  if (role === 'system') return SYSTEM_FINGERPRINT;
  const walk = newWalk();
  let h = seed(T_MESSAGE);
  h = mix(h, typeof role === 'string' ? hashString(role, T_STRING) : hashValue(role, walk));
  h = mix(h, contentHash(m.content, role === 'assistant', walk));
  h = mix(h, toolCallsHash(m.toolCalls, walk));
  h = mix(h, hashValue(m.toolCallId ?? null, walk));
  const name = role === 'assistant' || (role === 'tool' && options.ignoreToolResultName) ? null : (m.name ?? null);
  h = mix(h, hashValue(name, walk));
  const fingerprint = finish(h);
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
const T_DATE = 0x08;
const T_OTHER = 0x09;
const T_CYCLE = 0x0a;
const T_TOO_LONG = 0x0b;
const T_MESSAGE = 0x0c;
const T_NOT_A_MESSAGE = 0x0d;
const T_ARGS_VALUE = 0x0e;
const T_ARGS_TEXT = 0x0f;
const T_CALLS = 0x10;
const T_NOT_A_LIST = 0x11;
const T_PAIR = 0x12;

/** Arrays longer than this are hashed by length alone: a sparse `length = 2**32 - 1` must not be walked. */
const MAX_HASHED_ARRAY = 1_000_000;
/** Nodes one fingerprint walks before it starts remembering shared objects (a DAG would otherwise cost exponential time). */
const NODES_BEFORE_MEMO = 10_000;

interface Walk {
  nodes: number;
  /** The objects being hashed, outermost first: meeting one again is a cycle. */
  path: object[];
  memo: Map<object, number> | undefined;
}

function newWalk(): Walk {
  return { nodes: 0, path: [], memo: undefined };
}

function contentHash(content: unknown, assistant: boolean, walk: Walk): number {
  if (content === undefined || content === null || (assistant && isEmptyContent(content))) return T_NULL;
  if (typeof content === 'string') return hashString(content, T_STRING);
  const text = singleText(content);
  return text !== undefined ? hashString(text, T_STRING) : hashValue(content, walk);
}

function toolCallsHash(toolCalls: unknown, walk: Walk): number {
  if (toolCalls === undefined || toolCalls === null) return T_CALLS;
  if (!Array.isArray(toolCalls)) return finish(mix(seed(T_NOT_A_LIST), hashValue(toolCalls, walk)));
  if (toolCalls.length > MAX_HASHED_ARRAY) return finish(mix(seed(T_TOO_LONG), toolCalls.length));
  let h = seed(T_CALLS);
  for (let i = 0; i < toolCalls.length; i++) {
    const call: unknown = toolCalls[i];
    if (typeof call !== 'object' || call === null) {
      h = mix(h, hashValue(call, walk));
      continue;
    }
    const c = call as Record<string, unknown>;
    h = mix(h, hashValue(c.id, walk));
    h = mix(h, hashValue(c.name, walk));
    h = mix(h, argumentsHash(c.arguments, walk));
  }
  return toolCalls.length === 0 ? T_CALLS : finish(h);
}

/** A JSON string hashes as the value it parses to, so it matches that value in any spacing or key order. */
function argumentsHash(args: unknown, walk: Walk): number {
  if (typeof args !== 'string') return finish(mix(seed(T_ARGS_VALUE), hashValue(args, walk)));
  const parsed = parseJson(args);
  return parsed ? finish(mix(seed(T_ARGS_VALUE), hashValue(parsed.value, walk))) : hashString(args, T_ARGS_TEXT);
}

/** Structural hash: arrays in order, objects by the sum of their key/value pairs (order-free), `undefined` keys absent. */
function hashValue(value: unknown, walk: Walk): number {
  switch (typeof value) {
    case 'string':
      return hashString(value, T_STRING);
    case 'number':
      return finish(mix(seed(T_NUMBER), numberBits(value)));
    case 'boolean':
      return value ? T_TRUE : T_FALSE;
    case 'undefined':
      return T_NULL;
    case 'object':
      break;
    default:
      return finish(mix(seed(T_OTHER), hashString(typeof value, T_STRING)));
  }
  if (value === null) return T_NULL;
  if (value instanceof Date) return finish(mix(seed(T_DATE), numberBits(value.getTime())));
  if (walk.path.includes(value)) return T_CYCLE;
  if (walk.memo === undefined && ++walk.nodes > NODES_BEFORE_MEMO) walk.memo = new Map();
  const known = walk.memo?.get(value);
  if (known !== undefined) return known;
  walk.path.push(value);
  const hash = Array.isArray(value) ? hashArray(value, walk) : hashObject(value as Record<string, unknown>, walk);
  walk.path.pop();
  walk.memo?.set(value, hash);
  return hash;
}

function hashArray(array: unknown[], walk: Walk): number {
  if (array.length > MAX_HASHED_ARRAY) return finish(mix(seed(T_TOO_LONG), array.length));
  let h = seed(T_ARRAY);
  for (let i = 0; i < array.length; i++) h = mix(h, hashValue(array[i], walk));
  return finish(mix(h, array.length));
}

function hashObject(obj: Record<string, unknown>, walk: Walk): number {
  let lo = 0;
  let hi = 0;
  let count = 0;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) continue;
    const item = obj[key];
    if (item === undefined) continue;
    const pair = finish(mix(mix(seed(T_PAIR), hashString(key, T_STRING)), hashValue(item, walk)));
    // Summing the pairs' hashes makes the object's hash independent of key order.
    lo = (lo + (pair % 0x100000000)) | 0;
    hi = (hi + Math.floor(pair / 0x100000000)) | 0;
    count++;
  }
  return finish(mix(mix(mix(seed(T_OBJECT), lo), hi), count));
}

// Two 32-bit lanes (cyrb53), carried as one double: lanes never exceed 32 bits each.

interface Lanes {
  a: number;
  b: number;
}

function seed(tag: number): Lanes {
  return { a: Math.imul(0xdeadbeef ^ tag, 2654435761), b: Math.imul(0x41c6ce57 ^ tag, 1597334677) };
}

function mix(h: Lanes, n: number): Lanes {
  const lo = n % 0x100000000 | 0;
  const hi = Math.floor(n / 0x100000000) | 0;
  h.a = Math.imul(h.a ^ lo, 2654435761);
  h.b = Math.imul(h.b ^ lo, 1597334677);
  h.a = Math.imul(h.a ^ hi, 1597334677);
  h.b = Math.imul(h.b ^ hi, 2654435761);
  return h;
}

function finish(h: Lanes): number {
  let a = h.a;
  let b = h.b;
  a = Math.imul(a ^ (a >>> 16), 2246822507);
  a ^= Math.imul(b ^ (b >>> 13), 3266489909);
  b = Math.imul(b ^ (b >>> 16), 2246822507);
  b ^= Math.imul(a ^ (a >>> 13), 3266489909);
  return 4294967296 * (2097151 & b) + (a >>> 0);
}

function hashString(s: string, tag: number): number {
  let a = 0xdeadbeef ^ tag;
  let b = 0x41c6ce57 ^ s.length;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    a = Math.imul(a ^ ch, 2654435761);
    b = Math.imul(b ^ ch, 1597334677);
  }
  return finish({ a, b });
}

const numberView = new Float64Array(1);
const numberWords = new Int32Array(numberView.buffer);

/** The bits of a double folded to 32 (0 and -0 alike, as `===` has them). */
function numberBits(n: number): number {
  numberView[0] = n === 0 ? 0 : n;
  return (numberWords[0]! ^ Math.imul(numberWords[1]!, 0x9e3779b1)) >>> 0;
}
