// Starting an OpenTelemetry NodeSDK for `register`: the whole SDK when the
// process has none, or the metrics side alone when another tool registered a
// tracer provider but no meter provider. Loaded only once sdk-packages.ts has
// found the SDK packages, since they are not dependencies of this package.

import { metrics } from '@opentelemetry/api';
import { PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SessionInvariantInstrumentation } from '../instrumentation/session-invariant-instrumentation';
import { EvaluationConsoleLogExporter, InvariantConsoleMetricExporter, ViolationConsoleSpanExporter } from './console-exporters';
import { withDefaultExportTimeout } from './export-timeout';
import { resourceDetectorsFor } from './resource-detectors';
import { withVariable } from './scoped-env';

type Env = NodeJS.ProcessEnv;

/** Starts the whole SDK (traces, metrics, logs, context manager, propagator) with `instrumentation`. */
export function startSdk(env: Env, instrumentation: SessionInvariantInstrumentation): NodeSDK {
  // The SDK builds its exporters in its constructor (metrics) and in start (traces).
  return withDefaultExportTimeout(env, () => {
    const sdk = new NodeSDK({
      instrumentations: [instrumentation],
      resourceDetectors: resourceDetectorsFor(env),
      ...spanExportersFor(env),
      ...metricExportersFor(env),
      ...logExportersFor(env),
    });
    sdk.start();
    return sdk;
  });
}

/**
 * Starts the metrics side only, for a process whose tracer provider another
 * tool registered (Sentry does, with no meter provider): no tracer provider,
 * context manager, propagator or logger provider, which would be refused or
 * would take the other tool's place. `instrumentation` gets the meter provider.
 */
export function startMetricsSdk(env: Env, instrumentation: SessionInvariantInstrumentation): NodeSDK {
  return withDefaultExportTimeout(env, () =>
    withVariable(env, 'OTEL_LOGS_EXPORTER', 'none', () => {
      const sdk = new NodeSDK({
        resourceDetectors: resourceDetectorsFor(env),
        spanProcessors: [],
        // NodeSDK skips the context manager when given null (sdk-node 0.301's setupContextManager), though its type omits null.
        contextManager: null as unknown as undefined,
        textMapPropagator: null,
        ...metricExportersFor(env),
      });
      sdk.start();
      // NodeSDK keeps its provider private; it registered it as the global one, which nothing else had.
      instrumentation.setMeterProvider(metrics.getMeterProvider());
      return sdk;
    }),
  );
}

const set = (env: Env, names: string[]) => names.some((name) => !!env[name]?.trim());

/**
 * Per signal: when the environment configures an exporter or an OTLP endpoint
 * for it, the SDK reads the standard OTEL_* variables itself; otherwise the
 * embedded console default. Per signal, so that configuring traces alone does
 * not send metrics to an OTLP endpoint nobody runs (the SDK's default).
 */
function spanExportersFor(env: Env): Partial<NodeSDKConfiguration> {
  if (set(env, ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'])) return {};
  return { spanProcessors: [new SimpleSpanProcessor({ exporter: new ViolationConsoleSpanExporter() })] };
}

/** Logs carry the `gen_ai.evaluation.result` events; configured like the other signals. */
function logExportersFor(env: Env): Partial<NodeSDKConfiguration> {
  if (set(env, ['OTEL_LOGS_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'])) return {};
  return { logRecordProcessors: [new SimpleLogRecordProcessor({ exporter: new EvaluationConsoleLogExporter() })] };
}

function metricExportersFor(env: Env): Partial<NodeSDKConfiguration> {
  if (set(env, ['OTEL_METRICS_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'])) return {};
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  return {
    metricReaders: [
      new PeriodicExportingMetricReader({
        exporter: new InvariantConsoleMetricExporter(),
        exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
      }),
    ],
  };
}
