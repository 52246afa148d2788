// The embedded default when no exporter or OTLP endpoint is configured: one
// line per violation event and the invariant counters, on stderr. Enough to
// see the package work with no backend; not a replacement for OTLP.

import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { CHECKS_METRIC, VIOLATION_EVENT, VIOLATION_METRIC } from '../telemetry/semconv';

type Write = (line: string) => void;
const toStderr: Write = (line) => process.stderr.write(`${line}\n`);

/**
 * The span exporter `register` installs when no exporter or OTLP endpoint is
 * configured: one stderr line per `nous.session.invariant.violation` event,
 * every other span dropped. Enough to see the package work with no backend
 * (docs/behaviour.md §6.4).
 */
export class ViolationConsoleSpanExporter implements SpanExporter {
  /** `write` receives each line (default: stderr). */
  constructor(private readonly write: Write = toStderr) {}

  /** Writes one line per violation event in `spans`; always reports success. */
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      for (const event of span.events) {
        if (event.name !== VIOLATION_EVENT) continue;
        this.write(`[nous-session-invariant] span "${span.name}" event ${VIOLATION_EVENT} ${JSON.stringify(event.attributes ?? {})}`);
      }
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  /** Nothing to release: lines are written as they are exported. */
  async shutdown(): Promise<void> {}
  /** Nothing to flush: lines are written as they are exported. */
  async forceFlush(): Promise<void> {}
}

/**
 * The metric exporter `register` installs when no exporter or OTLP endpoint is
 * configured: one stderr line per data point of the violation and checks
 * counters, every other metric dropped (docs/behaviour.md §6.4).
 */
export class InvariantConsoleMetricExporter implements PushMetricExporter {
  /** `write` receives each line (default: stderr). */
  constructor(private readonly write: Write = toStderr) {}

  /** Writes one line per data point of the violation and checks counters; always reports success. */
  export(metrics: ResourceMetrics, done: (result: ExportResult) => void): void {
    for (const scope of metrics.scopeMetrics) {
      for (const metric of scope.metrics) {
        const name = metric.descriptor.name;
        if (name !== VIOLATION_METRIC && name !== CHECKS_METRIC) continue;
        for (const point of metric.dataPoints) {
          this.write(`[nous-session-invariant] counter ${name} ${JSON.stringify(point.attributes)} = ${String(point.value)}`);
        }
      }
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  /** Nothing to flush: lines are written as they are exported. */
  async forceFlush(): Promise<void> {}
  /** Nothing to release: lines are written as they are exported. */
  async shutdown(): Promise<void> {}
}
