// The one place that decides how the instrumentation learns the version of a
// package it hooks: its folder's package.json, read once per folder. The
// require hook reports each hooked file with its package folder; reading the
// manifest again for every file of a hooked package (as
// `@opentelemetry/instrumentation` does) was about a third of the hook's
// cost at a cold start (docs/performance.md "Cold start"). A folder's
// package.json does not change while the process runs.

import { diag } from '@opentelemetry/api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const versions = new Map<string, string | undefined>();

/** The `version` in `baseDir`'s package.json, or undefined (said once on the diagnostic logger) if it has none. */
export function packageVersion(baseDir: string): string | undefined {
  if (versions.has(baseDir)) return versions.get(baseDir);
  let version: string | undefined;
  try {
    const read = (JSON.parse(readFileSync(join(baseDir, 'package.json'), 'utf8')) as { version?: unknown }).version;
    version = typeof read === 'string' ? read : undefined;
  } catch {
    diag.warn('Failed extracting version', baseDir);
  }
  versions.set(baseDir, version);
  return version;
}
