// The package's own failures: caught, counted, logged once, never raised into
// the caller's request. Each line says what the failure cost, in words true at
// the site that caught it.

import { describeThrown } from '../result';
import { instrumentsFromGlobal, type InvariantInstruments } from './instruments';
import { warnOnce } from '../warnings';
import { ATTR_WHERE } from './semconv';
import { bounded } from './written-value';

/** What a caught failure cost when the site says nothing more precise: true wherever `contained` catches. */
export const STEP_SKIPPED = "the caller's call went on unaffected; this step was skipped";

/**
 * Counts a caught failure and warns about it once per `where`, saying what it
 * cost (`consequence`: what actually happened, not a guess). Never throws.
 */
export function reportInternalError(where: string, error: unknown, consequence: string, instruments?: InvariantInstruments): void {
  try {
    (instruments ?? instrumentsFromGlobal()).internalErrors.add(1, { [ATTR_WHERE]: where });
  } catch {
    // Counting is best effort; the warning below still goes out.
  }
  warnOnce(`internal-error:${where}`, `internal error in ${where} (${consequence}): ${bounded(describeThrown(error))}`);
}

/**
 * Runs `fn`; a failure is reported as internal and `fallback` returned. The
 * one exception is what `passThrough` accepts (strict mode's violation),
 * which is re-thrown as it is. `consequence` says what the failure cost
 * (default `STEP_SKIPPED`).
 */
export function contained<T>(
  where: string,
  fn: () => T,
  fallback: T,
  options: { instruments?: InvariantInstruments | undefined; passThrough?: (error: unknown) => boolean; consequence?: string } = {},
): T {
  try {
    return fn();
  } catch (error) {
    if (options.passThrough?.(error)) throw error;
    reportInternalError(where, error, options.consequence ?? STEP_SKIPPED, options.instruments);
    return fallback;
  }
}
