// The SDK versions whose seams this package hooks and tests.

import semver from 'semver';
import { warnOnce } from '../logger';

export const OPENAI_MODULE = 'openai';
export const ANTHROPIC_MODULE = '@anthropic-ai/sdk';
export const AGENTS_CORE_MODULE = '@openai/agents-core';

export const SUPPORTED_VERSIONS: Readonly<Record<string, string>> = {
  [OPENAI_MODULE]: '>=6.0.0 <8',
  [ANTHROPIC_MODULE]: '>=1.0.0 <2',
  // The runner's model call lives in an internal file: pinned to the minor tested.
  [AGENTS_CORE_MODULE]: '>=0.20.0 <0.21.0',
};

/** What the ESM loader hook is limited to. */
export const HOOKED_MODULES: readonly string[] = [OPENAI_MODULE, ANTHROPIC_MODULE, AGENTS_CORE_MODULE];

/** Internal files patched in their ESM copy, imported relatively, so the loader must be told by URL. */
export const HOOKED_INTERNAL_FILES: readonly RegExp[] = [/\/@openai\/agents-core\/dist\/runner\/modelRetry\.mjs$/];

/**
 * Whether `version` of `name` is in its supported range. One outside it is
 * never silently left alone: it is reported once, by name and version.
 */
export function isSupportedVersion(name: string, version: string | undefined, consequence: string): boolean {
  const range = SUPPORTED_VERSIONS[name]!;
  if (version !== undefined && semver.satisfies(version, range)) return true;
  warnOnce(`unsupported:${name}@${version}`, `${name} ${version ?? '(unknown version)'} is outside the supported range ${range}; ${consequence}`);
  return false;
}
