// One request leaves a tool result out, and every later one carries the whole
// history again (issue 37 item 2), in unmodified apps under only the register
// line: the drop is reported once, as missing_message, and the full re-send,
// which continues the conversation the model was sent in full with the model's
// own reply to the drop, is silent (docs/behaviour.md §8.2 rule 3). With a
// provider that answers alike (the same call, the same words each time), that
// reply is one the model sent again, not a copy: no line may call it a message
// "never sent and never said". In memory and with the shared store.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import type { OtlpReceiver } from '../support/otlp-receiver';
import { redisInstalled, startRedis, type RedisServer } from '../support/redis';
import { runZeroCodeApp } from '../support/zero-code-app';

let unique: FakeProvider;
let alike: FakeProvider;
let redis: RedisServer | undefined;
const receivers: OtlpReceiver[] = [];
const withRedis = redisInstalled('the drop-then-re-send runs with the shared store');

beforeAll(async () => {
  unique = await startFakeProvider();
  alike = await startFakeProvider({ sameReplies: true });
  if (withRedis) redis = await startRedis();
});
afterAll(async () => {
  await unique.close();
  await alike.close();
  await redis?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

const APPS = [
  { app: 'openai-chat.cjs', stream: '0' },
  { app: 'openai-chat.cjs', stream: '1' },
  { app: 'anthropic-messages.cjs', stream: '0' },
];
const FAULTS = ['drop-result-once', 'drop-last-result-once'];

/** Runs `app` under the register line against `provider`, with the implicit log in `store`. */
function run(
  provider: FakeProvider,
  store: 'memory' | 'redis',
  { app, stream, fault }: { app: string; stream: string; fault?: string },
): ReturnType<typeof runZeroCodeApp> {
  const env: Record<string, string> = { STREAM: stream, ...(fault === undefined ? {} : { FAULT: fault }) };
  // Each run its own key prefix: runs share the server, never their conversations.
  if (store === 'redis') Object.assign(env, { NOUS_SESSION_INVARIANT_STORE: redis!.url, OTEL_SERVICE_NAME: `drop-resend-${++runs}` });
  return runZeroCodeApp(`test/fixtures/zero-code/${app}`, env, provider, receivers);
}
let runs = 0;

/** The drop reported once, truly; the re-send silent. */
function expectOneDrop(result: Awaited<ReturnType<typeof runZeroCodeApp>>): void {
  expect(result.kinds, result.stderr).toEqual(['missing_message']);
  expect(result.stderr).toContain('the request left out a tool result');
  expect(result.stderr).not.toContain('never sent');
}

describe('a drop, then the whole history again, in memory', () => {
  it.concurrent.each(APPS)('$app (stream $stream), a provider answering alike: a correct loop stays silent', async (app) => {
    const result = await run(alike, 'memory', app);
    expect(result.kinds, result.stderr).toEqual([]);
  });

  const cases = APPS.flatMap((app) => FAULTS.map((fault) => ({ ...app, fault })));
  it.concurrent.each(cases)('$app (stream $stream), $fault, a provider answering alike: one report, the drop', async (app) => {
    expectOneDrop(await run(alike, 'memory', app));
  });
  it.concurrent.each(cases)('$app (stream $stream), $fault, a provider answering differently: one report, the drop', async (app) => {
    expectOneDrop(await run(unique, 'memory', app));
  });
});

describe.runIf(withRedis)('a drop, then the whole history again, with the shared store', () => {
  it.concurrent('a correct loop stays silent', async () => {
    expect((await run(alike, 'redis', APPS[0]!)).kinds).toEqual([]);
  });
  it.concurrent.each(APPS)('$app (stream $stream), a provider answering alike: one report, the drop', async (app) => {
    expectOneDrop(await run(alike, 'redis', { ...app, fault: 'drop-last-result-once' }));
  });
});
