// Issue 25: one conversation served by two processes in turn, as a load
// balancer's round robin does, the history reloaded from a file for each user
// message, with a real redis-server shared between them. Each fault of the
// history store is reported with its kind by the process that sends the
// faulty request; a correct conversation stays silent; with each process's own
// memory instead, the faults are not seen as they are.

import { once } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redisInstalled, startWorker, useChatServerSetting, type TurnResult, type Worker } from '../support/redis';

const installed = redisInstalled('the shared conversation store against a real redis-server');

/** Each fault of the history store, applied on turn 4 (process 0), and the kind it must be reported as. */
const FAULTS: ReadonlyArray<[fault: string, kind: string]> = [
  ['drop_tool_result', 'missing_message'],
  ['edit_user', 'missing_message'],
  ['lost_reply', 'missing_message'],
  ['duplicate', 'extra_message'],
  ['invented', 'extra_message'],
  ['reorder', 'order'],
];
const TURNS = 6;
const FAULTY_TURN = 4;

describe.skipIf(!installed)('two processes serving one conversation in turn', () => {
  const setting = useChatServerSetting('nsi-store-');

  /** Runs every conversation (one per fault, and a correct one) turn by turn, turn k on worker k mod 2. */
  async function serve(env: Record<string, string>): Promise<{ results: Map<string, TurnResult[]>; ioredis: boolean[] }> {
    const workers: Worker[] = [0, 1].map(() => startWorker({ FAKE_PROVIDER_URL: setting.provider.openaiBaseURL, ...env }));
    const conversations: Array<[name: string, fault: string | undefined]> = [
      ['correct', undefined],
      ...FAULTS.map(([fault]) => [fault, fault] as [string, string]),
    ];
    const results = new Map<string, TurnResult[]>(conversations.map(([name]) => [name, []]));
    try {
      for (let turn = 1; turn <= TURNS; turn++) {
        await Promise.all(
          conversations.map(async ([name, fault]) => {
            const file = join(setting.dir, `${env.NOUS_SESSION_INVARIANT_STORE_PREFIX ?? 'memory'}-${name}.json`);
            const result = await workers[turn % 2]!.send({
              id: `${name}-${turn}`,
              file,
              user: `${name} PROMPT-TEXT message ${turn}`,
              fault: turn === FAULTY_TURN ? fault : undefined,
            });
            results.get(name)!.push(result);
          }),
        );
      }
      const ends = await Promise.all(workers.map((w) => w.close()));
      // With its input closed, a worker exits by itself: an open connection to the store does not hold it.
      const exits = workers.map((w) => (w.child.exitCode !== null ? Promise.resolve() : once(w.child, 'exit').then(() => undefined)));
      const held = await Promise.race([
        Promise.all(exits).then(() => false),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 10_000)),
      ]);
      expect(held, 'a worker still running 10 s after its input closed').toBe(false);
      return { results, ioredis: ends.map((end) => end.ioredis) };
    } finally {
      for (const worker of workers) worker.child.kill();
    }
  }

  it('reports each fault with its kind on the process that sends it, and nothing else', { timeout: 120_000 }, async () => {
    const { results, ioredis } = await serve({
      NOUS_SESSION_INVARIANT_STORE: setting.redis.url,
      NOUS_SESSION_INVARIANT_STORE_PREFIX: 'rr',
    });
    expect(ioredis).toEqual([true, true]);
    for (const [name, turns] of results) {
      for (const t of turns) expect(t.error, `${t.id}`).toBeUndefined();
      const expected = FAULTS.find(([fault]) => fault === name)?.[1];
      const reported = turns.map((t) => t.violations);
      expect(reported, name).toEqual(turns.map((_, i) => (expected !== undefined && i + 1 === FAULTY_TURN ? [expected] : [])));
    }
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
