// The byte fast path in front of the implicit log's rules: for any sequence
// of requests (correct turns, drops, edits, invented replies, regenerates,
// reorders), a log that is handed the serialised bodies reports exactly what
// a log that reads every request whole reports; and an agent loop that only
// extends its history is read by its bytes after its first request.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/index';
import { fromOpenAIChat, toOpenAIChat } from '../../src/adapters';
import { fromAnthropic, toAnthropic } from '../../src/integrations/anthropic/adapter';
import { ImplicitLogs } from '../../src/request-path/implicit/implicit-logs';
import { loadByteHasher } from '../../src/request-path/implicit/bytes/byte-hash';
import { implicitReaction, UNCOUNTED } from '../support/implicit-harness';
import type { SerialisedBody } from '../../src/request-path/model-request';
import { setLogger } from '../../src/warnings';

beforeAll(async () => {
  await loadByteHasher();
  setLogger({ warn: () => {} });
});

const reaction = implicitReaction(UNCOUNTED);

type Shape = 'chat' | 'anthropic';
/** The body an SDK would send for `messages`, and the request the rules read from it. */
function serialise(shape: Shape, messages: readonly Message[]): { body: SerialisedBody; read: Message[] } {
  if (shape === 'chat') {
    const text = JSON.stringify({ model: 'm', messages: toOpenAIChat(messages) });
    const parsed = JSON.parse(text) as { messages: unknown[] };
    return { body: { text, format: 'openai.chat', readElements: fromOpenAIChat }, read: fromOpenAIChat(parsed.messages) };
  }
  const text = JSON.stringify({ model: 'm', max_tokens: 64, ...toAnthropic(messages) });
  const parsed = JSON.parse(text) as { system?: unknown; messages: unknown[] };
  return {
    body: { text, format: 'anthropic.messages', readElements: (entries) => fromAnthropic({ messages: entries }) },
    read: fromAnthropic(parsed),
  };
}

function newLogs(): ImplicitLogs {
  return new ImplicitLogs({ maxConversations: 100, idleTimeoutMs: 3_600_000 }, () => UNCOUNTED);
}

/** Two logs side by side: one handed bytes (fast path first, as the client hook does), one reading whole requests. */
function pair(shape: Shape) {
  const withBytes = newLogs();
  const whole = newLogs();
  let fast = 0;
  return {
    get fast() {
      return fast;
    },
    send(messages: readonly Message[], reply: Message | undefined): [string, string] {
      const { body, read } = serialise(shape, messages);
      let byBytes = withBytes.checkBytes(body, reaction);
      if (byBytes !== undefined) fast++;
      byBytes ??= withBytes.check({ provider: 'test', model: 'm', messages: read, body }, reaction);
      const byRules = whole.check({ provider: 'test', model: 'm', messages: read }, reaction);
      if (reply !== undefined) {
        byBytes.pending?.reply([reply]);
        byRules.pending?.reply([reply]);
      }
      return [byBytes.violation?.kind ?? 'ok', byRules.violation?.kind ?? 'ok'];
    },
  };
}

const text = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom('a', 'b', ' ', '"', '\\', 'é', '日', '}', ',') });
const step = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('turn' as const), question: text, answer: text, tool: fc.boolean() }) },
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('edit' as const), at: fc.nat(), to: text }),
  fc.record({ kind: fc.constant('invent' as const), at: fc.nat(), content: text }),
  fc.record({ kind: fc.constant('regenerate' as const), keep: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('unobserved' as const), question: text, answer: text }),
  fc.record({ kind: fc.constant('system' as const), content: text }),
);

describe('byte fast path', () => {
  for (const shape of ['chat', 'anthropic'] as const) {
    it(`${shape}: with bytes or without, every request is reported alike`, () => {
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
          const logs = pair(shape);
          let history: Message[] = [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: `start ${Math.random()}` },
          ];
          let call = 0;
          let pendingReply: Message | undefined = { role: 'assistant', content: 'hello' };
          const [a, b] = logs.send(history, pendingReply);
          expect(a).toBe(b);
          for (const s of steps) {
            if (s.kind === 'turn' || s.kind === 'unobserved') {
              const extra: Message[] = pendingReply ? [pendingReply] : [];
              if (s.kind === 'turn' && s.tool) {
                const id = `call_${call++}`;
                extra.push({ role: 'user', content: s.question });
                const request = [...history, ...extra];
                const reply: Message = { role: 'assistant', content: null, toolCalls: [{ id, name: 'look', arguments: '{}' }] };
                const [x, y] = logs.send(request, reply);
                expect(x).toBe(y);
                history = [...request, reply, { role: 'tool', content: s.answer, toolCallId: id }];
                pendingReply = undefined;
                continue;
              }
              const request: Message[] = [...history, ...extra, { role: 'user', content: s.question }];
              const reply: Message = { role: 'assistant', content: s.answer };
              const [x, y] = logs.send(request, s.kind === 'turn' ? reply : undefined);
              expect(x).toBe(y);
              history = request;
              pendingReply = reply;
              continue;
            }
            const nonSystem = history.flatMap((m, i) => (m.role === 'system' ? [] : [i]));
            const pick = (n: number) => nonSystem[n % nonSystem.length]!;
            let request: Message[];
            if (s.kind === 'drop') request = history.filter((_, i) => i !== pick(s.at));
            else if (s.kind === 'edit')
              request = history.map((m, i) => (i === pick(s.at) && m.role !== 'tool' ? { ...m, content: s.to } : m));
            else if (s.kind === 'invent')
              request = [...history.slice(0, pick(s.at)), { role: 'assistant', content: s.content }, ...history.slice(pick(s.at))];
            else if (s.kind === 'regenerate') request = history.slice(0, 1 + (s.keep % history.length));
            else if (s.kind === 'swap') {
              const i = pick(s.at);
              request = history.slice();
              if (i + 1 < request.length) [request[i], request[i + 1]] = [request[i + 1]!, request[i]!];
            } else request = [{ role: 'system', content: s.content }, ...history.slice(1)];
            const [x, y] = logs.send([...request, ...(pendingReply ? [pendingReply] : []), { role: 'user', content: 'next' }], undefined);
            expect(x).toBe(y);
          }
        }),
        { numRuns: 300 },
      );
    });

    it(`${shape}: an agent loop that only extends its history is read by its bytes after its first request`, () => {
      const logs = pair(shape);
      const history: Message[] = [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'Loop, first question.' },
      ];
      for (let i = 0; i < 20; i++) {
        const reply: Message = { role: 'assistant', content: `Answer ${i}.` };
        expect(logs.send(history, reply)).toEqual(['ok', 'ok']);
        history.push(reply, { role: 'user', content: `Question ${i + 1}.` });
      }
      expect(logs.fast).toBe(19);
      // A drop after the fast path took the loop is still caught, by the rules.
      const dropped = history.filter((_, i) => i !== 3);
      expect(logs.send(dropped, undefined)).toEqual(['missing_message', 'missing_message']);
    });
  }
});
