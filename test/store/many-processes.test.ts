// Issue 25: 50 conversations served at once by 4 processes, each user message
// of a conversation on the next process, one real redis-server shared by all:
// no false violation, no fault missed, no record lost; and nothing in Redis
// holds message text.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBucket } from '../../src/request-path/implicit/conversation-codec';
import { redisInstalled, startWorker, useChatServerSetting, type TurnResult } from '../support/redis';

const installed = redisInstalled('the shared conversation store against a real redis-server');

const CONVERSATIONS = 50;
const PROCESSES = 4;
const TURNS = 5;
const FAULTY_TURN = 4;
/** Every fifth conversation has a fault on turn 4, in turn one of these. */
const FAULTS: ReadonlyArray<[fault: string, kind: string]> = [
  ['drop_tool_result', 'missing_message'],
  ['lost_reply', 'missing_message'],
  ['duplicate', 'extra_message'],
  ['invented', 'extra_message'],
  ['reorder', 'order'],
];

describe.skipIf(!installed)('50 conversations across 4 processes at once', () => {
  const setting = useChatServerSetting('nsi-store-many-');

  it('reports every fault and nothing else, loses no record, and stores no text', { timeout: 240_000 }, async () => {
    const workers = Array.from({ length: PROCESSES }, () =>
      startWorker({
        FAKE_PROVIDER_URL: setting.provider.openaiBaseURL,
        NOUS_SESSION_INVARIANT_STORE: setting.redis.url,
        NOUS_SESSION_INVARIANT_STORE_PREFIX: 'many',
      }),
    );
    const faultOf = (c: number) => (c % 5 === 0 ? FAULTS[(c / 5) % FAULTS.length] : undefined);
    const results: TurnResult[][] = Array.from({ length: CONVERSATIONS }, () => []);
    let ends: Array<{ notices: string[]; ioredis: boolean }>;
    try {
      for (let turn = 1; turn <= TURNS; turn++) {
        await Promise.all(
          results.map(async (turns, c) => {
            const result = await workers[(c + turn) % PROCESSES]!.send({
              id: `${c}-${turn}`,
              file: join(setting.dir, `${c}.json`),
              user: `conversation ${c} PROMPT-TEXT message ${turn}`,
              fault: turn === FAULTY_TURN ? faultOf(c)?.[0] : undefined,
            });
            turns.push(result);
          }),
        );
      }
    } finally {
      ends = await Promise.all(workers.map((w) => w.close()));
    }
    for (const [c, turns] of results.entries()) {
      const kind = faultOf(c)?.[1];
      expect(
        turns.map((t) => t.error),
        `conversation ${c}`,
      ).toEqual(turns.map(() => undefined));
      expect(
        turns.map((t) => t.violations),
        `conversation ${c}`,
      ).toEqual(turns.map((_, i) => (kind !== undefined && i + 1 === FAULTY_TURN ? [kind] : [])));
    }
    // No failure of the store (a conflict it gave up on would be one) and no other notice.
    expect(ends.flatMap((e) => e.notices)).toEqual([]);

    // Every conversation's record holds its whole history as saved, the last reply included.
    const keys = await setting.redis.client.keys('many:nsi:conv:*');
    expect(keys).toHaveLength(CONVERSATIONS);
    const lengths: number[] = [];
    for (const key of keys) {
      const records = decodeBucket(await setting.redis.client.hget(key, 'd'));
      lengths.push(Math.max(...records.map((r) => r.length)));
    }
    const saved = results.map((_, c) => (JSON.parse(readFileSync(join(setting.dir, `${c}.json`), 'utf8')) as unknown[]).length);
    expect(lengths.sort((a, b) => a - b)).toEqual(saved.sort((a, b) => a - b));

    // Nothing in Redis holds a prompt's text: not the keys, the values or their serialised dumps.
    expect((await setting.redis.client.keys('many:nsi:reply:*')).length).toBeGreaterThan(0);
    for (const key of await setting.redis.client.keys('*')) {
      // Conversation buckets are hashes; the marks of observed replies, strings.
      const values =
        (await setting.redis.client.type(key)) === 'hash'
          ? Object.values(await setting.redis.client.hgetall(key)).join('\n')
          : String(await setting.redis.client.get(key));
      const dump = (await setting.redis.client.dumpBuffer(key)).toString('latin1');
      for (const text of [values, dump, key]) {
        expect(text).not.toContain('PROMPT-TEXT');
        expect(text).not.toContain('conversation ');
        expect(text).not.toContain('lookup result');
      }
    }
  });
});
