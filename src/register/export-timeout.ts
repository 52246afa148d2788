// How long one OTLP export may take in the SDK `register` starts. The OTLP
// exporters' own default is 10 s, with retries inside it; their sockets and
// retry timers hold the event loop, so a collector that is down or silent
// keeps a finished app alive that long at exit. Register's default is shorter.

import { readMillis } from './numeric-env';
import { withVariable } from './scoped-env';

/** An OpenTelemetry signal, as its environment variables name it. */
export type Signal = 'TRACES' | 'METRICS' | 'LOGS';

/** Register's OTLP export timeout when none is configured, in ms; also the bound on a failing export at exit. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 2_000;

/**
 * The default timeout: 2 s, or half the metric export interval when that is
 * shorter. An export that outlasts the interval overlaps the next one, and a
 * silent collector would then hold the event loop for ever.
 */
export function defaultExportTimeout(env: NodeJS.ProcessEnv): number {
  const interval = readMillis(env, 'OTEL_METRIC_EXPORT_INTERVAL');
  const half = interval !== undefined ? Math.floor(interval / 2) : Infinity;
  return Math.max(1, Math.min(DEFAULT_EXPORT_TIMEOUT_MS, half));
}

/** One signal's OTLP export timeout, as the exporters resolve it: the signal's variable, the general one, else register's default. */
export function exportTimeoutFor(env: NodeJS.ProcessEnv, signal: Signal): number {
  return (
    readMillis(env, `OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`) ?? readMillis(env, 'OTEL_EXPORTER_OTLP_TIMEOUT') ?? defaultExportTimeout(env)
  );
}

const TIMEOUT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT',
  'OTEL_EXPORTER_OTLP_LOGS_TIMEOUT',
];

/**
 * Runs `start` (which builds the exporters; they read the environment once, in
 * their constructors) with OTEL_EXPORTER_OTLP_TIMEOUT defaulted, then puts the
 * environment back as it was, so the app never sees the variable.
 */
export function withDefaultExportTimeout<T>(env: NodeJS.ProcessEnv, start: () => T): T {
  if (TIMEOUT_VARIABLES.some((name) => env[name]?.trim())) return start();
  return withVariable(env, 'OTEL_EXPORTER_OTLP_TIMEOUT', String(defaultExportTimeout(env)), start);
}
