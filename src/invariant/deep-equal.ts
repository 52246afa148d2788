// Structural equality for JSON-like values, key order ignored. Allocation-free
// so the passing path of the check stays cheap (only values nested deeper
// than any real tool call allocate a stack of their own); a key holding
// `undefined` counts as absent and a Date equals its ISO string, as each is
// once the value goes through JSON (and the log stores what JSON would).

import { jsonOfDate } from '../log/json-safe';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Levels of nesting compared by recursion; deeper values (valid JSON may nest
 * 100,000 levels) are compared by `equalIteratively`, so no depth exhausts
 * the call stack and the common, shallow case keeps its allocation-free walk.
 */
const RECURSION_DEPTH = 200;

/**
 * Whether `a` and `b` are structurally equal. The walk is in lockstep and
 * stops at the first difference, so it never visits more of either side than
 * the other has: comparing against the fold (a tree the log bounded when it
 * was appended) stays bounded whatever shape the other side has.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  return equalAt(a, b, 0);
}

function equalAt(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && a instanceof Date) return dateMatches(a, b);
  if (typeof b === 'object' && b instanceof Date) return dateMatches(b, a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (depth >= RECURSION_DEPTH) return equalIteratively(a, b);
  if (aIsArray) return arraysEqual(a as unknown[], b as unknown[], depth + 1);
  return objectsEqualAt(a as Record<string, unknown>, b as Record<string, unknown>, undefined, depth + 1);
}

function dateMatches(date: Date, other: unknown): boolean {
  const json = jsonOfDate(date);
  return other instanceof Date ? json === jsonOfDate(other) : json === other;
}

function arraysEqual(a: unknown[], b: unknown[], depth: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!equalAt(a[i], b[i], depth)) return false;
  return true;
}

/** Key-order-free equality of two plain objects, leaving `ignoredKey` (if any) out on both sides. */
export function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>, ignoredKey?: string): boolean {
  return objectsEqualAt(a, b, ignoredKey, 0);
}

function objectsEqualAt(a: Record<string, unknown>, b: Record<string, unknown>, ignoredKey: string | undefined, depth: number): boolean {
  let definedInA = 0;
  for (const key in a) {
    if (!hasOwn.call(a, key) || a[key] === undefined || key === ignoredKey) continue;
    definedInA++;
    if (!hasOwn.call(b, key) || !equalAt(a[key], b[key], depth)) return false;
  }
  return definedInA === definedCount(b, ignoredKey);
}

function definedCount(o: Record<string, unknown>, ignoredKey: string | undefined): number {
  let count = 0;
  for (const key in o) if (hasOwn.call(o, key) && o[key] !== undefined && key !== ignoredKey) count++;
  return count;
}

/**
 * `deepEqual` of two arrays or two objects with an explicit stack of pairs
 * still to compare. A pair met again is not compared again: in a tree no pair
 * recurs, a shared sub-structure is compared once, and two cyclic values
 * cannot loop for ever (they are equal when no difference is ever reached).
 */
function equalIteratively(a: object, b: object): boolean {
  const pending: unknown[] = [a, b];
  const compared = new Map<object, Set<object>>();
  while (pending.length > 0) {
    const y = pending.pop();
    const x = pending.pop();
    if (x === y) continue;
    if (typeof x === 'object' && x instanceof Date) {
      if (!dateMatches(x, y)) return false;
      continue;
    }
    if (typeof y === 'object' && y instanceof Date) {
      if (!dateMatches(y, x)) return false;
      continue;
    }
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    const isArray = Array.isArray(x);
    if (isArray !== Array.isArray(y)) return false;
    let seen = compared.get(x);
    if (seen?.has(y)) continue;
    if (seen === undefined) compared.set(x, (seen = new Set()));
    seen.add(y);
    if (isArray) {
      const xs = x as unknown[];
      const ys = y as unknown[];
      if (xs.length !== ys.length) return false;
      for (let i = 0; i < xs.length; i++) pending.push(xs[i], ys[i]);
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    let definedInX = 0;
    for (const key in xo) {
      if (!hasOwn.call(xo, key) || xo[key] === undefined) continue;
      definedInX++;
      if (!hasOwn.call(yo, key)) return false;
      pending.push(xo[key], yo[key]);
    }
    if (definedInX !== definedCount(yo, undefined)) return false;
  }
  return true;
}
