// Any number of instances enabled and disabled in any order: the fetch seam
// is one wrap per process, so a violating request is counted exactly once
// while any instance is enabled, not at all once all are disabled, and the
// fetch there was before is restored.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionInvariantInstrumentation } from '../../src/instrumentation';
import { SessionLog, VIOLATION_METRIC, withSession } from '../../src/index';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { registerOtel, type OtelHarness } from '../support/otel';

let server: FakeProvider;
let otel: OtelHarness;
beforeAll(async () => {
  server = await startFakeProvider();
  otel = registerOtel();
});
afterAll(async () => {
  await otel.teardown();
  await server.close();
});

async function violations(): Promise<number> {
  return await otel.total(VIOLATION_METRIC);
}

/** One request that the bound log cannot reconstruct (a message it never had): one violation when checked. */
async function violatingRequest(): Promise<void> {
  const log = new SessionLog();
  log.append('user_message', { content: 'Umbrella in Lisbon?' });
  await withSession(log, async () => {
    const response = await fetch(`${server.openaiBaseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-test', messages: [{ role: 'user', content: 'ghost' }] }),
    });
    await response.json();
  });
}

function instance(): SessionInvariantInstrumentation {
  const instrumentation = new SessionInvariantInstrumentation({ mode: 'warn', enabled: false });
  instrumentation.setTracerProvider(otel.tracerProvider);
  instrumentation.setMeterProvider(otel.meterProvider);
  return instrumentation;
}

describe('fetch seam with several instances', () => {
  it('two instances enabled (an app setup, then register): two violating requests count two', async () => {
    const original = globalThis.fetch;
    const both = [instance(), instance()];
    both.forEach((i) => i.enable());
    try {
      const before = await violations();
      await violatingRequest();
      await violatingRequest();
      expect((await violations()) - before).toBe(2);
    } finally {
      both.forEach((i) => i.disable());
    }
    expect(globalThis.fetch).toBe(original);
  });

  it('enabled and disabled in random orders: each violating request counted once while any is enabled', async () => {
    const step = fc.record({ which: fc.nat({ max: 2 }), enable: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const original = globalThis.fetch;
        const instances = [instance(), instance(), instance()];
        const enabled = new Set<number>();
        try {
          for (const { which, enable } of steps) {
            if (enable) {
              instances[which]!.enable();
              enabled.add(which);
            } else {
              instances[which]!.disable();
              enabled.delete(which);
            }
            const before = await violations();
            await violatingRequest();
            expect((await violations()) - before).toBe(enabled.size > 0 ? 1 : 0);
          }
        } finally {
          instances.forEach((i) => i.disable());
        }
        const before = await violations();
        await violatingRequest();
        expect(await violations()).toBe(before);
        expect(globalThis.fetch).toBe(original);
      }),
      { numRuns: 25 },
    );
  });
});
