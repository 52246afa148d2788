// A Date field that cannot be changed from outside: every read returns a
// fresh copy of the stored instant. The getter is one shared function, so
// every object given the field keeps the same hidden class; a closure per
// object would give each its own, and the check's hot loop would go
// megamorphic on the fold's messages.

const INSTANT = Symbol('nous-session-invariant.instant');

interface WithInstant {
  readonly [INSTANT]: number;
}

function readInstant(this: WithInstant): Date {
  return new Date(this[INSTANT]);
}

/** Defines `key` on `target` as an enumerable, read-only Date field holding `ms`; call before freezing `target`. */
export function defineTimeField(target: object, key: string, ms: number): void {
  Object.defineProperty(target, INSTANT, { value: ms });
  Object.defineProperty(target, key, { get: readInstant, enumerable: true });
}
