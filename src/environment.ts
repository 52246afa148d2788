// The package's reading of environment variables: the one place that reads
// `process.env` for the check (the register entry reads the SDK's own
// variables itself) and the one boolean reader. Nothing under invariant/
// reads the environment: the check is pure, and its callers hand it what the
// environment says.

import { warnOnce } from './warnings';

function processEnv(): NodeJS.ProcessEnv {
  return typeof process === 'object' && process?.env ? process.env : {};
}

/** An environment variable, or undefined where there is no `process` (a browser or edge bundle). */
export function readEnv(name: string, env: NodeJS.ProcessEnv = processEnv()): string | undefined {
  return env[name];
}

/**
 * A boolean environment variable, read as OpenTelemetry reads its own
 * (`getBooleanFromEnv` of `@opentelemetry/core`): `true` or `false` in any
 * case, blanks around them ignored. Unset or empty gives `fallback`; any
 * other value is warned about once (per value) and gives `fallback` too;
 * `what` names the setting in that warning. The one place
 * that decides how a boolean variable reads.
 */
export function booleanFromEnv(name: string, fallback: boolean, what: string, env: NodeJS.ProcessEnv = processEnv()): boolean {
  const value = env[name];
  const raw = value?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  warnOnce(
    `env-boolean:${name}=${raw}`,
    `${name}=${JSON.stringify(value)} is not "true" or "false"; it is ignored and ${what} stays ${fallback ? 'on' : 'off'}`,
  );
  return fallback;
}

/**
 * Whether this process is a test run, the only place `strict` throws:
 * NODE_ENV=test, or the marker a test runner sets (vitest, node:test, Jest;
 * Mocha sets none, so Mocha users set NODE_ENV=test).
 */
export function isTestEnvironment(env: NodeJS.ProcessEnv = processEnv()): boolean {
  return env.NODE_ENV === 'test' || !!env.VITEST || !!env.NODE_TEST_CONTEXT || !!env.JEST_WORKER_ID;
}
