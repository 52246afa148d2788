// What `--require nous-session-invariant/register` (and `--import`) does:
// enable the instrumentation and make sure its telemetry goes somewhere.

import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { SessionInvariantInstrumentation } from '../instrumentation/session-invariant-instrumentation';
import { describeThrown } from '../result';
import { logWarning } from '../telemetry/logger';
import { InvariantConsoleMetricExporter, ViolationConsoleSpanExporter } from './console-exporters';
import { ensureContextManager, registeredMeterProvider, registeredTracerProvider } from './existing-setup';
import { flushOnExit } from './exit-flush';
import { withDefaultExportTimeout } from './export-timeout';
import { resourceDetectorsFor } from './resource-detectors';

/** What `register` set up: the instrumentation, the SDK it started (if any), and how to flush and stop it. */
export interface Registration {
  instrumentation: SessionInvariantInstrumentation;
  /** The SDK this package started, or undefined when it attached to one already registered. */
  sdk: NodeSDK | undefined;
  /**
   * Flushes and shuts down the SDK this package started, waiting at most
   * SHUTDOWN_TIMEOUT_MS, once however often it is called; a no-op when the
   * package attached to an SDK already registered.
   */
  shutdown(): Promise<void>;
}

const REGISTRATION = Symbol.for('nous-session-invariant.registration');
/** The longest a flush at exit (or a call to `shutdown`) waits: one export's timeout, and a margin. */
export const SHUTDOWN_TIMEOUT_MS = 3_000;

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
    // A set-up with only providers (no NodeSDK) may have no context manager: withSession needs one.
    ensureContextManager();
    return { instrumentation, sdk: undefined, shutdown: async () => {} };
  }
  // The SDK builds its exporters in its constructor (metrics) and in start (traces).
  const sdk = withDefaultExportTimeout(env, () => {
    const started = new NodeSDK({
      instrumentations: [instrumentation],
      resourceDetectors: resourceDetectorsFor(env),
      ...exportersFor(env),
    });
    started.start();
    return started;
  });
  return { instrumentation, sdk, shutdown: flushOnExit(onceShutdown(sdk)) };
}

/**
 * Per signal: when the environment configures an exporter or an OTLP endpoint
 * for it, the SDK reads the standard OTEL_* variables itself; otherwise the
 * embedded console default. Per signal, so that configuring traces alone does
 * not send metrics to an OTLP endpoint nobody runs (the SDK's default).
 */
function exportersFor(env: Env): Partial<NodeSDKConfiguration> {
  const set = (...names: string[]) => names.some((name) => !!env[name]?.trim());
  const exporters: Partial<NodeSDKConfiguration> = {};
  if (!set('OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT')) {
    exporters.spanProcessors = [new SimpleSpanProcessor({ exporter: new ViolationConsoleSpanExporter() })];
  }
  if (!set('OTEL_METRICS_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT')) {
    const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
    exporters.metricReaders = [
      new PeriodicExportingMetricReader({
        exporter: new InvariantConsoleMetricExporter(),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
      }),
    ];
  }
  return exporters;
}

function onceShutdown(sdk: NodeSDK): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () =>
    (done ??= new Promise<void>((resolve) => {
      // Not unref'd: at a signal, the flush must get its time before the signal is raised again.
      const bound = setTimeout(resolve, SHUTDOWN_TIMEOUT_MS);
      sdk
        .shutdown()
        .catch((error: unknown) => logWarning(`telemetry shutdown failed: ${describeThrown(error)}`))
        .finally(() => {
          clearTimeout(bound);
          resolve();
        });
    }));
}
