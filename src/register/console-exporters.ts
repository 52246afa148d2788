// The embedded default when no exporter or OTLP endpoint is configured: the
// invariant counters on stderr. A violation's own console form is the warning
// line the package logs when it finds one (trace and span ids included), so the
// span and log exporters here print nothing: a second dump of the same
// violation in another format only confuses. Not a replacement for OTLP.

import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { LogRecordExporter, ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { CHECKS_METRIC, VIOLATION_METRIC } from '../telemetry/semconv';
import { consoleSafe } from '../warnings';

type Write = (line: string) => void;
const toStderr: Write = (line) => process.stderr.write(`${line}\n`);

/**
 * The span exporter `register` installs when no exporter or OTLP endpoint is
 * configured: it drops every span. The violation event on a span was already
 * printed as the warning line, with the span's trace and span ids
 * (docs/behaviour.md §6.4).
 */
export class ViolationConsoleSpanExporter implements SpanExporter {
  /** Drops `spans`; always reports success. */
  export(_spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    done({ code: ExportResultCode.SUCCESS });
  }

  /** Nothing to release. */
  async shutdown(): Promise<void> {}
  /** Nothing to flush. */
  async forceFlush(): Promise<void> {}
}

/**
 * The log exporter `register` installs when no logs exporter or OTLP endpoint
 * is configured: it drops every record. The package's only records are the
 * `gen_ai.evaluation.result` events, and the warning line already printed each
 * one (docs/behaviour.md §6.4).
 */
export class EvaluationConsoleLogExporter implements LogRecordExporter {
  /** Drops `records`; always reports success. */
  export(_records: ReadableLogRecord[], done: (result: ExportResult) => void): void {
    done({ code: ExportResultCode.SUCCESS });
  }

  /** Nothing to release. */
  async shutdown(): Promise<void> {}
  /** Nothing to flush. */
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
          this.write(consoleSafe(`[nous-session-invariant] counter ${name} ${JSON.stringify(point.attributes)} = ${String(point.value)}`));
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
