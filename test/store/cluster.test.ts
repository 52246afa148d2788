// The shared store on a real Redis Cluster of three masters on loopback
// (redis-server --cluster-enabled, joined by redis-cli --cluster create),
// started by the test: with zero code through a redis+cluster:// URL, two
// processes serving conversations in turn are checked as one (silent when
// correct, each fault reported with its kind); in process, the app's own
// ioredis Cluster or a sendCommand function are used as they are; each
// conversation's bucket sits in one slot; a node restarted mid-run costs
// the calls nothing and checking resumes.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisStoreClient } from '../../src/instrumentation';
import { RETRY_AFTER_MS } from '../../src/request-path/implicit/redis-buckets';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { useInstrumentedProvider } from '../support/instrumented';
import {
  FAULTS,
  expectEachFaultReportedOnce,
  redisClusterInstalled,
  serveRoundRobin,
  startRedisCluster,
  type RedisCluster,
} from '../support/redis';
import { storeCalls, withoutFirstToolResult, type LoopMessage } from '../support/store-calls';
import { captureWarnings } from '../support/warnings';

const installed = redisClusterInstalled('the shared store on a real Redis Cluster');
const suite = useInstrumentedProvider({ mode: 'warn' });
const warn = captureWarnings();

describe.skipIf(!installed)('the shared store on a Redis Cluster of three masters', () => {
  let cluster: RedisCluster;
  let provider: FakeProvider;
  let dir: string;

  beforeAll(async () => {
    [cluster, provider] = await Promise.all([startRedisCluster(), startFakeProvider()]);
    dir = mkdtempSync(join(tmpdir(), 'nsi-cluster-rr-'));
  }, 60_000);
  afterAll(async () => {
    suite.env.instrumentation.setConfig({ mode: 'warn' });
    await cluster?.stop();
    await provider?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const { turn, storeErrors, violations } = storeCalls(suite);

  /** Every key under `prefix` on every node, with the node's port. */
  async function keysByNode(prefix: string): Promise<Array<{ port: number; key: string }>> {
    const found: Array<{ port: number; key: string }> = [];
    for (const port of cluster.ports) {
      const node = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0, retryStrategy: () => null });
      node.on('error', () => {});
      try {
        for (const key of await node.keys(`${prefix}:*`)) found.push({ port, key });
      } finally {
        node.disconnect();
      }
    }
    return found;
  }

  it(
    'zero code, redis+cluster://: two processes in turn, silent when correct, each fault reported once',
    { timeout: 120_000 },
    async () => {
      const { results, ioredis, notices } = await serveRoundRobin(provider.openaiBaseURL, dir, {
        NOUS_SESSION_INVARIANT_STORE: cluster.url,
        NOUS_SESSION_INVARIANT_STORE_PREFIX: 'rrc',
      });
      expect(ioredis).toEqual([true, true]);
      expect(notices.flat()).toEqual([]);
      expectEachFaultReportedOnce(results);
      // One bucket per conversation, spread over the masters, each in its own slot.
      const buckets = (await keysByNode('rrc')).filter(({ key }) => key.startsWith('rrc:nsi:conv:'));
      expect(buckets).toHaveLength(FAULTS.length + 1);
      expect(new Set(buckets.map((b) => b.port)).size).toBeGreaterThan(1);
      for (const { key } of buckets) expect(key).toMatch(/^rrc:nsi:conv:\{[0-9a-z.-]+\}$/);
    },
  );

  const owns: Array<[string, () => RedisStoreClient]> = [
    ['an ioredis Cluster', () => cluster.client],
    [
      'a sendCommand function',
      () =>
        (...args: string[]) =>
          cluster.client.call(args[0]!, ...args.slice(1)),
    ],
  ];
  for (const [name, storeOf] of owns) {
    it(`uses the app's own client as it is (${name}): silent when correct, a fault reported`, async () => {
      const prefix = `own-${name.split(' ')[1]}`;
      suite.env.instrumentation.setConfig({ mode: 'warn', implicit: { store: storeOf(), storePrefix: prefix } });
      const history: LoopMessage[] = [];
      await turn(history, `${name} PROMPT-TEXT one`);
      await turn(history, `${name} PROMPT-TEXT two`);
      expect(violations()).toEqual([]);
      // The conversation is found in the store: a fault of the history is seen.
      await turn(withoutFirstToolResult(history), `${name} PROMPT-TEXT three`);
      expect(violations()).toEqual(['missing_message']);
      expect(await storeErrors()).toEqual({});
      expect((await keysByNode(prefix)).some(({ key }) => key.startsWith(`${prefix}:nsi:conv:{`))).toBe(true);
      expect(warn.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('store'))).toEqual([]);
      // The app's client is the app's: never closed by the package.
      suite.env.instrumentation.setConfig({ mode: 'warn' });
      expect(cluster.client.status).toBe('ready');
    });
  }

  it(
    'survives a master restarted mid-run (its keys lost): no call fails or waits, no false report, checking resumes',
    { timeout: 60_000 },
    async () => {
      suite.env.instrumentation.setConfig({ mode: 'warn', implicit: { store: cluster.url, storePrefix: 'restart' } });
      const histories: LoopMessage[][] = [[], [], [], [], [], []];
      for (const [i, history] of histories.entries()) await turn(history, `restart ${i} PROMPT-TEXT one`);
      const before = await keysByNode('restart');
      const victim = cluster.ports.indexOf(before.find(({ key }) => key.includes(':conv:'))!.port);
      await cluster.restart(victim);
      const durations: number[] = [];
      for (const [i, history] of histories.entries()) durations.push(await turn(history, `restart ${i} PROMPT-TEXT two`));
      for (const ms of durations) expect(ms).toBeLessThan(2_000);
      expect(violations()).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS + 100));
      for (const [i, history] of histories.entries()) await turn(history, `restart ${i} PROMPT-TEXT three`);
      expect(violations()).toEqual([]);
      // Checking is on the store again, the restarted node included: a fault in every conversation is seen.
      for (const [i, history] of histories.entries()) await turn(withoutFirstToolResult(history), `restart ${i} PROMPT-TEXT four`);
      expect(violations()).toEqual(histories.map(() => 'missing_message'));
      const after = await keysByNode('restart');
      expect(after.some(({ port }) => port === cluster.ports[victim])).toBe(true);
    },
  );
});
