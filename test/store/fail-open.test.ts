// The shared store fails open, in process, on the real OpenTelemetry SDK and
// the real `openai` SDK against the loopback provider: a killed, restarted or
// stopped (SIGSTOP) redis-server costs the calls nothing but a counted error
// and one warning, checking goes on in the process's memory meanwhile and
// resumes on the store when it answers; keys expire with the idle timeout.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeBucket } from '../../src/request-path/implicit/conversation-codec';
import { RETRY_AFTER_MS } from '../../src/request-path/implicit/redis-buckets';
import { implicitStoreIdle } from '../../src/request-path/implicit/registry';
import { useInstrumentedProvider } from '../support/instrumented';
import { redisInstalled, startRedis, type RedisServer } from '../support/redis';
import { storeCalls, type LoopMessage } from '../support/store-calls';
import { captureWarnings } from '../support/warnings';

const installed = redisInstalled('the shared store failing open against a real redis-server');
const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();
const IDLE_MS = 1_500;

describe.skipIf(!installed)('the shared store, failing open', () => {
  let redis: RedisServer;

  beforeAll(async () => {
    redis = await startRedis();
    suite.env.instrumentation.setConfig({ mode: 'warn', implicit: { store: redis.url, storePrefix: 'fo', idleTimeoutMs: IDLE_MS } });
  });
  afterAll(async () => {
    suite.env.instrumentation.setConfig({ mode: 'warn' });
    await redis?.stop();
  });

  const { client, turn, storeErrors, violations } = storeCalls(suite);
  const keys = () => redis.client.keys('fo:nsi:conv:*');
  const pastPause = () => new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS + 100));

  it('puts a violation on the span of the request, once the store has answered', async () => {
    const history: LoopMessage[] = [];
    await turn(history, 'span PROMPT-TEXT first');
    history.splice(
      history.findIndex((m) => m.role === 'tool'),
      1,
    );
    await turn(history, 'span PROMPT-TEXT second');
    expect(violations()).toEqual(['missing_message']);
    expect((await keys()).length).toBeGreaterThan(0);
  });

  it(
    'a killed redis costs the calls nothing; counted, warned once; checking resumes on the store after a restart',
    { timeout: 30_000 },
    async () => {
      const history: LoopMessage[] = [];
      await turn(history, 'kill PROMPT-TEXT one');
      await redis.kill();
      const down = [await turn(history, 'kill PROMPT-TEXT two'), await turn(history, 'kill PROMPT-TEXT three')];
      for (const ms of down) expect(ms).toBeLessThan(1_000);
      expect((await storeErrors()).connection).toBeGreaterThan(0);
      const notices = warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('shared conversation store'));
      expect(notices).toHaveLength(1);
      expect(violations()).toEqual([]);

      await redis.restart();
      await pastPause();
      // Back on the store (empty after the restart): the conversation is written there again and checked against it.
      await turn(history, 'kill PROMPT-TEXT four');
      expect((await keys()).length).toBe(1);
      const dropped = history.filter((m, i) => i !== history.findIndex((n) => n.role === 'tool'));
      history.length = 0;
      history.push(...dropped);
      await turn(history, 'kill PROMPT-TEXT five');
      expect(violations()).toEqual(['missing_message']);
    },
  );

  it('a streamed reply the SDK cancels at its last event reaches the store (written after the caller has it)', async () => {
    await pastPause();
    const history: LoopMessage[] = [{ role: 'user', content: 'stream PROMPT-TEXT one' }];
    const stream = await client().chat.completions.create({ model: 'gpt-test', messages: history as never, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).not.toBe('');
    await implicitStoreIdle();
    const records = (await Promise.all((await keys()).map(async (key) => decodeBucket(await redis.client.hget(key, 'd'))))).flat();
    const mine = records.find((r) => r.length === 2 && r.lastRequest.length === 1);
    expect(mine?.lastRequest).toMatchObject({ length: 1, replyObserved: true });
  });

  it('a stopped redis (SIGSTOP) holds no call past the command timeout, and is counted as a timeout', { timeout: 30_000 }, async () => {
    await pastPause();
    const history: LoopMessage[] = [];
    await turn(history, 'stop PROMPT-TEXT one');
    redis.pause();
    try {
      const slow = [await turn(history, 'stop PROMPT-TEXT two'), await turn(history, 'stop PROMPT-TEXT three')];
      // One call of a turn may wait for the command timeout (500 ms); the rest of the pause uses the process's memory.
      for (const ms of slow) expect(ms).toBeLessThan(2_000);
      expect((await storeErrors()).timeout).toBeGreaterThan(0);
    } finally {
      redis.resume();
    }
    await pastPause();
    await turn(history, 'stop PROMPT-TEXT four');
    expect(violations()).toEqual([]);
  });

  it('keys expire with the idle timeout', { timeout: 30_000 }, async () => {
    await pastPause();
    await turn([], 'expire PROMPT-TEXT one');
    const [key] = await redis.client.keys('fo:nsi:conv:*');
    expect(await redis.client.pttl(key!)).toBeGreaterThan(0);
    expect(await redis.client.pttl(key!)).toBeLessThanOrEqual(IDLE_MS);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS + 300));
    expect(await keys()).toEqual([]);
  });
});
