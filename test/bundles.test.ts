// Bundled apps: a bundle (esbuild, CommonJS and ESM) that inlines `openai`,
// in one process with the same version of `openai` loaded from node_modules,
// which `register`'s require hook patches. The bundle's copy is never hooked,
// and its requests carry the same headers as the hooked copy's; the fetch
// seam still checks them, because it goes by which client sent a request
// (the hooked client's abort signal), not by its headers. Each copy's drop is
// reported, once. In strict mode each copy refuses its drop before sending:
// the hooked one with the violation, the bundle's (which would retry a throw
// as a connection error) with a 422 of the package's own, which its SDK
// throws as its own error, after one attempt. Then a bundled app that hands
// its inlined openai to `manuallyInstrument`: the inlined client is hooked
// (strict mode refuses a drop with the violation itself, as the fetch seam
// cannot for a Stainless client), and a drop is still reported once.

import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_FIXTURES, bundle } from './support/bundles';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { PACKAGE_ROOT, runNode } from './support/run-node';

let out: string;
/** Bundles that keep the instrumentation and OpenTelemetry external: inside the package, so Node finds them in its node_modules. */
let withExternals: string;
let provider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'nous-bundles-'));
  await bundle('openai-loop.cjs', join(out, 'bundle.cjs'));
  await bundle('openai-loop.mjs', join(out, 'bundle.mjs'));
  mkdirSync(join(PACKAGE_ROOT, '.tmp'), { recursive: true });
  withExternals = mkdtempSync(join(PACKAGE_ROOT, '.tmp', 'bundles-'));
  const external = ['nous-session-invariant', '@opentelemetry/*'];
  await bundle('manual-app.cjs', join(withExternals, 'manual-app.cjs'), external);
  await bundle('manual-app.mjs', join(withExternals, 'manual-app.mjs'), external);
  provider = await startFakeProvider();
}, 120_000);
afterAll(async () => {
  if (withExternals) rmSync(withExternals, { recursive: true, force: true });
  await provider?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** The app under `register` with the bundle `file`, its telemetry sent to a receiver of its own; `env` adds to the app's environment. */
async function runApp(file: string, env: Record<string, string> = {}) {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const sent = provider.received.length;
  const run = await runNode(['--require', 'nous-session-invariant/register', join(BUNDLE_FIXTURES, 'app.cjs')], {
    BUNDLE: join(out, file),
    FAKE_PROVIDER_URL: provider.openaiBaseURL,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRICS_EXPORTER: 'otlp',
    ...env,
  });
  expect(run.stdout, run.stderr).toContain('agent done');
  const events = receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
  expect(events.map((e) => e.attributes['nous.session.invariant.kind'])).toEqual(['missing_message', 'missing_message']);
  const counted = receiver.points('nous.session.invariant.violation').reduce((sum, p) => sum + p.value, 0);
  expect(counted).toBe(2);
  return { stdout: run.stdout, sent: provider.received.length - sent };
}

describe('a bundle that inlines openai, next to openai from node_modules', () => {
  it.each(['bundle.cjs', 'bundle.mjs'])(
    '%s: the drop through each copy is reported, once',
    async (bundle) => {
      const run = await runApp(bundle);
      expect(run.stdout).toContain('bundle copy: 4 attempts');
      expect(run.sent).toBe(8);
    },
    120_000,
  );

  it.each(['bundle.cjs', 'bundle.mjs'])(
    '%s, strict: each copy refuses its drop before sending, the bundle with its own error naming the package, after one attempt',
    async (bundle) => {
      const run = await runApp(bundle, { NODE_ENV: 'test', NOUS_SESSION_INVARIANT: 'strict' });
      expect(run.stdout).toContain('hooked copy: SessionInvariantViolation: session invariant violated: missing_message at index 1 ');
      // Four calls, one attempt each, its default retries notwithstanding; the dropped request never reaches the provider.
      expect(run.stdout).toContain('bundle copy: 4 attempts');
      expect(run.stdout).toMatch(
        /bundle copy: UnprocessableEntityError\d*: 422 nous-session-invariant refused this request in strict mode; it was not sent to the provider: session invariant violated: missing_message at index 1 /,
      );
      expect(run.sent).toBe(6);
    },
    120_000,
  );
});

describe('a bundle that inlines openai and hands it to manuallyInstrument', () => {
  let topics = 0;
  /** Runs the bundled app; how its loop ended, the requests the server received for it, and the violations exported. */
  async function runManual(app: string, env: Record<string, string>) {
    const receiver = await startOtlpReceiver();
    receivers.push(receiver);
    const topic = `sleet ${++topics}`;
    const run = await runNode([join(withExternals, app)], {
      FAKE_PROVIDER_URL: provider.openaiBaseURL,
      TOPIC: topic,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'none',
      ...env,
    });
    const line = run.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    expect(line, run.stderr).toBeDefined();
    const first = `will it ${topic}?`;
    return {
      outcome: line!.slice('RESULT '.length),
      sent: provider.received.filter((r) => (r.body.messages as Array<{ content?: unknown }>)[0]?.content === first).length,
      events: receiver.events().filter((e) => e.name === 'nous.session.invariant.violation').length,
      violations: receiver.points('nous.session.invariant.violation').reduce((n, p) => n + p.value, 0),
      stderr: run.stderr,
    };
  }
  const STRICT = { NOUS_SESSION_INVARIANT: 'strict', NODE_ENV: 'test' };

  it.each(['manual-app.cjs', 'manual-app.mjs'])('%s inlines openai', (app) => {
    expect(readFileSync(join(withExternals, app), 'utf8')).not.toMatch(/require\(["']openai["']\)|from ["']openai["']/);
  });

  it.each(['manual-app.cjs', 'manual-app.mjs'])(
    '%s, strict: the inlined client is hooked, and its drop refused before it is sent',
    async (app) => {
      const run = await runManual(app, { MANUAL: '1', ...STRICT });
      expect(run.outcome, run.stderr).toBe('refused missing_message');
      expect(run.sent).toBe(3); // the fourth request, which drops an answer, never left
      expect(run.violations).toBe(1);
    },
    120_000,
  );

  it.each(['manual-app.cjs', 'manual-app.mjs'])(
    '%s, strict, not handed over: only the fetch seam sees it, which refuses the drop before it is sent with its 422',
    async (app) => {
      const run = await runManual(app, { MANUAL: '0', ...STRICT });
      expect(run.outcome, run.stderr).toBe('refused at the fetch seam missing_message');
      expect(run.sent).toBe(3);
      expect(run.violations).toBe(1);
    },
    120_000,
  );

  it.each(['manual-app.cjs', 'manual-app.mjs'])(
    '%s, warn: the drop reported once (one span event, a counter of one), not by the hook and the fetch seam both',
    async (app) => {
      const run = await runManual(app, { MANUAL: '1' });
      expect(run.outcome, run.stderr).toBe('done');
      expect(run.events).toBe(1);
      expect(run.violations).toBe(1);
      expect(run.stderr).not.toContain('manuallyInstrument');
    },
    120_000,
  );
});
