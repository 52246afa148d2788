// The structural hash of any value, as a fingerprint reads a message's
// parts: arrays in order, objects order-free, cycles and shared
// sub-structures in linear time, any depth without exhausting the stack.

import { jsonOfDate } from '../log/json-safe';
import {
  T_ARRAY,
  T_CYCLE,
  T_FALSE,
  T_NULL,
  T_NUMBER,
  T_OBJECT,
  T_OTHER,
  T_PAIR,
  T_STRING,
  T_TOO_LONG,
  T_TRUE,
  finish,
  hashString,
  lanes,
  mix,
  numberBits,
  seed,
  tagged,
} from './hash-lanes';

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

/** One fingerprint's walk over nested values: its node count, the path it is on, the objects it remembers. */
export interface Walk {
  nodes: number;
  /** The objects being hashed, outermost first: meeting one again is a cycle. */
  path: object[];
  /** `path` as a set, while `hashDeep` walks a path too long to search. */
  onPath: Set<object> | undefined;
  memo: Map<object, number> | undefined;
}

export function newWalk(): Walk {
  return { nodes: 0, path: [], onPath: undefined, memo: undefined };
}

/** Structural hash: arrays in order, objects by the sum of their key/value pairs (order-free), `undefined` keys absent. */
export function hashValue(value: unknown, walk: Walk): number {
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
    frames.push({ value: obj, items: obj, isArray: true, next: 0, a: lanes.a, b: lanes.b, count: 0 });
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
    lanes.a = frame.a;
    lanes.b = frame.b;
    mix(itemHash);
    frame.a = lanes.a;
    frame.b = lanes.b;
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
    lanes.a = frame.a;
    lanes.b = frame.b;
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
export function sequence(tag: number, items: readonly unknown[], walk: Walk, hashItem: (item: unknown, walk: Walk) => number): number {
  if (items.length > MAX_HASHED_ARRAY) return tagged(T_TOO_LONG, items.length);
  seed(tag);
  let a = lanes.a;
  let b = lanes.b;
  for (let i = 0; i < items.length; i++) {
    const item = hashItem(items[i], walk);
    lanes.a = a;
    lanes.b = b;
    mix(item);
    a = lanes.a;
    b = lanes.b;
  }
  lanes.a = a;
  lanes.b = b;
  mix(items.length);
  return finish();
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
export function pairHash(keyHash: number, valueHash: number): number {
  seed(T_PAIR);
  mix(keyHash);
  mix(valueHash);
  return finish();
}

/** An object from the sum of its pairs' hashes (low and high words) and their count. */
export function objectHash(lo: number, hi: number, count: number): number {
  seed(T_OBJECT);
  mix(lo >>> 0);
  mix(hi >>> 0);
  mix(count);
  return finish();
}
