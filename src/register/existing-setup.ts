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
import { logWarning } from '../telemetry/logger';

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

/** Whether a context manager is registered: without one, `context.with` does not carry values and a bound session is invisible. */
export function hasContextManager(): boolean {
  return context.with(context.active().setValue(PROBE, true), () => context.active().getValue(PROBE) === true);
}

/**
 * Registers an AsyncLocalStorage context manager (the one NodeSDK installs)
 * when the app set up providers without one; says why when that fails.
 */
export function ensureContextManager(): void {
  if (hasContextManager()) return;
  let installed = false;
  try {
    // Loaded only now, and any major will do: it is the app's to install (README "Dependencies").
    const { AsyncLocalStorageContextManager } =
      require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
    installed = context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  } catch {
    // Not installed: said below.
  }
  if (!installed || !hasContextManager()) {
    logWarning(
      'no working OpenTelemetry context manager is registered, so withSession cannot bind a session; register one before ' +
        'this package, or install @opentelemetry/context-async-hooks',
    );
  }
}
