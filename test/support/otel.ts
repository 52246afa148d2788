// The real OpenTelemetry SDK, registered globally for a test and torn down after.

import { context, logs, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { MeterProvider, MetricReader, type DataPoint, type MetricData } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_KIND } from '../../src/telemetry/semconv';

/** Collects on demand: the test reads exactly what was recorded so far. */
export class OnDemandMetricReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

export interface OtelHarness {
  spans: InMemorySpanExporter;
  /** Log records emitted through the global logger provider of @opentelemetry/api's Logs API. */
  logs: InMemoryLogRecordExporter;
  loggerProvider: LoggerProvider;
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  metric(name: string): Promise<MetricData | undefined>;
  points(name: string): Promise<Array<DataPoint<number>>>;
  /** The sum of a counter's points so far; with `kind`, of those with that violation kind only. */
  total(name: string, kind?: string): Promise<number>;
  teardown(): Promise<void>;
}

export function registerOtel(): OtelHarness {
  const spans = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
  const reader = new OnDemandMetricReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const logRecords = new InMemoryLogRecordExporter();
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logRecords })] });
  logs.setGlobalLoggerProvider(loggerProvider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);

  async function metric(name: string): Promise<MetricData | undefined> {
    const { resourceMetrics } = await reader.collect();
    return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
  }

  async function points(name: string): Promise<Array<DataPoint<number>>> {
    return ((await metric(name))?.dataPoints ?? []) as Array<DataPoint<number>>;
  }

  return {
    spans,
    logs: logRecords,
    loggerProvider,
    tracerProvider,
    meterProvider,
    metric,
    points,
    async total(name, kind) {
      return (await points(name)).filter((p) => kind === undefined || p.attributes[ATTR_KIND] === kind).reduce((n, p) => n + p.value, 0);
    },
    async teardown() {
      trace.disable();
      metrics.disable();
      logs.disable();
      context.disable();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      await loggerProvider.shutdown();
    },
  };
}
