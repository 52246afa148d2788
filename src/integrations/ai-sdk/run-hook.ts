// Runs on AI SDK 5 and 6, which publish no `ai:telemetry` channel: the `ai`
// module's `generateText`, `streamText`, `generateObject` and `streamObject`
// exports, and the `generate`/`stream` methods of its agent classes
// (`ToolLoopAgent`, `Experimental_Agent`), are wrapped so that each call is
// one framework run (docs/behaviour.md §8.3), as the channel makes it on AI
// SDK 7. The implicit log's lost-reply rule then holds on every supported
// version: within one call, a step's request must carry the previous steps'
// replies.

import type { InstrumentationModuleDefinition } from '@opentelemetry/instrumentation';
import { moduleDefinition, moduleFile } from '../module-definition';
import type { Patcher } from '../integration';
import { inFrameworkRun } from '../../request-path/run';

/** The AI SDK majors without the `ai:telemetry` channel (AI SDK 7 binds its runs through the channel). */
export const AI_SDK_RUN_HOOK_VERSIONS = '>=5.0.0 <7';

/** The `ai` package's entry files (ESM and CommonJS), as an app importing one by path loads it. */
export const AI_SDK_ENTRY_FILES = ['ai/dist/index.mjs', 'ai/dist/index.js'];

const RUN_FUNCTIONS = ['generateText', 'streamText', 'generateObject', 'streamObject'] as const;
const AGENT_CLASSES = ['ToolLoopAgent', 'Experimental_Agent'] as const;
const AGENT_METHODS = ['generate', 'stream'] as const;

/** Whether the hook is on: the wrappers stay in a module copy that cannot be unwrapped, and pass through when off. */
let enabled = false;

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/** `fn` made a run of its own: each call runs in a fresh framework run (one that is already running is kept). */
function asRun(original: AnyFunction): AnyFunction {
  return function aiSdkRun(this: unknown, ...args: unknown[]) {
    if (!enabled) return original.apply(this, args);
    return inFrameworkRun({}, () => original.apply(this, args));
  };
}

const WRAPPED = Symbol.for('nous-session-invariant.ai-sdk-run');

function wrapped(original: AnyFunction): AnyFunction {
  const existing = (original as unknown as Record<symbol, AnyFunction | undefined>)[WRAPPED];
  if (existing) return existing;
  const run = asRun(original);
  Object.defineProperty(original, WRAPPED, { value: run });
  Object.defineProperty(run, WRAPPED, { value: run });
  return run;
}

/**
 * The `ai` module with its run functions wrapped. The CommonJS build defines
 * its exports as getters that cannot be replaced, so that module is handed
 * on as a copy with the wrapped functions; the ESM namespace takes the
 * assignment. The agent classes' prototypes are patched in place.
 */
function patchExports(exports: Record<string, unknown>, patcher: Patcher): Record<string, unknown> {
  enabled = true;
  let target = exports;
  for (const name of RUN_FUNCTIONS) {
    const original = exports[name];
    if (typeof original !== 'function') continue;
    const run = wrapped(original as AnyFunction);
    if (target[name] === run) continue;
    try {
      target[name] = run;
    } catch {
      // a getter-only export: the copy below takes it
    }
    if (target[name] !== run) {
      if (target === exports) target = copyOf(exports);
      target[name] = run;
    }
  }
  for (const name of AGENT_CLASSES) {
    const prototype = (exports[name] as { prototype?: Record<string, unknown> } | undefined)?.prototype;
    if (!prototype) continue;
    for (const method of AGENT_METHODS) {
      if (typeof prototype[method] === 'function' && !patcher.isWrapped(prototype[method])) {
        patcher.wrap(prototype, method, asRun);
      }
    }
  }
  return target;
}

function copyOf(exports: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(exports)) copy[key] = exports[key];
  if ((exports as { __esModule?: unknown }).__esModule) Object.defineProperty(copy, '__esModule', { value: true });
  return copy;
}

function unpatchExports(exports: Record<string, unknown> | undefined, patcher: Patcher): void {
  enabled = false;
  for (const name of AGENT_CLASSES) {
    const prototype = (exports?.[name] as { prototype?: Record<string, unknown> } | undefined)?.prototype;
    if (!prototype) continue;
    for (const method of AGENT_METHODS) if (patcher.isWrapped(prototype[method])) patcher.unwrap(prototype, method);
  }
}

/**
 * The `ai` module definition: on AI SDK 5 and 6, every `generateText`/`streamText`/agent call is one run. Its entry
 * files are hooked too, for an app that imports one by path (the ESM loader hook then names it by its file).
 */
export function aiSdkRunDefinition(patcher: Patcher): InstrumentationModuleDefinition {
  const patch = (exports: Record<string, unknown>) => patchExports(exports, patcher);
  const unpatch = (exports?: Record<string, unknown>) => unpatchExports(exports, patcher);
  const files = AI_SDK_ENTRY_FILES.map((file) => moduleFile(file, [AI_SDK_RUN_HOOK_VERSIONS], patch, unpatch));
  return moduleDefinition('ai', [AI_SDK_RUN_HOOK_VERSIONS], patch, unpatch, files);
}
