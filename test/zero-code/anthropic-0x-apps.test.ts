// Unmodified apps on @anthropic-ai/sdk 0.x, started with only the
// `--require nous-session-invariant/register` line and exporting over OTLP, as
// in sdk-apps.test.ts: a correct loop stays silent, each history bug is
// reported once, with its kind, against the implicit conversation. The SDKs
// are the real packages in test/versions/ (the test run installs them).

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { PACKAGE_ROOT } from '../support/run-node';
import { runZeroCodeApp, type ZeroCodeRun } from '../support/zero-code-app';
import { FAULTS } from '../support/faults';

const LOWEST = 'test/versions/anthropic-0.12.4';
const LANGCHAIN = 'test/versions/anthropic-0.122-langchain';

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
  return runZeroCodeApp(app, env, provider, receivers);
}

describe.each([
  { folder: LOWEST, sdk: '0.12.4' },
  { folder: LANGCHAIN, sdk: '0.122.0' },
])('@anthropic-ai/sdk $sdk, fixture installed', ({ folder, sdk }) => {
  it.concurrent('has its fixture installed (the test run installs it)', () => {
    expect(existsSync(join(PACKAGE_ROOT, folder, 'node_modules/@anthropic-ai/sdk/package.json'))).toBe(true);
    expect(sdk).toMatch(/^0\./);
  });
});

describe('@anthropic-ai/sdk 0.12.4 (client.beta.messages, node-fetch), zero code', () => {
  const app = `${LOWEST}/beta-messages.cjs`;
  it.concurrent('a correct tool loop stays silent, every request checked against the implicit log, with no warning', async () => {
    const result = await runApp(app, {});
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.logs).toEqual(['implicit']);
    expect(result.stderr).not.toContain('outside the supported range');
  });

  it.concurrent.each(FAULTS)('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp(app, { FAULT: fault })).kinds).toEqual([kind]);
  });
});

describe.each(['0', '1'])('@anthropic-ai/sdk 0.122, the Messages app of sdk-apps.test.ts, zero code (stream %s)', (stream) => {
  const env = { SDK_ROOT: LANGCHAIN, STREAM: stream };
  it.concurrent(
    'a correct tool loop with moving cache_control markers and a prefill stays silent, checked by the client hook',
    async () => {
      const result = await runApp('test/fixtures/zero-code/anthropic-messages.cjs', env);
      expect(result.kinds).toEqual([]);
      expect(result.checks).toBe(12);
      expect(result.logs).toEqual(['implicit']);
      // Checked by the client hook (which can throw in strict mode), not left to the fetch seam as an unsupported version.
      expect(result.stderr).not.toContain('outside the supported range');
    },
  );

  // The faults once, streamed (sdk-apps.test.ts runs both ways on 1.x, whose client is this one's).
  it.concurrent.each(stream === '1' ? FAULTS : [])('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp('test/fixtures/zero-code/anthropic-messages.cjs', { ...env, FAULT: fault })).kinds).toEqual([kind]);
  });
});

describe.each(['0', '1'])('LangChain.js on ChatAnthropic (@langchain/anthropic 1.5, SDK 0.122), zero code (stream %s)', (stream) => {
  const app = `${LANGCHAIN}/chat-anthropic.cjs`;
  it.concurrent('a correct tool loop stays silent, every request checked by the client hook against the implicit log', async () => {
    const result = await runApp(app, { STREAM: stream });
    expect(result.kinds).toEqual([]);
    expect(result.checks).toBe(10);
    expect(result.logs).toEqual(['implicit']);
    expect(result.stderr).not.toContain('outside the supported range');
  });

  // The faults once, not streamed: the app's history is the same either way, and loading LangChain is the slow part.
  it.concurrent.each(stream === '0' ? FAULTS : [])('%s is reported once as %s', async (fault, kind) => {
    expect((await runApp(app, { STREAM: stream, FAULT: fault })).kinds).toEqual([kind]);
  });
});
