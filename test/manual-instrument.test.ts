// `manuallyInstrument` with both builds of one SDK in one process: `openai`'s
// CommonJS build (index.js, patched by the require hook) and its ES module
// build (index.mjs, which no loader hook sees without `--import`), each
// handed to `manuallyInstrument` too, one of them twice. The real SDK talks
// to a loopback server. Each build's client is hooked, and patched once:
// a correct loop is silent with one check per request, a dropped tool
// result is reported once (one span event, a counter of one), and strict
// mode refuses it before it is sent with the violation itself (a build not
// handed over is refused at the fetch seam, with the package's 422).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { runNode } from './support/run-node';

const APP = 'test/fixtures/manual/two-builds.mjs';
/** The zero-code loop's requests per run: five questions, each a tool call and an answer. */
const REQUESTS_PER_RUN = 10;
let runs = 0;

let provider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
  await Promise.all(receivers.map((r) => r.close()));
});

interface TwoBuildsRun {
  results: Record<string, string>;
  /** The violation span events' kinds. */
  events: string[];
  violations: number;
  checks: number;
  stderr: string;
}

/** Runs the app, its own SDK's or `register`'s (`registered`) telemetry exported to a receiver of its own. */
async function runTwoBuilds(env: Record<string, string>, registered = false): Promise<TwoBuildsRun & { run: string }> {
  const tag = String(++runs);
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const run = await runNode([...(registered ? ['--import', 'nous-session-invariant/register'] : []), APP], {
    FAKE_PROVIDER_URL: provider.openaiBaseURL,
    FAULT: 'drop-result-once',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_LOGS_EXPORTER: 'none',
    RUN: tag,
    ...(registered ? { REGISTERED: '1' } : {}),
    ...env,
  });
  const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  expect(line, run.stderr).toBeDefined();
  const sum = (metric: string): number => receiver.points(metric).reduce((n, p) => n + p.value, 0);
  return {
    run: tag,
    results: JSON.parse(line!.slice('RESULT '.length)) as Record<string, string>,
    events: receiver
      .events()
      .filter((e) => e.name === 'nous.session.invariant.violation')
      .map((e) => e.attributes['nous.session.invariant.kind'] as string),
    violations: sum('nous.session.invariant.violation'),
    checks: sum('nous.session.invariant.checks'),
    stderr: run.stderr,
  };
}

/** The requests the server received for one agent run (its system message names the app's run, the build and the fault). */
function received(run: string, build: string, fault: string): Array<Array<{ role: string; tool_calls?: unknown[] }>> {
  return provider.received
    .map((r) => r.body.messages as Array<{ role: string; content?: unknown; tool_calls?: unknown[] }>)
    .filter((messages) => messages[0]?.content === `You are a weather assistant (run ${run}, ${build}, ${fault}).`);
}

const ALL_DONE = { 'cjs correct': 'done', 'cjs dropped': 'done', 'esm correct': 'done', 'esm dropped': 'done' };

describe('the CommonJS and the ES module build of openai in one process', () => {
  it.each([
    { setup: 'own NodeSDK, the require hook and manuallyInstrument', registered: false },
    { setup: '--import register (both loader hooks) and manuallyInstrument', registered: true },
  ])(
    '$setup: each request checked once, each build’s drop reported once',
    async ({ registered }) => {
      const run = await runTwoBuilds({ MANUAL: '1' }, registered);
      expect(run.results, run.stderr).toEqual(ALL_DONE);
      expect(run.checks, run.stderr).toBe(4 * REQUESTS_PER_RUN);
      expect(run.events, run.stderr).toEqual(['missing_message', 'missing_message']);
      expect(run.violations).toBe(2);
      expect(run.stderr).not.toContain('manuallyInstrument');
    },
    120_000,
  );

  it.each([false, true])(
    'strict (register: %s): each build’s drop refused before it is sent',
    async (registered) => {
      const run = await runTwoBuilds({ MANUAL: '1', NOUS_SESSION_INVARIANT: 'strict', NODE_ENV: 'test' }, registered);
      expect(run.results, run.stderr).toEqual({
        'cjs correct': 'done',
        'cjs dropped': 'refused missing_message',
        'esm correct': 'done',
        'esm dropped': 'refused missing_message',
      });
      for (const build of ['cjs', 'esm']) {
        // Every request the server saw answers each tool call it carries: the one that dropped a result never left.
        for (const messages of received(run.run, build, 'drop-result-once')) {
          const calls = messages.filter((m) => m.role === 'assistant').reduce((n, m) => n + (m.tool_calls?.length ?? 0), 0);
          expect(messages.filter((m) => m.role === 'tool')).toHaveLength(calls);
        }
        expect(received(run.run, build, 'none')).toHaveLength(REQUESTS_PER_RUN);
      }
      expect(run.violations).toBe(2);
    },
    120_000,
  );

  it('strict, the ES module build not given: only the fetch seam sees it, which refuses the drop with its 422', async () => {
    // What manuallyInstrument changes: without it the ES module build's client is not hooked.
    const run = await runTwoBuilds({ MANUAL: '0', NOUS_SESSION_INVARIANT: 'strict', NODE_ENV: 'test' });
    expect(run.results, run.stderr).toEqual({
      ...ALL_DONE,
      'cjs dropped': 'refused missing_message',
      'esm dropped': 'refused at the fetch seam missing_message',
    });
    expect(run.violations).toBe(2);
  }, 120_000);
});
