// Whether a loaded package is a version this package hooks and tests.

import { satisfies } from './version-range';
import { warnOnce } from '../warnings';

/**
 * Whether `version` of `name` satisfies `range`. A version outside it is
 * never silently left alone: it is reported once, by name and version, with
 * what that means (`consequence`).
 */
export function isSupportedVersion(name: string, version: string | undefined, range: string, consequence: string): boolean {
  if (version !== undefined && satisfies(version, range, { includePrerelease: true })) return true;
  warnOnce(
    `unsupported:${name}@${version}`,
    `${name} ${version ?? '(unknown version)'} is outside the supported range ${range}; ${consequence}`,
  );
  return false;
}
