// The package's own failures: caught, counted, logged once, never raised into
// the caller's request.

import { warnOnce } from './logger';
import { instrumentsFromGlobal, type InvariantInstruments } from './telemetry';

export function reportInternalError(where: string, error: unknown, instruments?: InvariantInstruments): void {
  try {
    (instruments ?? instrumentsFromGlobal()).internalErrors.add(1, { 'nous.session.invariant.where': where });
  } catch {
    // Counting is best effort; the warning below still goes out.
  }
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  warnOnce(`internal-error:${where}`, `internal error in ${where} (the request went ahead unchecked): ${reason}`);
}
