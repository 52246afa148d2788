// Processes of the shared store in one test process: each a SharedLogs with
// its own implicit log (its memory) and its own connection to a real
// redis-server the harness starts, all counting on one meter the test reads.

import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { afterAll, beforeAll } from 'vitest';
import type { Message } from '../../src/model/messages';
import type { CheckReaction } from '../../src/reaction/act-on-check';
import type { PendingReply } from '../../src/request-path/reply';
import { ImplicitLogs } from '../../src/request-path/implicit/implicit-logs';
import type { RedisBuckets } from '../../src/request-path/implicit/redis-buckets';
import { SharedLogs } from '../../src/request-path/implicit/shared-logs';
import { createInstruments } from '../../src/telemetry/instruments';
import { setLogger } from '../../src/warnings';
import { OnDemandMetricReader } from './otel';
import { redisBuckets, startRedis, type RedisServer } from './redis';

const TTL = 60_000;

export interface SharedLogsHarness {
  readonly redis: RedisServer;
  readonly instruments: ReturnType<typeof createInstruments>;
  /** A warn-mode reaction counting on the harness's instruments. */
  readonly reaction: CheckReaction;
  /** Every store made (their round trips). */
  readonly buckets: RedisBuckets[];
  /** A process on keys under `prefix`, optionally on a store of the test's own. */
  process(prefix: string, buckets?: RedisBuckets): SharedLogs;
  /** A counter's total over its series. */
  total(metric: string): Promise<number>;
  /**
   * A request and its reply, as the seams run them, on a warn-mode reaction:
   * resolves once the store has reported it and written it (or given up);
   * with `idle` false, when the caller would get the reply (settled).
   */
  exchange(logs: SharedLogs, messages: Message[], reply: Message, idle?: boolean): Promise<Message[]>;
}

/** Starts redis-server before the enclosing describe block's tests; closes the processes and stops it after them. */
export function useSharedLogsHarness(meterName: string): SharedLogsHarness {
  const reader = new OnDemandMetricReader();
  const instruments = createInstruments(new MeterProvider({ readers: [reader] }).getMeter(meterName));
  const opened: SharedLogs[] = [];
  const harness = {
    instruments,
    buckets: [] as RedisBuckets[],
    reaction: {
      mode: 'warn',
      log: 'implicit',
      agentName: undefined,
      provider: 'test',
      captureContent: false,
      instruments,
      mayThrow: false,
    },
    process(prefix: string, buckets?: RedisBuckets): SharedLogs {
      const store = buckets ?? redisBuckets(harness.redis.url, prefix, TTL);
      harness.buckets.push(store);
      const logs = new SharedLogs(
        new ImplicitLogs({ maxConversations: 1000, idleTimeoutMs: TTL }, () => instruments),
        store,
        TTL,
        () => instruments,
      );
      opened.push(logs);
      return logs;
    },
    async exchange(logs: SharedLogs, messages: Message[], reply: Message, idle = true): Promise<Message[]> {
      const pending = logs.check({ provider: 'test', model: 'm', messages }, harness.reaction).pending as PendingReply;
      pending.reply([reply]);
      await pending.settled?.();
      if (idle) await logs.whenIdle();
      return [...messages, reply];
    },
    async total(name: string): Promise<number> {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []).reduce((sum, p) => sum + (p.value as number), 0);
    },
  } as SharedLogsHarness & { redis: RedisServer };
  beforeAll(async () => {
    harness.redis = await startRedis();
    setLogger({ warn: () => {} });
  });
  afterAll(async () => {
    for (const logs of opened) logs.close();
    setLogger(null);
    await harness.redis?.stop();
  });
  return harness;
}
