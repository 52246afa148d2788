// The store's compare-and-set against a real redis-server: of two writes from
// the same version one wins; two processes (two SharedLogs, each with its own
// connection) branching and extending conversations in one bucket at the same
// moment lose no update, the loser reading again and deciding again.

import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/messages';
import { SessionInvariantViolation } from '../../src/invariant/violation';
import type { CheckReaction } from '../../src/reaction/act-on-check';
import type { PendingReply } from '../../src/request-path/reply';
import { decodeBucket } from '../../src/request-path/implicit/conversation-codec';
import { ImplicitLogs } from '../../src/request-path/implicit/implicit-logs';
import type { RedisBuckets } from '../../src/request-path/implicit/redis-buckets';
import { SharedLogs } from '../../src/request-path/implicit/shared-logs';
import { createInstruments } from '../../src/telemetry/instruments';
import { setLogger } from '../../src/warnings';
import { CHECKS_METRIC, STORE_ERROR_METRIC, VIOLATION_METRIC } from '../../src/telemetry/semconv';
import { OnDemandMetricReader } from '../support/otel';
import { redisBuckets, redisInstalled, startRedis, type RedisServer } from '../support/redis';

const installed = redisInstalled('the store compare-and-set against a real redis-server');
const TTL = 60_000;

describe.skipIf(!installed)('compare-and-set', () => {
  let redis: RedisServer;
  const reader = new OnDemandMetricReader();
  const instruments = createInstruments(new MeterProvider({ readers: [reader] }).getMeter('race'));
  const opened: SharedLogs[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    setLogger({ warn: () => {} });
  });
  afterAll(async () => {
    for (const logs of opened) logs.close();
    setLogger(null);
    await redis?.stop();
  });

  const total = async (name: string): Promise<number> => {
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
    return (metric?.dataPoints ?? []).reduce((sum, p) => sum + (p.value as number), 0);
  };

  /** A process: its own implicit log and its own connection to the store. */
  const buckets: RedisBuckets[] = [];
  const process = (prefix: string): SharedLogs => {
    const store = redisBuckets(redis.url, prefix, TTL);
    buckets.push(store);
    const logs = new SharedLogs(
      new ImplicitLogs({ maxConversations: 1000, idleTimeoutMs: TTL }, () => instruments),
      store,
      TTL,
      () => instruments,
    );
    opened.push(logs);
    return logs;
  };
  const reaction: CheckReaction = {
    mode: 'warn',
    log: 'implicit',
    agentName: undefined,
    provider: 'test',
    captureContent: false,
    instruments,
    mayThrow: false,
  };
  /** A request checked by `logs`; its `reply` resolves once the reply is recorded in the store (as the seams wait). */
  const send = (logs: SharedLogs, messages: Message[], with_: CheckReaction = reaction) => {
    const pending = logs.check({ provider: 'test', model: 'm', messages }, with_).pending as PendingReply;
    return {
      reply: (reply: Message[]): Promise<void> => {
        pending.reply(reply);
        return pending.settled?.() ?? Promise.resolve();
      },
    };
  };

  it('lets one of two writes from the same version through', async () => {
    const a = redisBuckets(redis.url, 'cas', TTL);
    const b = redisBuckets(redis.url, 'cas', TTL);
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
    const [key] = await redis.client.keys('race:nsi:conv:*');
    expect(decodeBucket(await redis.client.hget(key!, 'd'))).toHaveLength(2 * rounds);

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
    const records = decodeBucket(await redis.client.hget(key!, 'd'));
    expect(records).toHaveLength(2 * rounds);
    expect(records.map((r) => r.length)).toEqual(records.map(() => 5));
    expect(await total(CHECKS_METRIC)).toBe(checksBefore + 4 * rounds);
    expect(await total(VIOLATION_METRIC)).toBe(0);
    expect(await total(STORE_ERROR_METRIC)).toBe(0);
    // A read, a write and the reply's write per request, and more: races were lost and decided again.
    expect(buckets.reduce((sum, store) => sum + store.roundTrips, 0)).toBeGreaterThan(3 * 4 * rounds);
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
    expect(await redis.client.keys('handoff:nsi:reply:*')).not.toHaveLength(0);
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
    expect(await redis.client.keys('strict:*')).toEqual([]);
  });
});
