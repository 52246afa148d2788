// Which run a model request belongs to. A run is one framework call (an AI
// SDK `generateText`/`streamText`, an Agents SDK `run`), else the trace of
// the active span; a direct request with neither is a run of its own. The
// implicit log uses runs for one rule only: within a run, a request that
// repeats the previous one without the model's reply lost that reply.

import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';

/** Identifies a run; compared by identity (objects) or value (trace ids). */
export type RunKey = object | string;

const frameworkRun = new AsyncLocalStorage<RunKey>();

/** Runs `fn` as (part of) the framework call `run`: a framework call wins over an app span around several calls. */
export function inFrameworkRun<T>(run: RunKey, fn: () => T): T {
  return frameworkRun.run(run, fn);
}

/** The storage framework seams bind their calls to (a diagnostics channel's `bindStore`). */
export const frameworkRunStorage: AsyncLocalStorage<RunKey> = frameworkRun;

/** Frameworks that keep their own notion of the current run (the Agents SDK's trace). */
const resolvers = new Set<() => RunKey | null | undefined>();

/** Registers a framework's current-run reader; returns what unregisters it. */
export function addRunResolver(resolve: () => RunKey | null | undefined): () => void {
  resolvers.add(resolve);
  return () => resolvers.delete(resolve);
}

/** The current run, or undefined when the request is a run of its own. */
export function currentRun(): RunKey | undefined {
  const framework = frameworkRun.getStore();
  if (framework !== undefined) return framework;
  for (const resolve of resolvers) {
    try {
      const run = resolve();
      if (run !== undefined && run !== null) return run;
    } catch {
      // a framework's reader failed: fall back to the trace
    }
  }
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && isSpanContextValid(spanContext) ? `trace:${spanContext.traceId}` : undefined;
}
