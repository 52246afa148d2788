// Issue 25: one conversation served by two processes in turn, as a load
// balancer's round robin does, the history reloaded from a file for each user
// message, with a real redis-server shared between them. Each fault of the
// history store is reported with its kind by the process that sends the
// faulty request; a correct conversation stays silent; with each process's own
// memory instead, the faults are not seen as they are.

import { describe, expect, it } from 'vitest';
import { FAULTS, FAULTY_TURN, expectEachFaultReportedOnce, redisInstalled, serveRoundRobin, useChatServerSetting } from '../support/redis';

const installed = redisInstalled('the shared conversation store against a real redis-server');

describe.skipIf(!installed)('two processes serving one conversation in turn', () => {
  const setting = useChatServerSetting('nsi-store-');

  const serve = (env: Record<string, string>) => serveRoundRobin(setting.provider.openaiBaseURL, setting.dir, env);

  it('reports each fault with its kind on the process that sends it, and nothing else', { timeout: 120_000 }, async () => {
    const { results, ioredis } = await serve({
      NOUS_SESSION_INVARIANT_STORE: setting.redis.url,
      NOUS_SESSION_INVARIANT_STORE_PREFIX: 'rr',
    });
    expect(ioredis).toEqual([true, true]);
    expectEachFaultReportedOnce(results);
    // The records are in Redis, under the prefix.
    expect((await setting.redis.client.keys('rr:nsi:conv:*')).length).toBe(FAULTS.length + 1);
  });

  it(
    'without the store, each process knows only its own turns: false reports on a correct conversation, faults lost among them',
    { timeout: 120_000 },
    async () => {
      const { results, ioredis } = await serve({ NOUS_SESSION_INVARIANT_STORE_PREFIX: 'mem' });
      // The default store never loads the Redis client.
      expect(ioredis).toEqual([false, false]);
      // From turn 3 on, a process continues its own record of turn 1 and takes the other process's replies for invented ones.
      expect(results.get('correct')!.map((t) => t.violations)).toEqual([
        [],
        [],
        ['extra_message'],
        ['extra_message'],
        ['extra_message'],
        ['extra_message'],
      ]);
      // Each says what is true: replies this process never saw a model send, which another process may have served.
      for (const line of results.get('correct')!.flatMap((t) => t.lines)) {
        expect(line).toMatch(/^session invariant violation: extra_message: the request carries \d+ messages, the first assistant/);
        expect(line).toContain('that this process never saw a model send');
        expect(line).not.toContain('never sent and never said');
        expect(line).toContain('another process may have served these replies');
        expect(line).toContain('NOUS_SESSION_INVARIANT_STORE');
      }
      // So no fault is reported as it is (its kind on its turn, and nothing elsewhere).
      for (const [name, kind] of FAULTS) {
        const turns = results.get(name)!;
        const elsewhere = turns.filter((_, i) => i + 1 !== FAULTY_TURN).flatMap((t) => t.violations);
        expect(turns[FAULTY_TURN - 1]!.violations.join() === kind && elsewhere.length === 0, name).toBe(false);
      }
    },
  );
});
