// Modes and where they come from: explicit config first, then the
// NOUS_SESSION_INVARIANT environment variable, then `warn`.

import { describe } from './events';
import { warnOnce } from './logger';

export type Mode = 'off' | 'warn' | 'strict';

export const MODES: readonly Mode[] = Object.freeze(['off', 'warn', 'strict'] as const);

export const DEFAULT_MODE: Mode = 'warn';

export const MODE_ENV_VAR = 'NOUS_SESSION_INVARIANT';

function isMode(value: unknown): value is Mode {
  return value === 'off' || value === 'warn' || value === 'strict';
}

/**
 * The mode for `value` (a config setting); when it is absent, the one named by
 * `NOUS_SESSION_INVARIANT`; when that is absent too, `warn`. A value that is
 * not a mode (case and surrounding blanks aside) falls back to `warn` and warns
 * once per process: a typo in one setting must not take down every run.
 */
export function resolveMode(value?: unknown): Mode {
  const raw = value === undefined || value === null ? readEnv(MODE_ENV_VAR) : value;
  if (raw === undefined || raw === '') return DEFAULT_MODE;
  const normalized = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
  if (isMode(normalized)) return normalized;
  const source = value === undefined || value === null ? `${MODE_ENV_VAR}=${describe(raw)}` : `mode ${describe(raw)}`;
  warnOnce('invalid-mode', `${source} is not a mode (${MODES.join(', ')}); using "${DEFAULT_MODE}"`);
  return DEFAULT_MODE;
}

/**
 * Whether this process is a test run: NODE_ENV=test, or the marker a test
 * runner sets (vitest, node:test, Jest, Mocha's --require hooks set none, so
 * Mocha users set NODE_ENV=test).
 */
export function isTestEnvironment(env: NodeJS.ProcessEnv = processEnv()): boolean {
  return env.NODE_ENV === 'test' || !!env.VITEST || !!env.NODE_TEST_CONTEXT || !!env.JEST_WORKER_ID;
}

function processEnv(): NodeJS.ProcessEnv {
  return typeof process === 'object' && process?.env ? process.env : {};
}

export function readEnv(name: string): string | undefined {
  return processEnv()[name];
}
