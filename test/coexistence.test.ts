// Coexistence with @opentelemetry/instrumentation-openai (contrib; supports
// openai <7, hence its own fixture with openai 6): its span still appears and
// our violation event lands on it, whichever instrumentation is registered first.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const fixture = join(PACKAGE_ROOT, 'test/fixtures/coexistence');
let provider: FakeProvider;

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(() => provider.close());

describe('with @opentelemetry/instrumentation-openai', () => {
  it('has its fixture installed (the test run installs it)', () => {
    expect(
      existsSync(join(fixture, 'node_modules/@opentelemetry/instrumentation-openai')),
      'run npm ci --prefix test/fixtures/coexistence',
    ).toBe(true);
  });

  it.each(['contrib-first', 'ours-first'])('both work on one client (%s)', async (order) => {
    const run = await runNode([join(fixture, 'app.cjs')], { FAKE_PROVIDER_URL: provider.openaiBaseURL, ORDER: order });
    expect(run.code, run.stderr).toBe(0);
    const { openaiVersion, spans } = JSON.parse(run.stdout) as {
      openaiVersion: string;
      spans: Array<{ name: string; scope: string; attributes: Record<string, unknown>; events: string[] }>;
    };
    expect(openaiVersion).toMatch(/^6\./);
    const contrib = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-openai');
    expect(contrib).toHaveLength(2);
    expect(contrib.every((s) => s.attributes['gen_ai.operation.name'] === 'chat')).toBe(true);
    expect(contrib.map((s) => s.events.filter((e) => e === 'nous.session.invariant.violation').length)).toEqual([0, 1]);
    expect(spans.filter((s) => s.scope === 'nous-session-invariant')).toEqual([]);
  });

  it.each(['contrib-first', 'ours-first'])(
    'on openai 7 contrib instruments nothing, silently; the check still reports (%s)',
    async (order) => {
      const run = await runNode([join(fixture, 'app.cjs')], {
        FAKE_PROVIDER_URL: provider.openaiBaseURL,
        ORDER: order,
        OPENAI_FROM_ROOT: '1',
      });
      expect(run.code, run.stderr).toBe(0);
      const { openaiVersion, spans } = JSON.parse(run.stdout) as {
        openaiVersion: string;
        spans: Array<{ name: string; scope: string; attributes: Record<string, unknown>; events: string[] }>;
      };
      expect(openaiVersion).toMatch(/^7\./);
      expect(spans.filter((s) => s.scope === '@opentelemetry/instrumentation-openai')).toEqual([]);
      const ours = spans.filter((s) => s.scope === 'nous-session-invariant');
      expect(ours.map((s) => [s.name, s.events])).toEqual([['nous.session.invariant check', ['nous.session.invariant.violation']]]);
    },
  );
});
