// The one place that reads a package folder's package.json: once per folder,
// kept for the process (a folder's package.json does not change while it
// runs). The require hook reads a linked package's name there, the hooked
// modules' versions come from it, and so do the SDK packages' versions that
// `register` checks. Reading the manifest again for every file of a hooked
// package (as `@opentelemetry/instrumentation` does) was about a third of
// that hook's cost at a cold start (docs/performance.md "Cold start").

import { diag } from '@opentelemetry/api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The fields of a package.json the package reads. */
export interface PackageManifest {
  name?: unknown;
  version?: unknown;
}

const manifests = new Map<string, PackageManifest | undefined>();

/** `dir`'s package.json, or undefined if it has none that parses to an object. */
export function packageManifest(dir: string): PackageManifest | undefined {
  if (manifests.has(dir)) return manifests.get(dir);
  let manifest: PackageManifest | undefined;
  try {
    const read: unknown = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    manifest = typeof read === 'object' && read !== null ? read : undefined;
  } catch {
    manifest = undefined;
  }
  manifests.set(dir, manifest);
  return manifest;
}

/** The `version` in `baseDir`'s package.json, or undefined (said once on the diagnostic logger if it cannot be read). */
export function packageVersion(baseDir: string): string | undefined {
  const first = !manifests.has(baseDir);
  const manifest = packageManifest(baseDir);
  if (manifest === undefined && first) diag.warn('Failed extracting version', baseDir);
  return typeof manifest?.version === 'string' ? manifest.version : undefined;
}
