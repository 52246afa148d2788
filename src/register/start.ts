// What `--require nous-session-invariant/register` (and `--import`) does:
// enable the instrumentation and make sure its telemetry goes somewhere.

import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { SessionInvariantInstrumentation } from '../instrumentation/session-invariant-instrumentation';
import { describeThrown } from '../result';
import { logWarning } from '../telemetry/logger';
import { InvariantConsoleMetricExporter, ViolationConsoleSpanExporter } from './console-exporters';
import { registeredMeterProvider, registeredTracerProvider } from './existing-setup';

/** What `register` set up: the instrumentation, the SDK it started (if any), and how to flush and stop it. */
export interface Registration {
  instrumentation: SessionInvariantInstrumentation;
  /** The SDK this package started, or undefined when it attached to one already registered. */
  sdk: NodeSDK | undefined;
  /**
   * Flushes and shuts down the SDK this package started, waiting at most 5
   * seconds, once however often it is called; a no-op when the package attached
   * to an SDK already registered.
   */
  shutdown(): Promise<void>;
}

const REGISTRATION = Symbol.for('nous-session-invariant.registration');
const SHUTDOWN_TIMEOUT_MS = 5_000;

type Env = NodeJS.ProcessEnv;

/** Idempotent: `--require` and `--import` together, or a second load, register once. */
export function register(env: Env = process.env): Registration {
  const holder = globalThis as { [REGISTRATION]?: Registration };
  return (holder[REGISTRATION] ??= start(env));
}

function start(env: Env): Registration {
  const instrumentation = new SessionInvariantInstrumentation();
  const tracerProvider = registeredTracerProvider();
  const meterProvider = registeredMeterProvider();
  if (tracerProvider || meterProvider) {
    // The app (or another distro's register) runs its own SDK: join it rather than start a second.
    if (tracerProvider) instrumentation.setTracerProvider(tracerProvider);
    if (meterProvider) instrumentation.setMeterProvider(meterProvider);
    return { instrumentation, sdk: undefined, shutdown: async () => {} };
  }
  const sdk = new NodeSDK({ instrumentations: [instrumentation], ...exportersFor(env) });
  sdk.start();
  const registration: Registration = { instrumentation, sdk, shutdown: onceShutdown(sdk) };
  flushOnExit(registration);
  return registration;
}

/**
 * With an exporter or an OTLP endpoint configured, the SDK reads the standard
 * OTEL_* variables itself. With neither, the embedded console default.
 */
function exportersFor(env: Env): Partial<NodeSDKConfiguration> {
  const configured = [
    'OTEL_TRACES_EXPORTER',
    'OTEL_METRICS_EXPORTER',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
  ].some((name) => !!env[name]?.trim());
  if (configured) return {};
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    spanProcessors: [new SimpleSpanProcessor({ exporter: new ViolationConsoleSpanExporter() })],
    metricReaders: [
      new PeriodicExportingMetricReader({
        exporter: new InvariantConsoleMetricExporter(),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
      }),
    ],
  };
}

function onceShutdown(sdk: NodeSDK): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () =>
    (done ??= Promise.race([sdk.shutdown(), new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_TIMEOUT_MS).unref())]).catch(
      (error: unknown) => logWarning(`telemetry shutdown failed: ${describeThrown(error)}`),
    ));
}

/**
 * Flushes the last violations at exit and on SIGTERM/SIGINT. A signal
 * listener cancels Node's default exit, so once flushed the signal is raised
 * again, unless the app listens for it itself (then exiting is the app's call).
 */
function flushOnExit(registration: Registration): void {
  process.once('beforeExit', () => void registration.shutdown());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void registration.shutdown().finally(() => {
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
}
