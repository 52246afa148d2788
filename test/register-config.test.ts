// Numeric configuration register reads or lets the SDK read: a value Node's
// timers cannot take (above 2^31-1 ms, which they turn into 1 ms), negative,
// NaN or no number at all is clamped or ignored with one warning, never a busy
// export loop, a crash or a late exit.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useRegisterHarness } from './support/register-harness';
import { runNode, type NodeRun } from './support/run-node';

const APP = 'test/fixtures/agent-app.cjs';
const h = useRegisterHarness();
const COUNTER_LINE = /counter nous\.session\.invariant\.violation/g;
const metricPosts = () => h.receiver.raw.filter((body) => body.includes('"resourceMetrics"')).length;

/** Runs the agent under register, held open `holdMs` after its work, then stopped by SIGTERM (which flushes). */
function runHeld(env: Record<string, string>, holdMs: number): Promise<NodeRun> {
  return runNode(
    ['--require', 'nous-session-invariant/register', APP],
    { FAKE_PROVIDER_URL: h.provider.openaiBaseURL, HOLD_OPEN: '1', ...env },
    {
      onStdout: (out, child) => {
        if (out.includes('agent done') && !child.killed) setTimeout(() => child.kill('SIGTERM'), holdMs).unref();
      },
    },
  );
}

describe('OTEL_METRIC_EXPORT_INTERVAL above 2^31-1 ms', () => {
  it('is clamped with one warning: the console default prints the counters at the flush only', async () => {
    const run = await runHeld({ OTEL_METRIC_EXPORT_INTERVAL: '3000000000', NOUS_SESSION_INVARIANT_PRINT_COUNTERS: 'true' }, 2_000);
    expect(run.signal, run.stderr.slice(0, 2_000)).toBe('SIGTERM');
    expect(run.stderr.match(COUNTER_LINE)?.length).toBe(1);
    expect(run.stderr.match(/OTEL_METRIC_EXPORT_INTERVAL/g)).toHaveLength(1);
    expect(run.stderr).not.toContain('TimeoutOverflowWarning');
  });

  it('is clamped with one warning: OTLP gets one metrics export, at the flush', async () => {
    const run = await runHeld(h.otlpEnv({ OTEL_METRIC_EXPORT_INTERVAL: '3000000000' }), 2_000);
    expect(run.signal, run.stderr.slice(0, 2_000)).toBe('SIGTERM');
    expect(metricPosts()).toBe(1);
    expect(run.stderr.match(/OTEL_METRIC_EXPORT_INTERVAL/g)).toHaveLength(1);
  });
});

// Values for one numeric variable: unset, in range, tiny, huge, negative, not a number.
const hostileValue = fc.oneof(
  fc.constant(undefined),
  fc.integer({ min: 1, max: 120_000 }).map(String),
  fc.integer({ min: 2 ** 31, max: 2 ** 52 }).map(String),
  fc.integer({ min: -1_000_000, max: 0 }).map(String),
  fc.double({ noNaN: false }).map(String),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '1e400', 'abc', ' ', '0x10', '5ms', '1_000', '3e9'),
);
const VARIABLES = [
  'OTEL_METRIC_EXPORT_INTERVAL',
  'OTEL_METRIC_EXPORT_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TIMEOUT',
  'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_EXPORTER_OTLP_METRICS_TIMEOUT',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_BSP_EXPORT_TIMEOUT',
] as const;
const hostileEnv = fc.record(
  Object.fromEntries(VARIABLES.map((name) => [name, hostileValue])) as Record<(typeof VARIABLES)[number], typeof hostileValue>,
);

describe('hostile numeric configuration (property)', () => {
  // Each run is a subprocess of about a second: few runs, so that a loaded machine runs it reliably.
  it('never throws into the app, never exports in a loop, warns at most once per variable, exits within the bound', async () => {
    await fc.assert(
      fc.asyncProperty(hostileEnv, fc.boolean(), async (values, toOtlp) => {
        const env = Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
        const posted = metricPosts();
        let doneAt = 0;
        const run = await runNode(
          ['--require', 'nous-session-invariant/register', APP],
          toOtlp ? h.otlpEnv(env) : { FAKE_PROVIDER_URL: h.provider.openaiBaseURL, NOUS_SESSION_INVARIANT_PRINT_COUNTERS: 'true', ...env },
          {
            timeoutMs: 20_000,
            onStdout: (out) => {
              if (!doneAt && out.includes('agent done')) doneAt = Date.now();
            },
          },
        );
        const context = `${JSON.stringify(env)} otlp=${toOtlp}\n${run.stderr.slice(0, 2_000)}`;
        expect(run.code, context).toBe(0);
        expect(doneAt, context).toBeGreaterThan(0);
        expect(Date.now() - doneAt, context).toBeLessThan(7_000);
        expect(run.stderr, context).not.toMatch(/TimeoutOverflowWarning|TypeError|RangeError/);
        for (const name of VARIABLES) expect(run.stderr.split(name).length - 1, context).toBeLessThanOrEqual(1);
        // At most one export every 100 ms over a run of a few seconds, and the flush; the console prints the totals once, at exit.
        if (toOtlp) expect(metricPosts() - posted, context).toBeLessThan(30);
        else expect(run.stderr.match(COUNTER_LINE)?.length ?? 0, context).toBe(1);
      }),
      { numRuns: 8, endOnFailure: true },
    );
  }, 180_000);
});
