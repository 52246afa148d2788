// The module definitions the integrations hand the instrumentation, as plain
// objects of `@opentelemetry/instrumentation`'s `InstrumentationModuleDefinition`
// and `InstrumentationModuleFile` types. That package's classes of the same
// shape would load its index at start-up (about 16 modules and their
// dependencies under `register`) for two constructors that only copy their
// arguments (docs/performance.md "Cold start"); the package is kept for its
// types and its ESM loader hook.

import type { InstrumentationModuleDefinition, InstrumentationModuleFile } from '@opentelemetry/instrumentation';
import { normalize } from 'node:path';

type Patch = InstrumentationModuleFile['patch'];
type Unpatch = InstrumentationModuleFile['unpatch'];

/** A hooked package: `patch` gets its main module's exports when they load with a version in `supportedVersions`. */
export function moduleDefinition(
  name: string,
  supportedVersions: string[],
  patch: NonNullable<InstrumentationModuleDefinition['patch']>,
  unpatch: NonNullable<InstrumentationModuleDefinition['unpatch']>,
  files: InstrumentationModuleFile[] = [],
): InstrumentationModuleDefinition {
  return { name, supportedVersions, patch, unpatch, files };
}

/** An internal file of a hooked package (`<package>/dist/x.js`), its path in the platform's form as the base class's constructor makes it. */
export function moduleFile(name: string, supportedVersions: string[], patch: Patch, unpatch: Unpatch): InstrumentationModuleFile {
  return { name: normalize(name), supportedVersions, patch, unpatch };
}
