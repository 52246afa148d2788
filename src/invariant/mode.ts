// The modes. Which one is in force is resolved outside the check
// (reaction/resolve-mode.ts), which reads the environment.

/**
 * What a violation does. `warn` (the default) records it and logs a warning,
 * never throwing: a request the log does not literally contain can be a
 * deliberate choice of the agent, and a live, paid-for run must not die over
 * a bookkeeping discrepancy. `strict` records it and then throws
 * `SessionInvariantViolation`, in a test environment only. `off` skips the
 * check before any work, for hot paths that measured the cost.
 */
export type Mode = 'off' | 'warn' | 'strict';

/** The three modes. */
export const MODES: readonly Mode[] = Object.freeze(['off', 'warn', 'strict'] as const);

/** The mode when nothing names one. */
export const DEFAULT_MODE: Mode = 'warn';

/** The environment variable that names the mode when no configuration does. */
export const MODE_ENV_VAR = 'NOUS_SESSION_INVARIANT';

/** Whether `value` is one of the three modes, as it is spelt. */
export function isMode(value: unknown): value is Mode {
  return value === 'off' || value === 'warn' || value === 'strict';
}
