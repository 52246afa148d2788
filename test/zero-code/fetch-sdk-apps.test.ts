// Unmodified apps on SDKs that reach the model through `globalThis.fetch`
// with no hook of their own (Mistral's client sends `fetch(new Request(...))`),
// started with only the register line: a correct loop stays silent with
// every request checked and named for its provider, and each history bug is
// reported once, with its kind, against the implicit conversation.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { runZeroCodeApp, type ZeroCodeRun } from '../support/zero-code-app';
import { FAULTS } from '../support/faults';

let provider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
  await Promise.all(receivers.map((r) => r.close()));
});

function runApp(app: string, env: Record<string, string>): Promise<ZeroCodeRun> {
  return runZeroCodeApp(`test/fixtures/zero-code/${app}`, env, provider, receivers);
}

describe.each(['0', '1'])('@mistralai/mistralai chat, zero code (stream %s)', (stream) => {
  it.concurrent('a correct tool loop stays silent, every request checked as mistral_ai', async () => {
    const result = await runApp('mistral.mjs', { STREAM: stream });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.providers).toEqual(['mistral_ai']);
  });

  it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('mistral.mjs', { STREAM: stream, FAULT: fault })).kinds).toEqual([kind]);
  });
});
