// Logs that must not be checked right now, and why: a log the package keeps
// in step with a framework (an AgentsLogSession's) lags every request when
// that framework's version cannot be followed, so checking it would report
// violations on a correct run.

import type { SessionLog } from '../log/session-log';

type Guard = (log: SessionLog) => string | undefined;

const guards = new Set<Guard>();

/** Registers a guard; returns what removes it. */
export function addLogGuard(guard: Guard): () => void {
  guards.add(guard);
  return () => guards.delete(guard);
}

/** Why `log` is not checked now, if it is not (`''`: a reason already said once where it arose). */
export function uncheckedReason(log: SessionLog): string | undefined {
  for (const guard of guards) {
    const reason = guard(log);
    if (reason !== undefined) return reason;
  }
  return undefined;
}
