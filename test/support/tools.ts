// External programs some tests need that npm cannot install: Debian's
// Prometheus, Alertmanager and chromium (the viewer's browser test), and the
// Collector and Jaeger stack/build.sh builds with Go. Without them their
// tests are skipped, with one line naming what provides them;
// NOUS_TEST_REQUIRE_PROGRAMS=1 (set by .ci/run once it has installed them)
// turns a missing program into a failure instead.

import { findProgram } from '../../stack/native';

/** What provides each program the tests look for. */
const PROVIDER: Record<string, string> = {
  prometheus: 'apt-get install prometheus',
  promtool: 'apt-get install prometheus',
  amtool: 'apt-get install prometheus-alertmanager',
  chromium: 'apt-get install chromium',
  'redis-server': 'apt-get install redis-server',
  'redis-cli': 'apt-get install redis-tools',
};

export function hasProgram(name: string): boolean {
  return findProgram(name) !== undefined;
}

/**
 * Whether to run `what`, given the programs it lacks (each with what provides
 * it): true when none is missing; otherwise one line saying what is skipped
 * and how to enable it, or a failure when the run requires every program.
 */
export function runsWith(what: string, missing: readonly string[]): boolean {
  if (missing.length === 0) return true;
  const line = `${what}: ${missing.join('; ')}`;
  if (process.env.NOUS_TEST_REQUIRE_PROGRAMS === '1') throw new Error(`cannot run ${line}`);
  process.stdout.write(`[skipped] ${line}\n`);
  return false;
}

/** Whether to run tests that need `program` (see `runsWith`). */
export function requireProgram(program: string, what = `the tests that need ${program}`): boolean {
  return runsWith(what, hasProgram(program) ? [] : [`${program} is not installed (${PROVIDER[program] ?? `install ${program}`})`]);
}

export { freePort } from '../../stack/native';
