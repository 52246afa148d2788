// The one place that wraps and unwraps an SDK's methods, with the marks
// shimmer (and `@opentelemetry/instrumentation`'s copy of it) puts on a
// wrapper: `__original`, `__unwrap` and `__wrapped`. Other tools' `isWrapped`
// reads the same marks, so a method wrapped here and by one of contrib's
// instrumentations stays one chain each can unwrap. Written here rather than
// loaded from `@opentelemetry/instrumentation`, whose index costs about 16
// modules at start-up (docs/performance.md "Cold start").

import { diag } from '@opentelemetry/api';

interface Marks {
  __original: unknown;
  __unwrap: () => void;
  __wrapped: boolean;
}

/** Sets `value` as an own property of `target`, keeping the enumerability it had. */
function setProperty(target: object, name: string, value: unknown): void {
  const enumerable = Boolean((target as Record<string, unknown>)[name]) && Object.prototype.propertyIsEnumerable.call(target, name);
  Object.defineProperty(target, name, { configurable: true, enumerable, writable: true, value });
}

/** Whether `value` is a wrapper made by shimmer's rules (here, or by another tool). */
export function isWrapped(value: unknown): boolean {
  if (typeof value !== 'function') return false;
  const marks = value as unknown as Partial<Marks>;
  return typeof marks.__original === 'function' && typeof marks.__unwrap === 'function' && marks.__wrapped === true;
}

/**
 * Replaces the function `target[name]` with `wrapper(original)`, marked so
 * that `unwrap` (or another tool's) restores the original. Returns the
 * wrapper, or undefined (said on the diagnostic logger) if either is not a
 * function.
 */
export function wrap(target: object, name: string, wrapper: (original: never, name: string) => unknown): unknown {
  const original = (target as Record<string, unknown>)[name];
  if (typeof original !== 'function' || typeof wrapper !== 'function') {
    diag.warn(`nous-session-invariant: no function ${name} to wrap`);
    return undefined;
  }
  const wrapped = wrapper(original as never, name);
  if (typeof wrapped !== 'function') {
    diag.warn(`nous-session-invariant: the wrapper of ${name} is not a function`);
    return undefined;
  }
  setProperty(wrapped, '__original', original);
  setProperty(wrapped, '__unwrap', () => {
    if ((target as Record<string, unknown>)[name] === wrapped) setProperty(target, name, original);
  });
  setProperty(wrapped, '__wrapped', true);
  setProperty(target, name, wrapped);
  return wrapped;
}

/** Restores what `target[name]` wrapped, if it is a wrapper. */
export function unwrap(target: object, name: string): void {
  const wrapped = (target as Record<string, unknown>)[name] as Partial<Marks> | undefined;
  if (typeof wrapped?.__unwrap === 'function') wrapped.__unwrap();
  else diag.debug(`nous-session-invariant: ${name} is not wrapped`);
}
