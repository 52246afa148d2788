// Bundled apps: a bundle (esbuild, CommonJS and ESM) that inlines `openai`,
// in one process with the same version of `openai` loaded from node_modules,
// which `register`'s require hook patches. The bundle's copy is never hooked,
// and its requests carry the same headers as the hooked copy's; the fetch
// seam still checks them, because it goes by which client sent a request
// (the hooked client's abort signal), not by its headers. Each copy's drop is
// reported, once. In strict mode each copy refuses its drop before sending:
// the hooked one with the violation, the bundle's (which would retry a throw
// as a connection error) with a 422 of the package's own, which its SDK
// throws as its own error, after one attempt.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const FIXTURES = join(PACKAGE_ROOT, 'test/fixtures/bundles');
let out: string;
let provider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'nous-bundles-'));
  await build({
    entryPoints: [join(FIXTURES, 'openai-loop.cjs')],
    outfile: join(out, 'bundle.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
  });
  await build({
    entryPoints: [join(FIXTURES, 'openai-loop.mjs')],
    outfile: join(out, 'bundle.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    logLevel: 'error',
    // What ESM bundles for Node carry, so that inlined CommonJS can still require Node's own modules.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
  });
  provider = await startFakeProvider();
}, 120_000);
afterAll(async () => {
  await provider?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** The app under `register` with `bundle`, its telemetry sent to a receiver of its own; `env` adds to the app's environment. */
async function runApp(bundle: string, env: Record<string, string> = {}) {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const sent = provider.received.length;
  const run = await runNode(['--require', 'nous-session-invariant/register', join(FIXTURES, 'app.cjs')], {
    BUNDLE: join(out, bundle),
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
