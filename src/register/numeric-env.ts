// The numeric variables register reads, or lets the SDK read, checked before
// anything reads them. Node's timers take at most 2^31-1 ms and turn a larger
// delay into 1 ms: OTEL_METRIC_EXPORT_INTERVAL=3e9 exported the counters about
// every millisecond. A value out of range is clamped, one that is no positive
// number ignored (the default applies), each with one warning.

import { warnOnce } from '../warnings';

/** The longest delay Node's setTimeout and setInterval honour. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Each variable's accepted range, in ms. */
export const NUMERIC_VARIABLES: Readonly<Record<string, { min: number; max: number }>> = {
  // Below 100 ms, exporting is a busy loop rather than a period.
  OTEL_METRIC_EXPORT_INTERVAL: { min: 100, max: MAX_TIMER_MS },
  OTEL_METRIC_EXPORT_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
  OTEL_EXPORTER_OTLP_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
  OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
  OTEL_EXPORTER_OTLP_METRICS_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
  OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
  OTEL_BSP_SCHEDULE_DELAY: { min: 1, max: MAX_TIMER_MS },
  OTEL_BSP_EXPORT_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
  OTEL_BLRP_SCHEDULE_DELAY: { min: 1, max: MAX_TIMER_MS },
  OTEL_BLRP_EXPORT_TIMEOUT: { min: 1, max: MAX_TIMER_MS },
};

/**
 * For each variable of NUMERIC_VARIABLES set in `env` with a value out of its
 * range: the value to use instead (clamped), or undefined to unset it (not a
 * positive number). Warns once per variable.
 */
export function numericOverrides(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const overrides: Record<string, string | undefined> = {};
  for (const [name, { min, max }] of Object.entries(NUMERIC_VARIABLES)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) {
      overrides[name] = undefined;
      warnOnce(`env:${name}`, `${name}=${JSON.stringify(raw)} is not a positive number of milliseconds: ignored, the default applies`);
    } else if (value < min || value > max) {
      const clamped = Math.min(max, Math.max(min, value));
      overrides[name] = String(clamped);
      warnOnce(`env:${name}`, `${name}=${raw} is outside ${min}..${max} ms: ${clamped} is used instead`);
    }
  }
  return overrides;
}

/** A positive number of ms from `env[name]`, already checked by numericOverrides, or undefined when unset. */
export function readMillis(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = Number(env[name]?.trim() || NaN);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
