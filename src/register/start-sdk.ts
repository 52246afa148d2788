// Starting an OpenTelemetry NodeSDK for `register`: the whole SDK when the
// process has none, or the metrics side alone when another tool registered a
// tracer provider but no meter provider. Loaded only once sdk-packages.ts has
// found the SDK packages, since they are not dependencies of this package.

import { metrics } from '@opentelemetry/api';
import { PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { BatchLogRecordProcessor, SimpleLogRecordProcessor, type LogRecordExporter } from '@opentelemetry/sdk-logs';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import type { SessionInvariantInstrumentation } from '../instrumentation/session-invariant-instrumentation';
import { booleanFromEnv } from '../environment';
import {
  EvaluationConsoleLogExporter,
  InvariantConsoleMetricExporter,
  PRINT_COUNTERS_ENV,
  ViolationConsoleSpanExporter,
} from './console-exporters';
import { withDefaultExportTimeout } from './export-timeout';
import { numericOverrides, readMillis } from './numeric-env';
import { otlpHttpLogExporter, otlpHttpMetricExporter, otlpHttpProtocol, otlpHttpSpanExporter } from './otlp-http-exporters';
import { resourceDetectorsFor } from './resource-detectors';
import { withVariable, withVariables } from './scoped-env';

type Env = NodeJS.ProcessEnv;

/** Starts the whole SDK (traces, metrics, logs, context manager, propagator) with `instrumentation`. */
export function startSdk(env: Env, instrumentation: SessionInvariantInstrumentation): NodeSDK {
  // The SDK builds its exporters in its constructor (metrics) and in start (traces).
  return withSaneEnv(env, () => {
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
  return withSaneEnv(env, () =>
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

/** Runs `start` with the numeric variables in range (numeric-env.ts) and the export timeout defaulted, for register and the SDK alike. */
function withSaneEnv<T>(env: Env, start: () => T): T {
  return withVariables(env, numericOverrides(env), () => withDefaultExportTimeout(env, start));
}

const set = (env: Env, names: string[]) => names.some((name) => !!env[name]?.trim());

/**
 * Per signal: when the environment configures an exporter or an OTLP endpoint
 * for it, the SDK reads the standard OTEL_* variables itself, except that an
 * OTLP/HTTP exporter is built here, bounded by a hard deadline; otherwise the
 * embedded console default. Per signal, so that configuring traces alone does
 * not send metrics to an OTLP endpoint nobody runs (the SDK's default).
 */
function spanExportersFor(env: Env): Partial<NodeSDKConfiguration> {
  if (set(env, ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'])) {
    const protocol = otlpHttpProtocol(env, 'TRACES');
    // The SDK wraps it in a batch processor configured from the environment, as its own.
    return protocol ? { traceExporter: otlpHttpSpanExporter(env, protocol) } : {};
  }
  return { spanProcessors: [new SimpleSpanProcessor({ exporter: new ViolationConsoleSpanExporter() })] };
}

/** Logs carry the `gen_ai.evaluation.result` events; configured like the other signals. */
function logExportersFor(env: Env): Partial<NodeSDKConfiguration> {
  if (set(env, ['OTEL_LOGS_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_LOGS_ENDPOINT'])) {
    const protocol = otlpHttpProtocol(env, 'LOGS');
    return protocol ? { logRecordProcessors: [batchLogProcessor(env, otlpHttpLogExporter(env, protocol))] } : {};
  }
  return { logRecordProcessors: [new SimpleLogRecordProcessor({ exporter: new EvaluationConsoleLogExporter() })] };
}

/** A batch processor with the SDK's OTEL_BLRP_* settings, as the SDK gives its own OTLP log exporter (it takes none built outside). */
function batchLogProcessor(env: Env, exporter: LogRecordExporter): BatchLogRecordProcessor {
  return new BatchLogRecordProcessor({
    exporter,
    maxQueueSize: readMillis(env, 'OTEL_BLRP_MAX_QUEUE_SIZE'),
    scheduledDelayMillis: readMillis(env, 'OTEL_BLRP_SCHEDULE_DELAY'),
    exportTimeoutMillis: readMillis(env, 'OTEL_BLRP_EXPORT_TIMEOUT'),
    maxExportBatchSize: readMillis(env, 'OTEL_BLRP_MAX_EXPORT_BATCH_SIZE'),
  });
}

function metricExportersFor(env: Env): Partial<NodeSDKConfiguration> {
  if (set(env, ['OTEL_METRICS_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT'])) {
    const protocol = otlpHttpProtocol(env, 'METRICS');
    return protocol ? { metricReaders: [periodicReader(env, otlpHttpMetricExporter(env, protocol))] } : {};
  }
  // Nothing configured: no meter provider at all (a correct run prints nothing), unless the counters are asked for at exit.
  return {
    metricReaders: booleanFromEnv(PRINT_COUNTERS_ENV, false, 'printing the counters', env)
      ? [periodicReader(env, new InvariantConsoleMetricExporter())]
      : [],
  };
}

/** A reader with the SDK's defaults and rule: the interval (60 s), the timeout (30 s) at most the interval. */
function periodicReader(env: Env, exporter: PushMetricExporter): PeriodicExportingMetricReader {
  const exportIntervalMillis = readMillis(env, 'OTEL_METRIC_EXPORT_INTERVAL') ?? 60_000;
  const exportTimeoutMillis = Math.min(readMillis(env, 'OTEL_METRIC_EXPORT_TIMEOUT') ?? 30_000, exportIntervalMillis);
  return new PeriodicExportingMetricReader({ exporter, exportIntervalMillis, exportTimeoutMillis });
}
