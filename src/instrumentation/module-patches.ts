// The one place that applies the integrations' module definitions: each
// hooked module's exports are handed to its definition's `patch` when they
// load (by the package's own require hook, require-hook.ts, and by
// import-in-the-middle for ES modules under `--import`), once, if the
// version is one the definition names; `disable()` hands what was patched to
// `unpatch`, and `enable()` patches it again. The rules are those of
// `@opentelemetry/instrumentation`'s `InstrumentationBase`, so the
// definitions are written as for any of contrib's instrumentations; only the
// CommonJS hook is the package's own.

import { diag } from '@opentelemetry/api';
import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { createRequire } from 'node:module';
import { types } from 'node:util';
import type { Patcher } from '../integrations/integration';
import { satisfies } from '../integrations/version-range';
import { packageVersion } from './package-versions';
import { hookRequire, type OnRequire } from './require-hook';

interface EsmHookModule {
  Hook: new (modules: string[], options: { internals: boolean }, onImport: OnRequire) => unknown;
}

/** The definitions of one instrumentation, with the hooks that feed them, installed at the first `enable()` and kept. */
export class ModulePatches {
  private enabled = false;
  private hooked = false;

  constructor(private readonly modules: readonly InstrumentationModuleDefinition[]) {}

  /** Patches what loads from now on, and again what was loaded and unpatched by `disable()`. */
  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    if (!this.hooked) {
      this.hooked = true;
      this.hook();
      return;
    }
    for (const module of this.modules) {
      if (typeof module.patch === 'function' && module.moduleExports !== undefined)
        module.patch(module.moduleExports, module.moduleVersion);
      for (const file of module.files) if (file.moduleExports !== undefined) file.patch(file.moduleExports, module.moduleVersion);
    }
  }

  isEnabled(): boolean {
    return this.enabled;
  }

  /** Unpatches what was patched; modules loaded while disabled are recorded, not patched. */
  disable(): void {
    if (!this.enabled) return;
    this.enabled = false;
    for (const module of this.modules) {
      if (typeof module.unpatch === 'function' && module.moduleExports !== undefined)
        module.unpatch(module.moduleExports, module.moduleVersion);
      for (const file of module.files) if (file.moduleExports !== undefined) file.unpatch(file.moduleExports, module.moduleVersion);
    }
  }

  private hook(): void {
    const esm = importHook();
    for (const module of this.modules) {
      const onLoad: OnRequire = (exports, name, baseDir) => this.onLoad(module, exports, name, baseDir);
      const files = module.files.map((file) => toSlashes(file.name).slice(module.name.length + 1));
      hookRequire(module.name, files, onLoad);
      if (esm) new esm.Hook([module.name], { internals: true }, onLoad);
    }
  }

  /** A hooked file loaded: recorded, and patched if enabled and its version is supported (the main file by `patch`, an internal one by its file's). */
  private onLoad(module: InstrumentationModuleDefinition, exports: unknown, name: string, baseDir: string | undefined): unknown {
    // import-in-the-middle also reports files outside any package (no baseDir): none is hooked here.
    if (!baseDir) return exports;
    const version = packageVersion(baseDir);
    module.moduleVersion = version;
    if (module.name === name) {
      if (!isSupported(module.supportedVersions, version, module.includePrerelease) || typeof module.patch !== 'function') return exports;
      module.moduleExports = exports;
      return this.enabled ? module.patch(exports, version) : exports;
    }
    const fileName = toSlashes(name);
    let patched = exports;
    for (const file of module.files) {
      if (toSlashes(file.name) !== fileName || !isSupported(file.supportedVersions, version, module.includePrerelease)) continue;
      file.moduleExports = patched;
      if (this.enabled) patched = file.patch(patched, version);
    }
    return patched;
  }
}

type Wrap = (target: object, name: string, wrapper: (original: never) => unknown) => unknown;
type Unwrap = (target: object, name: string) => unknown;

/**
 * shimmer's `wrap` and `unwrap` (the instrumentation's `_wrap`, `_unwrap`)
 * applied as `InstrumentationBase` applies them: a wrapped function is
 * unwrapped before it is wrapped again, and a module namespace that is a
 * Proxy (import-in-the-middle's) gets the wrapped function defined on it.
 */
export function moduleExportsPatcher(wrap: Wrap, unwrap: Unwrap, isWrapped: (value: unknown) => boolean): Patcher {
  const unwrapExport = (target: object, name: string): void => {
    if (!types.isProxy(target)) unwrap(target, name);
    else Object.defineProperty(target, name, { value: (target as Record<string, unknown>)[name] });
  };
  return {
    wrap: (target, name, wrapper) => {
      if (isWrapped((target as Record<string, unknown>)[name])) unwrapExport(target, name);
      if (!types.isProxy(target)) {
        wrap(target, name, wrapper);
        return;
      }
      const wrapped = wrap({ ...target }, name, wrapper);
      Object.defineProperty(target, name, { value: wrapped });
    },
    unwrap: unwrapExport,
    isWrapped,
  };
}

function toSlashes(path: string): string {
  return path.replace(/\\/g, '/');
}

/** An unknown version is supported only by a definition that takes any (`*`). */
function isSupported(ranges: readonly string[], version: string | undefined, includePrerelease: boolean | undefined): boolean {
  if (version === undefined) return ranges.includes('*');
  return ranges.some((range) => satisfies(version, range, { includePrerelease }));
}

/**
 * import-in-the-middle, the copy `@opentelemetry/instrumentation` uses: its
 * loader (`@opentelemetry/instrumentation/hook.mjs`, which register.mts
 * registers) reports to the hooks of that copy. Undefined, said on the
 * diagnostic logger, if it cannot be loaded: CommonJS is still hooked.
 */
function importHook(): EsmHookModule | undefined {
  try {
    const fromInstrumentation = createRequire(require.resolve('@opentelemetry/instrumentation'));
    return fromInstrumentation('import-in-the-middle') as EsmHookModule;
  } catch (error) {
    diag.warn('import-in-the-middle could not be loaded: ES modules are not patched', error);
    return undefined;
  }
}
