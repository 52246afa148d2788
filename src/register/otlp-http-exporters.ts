// The OTLP/HTTP exporters, built by register rather than by the SDK when the
// environment selects OTLP over HTTP for a signal, so that they send through
// the deadline agent (deadline-agent.ts). They still read the endpoint,
// headers, compression and temporality from the environment themselves.

import { createRequire } from 'node:module';
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { deadlineAgentFactory, type AgentFactory } from './deadline-agent';
import { exportTimeoutFor, type Signal } from './export-timeout';

type ExporterOptions = { timeoutMillis: number; httpAgentOptions: AgentFactory };

const PACKAGES: Record<Signal, { json: string; protobuf: string; exporter: string }> = {
  TRACES: {
    json: '@opentelemetry/exporter-trace-otlp-http',
    protobuf: '@opentelemetry/exporter-trace-otlp-proto',
    exporter: 'OTLPTraceExporter',
  },
  METRICS: {
    json: '@opentelemetry/exporter-metrics-otlp-http',
    protobuf: '@opentelemetry/exporter-metrics-otlp-proto',
    exporter: 'OTLPMetricExporter',
  },
  LOGS: {
    json: '@opentelemetry/exporter-logs-otlp-http',
    protobuf: '@opentelemetry/exporter-logs-otlp-proto',
    exporter: 'OTLPLogExporter',
  },
};

/**
 * The HTTP protocol when the environment selects OTLP over HTTP for `signal`
 * and nothing else (as sdk-node reads OTEL_{signal}_EXPORTER and the
 * protocol variables); undefined leaves the signal to the SDK (gRPC, whose
 * deadline already holds, other or several exporters).
 */
export function otlpHttpProtocol(env: NodeJS.ProcessEnv, signal: Signal): 'json' | 'protobuf' | undefined {
  const exporters = new Set(
    (env[`OTEL_${signal}_EXPORTER`] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && name !== 'null'),
  );
  if (exporters.size > 1 || (exporters.size === 1 && !exporters.has('otlp'))) return undefined;
  const protocol = (env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim()) ?? '';
  if (protocol === '' || protocol === 'http/protobuf') return 'protobuf';
  return protocol === 'http/json' ? 'json' : undefined;
}

/** The OTLP/HTTP exporter for `signal`, its requests bounded by the signal's export timeout. */
function build<T>(env: NodeJS.ProcessEnv, signal: Signal, protocol: 'json' | 'protobuf'): T {
  // The exporters come with sdk-node, not with this package: resolved from it.
  const fromSdk = createRequire(require.resolve('@opentelemetry/sdk-node'));
  const exports = fromSdk(PACKAGES[signal][protocol]) as Record<string, new (options: ExporterOptions) => T>;
  const timeoutMillis = exportTimeoutFor(env, signal);
  return new exports[PACKAGES[signal].exporter]!({ timeoutMillis, httpAgentOptions: deadlineAgentFactory(timeoutMillis) });
}

export const otlpHttpSpanExporter = (env: NodeJS.ProcessEnv, protocol: 'json' | 'protobuf') => build<SpanExporter>(env, 'TRACES', protocol);
export const otlpHttpMetricExporter = (env: NodeJS.ProcessEnv, protocol: 'json' | 'protobuf') =>
  build<PushMetricExporter>(env, 'METRICS', protocol);
export const otlpHttpLogExporter = (env: NodeJS.ProcessEnv, protocol: 'json' | 'protobuf') =>
  build<LogRecordExporter>(env, 'LOGS', protocol);
