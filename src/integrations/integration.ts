// What an integration gives the instrumentation: the modules it patches, the
// files the ESM loader hook must let through for it, and any process-wide
// observation (a diagnostics channel, the fetch seam) that lives between
// `enable()` and `disable()`. Adding a provider or framework is one folder
// under src/integrations and one entry in its list.

import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import type { ManualModuleKey } from './manual-modules';

/** The patching tools of the instrumentation (shimmer's wrap and unwrap, as contrib uses them). */
export interface Patcher {
  wrap<T extends object>(target: T, name: string, wrapper: (original: never) => unknown): void;
  unwrap<T extends object>(target: T, name: string): void;
  isWrapped(value: unknown): boolean;
}

/**
 * One provider or framework the instrumentation covers: the modules it patches,
 * the files the ESM loader hook must let through for it, and any process-wide
 * observation that lives between `enable()` and `disable()`. Adding one is a
 * folder under src/integrations and an entry in `INTEGRATIONS`.
 */
export interface Integration {
  /** Shown in warnings. */
  readonly name: string;
  /** Module names and internal-file URL patterns the ESM loader hook is limited to. */
  readonly esmInclude: readonly (string | RegExp)[];
  /** The module definitions, patched through `patcher`. */
  definitions(patcher: Patcher): InstrumentationModuleDefinition[];
  /** Starts a process-wide observation; returns what stops it. */
  start?(): () => void;
  /** How `manuallyInstrument` patches this integration's module when the require hook cannot see it load; none for a seam no module carries. */
  readonly manual?: ManualEntry;
}

/**
 * An SDK module `manuallyInstrument({ <key>: module })` takes (a bundled or
 * ESM copy no require hook sees load). `patch` and `unpatch` call the same
 * function the require hook's module definition calls, so a client class
 * patched both ways, or given twice, is patched once.
 */
export interface ManualEntry {
  /** Its key in `manuallyInstrument`'s argument. */
  readonly key: ManualModuleKey;
  /** The npm package, in warnings. */
  readonly module: string;
  /** The client class `value` holds (it is the module's exports or namespace, or the class itself); undefined if none. */
  clientClass(value: object): object | undefined;
  /** Patches the client class `clientClass` found. */
  patch(patcher: Patcher, client: object): void;
  /** Undoes `patch`. */
  unpatch(patcher: Patcher, client: object): void;
}

/**
 * Re-wraps `target[name]` (unwrapping a previous wrap first), so patching
 * again never stacks wrappers: enabling twice, the require hook and
 * `manuallyInstrument` on one class, two instances. The one record of
 * whether a method is patched is shimmer's mark on it.
 */
export function rewrap(patcher: Patcher, target: object, name: string, wrapper: (original: never) => unknown): void {
  if (patcher.isWrapped((target as Record<string, unknown>)[name])) patcher.unwrap(target, name);
  patcher.wrap(target, name, wrapper);
}

/** Unwraps `target[name]` if it is wrapped. */
export function unwrapIfWrapped(patcher: Patcher, target: object | undefined, name: string): void {
  if (target && patcher.isWrapped((target as Record<string, unknown>)[name])) patcher.unwrap(target, name);
}
