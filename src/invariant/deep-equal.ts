// Structural equality for JSON-like values, key order ignored. Allocation-free
// so the passing path of the check stays cheap; a key holding `undefined`
// counts as absent and a Date equals its ISO string, as each is once the
// value goes through JSON (and the log stores what JSON would).

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Whether `a` and `b` are structurally equal. The walk is in lockstep and
 * stops at the first difference, so it never visits more of either side than
 * the other has: comparing against the fold (a tree the log bounded when it
 * was appended) stays bounded whatever shape the other side has.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' && a instanceof Date) return dateMatches(a, b);
  if (typeof b === 'object' && b instanceof Date) return dateMatches(b, a);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aIsArray = Array.isArray(a);
  if (aIsArray !== Array.isArray(b)) return false;
  if (aIsArray) return arraysEqual(a as unknown[], b as unknown[]);
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

/** What JSON makes of a Date: its ISO 8601 string, or null for an invalid one. */
export function jsonOfDate(date: Date): string | null {
  const ms = date.getTime();
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function dateMatches(date: Date, other: unknown): boolean {
  const json = jsonOfDate(date);
  return other instanceof Date ? json === jsonOfDate(other) : json === other;
}

function arraysEqual(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i])) return false;
  return true;
}

/** Key-order-free equality of two plain objects, leaving `ignoredKey` (if any) out on both sides. */
export function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>, ignoredKey?: string): boolean {
  let definedInA = 0;
  for (const key in a) {
    if (!hasOwn.call(a, key) || a[key] === undefined || key === ignoredKey) continue;
    definedInA++;
    if (!hasOwn.call(b, key) || !deepEqual(a[key], b[key])) return false;
  }
  let definedInB = 0;
  for (const key in b) if (hasOwn.call(b, key) && b[key] !== undefined && key !== ignoredKey) definedInB++;
  return definedInA === definedInB;
}
