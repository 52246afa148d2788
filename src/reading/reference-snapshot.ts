// What a provider entry held when it was read, by reference: enough to tell,
// without hashing or copying any text, whether it still holds the same.
// Strings are immutable, so the same string reference means the same text;
// objects and arrays are walked, so a change made in place (a tool result
// truncated by `msg.content = msg.content.slice(...)`, a part's text edited)
// is seen.

/** Entries with more values than this are not remembered: their conversion is simply redone. */
const MAX_VALUES = 2_000;

const OPEN_OBJECT = Symbol('object');
const OPEN_ARRAY = Symbol('array');
const CLOSE = Symbol('close');
const hasOwn = Object.prototype.hasOwnProperty;

/** A flat record of an entry's keys and values, outermost first. */
export type ReferenceSnapshot = readonly unknown[];

/**
 * The snapshot of `entry`, or undefined for one that cannot be remembered:
 * too large, holding anything but plain objects, arrays and primitives (a
 * Date, a class instance, a cycle), or throwing when read.
 */
export function takeSnapshot(entry: object): ReferenceSnapshot | undefined {
  const out: unknown[] = [];
  try {
    return record(entry, out) ? out : undefined;
  } catch {
    return undefined;
  }
}

function record(value: unknown, out: unknown[]): boolean {
  if (out.length > MAX_VALUES) return false;
  if (typeof value !== 'object' || value === null) {
    out.push(value);
    return true;
  }
  if (Array.isArray(value)) {
    out.push(OPEN_ARRAY, value.length);
    for (let i = 0; i < value.length; i++) if (!record(value[i], out)) return false;
    out.push(CLOSE);
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  out.push(OPEN_OBJECT);
  for (const key in value) {
    if (!hasOwn.call(value, key)) continue;
    out.push(key);
    if (!record((value as Record<string, unknown>)[key], out)) return false;
  }
  out.push(CLOSE);
  return true;
}

/** Whether `entry` still holds what `snapshot` recorded: the same keys in the same order, the same values by reference. */
export function matchesSnapshot(entry: object, snapshot: ReferenceSnapshot): boolean {
  try {
    return match(entry, snapshot, 0) === snapshot.length;
  } catch {
    return false;
  }
}

/** The position after `value` in `snapshot` when it matches from `at`, else -1. */
function match(value: unknown, snapshot: ReferenceSnapshot, at: number): number {
  if (typeof value !== 'object' || value === null) return snapshot[at] === value ? at + 1 : -1;
  if (Array.isArray(value)) {
    if (snapshot[at] !== OPEN_ARRAY || snapshot[at + 1] !== value.length) return -1;
    at += 2;
    for (let i = 0; i < value.length && at >= 0; i++) at = match(value[i], snapshot, at);
    return at >= 0 && snapshot[at] === CLOSE ? at + 1 : -1;
  }
  if (snapshot[at] !== OPEN_OBJECT) return -1;
  at++;
  for (const key in value) {
    if (!hasOwn.call(value, key)) continue;
    if (snapshot[at] !== key) return -1;
    at = match((value as Record<string, unknown>)[key], snapshot, at + 1);
    if (at < 0) return -1;
  }
  return snapshot[at] === CLOSE ? at + 1 : -1;
}
