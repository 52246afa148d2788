// Store URLs and failure reasons against a real redis-server, in process:
// a URL the package cannot use never crashes the app and never shows its
// password; a URL whose credentials do not fit the server is warned about;
// each failure is counted under the reason docs/shared-store.md gives it.

import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { RETRY_AFTER_MS } from '../../src/request-path/implicit/redis-buckets';
import { useInstrumentedProvider } from '../support/instrumented';
import { redisInstalled, startRedis, type RedisServer } from '../support/redis';
import { storeCalls, withoutFirstToolResult, type LoopMessage } from '../support/store-calls';
import { captureWarnings } from '../support/warnings';

const installed = redisInstalled('store URLs and failure reasons against a real redis-server');
const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();

describe.skipIf(!installed)('store URLs and failure reasons', () => {
  const servers: RedisServer[] = [];
  const server = async (options: { password?: string } = {}) => {
    const started = await startRedis(options);
    servers.push(started);
    return started;
  };
  afterEach(() => suite.env.instrumentation.setConfig({ mode: 'warn' }));
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });

  const { turn, storeErrors, violations } = storeCalls(suite);
  const lines = () => warn.mock.calls.map(([line]) => String(line));
  const store = (url: string, prefix: string) =>
    suite.env.instrumentation.setConfig({ mode: 'warn', implicit: { store: url, storePrefix: prefix } });
  /** The errors counted between two readings, by reason. */
  const since = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(after).flatMap(([reason, n]) => (n > (before[reason] ?? 0) ? [[reason, n - (before[reason] ?? 0)]] : [])),
    );
  const pastPause = () => new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS + 100));

  it('a database that is not a number: the calls go on, checked in memory, with one warning', async () => {
    const redis = await server();
    store(`redis://127.0.0.1:${redis.port}/notadb`, 'notadb');
    const history: LoopMessage[] = [];
    await turn(history, 'notadb PROMPT-TEXT one');
    await turn(withoutFirstToolResult(history), 'notadb PROMPT-TEXT two');
    expect(violations()).toEqual(['missing_message']);
    expect(lines().filter((l) => l.includes('notadb'))).toEqual([expect.stringContaining("kept in this process's memory")]);
  });

  it('a password with an unencoded "/" and "@" is used, and never printed', async () => {
    const password = 'se/cr@et-PW';
    const redis = await server({ password });
    store(`redis://:${password}@127.0.0.1:${redis.port}`, 'slash');
    const history: LoopMessage[] = [];
    await turn(history, 'slash PROMPT-TEXT one');
    await turn(withoutFirstToolResult(history), 'slash PROMPT-TEXT two');
    expect(violations()).toEqual(['missing_message']);
    expect(await redis.client.keys('slash:nsi:conv:*')).toHaveLength(1);
    expect(await storeErrors()).toEqual({});
    // A typo in the same URL (a path that is no database) is warned about, the password hidden.
    store(`redis://:${password}@127.0.0.1:${redis.port}/x/y`, 'slash2');
    await turn([], 'slash PROMPT-TEXT three');
    expect(lines().some((l) => l.includes('/x/y'))).toBe(true);
    for (const line of lines()) expect(line).not.toContain('cr@et');
  });

  it('a password sent to a server that asks for none: one warning, without the password', async () => {
    const redis = await server();
    store(`redis://:needless-PW@127.0.0.1:${redis.port}`, 'nopass');
    await turn([], 'nopass PROMPT-TEXT one');
    await turn([], 'nopass PROMPT-TEXT two');
    const notices = lines().filter((l) => l.includes('needs none'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).not.toContain('needless-PW');
  });

  it('a server that asks for a password the URL does not give: counted as auth, one warning', async () => {
    const redis = await server({ password: 'required-PW' });
    store(`redis://127.0.0.1:${redis.port}`, 'noauth');
    const before = await storeErrors();
    await turn([], 'noauth PROMPT-TEXT one');
    expect(since(before, await storeErrors())).toEqual({ auth: 1 });
    expect(lines().filter((l) => l.includes('shared conversation store failed'))).toEqual([expect.stringContaining('credentials')]);
    store(`redis://:wrong-PW@127.0.0.1:${redis.port}`, 'wrongpass');
    await turn([], 'wrongpass PROMPT-TEXT one');
    expect(since(before, await storeErrors())).toEqual({ auth: 2 });
    for (const line of lines()) expect(line).not.toContain('wrong-PW');
  });

  it('a key of the wrong type is counted as decode, not script', async () => {
    const redis = await server();
    store(redis.url, 'wrongtype');
    const history: LoopMessage[] = [];
    await turn(history, 'wrongtype PROMPT-TEXT one');
    const [key] = await redis.client.keys('wrongtype:nsi:conv:*');
    await redis.client.del(key!);
    await redis.client.set(key!, 'not a hash');
    await pastPause();
    const before = await storeErrors();
    await turn(history, 'wrongtype PROMPT-TEXT two');
    expect(since(before, await storeErrors())).toEqual({ decode: 1 });
    expect(violations()).toEqual([]);
  });

  it('a server that answers 3 s late is counted as a timeout, not a connection failure', { timeout: 20_000 }, async () => {
    const redis = await server();
    const before = await storeErrors();
    redis.pause();
    try {
      store(redis.url, 'late');
      // The caller's time (the store's late answer is waited for after it, to read the counters).
      expect(await turn([], 'late PROMPT-TEXT one')).toBeLessThan(3_000);
    } finally {
      setTimeout(() => redis.resume(), 3_000);
    }
    // Counted as a timeout (once per try: a loaded machine may let the pause pass between the turn's two calls), never as a connection failure.
    const after = await storeErrors();
    expect(after.timeout ?? 0).toBeGreaterThan(before.timeout ?? 0);
    expect(after.connection ?? 0).toBe(before.connection ?? 0);
  });
});
