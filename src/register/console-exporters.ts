// The embedded default when no exporter or OTLP endpoint is configured: one
// line per violation event and the invariant counters, on stderr. Enough to
// see the package work with no backend; not a replacement for OTLP.

import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { PushMetricExporter, ResourceMetrics } from '@opentelemetry/sdk-metrics';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { CHECKS_METRIC, VIOLATION_EVENT, VIOLATION_METRIC } from '../telemetry/semconv';

type Write = (line: string) => void;
const toStderr: Write = (line) => process.stderr.write(`${line}\n`);

export class ViolationConsoleSpanExporter implements SpanExporter {
  constructor(private readonly write: Write = toStderr) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      for (const event of span.events) {
        if (event.name !== VIOLATION_EVENT) continue;
        this.write(`[nous-session-invariant] span "${span.name}" event ${VIOLATION_EVENT} ${JSON.stringify(event.attributes ?? {})}`);
      }
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
  async forceFlush(): Promise<void> {}
}

export class InvariantConsoleMetricExporter implements PushMetricExporter {
  constructor(private readonly write: Write = toStderr) {}

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

  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}
