// The packed tarball installed next to telemetry tools that set up
// OpenTelemetry themselves (test/fixtures/tools/*, installed by the test run's global setup), in
// both load orders. Tool first: register attaches, adds what the tool lacks,
// and both the tool's exporter and the violation's backend get their
// telemetry. Register first: the tool would lose its spans, and register says
// so at start-up, naming the tool and the fix.

import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { installTarballInto, packTarball, treeWarnings } from './support/packed';
import { PACKAGE_ROOT, runNode } from './support/run-node';
import { startSentryReceiver, type SentryReceiver } from './support/sentry-receiver';

const fixtures = join(PACKAGE_ROOT, 'test/fixtures/tools');
const TOOLS = ['traceloop', 'sentry', 'auto'] as const;
const VIOLATION = 'nous.session.invariant.violation';

let provider: FakeProvider;
let receiver: OtlpReceiver;
const npmOutput: Partial<Record<(typeof TOOLS)[number], { status: number | null; output: string }>> = {};

beforeAll(async () => {
  provider = await startFakeProvider();
  const tarball = packTarball();
  for (const tool of TOOLS) {
    const dir = join(fixtures, tool);
    if (!existsSync(join(dir, 'node_modules'))) continue;
    npmOutput[tool] = installTarballInto(dir, tarball);
    copyFileSync(join(PACKAGE_ROOT, 'test/fixtures/agent-app.cjs'), join(dir, 'app.cjs'));
  }
}, 600_000);
afterAll(() => provider.close());
beforeEach(async () => {
  await receiver?.close();
  receiver = await startOtlpReceiver();
});

function otlpEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    FAKE_PROVIDER_URL: provider.openaiBaseURL,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRIC_EXPORT_INTERVAL: '60000',
    ...extra,
  };
}

describe.each(TOOLS)('next to %s', (tool) => {
  it('has its fixture installed (the test run installs it), and npm adds the tarball with no warning', () => {
    expect(existsSync(join(fixtures, tool, 'node_modules')), `run npm ci --prefix test/fixtures/tools/${tool}`).toBe(true);
    const install = npmOutput[tool]!;
    expect(install.status, install.output).toBe(0);
    expect(treeWarnings(install.output)).toEqual([]);
  });
});

describe('Traceloop (its globals registered with @opentelemetry/api 1.9)', () => {
  const dir = join(fixtures, 'traceloop');
  const spansOf = (stdout: string) =>
    JSON.parse(/^TOOL_SPANS (.*)$/m.exec(stdout)![1]!) as Array<{
      name: string;
      scope: string;
      events: Array<{ name: string; attributes: Record<string, unknown> }>;
    }>;

  it('set up first: the bound session is seen, and the violation rides on its own openai span to its exporter', async () => {
    const run = await runNode(['--require', './instrument.cjs', '--require', 'nous-session-invariant/register', 'app.cjs'], otlpEnv(), {
      cwd: dir,
    });
    expect(run.stdout, run.stderr).toContain('agent done');
    const spans = spansOf(run.stdout);
    const openaiSpans = spans.filter((span) => span.scope.includes('openai'));
    expect(openaiSpans).toHaveLength(2);
    const violations = spans.flatMap((span) => span.events.filter((event) => event.name === VIOLATION));
    expect(violations).toHaveLength(1);
    expect(violations[0]!.attributes).toMatchObject({
      'nous.session.invariant.kind': 'extra_message',
      'nous.session.invariant.log': 'bound',
    });
    expect(openaiSpans.flatMap((span) => span.events.map((event) => event.name))).toContain(VIOLATION);
    expect(run.stderr).not.toContain('register started its own OpenTelemetry SDK');
  });

  it('register first: it starts no SDK of its own (Traceloop pins another), so Traceloop still gets its spans, with the violation', async () => {
    const run = await runNode(['--require', 'nous-session-invariant/register', '--require', './instrument.cjs', 'app.cjs'], otlpEnv(), {
      cwd: dir,
    });
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr).toContain('unless @traceloop/node-server-sdk (traceloop.initialize()) sets up OpenTelemetry later');
    const spans = spansOf(run.stdout);
    expect(spans.filter((span) => span.scope.includes('openai'))).toHaveLength(2);
    expect(spans.flatMap((span) => span.events.filter((event) => event.name === VIOLATION))).toHaveLength(1);
  });
});

describe('Sentry with its OpenTelemetry set-up (a tracer provider, no meter provider)', () => {
  const dir = join(fixtures, 'sentry');
  let sentry: SentryReceiver;
  beforeEach(async () => {
    sentry = await startSentryReceiver();
  });
  afterAll(() => sentry?.close());

  it('set up first: Sentry gets the spans, and register starts the metrics side so the counter reaches OTLP', async () => {
    const run = await runNode(
      ['--import', './instrument.mjs', '--import', 'nous-session-invariant/register', 'app.cjs'],
      otlpEnv({ SENTRY_DSN: sentry.dsn }),
      { cwd: dir },
    );
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.code).toBe(0);
    expect(sentry.envelopes.join('\n')).toContain('chat gpt-test');
    expect(receiver.points(VIOLATION).map((point) => [point.value, point.attributes['nous.session.invariant.kind']])).toEqual([
      [1, 'extra_message'],
    ]);
    expect(run.stderr).not.toContain('register started its own OpenTelemetry SDK');
  });

  it('register first: says at start-up that Sentry loses its spans, and what to change', async () => {
    const run = await runNode(
      ['--import', 'nous-session-invariant/register', '--import', './instrument.mjs', 'app.cjs'],
      otlpEnv({ SENTRY_DSN: sentry.dsn }),
      { cwd: dir },
    );
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr).toContain('@sentry/node (Sentry.init())');
  });
});

describe('@opentelemetry/auto-instrumentations-node/register (a whole NodeSDK)', () => {
  const dir = join(fixtures, 'auto');
  const env = () => otlpEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_METRICS_EXPORTER: 'otlp', OTEL_LOGS_EXPORTER: 'none' });

  it('loaded first: its exporter gets its own spans and the violation event, and the counter, with no second SDK', async () => {
    const run = await runNode(
      ['--require', '@opentelemetry/auto-instrumentations-node/register', '--require', 'nous-session-invariant/register', 'app.cjs'],
      env(),
      { cwd: dir },
    );
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.code).toBe(0);
    expect(receiver.raw.join('\n')).toContain('@opentelemetry/instrumentation-undici');
    expect(receiver.events().filter((event) => event.name === VIOLATION)).toHaveLength(1);
    expect(receiver.points(VIOLATION).map((point) => point.value)).toEqual([1]);
    expect(run.stderr).not.toContain('register started its own OpenTelemetry SDK');
  });

  it('loaded after register: says at start-up that it loses its spans, and what to change', async () => {
    const run = await runNode(
      ['--require', 'nous-session-invariant/register', '--require', '@opentelemetry/auto-instrumentations-node/register', 'app.cjs'],
      env(),
      { cwd: dir },
    );
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.stderr).toContain('@opentelemetry/auto-instrumentations-node (@opentelemetry/auto-instrumentations-node/register)');
  });
});
