// No false violation from a fault of the store, against a real redis-server:
// processes (each a SharedLogs with its own connection and its own memory)
// continue one another's conversations across a stopped Redis and across
// compare-and-sets lost to one another; a reply that could not be written is
// marked once the store answers, and a bucket a fault hid replies of does not
// turn an unseen reply into a report (the check is counted as degraded).

import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/messages';
import { RETRY_AFTER_MS, type RedisBuckets } from '../../src/request-path/implicit/redis-buckets';
import { fingerprintOf } from '../../src/invariant/fingerprint';
import { STORE_DEGRADED_METRIC, VIOLATION_METRIC } from '../../src/telemetry/semconv';
import { redisBuckets, redisInstalled } from '../support/redis';
import { useSharedLogsHarness } from '../support/shared-logs-harness';

const installed = redisInstalled('the shared store recovering from faults against a real redis-server');

describe.skipIf(!installed)('after a fault of the store', () => {
  const harness = useSharedLogsHarness('faults');
  const { total } = harness;
  const process = (prefix: string, buckets?: RedisBuckets) => harness.process(prefix, buckets);

  const exchange = harness.exchange;
  const pastPause = () => new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_MS + 400));

  it(
    'a reply observed while Redis was stopped is no invented message to the next process, once Redis is back',
    { timeout: 30_000 },
    async () => {
      const [p1, p2] = [process('stopped'), process('stopped')];
      const violations = await total(VIOLATION_METRIC);
      let history = await exchange(p1, [{ role: 'user', content: 'stopped one' }], { role: 'assistant', content: 'stopped answer one' });
      harness.redis.pause();
      try {
        history = await exchange(p1, [...history, { role: 'user', content: 'stopped two' }], {
          role: 'assistant',
          content: 'stopped answer two',
        });
      } finally {
        harness.redis.resume();
      }
      await pastPause();
      history = await exchange(p2, [...history, { role: 'user', content: 'stopped three' }], {
        role: 'assistant',
        content: 'stopped answer three',
      });
      expect(await total(VIOLATION_METRIC)).toBe(violations);
      // What the fault costs: in this conversation, an assistant message no process observed is now left unreported, and counted.
      const degraded = await total(STORE_DEGRADED_METRIC);
      await exchange(p2, [...history, { role: 'assistant', content: 'never said' }, { role: 'user', content: 'and?' }], {
        role: 'assistant',
        content: 'x',
      });
      expect(await total(VIOLATION_METRIC)).toBe(violations);
      expect(await total(STORE_DEGRADED_METRIC)).toBe(degraded + 1);
    },
  );

  it('eight processes extending eight branches at once, then continuing one another: no false report', { timeout: 60_000 }, async () => {
    const processes = Array.from({ length: 8 }, () => process('branches'));
    const violations = await total(VIOLATION_METRIC);
    const opening: Message = { role: 'user', content: 'the shared opening' };
    let branches = await Promise.all(
      processes.map((p, i) =>
        exchange(p, [opening, { role: 'user', content: `branch ${i}` }], { role: 'assistant', content: `branch answer ${i}` }),
      ),
    );
    for (let round = 0; round < 3; round++) {
      branches = await Promise.all(
        branches.map((history, i) =>
          exchange(processes[(i + round + 1) % 8]!, [...history, { role: 'user', content: `branch ${i} round ${round}` }], {
            role: 'assistant',
            content: `branch ${i} answer ${round}`,
          }),
        ),
      );
    }
    expect(await total(VIOLATION_METRIC)).toBe(violations);
  });

  it('in a bucket a fault hid replies of, an assistant message no process marked is left unreported and counted as degraded', async () => {
    const buckets = redisBuckets(harness.redis.url, 'faulted', 60_000);
    const p = process('faulted', buckets);
    const violations = await total(VIOLATION_METRIC);
    const degraded = await total(STORE_DEGRADED_METRIC);
    const opening: Message = { role: 'user', content: 'faulted opening' };
    const history = await exchange(p, [opening], { role: 'assistant', content: 'faulted answer' });
    const unseen: Message[] = [
      ...history,
      { role: 'assistant', content: 'a reply the store never got' },
      { role: 'user', content: 'go on' },
    ];
    // Another process's fault, marked on the bucket once the store answered (its reply's own mark lost).
    await buckets.markFault(fingerprintOf(opening, { ignoreToolResultName: true }), []);
    await exchange(p, unseen, { role: 'assistant', content: 'fine' });
    expect(await total(VIOLATION_METRIC)).toBe(violations);
    expect(await total(STORE_DEGRADED_METRIC)).toBe(degraded + 1);
    // A missing message is still reported there: a fault never hides one.
    await exchange(p, [opening, { role: 'user', content: 'go on' }, { role: 'user', content: 'more' }], {
      role: 'assistant',
      content: 'y',
    });
    expect(await total(VIOLATION_METRIC)).toBe(violations + 1);
  });
});
