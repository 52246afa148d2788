// The one place that decides how this instrumentation learns the version of a
// package it hooks: once per package folder. `InstrumentationBase` reads the
// folder's package.json again for every file of a hooked package that is
// loaded (hundreds for `openai` and `@anthropic-ai/sdk`, since the integrations
// that patch internal files make the hook see every file), which was about a
// third of the require hook's cost at a cold start (docs/performance.md "Cold
// start"). A folder's package.json does not change while the process runs.

/** The base class's own lookup, which it calls with a package's folder. */
interface VersionLookup {
  _extractPackageVersion?(baseDir: string): string | undefined;
}

const versions = new Map<string, string | undefined>();

/**
 * Makes `prototype` (an `InstrumentationBase` subclass's) look each package
 * folder's version up once. A no-op if the base class has no such method (a
 * version of `@opentelemetry/instrumentation` that reads it otherwise).
 */
export function cachePackageVersions(prototype: object): void {
  const target = prototype as VersionLookup;
  const lookup = target._extractPackageVersion;
  if (typeof lookup !== 'function') return;
  target._extractPackageVersion = function (this: unknown, baseDir: string): string | undefined {
    if (versions.has(baseDir)) return versions.get(baseDir);
    const version = lookup.call(this, baseDir);
    versions.set(baseDir, version);
    return version;
  };
}
