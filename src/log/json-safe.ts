// The log's own copy of event data: only what survives a JSON round trip
// unchanged is admitted, so `fromEvents(JSON.parse(JSON.stringify(log)))`
// folds exactly like the log it came from.

import { refusal } from '../result';
import { InvalidEventError, type Validated } from './invalid-event';

/**
 * The most values (strings, numbers, objects, array slots, ...) one event's
 * data may hold, counted as JSON would write it out. Shared sub-structures
 * count once per reference, so a small object graph that expands to millions
 * of values (`d = [d, d]` nested 25 times) is refused in linear time instead
 * of being copied for minutes.
 */
/** What JSON makes of a Date: its ISO 8601 string, or null for an invalid one. */
export function jsonOfDate(date: Date): string | null {
  const ms = date.getTime();
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

export const MAX_DATA_VALUES = 1_000_000;

interface Copied {
  value: unknown;
  /** Values the copy stands for when written out as JSON. */
  size: number;
}

class Refused extends Error {
  constructor(
    readonly code: 'unserializable' | 'too_large',
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A deep copy of `value` holding only strings, finite numbers, booleans,
 * null, arrays and plain objects. A `Date` becomes its ISO 8601 string (what
 * JSON makes of it), so the stored data reads the same before and after a
 * round trip and cannot be changed through a mutable Date. Object keys holding
 * `undefined` are dropped, as JSON drops them. Refused: functions, symbols,
 * bigints, non-finite numbers, `undefined` array slots, class instances,
 * cycles, more than `MAX_DATA_VALUES` values, and anything that throws when
 * read (a throwing getter, a revoked Proxy).
 */
export function copyJsonSafe(value: unknown, path: string): Validated<unknown> {
  const state = { budget: MAX_DATA_VALUES, copies: new Map<object, Copied>(), inProgress: new Set<object>() };
  try {
    return { ok: true, value: copyValue(value, path, state).value };
  } catch (error) {
    if (error instanceof Refused) return refusal(new InvalidEventError(error.code, error.message, { path: error.path }));
    // A throwing getter, a revoked proxy, or nesting deep enough to exhaust the stack.
    return refusal(new InvalidEventError('invalid_data', `${path} cannot be read`, { path }));
  }
}

interface CopyState {
  budget: number;
  copies: Map<object, Copied>;
  inProgress: Set<object>;
}

function spend(state: CopyState, size: number, path: string): void {
  state.budget -= size;
  if (state.budget < 0) throw new Refused('too_large', path, `${path} holds more than ${MAX_DATA_VALUES} values`);
}

function copyValue(value: unknown, path: string, state: CopyState): Copied {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      spend(state, 1, path);
      return { value, size: 1 };
    case 'number':
      if (!Number.isFinite(value)) throw new Refused('unserializable', path, `${path} is ${String(value)}, which cannot be serialized`);
      spend(state, 1, path);
      return { value: value === 0 ? 0 : value, size: 1 };
    case 'undefined':
      throw new Refused('unserializable', path, `${path} is undefined, which cannot be serialized`);
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new Refused('unserializable', path, `${path} is a ${typeof value}, which cannot be serialized`);
    case 'object':
      break; // null, arrays, Dates and objects: below
  }
  if (value === null) {
    spend(state, 1, path);
    return { value: null, size: 1 };
  }
  const obj = value;
  if (obj instanceof Date) {
    const iso = jsonOfDate(obj);
    if (iso === null) throw new Refused('unserializable', path, `${path} is an invalid Date, which cannot be serialized`);
    spend(state, 1, path);
    return { value: iso, size: 1 };
  }
  const known = state.copies.get(obj);
  if (known !== undefined) {
    spend(state, known.size, path);
    return known;
  }
  if (state.inProgress.has(obj)) throw new Refused('unserializable', path, `${path} is a reference cycle, which cannot be serialized`);
  state.inProgress.add(obj);
  const before = state.budget;
  spend(state, 1, path);
  const copy = Array.isArray(obj) ? copyArray(obj, path, state) : copyObject(obj, path, state);
  state.inProgress.delete(obj);
  const copied = { value: copy, size: before - state.budget };
  state.copies.set(obj, copied);
  return copied;
}

function copyArray(array: unknown[], path: string, state: CopyState): unknown[] {
  const length = array.length;
  // A sparse array can claim 2**32 - 1 slots: refuse before walking them.
  if (length > state.budget) throw new Refused('too_large', path, `${path} holds more than ${MAX_DATA_VALUES} values`);
  const copy: unknown[] = new Array<unknown>(length);
  for (let i = 0; i < length; i++) copy[i] = copyValue(array[i], `${path}[${i}]`, state).value;
  return copy;
}

function copyObject(obj: object, path: string, state: CopyState): Record<string, unknown> {
  const proto = Object.getPrototypeOf(obj) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    let name = 'unknown';
    try {
      const ctor = (obj as { constructor?: { name?: unknown } }).constructor?.name;
      if (typeof ctor === 'string') name = ctor;
    } catch {
      // keep "unknown"
    }
    throw new Refused('unserializable', path, `${path} is an instance of ${name}, which cannot be serialized`);
  }
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(obj)) {
    const item = (obj as Record<string, unknown>)[key];
    if (item === undefined) continue;
    // defineProperty, so an own "__proto__" key stays data and never becomes the prototype.
    Object.defineProperty(copy, key, {
      value: copyValue(item, `${path}.${key}`, state).value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
