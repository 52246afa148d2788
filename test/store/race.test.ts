// The store's compare-and-set against a real redis-server: of two writes from
// the same version one wins; two processes (two SharedLogs, each with its own
// connection) branching and extending conversations in one bucket at the same
// moment lose no update, the loser reading again and deciding again.

import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/messages';
import { SessionInvariantViolation } from '../../src/invariant/violation';
import type { CheckReaction } from '../../src/reaction/act-on-check';
import type { PendingReply } from '../../src/request-path/reply';
import { decodeBucket } from '../../src/request-path/implicit/conversation-codec';
import type { SharedLogs } from '../../src/request-path/implicit/shared-logs';
import { CHECKS_METRIC, STORE_ERROR_METRIC, VIOLATION_METRIC } from '../../src/telemetry/semconv';
import { redisBuckets, redisInstalled } from '../support/redis';
import { useSharedLogsHarness } from '../support/shared-logs-harness';

const installed = redisInstalled('the store compare-and-set against a real redis-server');
const TTL = 60_000;

describe.skipIf(!installed)('compare-and-set', () => {
  const harness = useSharedLogsHarness('race');
  const { reaction, buckets, total } = harness;
  const process = (prefix: string) => harness.process(prefix);
  const redisUrl = () => harness.redis.url;
  const redisClient = () => harness.redis.client;

  /** A request checked by `logs`; its `reply` resolves once the check is reported and the reply is in the store. */
  const send = (logs: SharedLogs, messages: Message[], with_: CheckReaction = reaction) => {
    const pending = logs.check({ provider: 'test', model: 'm', messages }, with_).pending as PendingReply;
    return {
      reply: async (reply: Message[]): Promise<void> => {
        pending.reply(reply);
        await pending.settled?.();
        await logs.whenIdle();
      },
    };
  };

  it('lets one of two writes from the same version through', async () => {
    const a = redisBuckets(redisUrl(), 'cas', TTL);
    const b = redisBuckets(redisUrl(), 'cas', TTL);
    try {
      const read = await a.load(7);
      const outcomes = await Promise.all([a.write(7, read.version, 'from a'), b.write(7, read.version, 'from b')]);
      expect(outcomes.filter((v) => v !== undefined)).toEqual(['1']);
      const winner = outcomes[0] !== undefined ? 'from a' : 'from b';
      expect((await b.load(7)).data).toBe(winner);
      expect(await a.write(7, '1', 'again')).toBe('2');
    } finally {
      a.close();
      b.close();
    }
  });

  it('loses no branch nor extension when two processes update one bucket at once', { timeout: 60_000 }, async () => {
    const [a, b] = [process('race'), process('race')];
    const opening: Message = { role: 'user', content: 'the same opening' };
    const rounds = 12;
    const checksBefore = await total(CHECKS_METRIC);
    const mine = (side: string, i: number): Message[] => [opening, { role: 'user', content: `${side} question ${i}` }];
    for (let i = 0; i < rounds; i++) {
      // Two new branches of the same bucket, decided and written at the same moment.
      const [pa, pb] = [send(a, mine('a', i)), send(b, mine('b', i))];
      await Promise.all([
        pa.reply([{ role: 'assistant', content: `a answer ${i}` }]),
        pb.reply([{ role: 'assistant', content: `b answer ${i}` }]),
      ]);
    }
    const [key] = await redisClient().keys('race:nsi:conv:*');
    expect(decodeBucket(await redisClient().hget(key!, 'd'))).toHaveLength(2 * rounds);

    // Each process continues the other's branches, both at once: every one is found, extended, and its reply kept.
    for (let i = 0; i < rounds; i++) {
      const [pa, pb] = [
        send(a, [...mine('b', i), { role: 'assistant', content: `b answer ${i}` }, { role: 'user', content: 'more' }]),
        send(b, [...mine('a', i), { role: 'assistant', content: `a answer ${i}` }, { role: 'user', content: 'more' }]),
      ];
      await Promise.all([
        pa.reply([{ role: 'assistant', content: `b last ${i}` }]),
        pb.reply([{ role: 'assistant', content: `a last ${i}` }]),
      ]);
    }
    const records = decodeBucket(await redisClient().hget(key!, 'd'));
    expect(records).toHaveLength(2 * rounds);
    expect(records.map((r) => r.length)).toEqual(records.map(() => 5));
    expect(await total(CHECKS_METRIC)).toBe(checksBefore + 4 * rounds);
    expect(await total(VIOLATION_METRIC)).toBe(0);
    expect(await total(STORE_ERROR_METRIC)).toBe(0);
    // A read and a write (the decision with its reply) per request, and more: races were lost and decided again.
    expect(buckets.reduce((sum, store) => sum + store.roundTrips, 0)).toBeGreaterThan(2 * 4 * rounds);
  });

  it("takes a reply another process observed for one a model sent (a sub-agent's answer handed on), and still catches an invented one", async () => {
    const [a, b] = [process('handoff'), process('handoff')];
    const violations = await total(VIOLATION_METRIC);
    // Process a runs the sub-agent; process b the supervisor, which hands the sub-agent's answer on in its history.
    await send(a, [{ role: 'user', content: 'sub-agent: look it up' }]).reply([{ role: 'assistant', content: 'the sub-agent answer' }]);
    await send(b, [{ role: 'user', content: 'supervisor: plan' }]).reply([{ role: 'assistant', content: 'the plan' }]);
    const handedOn: Message[] = [
      { role: 'user', content: 'supervisor: plan' },
      { role: 'assistant', content: 'the plan' },
      { role: 'assistant', content: 'the sub-agent answer' },
      { role: 'user', content: 'go on' },
    ];
    await send(b, handedOn).reply([{ role: 'assistant', content: 'done' }]);
    expect(await total(VIOLATION_METRIC)).toBe(violations);
    // An assistant message no process observed is still invented.
    await send(b, [
      ...handedOn,
      { role: 'assistant', content: 'done' },
      { role: 'assistant', content: 'an answer no model gave' },
      { role: 'user', content: 'and?' },
    ]).reply([{ role: 'assistant', content: 'fine' }]);
    expect(await total(VIOLATION_METRIC)).toBe(violations + 1);
    expect(await redisClient().keys('handoff:nsi:reply:*')).not.toHaveLength(0);
  });

  it('in strict mode, checks in the process memory before the request is sent, and throws there', async () => {
    const logs = process('strict');
    const strict: CheckReaction = { ...reaction, mode: 'strict', mayThrow: true };
    const sendStrict = (messages: Message[]) => send(logs, messages, strict);
    const opening: Message = { role: 'user', content: 'strict opening' };
    await sendStrict([opening]).reply([{ role: 'assistant', content: 'strict answer' }]);
    expect(() =>
      sendStrict([
        opening,
        { role: 'assistant', content: 'strict answer' },
        { role: 'assistant', content: 'never sent' },
        { role: 'user', content: 'next' },
      ]),
    ).toThrow(SessionInvariantViolation);
    expect(await redisClient().keys('strict:*')).toEqual([]);
  });
});
