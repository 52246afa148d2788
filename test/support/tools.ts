// External programs some tests need. In CI (.ci/run installs them) a missing
// one fails the test; on a developer machine without it, the test is skipped.

import { findProgram } from '../../stack/native';

export function hasProgram(name: string): boolean {
  return findProgram(name) !== undefined;
}

/** Whether to run tests that need `program`; throws in CI when it is missing. */
export function requireProgram(program: string): boolean {
  if (hasProgram(program)) return true;
  if (process.env.CI) throw new Error(`${program} is not installed; .ci/run installs it`);
  return false;
}

export { freePort } from '../../stack/native';
