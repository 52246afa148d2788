import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLog, check, messagesMatch, type Message } from '../src/index';
import { fromAnthropic, fromOpenAIChat, fromOpenAIResponses, toAnthropic, toOpenAIChat, toOpenAIResponses } from '../src/adapters';
import { providerTranscriptArb as transcriptArb, withoutUserNames } from './support/arbitraries';

const RUNS = { numRuns: 1000 };

/** Identity on the compared fields: every message matches its counterpart, same length. */
function expectSameFingerprints(actual: readonly Message[], expected: readonly Message[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((m, i) =>
    expect(messagesMatch(m, expected[i]!), `message ${i}: ${JSON.stringify(m)} vs ${JSON.stringify(expected[i])}`).toBe(true),
  );
}

describe('adapters: a tool call logged without arguments', () => {
  it('passes the check after a round trip through every adapter (they send {} or "{}")', () => {
    const log = SessionLog.seed([
      { role: 'user', content: 'what time is it?' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'now' }] },
      { role: 'tool', content: '12:00', toolCallId: 'c1', name: 'now' },
    ]);
    const fold = log.deriveMessages();
    expect(check(log, fromOpenAIChat(JSON.parse(JSON.stringify(toOpenAIChat(fold)))))).toEqual({ ok: true });
    expect(check(log, fromOpenAIResponses({ input: JSON.parse(JSON.stringify(toOpenAIResponses(fold))) }))).toEqual({ ok: true });
    expect(check(log, fromAnthropic(JSON.parse(JSON.stringify(toAnthropic(fold)))))).toEqual({ ok: true });
  });
});

describe('adapters: canonical -> provider -> canonical is the identity on the compared fields', () => {
  it('OpenAI Chat Completions', () => {
    fc.assert(
      fc.property(transcriptArb, (messages) => {
        expectSameFingerprints(fromOpenAIChat(JSON.parse(JSON.stringify(toOpenAIChat(messages)))), messages);
      }),
      RUNS,
    );
  });

  it('OpenAI Responses (user names aside: input items have none)', () => {
    fc.assert(
      fc.property(transcriptArb.map(withoutUserNames), (messages) => {
        expectSameFingerprints(fromOpenAIResponses({ input: JSON.parse(JSON.stringify(toOpenAIResponses(messages))) }), messages);
      }),
      RUNS,
    );
  });

  it('Anthropic Messages (user names aside: Anthropic has none)', () => {
    fc.assert(
      fc.property(transcriptArb.map(withoutUserNames), (messages) => {
        expectSameFingerprints(fromAnthropic(JSON.parse(JSON.stringify(toAnthropic(messages)))), messages);
      }),
      RUNS,
    );
  });

  it('a request built from a seeded log passes the check through every adapter', () => {
    fc.assert(
      fc.property(transcriptArb, (messages) => {
        const log = SessionLog.seed(messages);
        const fold = log.deriveMessages();
        expect(check(log, fromOpenAIChat(toOpenAIChat(fold)))).toEqual({ ok: true });
        const unnamed = SessionLog.seed(withoutUserNames(messages));
        expect(check(unnamed, fromOpenAIResponses({ input: toOpenAIResponses(unnamed.deriveMessages()) }))).toEqual({ ok: true });
        expect(check(unnamed, fromAnthropic(toAnthropic(unnamed.deriveMessages())))).toEqual({ ok: true });
      }),
      { numRuns: 300 },
    );
  });
});

describe('adapters: provider shapes', () => {
  it('OpenAI chat: developer is system, tool results take the name of their call, arguments stay strings', () => {
    const messages = fromOpenAIChat([
      { role: 'developer', content: 'rules' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png', detail: 'high' } }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
    ]);
    expect(messages).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'user', content: [{ type: 'image', url: 'https://x.test/a.png' }] },
      { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }] },
      { role: 'tool', content: 'r', toolCallId: 'c1', name: 'f' },
    ]);
  });

  it('Anthropic: system blocks, cache hints dropped, tool_result blocks split out in order, thinking ignored', () => {
    const messages = fromAnthropic({
      system: [{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'text', text: 'calling' },
            { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'r1' },
            { type: 'text', text: 'and then?' },
          ],
        },
      ],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: 'calling', toolCalls: [{ id: 't1', name: 'f', arguments: { a: 1 } }] },
      { role: 'tool', content: 'r1', toolCallId: 't1', name: 'f' },
      { role: 'user', content: [{ type: 'text', text: 'and then?' }] },
    ]);
  });

  it('Anthropic: a system message after the conversation started is a clear error', () => {
    expect(() =>
      toAnthropic([
        { role: 'user', content: 'a' },
        { role: 'system', content: 'late' },
      ]),
    ).toThrow(/no system role/);
  });

  it('Anthropic: consecutive tool results share one user turn', () => {
    const { messages } = toAnthropic([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'a', name: 'f', arguments: {} },
          { id: 'b', name: 'f', arguments: {} },
        ],
      },
      { role: 'tool', content: '1', toolCallId: 'a' },
      { role: 'tool', content: '2', toolCallId: 'b' },
    ]);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]!.content).toHaveLength(2);
  });

  it('Responses: instructions are a leading system message; output items echoed back are understood; reasoning is skipped', () => {
    const messages = fromOpenAIResponses({
      instructions: 'be brief',
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'let me see', annotations: [] }],
        },
        { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'r' },
      ],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: [{ type: 'text', text: 'let me see' }], toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
      { role: 'tool', content: 'r', toolCallId: 'c1', name: 'f' },
    ]);
  });
});
