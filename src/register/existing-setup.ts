// What the process already has registered with @opentelemetry/api, found by
// behaviour rather than by class name (which minification renames).

import {
  ProxyTracer,
  context,
  createContextKey,
  createNoopMeter,
  metrics,
  trace,
  type MeterProvider,
  type TracerProvider,
} from '@opentelemetry/api';

/** The global tracer provider, if one that records was registered. */
export function registeredTracerProvider(): TracerProvider | undefined {
  const provider = trace.getTracerProvider();
  // With no provider registered, the API hands out proxy tracers that wait for one.
  return provider.getTracer('nous-session-invariant.probe') instanceof ProxyTracer ? undefined : provider;
}

const noopMeterClass = createNoopMeter().constructor;

/** The global meter provider, if one was registered. */
export function registeredMeterProvider(): MeterProvider | undefined {
  const provider = metrics.getMeterProvider();
  return provider.getMeter('nous-session-invariant.probe').constructor === noopMeterClass ? undefined : provider;
}

const PROBE = createContextKey('nous-session-invariant.context-probe');

/** Whether a context manager is registered: without one, `context.with` carries nothing and spans do not nest across async work. */
export function hasContextManager(): boolean {
  return context.with(context.active().setValue(PROBE, true), () => context.active().getValue(PROBE) === true);
}

/**
 * Registers an AsyncLocalStorage context manager (the one NodeSDK installs)
 * when the app set up providers without one, so that the spans of checked
 * requests nest under the app's. Best effort: `withSession` does not need it
 * (it has its own storage), so a missing package is not worth a warning.
 */
export function ensureContextManager(): void {
  if (hasContextManager()) return;
  try {
    // Loaded only now, and any major will do: it is the app's to install (docs/register.md "Dependencies").
    const { AsyncLocalStorageContextManager } =
      require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  } catch {
    // Not installed: spans only do not nest.
  }
}
