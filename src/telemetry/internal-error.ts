// The package's own failures: caught, counted, logged once, never raised into
// the caller's request.

import { describeThrown } from '../result';
import { instrumentsFromGlobal, type InvariantInstruments } from './instruments';
import { warnOnce } from '../warnings';
import { ATTR_WHERE } from './semconv';

/** Counts a caught failure and warns about it once per `where`. Never throws. */
export function reportInternalError(where: string, error: unknown, instruments?: InvariantInstruments): void {
  try {
    (instruments ?? instrumentsFromGlobal()).internalErrors.add(1, { [ATTR_WHERE]: where });
  } catch {
    // Counting is best effort; the warning below still goes out.
  }
  warnOnce(`internal-error:${where}`, `internal error in ${where} (the request went ahead unchecked): ${describeThrown(error)}`);
}

/**
 * Runs `fn`; a failure is reported as internal and `fallback` returned. The
 * one exception is what `passThrough` accepts (strict mode's violation),
 * which is re-thrown as it is.
 */
export function contained<T>(
  where: string,
  fn: () => T,
  fallback: T,
  options: { instruments?: InvariantInstruments | undefined; passThrough?: (error: unknown) => boolean } = {},
): T {
  try {
    return fn();
  } catch (error) {
    if (options.passThrough?.(error)) throw error;
    reportInternalError(where, error, options.instruments);
    return fallback;
  }
}
