// A deterministic run repeated within the idle timeout against the same
// Redis (issue 36, item 6): the rerun sends the same messages as the run
// before it, so both are in one bucket, and the earlier run's conversation
// is longer. A fault of the rerun is reported against the rerun's own
// conversation, not the finished one before it.

import { afterEach, describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/messages';
import type { SharedLogs } from '../../src/request-path/implicit/shared-logs';
import { VIOLATION_METRIC } from '../../src/telemetry/semconv';
import { setLogger } from '../../src/warnings';
import { redisInstalled } from '../support/redis';
import { useSharedLogsHarness } from '../support/shared-logs-harness';

const installed = redisInstalled('a rerun against the same redis-server');

/** The deterministic loop: each turn a user message, a tool call, its result and the answer. */
function turn(k: number): { user: Message; call: Message; result: Message; answer: Message } {
  return {
    user: { role: 'user', content: `rerun question ${k}` },
    call: { role: 'assistant', content: null, toolCalls: [{ id: `call_${k}`, name: 'lookup', arguments: '{}' }] },
    result: { role: 'tool', content: `rerun result ${k}`, toolCallId: `call_${k}` },
    answer: { role: 'assistant', content: `rerun answer ${k}` },
  };
}

describe.skipIf(!installed)('a rerun', () => {
  const harness = useSharedLogsHarness('rerun');
  const { total } = harness;
  const lines: string[] = [];
  afterEach(() => setLogger({ warn: () => {} }));

  const exchange = harness.exchange;
  /** Runs turns `from`..`to` of the loop on `logs`, `fault` applied to the history before each request. */
  const run = async (logs: SharedLogs, history: Message[], turns: number, fault: (h: Message[]) => Message[] = (h) => h) => {
    for (let k = 1; k <= turns; k++) {
      const t = turn(k);
      history = await exchange(logs, fault([...history, t.user]), t.call);
      history = await exchange(logs, fault([...history, t.result]), t.answer);
    }
    return history;
  };

  it("reports the rerun's fault against the rerun's own conversation, not the finished run before it", async () => {
    setLogger({ warn: (line) => lines.push(String(line)) });
    const system: Message = { role: 'system', content: 'rerun system' };
    // The first run: four turns, 17 messages, finished.
    const first = await run(harness.process('rerun'), [system], 4);
    expect(first).toHaveLength(17);
    const violations = await total(VIOLATION_METRIC);
    // The rerun, in a new process: the same two turns (silent), then its first tool result is lost.
    const rerun = harness.process('rerun');
    const history = await run(rerun, [system], 2);
    expect(await total(VIOLATION_METRIC)).toBe(violations);
    const t = turn(3);
    const dropped = history.filter((m) => m.toolCallId !== 'call_1');
    await exchange(rerun, [...dropped, t.user], t.call);
    expect(await total(VIOLATION_METRIC)).toBe(violations + 1);
    const reported = lines.filter((l) => l.includes('session invariant violation'));
    expect(reported).toHaveLength(1);
    // The rerun's own conversation so far: its 9 messages (two turns) and the new question, of which the request left
    // out one (before: 8 left out, against the first run's 17).
    expect(reported[0]).toContain('missing_message: the request left out a tool result');
    expect(reported[0]).toContain('request 9 messages, the conversation so far 10)');
  });
});
