// One conversation, one `gen_ai.conversation.id`, whichever process reports
// on it; two conversations, two ids. Two chat-server workers share a real
// redis-server; two conversations are born on each, turns alternate between
// them, and each conversation is reported on once by each worker.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { redisInstalled, startWorker, useChatServerSetting } from '../support/redis';

const installed = redisInstalled('conversation ids through the shared store against a real redis-server');

describe.skipIf(!installed)('a conversation id through the shared store', () => {
  const setting = useChatServerSetting('nsi-conv-id-');

  it('is the one its record was born with, in every process; unrelated conversations never share one', { timeout: 120_000 }, async () => {
    const env = {
      FAKE_PROVIDER_URL: setting.provider.openaiBaseURL,
      NOUS_SESSION_INVARIANT_STORE: setting.redis.url,
      NOUS_SESSION_INVARIANT_STORE_PREFIX: 'ids',
    };
    const workers = [startWorker(env), startWorker(env)];
    const ids = new Map<number, string[]>();
    try {
      const conversations = [0, 1, 2, 3];
      for (let turn = 1; turn <= 4; turn++) {
        await Promise.all(
          conversations.map(async (c) => {
            const result = await workers[(c + turn) % 2]!.send({
              id: `${c}-${turn}`,
              file: join(setting.dir, `${c}.json`),
              user: `conversation ${c} PROMPT-TEXT message ${turn}`,
              // A tool result lost on turns 3 and 4: each conversation is reported once by each worker.
              fault: turn >= 3 ? 'drop_tool_result' : undefined,
            });
            expect(result.violations, result.id).toEqual(turn >= 3 ? ['missing_message'] : []);
            ids.set(c, [...(ids.get(c) ?? []), ...result.conversations]);
          }),
        );
      }
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
    for (const c of [0, 1, 2, 3]) {
      expect(ids.get(c), `conversation ${c}`).toHaveLength(2);
      expect(new Set(ids.get(c)).size, `conversation ${c}: ${ids.get(c)?.join(' vs ')}`).toBe(1);
    }
    expect(new Set([...ids.values()].map((list) => list[0])).size).toBe(4);
  });
});
