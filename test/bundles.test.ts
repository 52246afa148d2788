// Bundled apps: a bundle (esbuild, CommonJS and ESM) that inlines `openai`,
// in one process with the same version of `openai` loaded from node_modules,
// which `register`'s require hook patches. The bundle's copy is never hooked,
// and its requests carry the same headers as the hooked copy's; the fetch
// seam still checks them, because it goes by which client sent a request
// (the hooked client's abort signal), not by its headers. Each copy's drop is
// reported, once.

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

describe('a bundle that inlines openai, next to openai from node_modules', () => {
  it.each(['bundle.cjs', 'bundle.mjs'])(
    '%s: the drop through each copy is reported, once',
    async (bundle) => {
      const receiver = await startOtlpReceiver();
      receivers.push(receiver);
      const run = await runNode(['--require', 'nous-session-invariant/register', join(FIXTURES, 'app.cjs')], {
        BUNDLE: join(out, bundle),
        FAKE_PROVIDER_URL: provider.openaiBaseURL,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRICS_EXPORTER: 'otlp',
      });
      expect(run.stdout, run.stderr).toContain('agent done');
      const events = receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
      expect(events.map((e) => e.attributes['nous.session.invariant.kind'])).toEqual(['missing_message', 'missing_message']);
      const counted = receiver.points('nous.session.invariant.violation').reduce((sum, p) => sum + p.value, 0);
      expect(counted).toBe(2);
    },
    120_000,
  );
});
