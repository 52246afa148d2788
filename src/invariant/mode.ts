// Modes and where they come from.

import { describe } from '../log/events';
import { warnOnce } from '../warnings';

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

function isMode(value: unknown): value is Mode {
  return value === 'off' || value === 'warn' || value === 'strict';
}

/**
 * The mode for `value` (a setting); when it is absent, the one named by
 * `NOUS_SESSION_INVARIANT`; when that is absent too, `warn`. A value that is
 * not a mode (case and surrounding blanks aside) falls back to `warn` and
 * warns once per process: a typo in one setting must not take down every run.
 * Never throws.
 */
export function resolveMode(value?: unknown): Mode {
  if (isMode(value)) return value; // already a mode: what the request path passes on every request
  try {
    const raw = value === undefined || value === null ? readEnv(MODE_ENV_VAR) : value;
    if (raw === undefined || raw === '') return DEFAULT_MODE;
    const normalized = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
    if (isMode(normalized)) return normalized;
    const source = value === undefined || value === null ? `${MODE_ENV_VAR}=${describe(raw)}` : `mode ${describe(raw)}`;
    warnOnce('invalid-mode', `${source} is not a mode (${MODES.join(', ')}); using "${DEFAULT_MODE}"`);
  } catch {
    // An unreadable value: the default, below.
  }
  return DEFAULT_MODE;
}

/**
 * Whether this process is a test run, the only place `strict` throws:
 * NODE_ENV=test, or the marker a test runner sets (vitest, node:test, Jest;
 * Mocha sets none, so Mocha users set NODE_ENV=test).
 */
export function isTestEnvironment(env: NodeJS.ProcessEnv = processEnv()): boolean {
  return env.NODE_ENV === 'test' || !!env.VITEST || !!env.NODE_TEST_CONTEXT || !!env.JEST_WORKER_ID;
}

function processEnv(): NodeJS.ProcessEnv {
  return typeof process === 'object' && process?.env ? process.env : {};
}

/**
 * An environment variable, or `undefined` where there is no `process` (a
 * browser or edge bundle), so resolving a mode never throws there.
 */
export function readEnv(name: string): string | undefined {
  return processEnv()[name];
}

/** A boolean environment variable: `true`/`1`/`on` and `false`/`0`/`off` (any case), else undefined. */
export function readEnvFlag(name: string, env: NodeJS.ProcessEnv = processEnv()): boolean | undefined {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === 'true' || raw === '1' || raw === 'on') return true;
  if (raw === 'false' || raw === '0' || raw === 'off') return false;
  return undefined;
}
