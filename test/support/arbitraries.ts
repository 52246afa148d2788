// fast-check generators for messages, events and logs. Small value pools on
// purpose: duplicates and near-duplicates are where folds and checks go wrong.

import fc from 'fast-check';
import { SessionLog, type EventData, type EventType, type Message, type ToolCall } from '../../src/index';

const words = fc.constantFrom('a', 'b', 'hello', '', 'tool output', 'é✓😀');

export const contentArb: fc.Arbitrary<Message['content']> = fc.oneof(
  { weight: 4, arbitrary: words },
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: fc.array(
      fc.oneof(
        words.map((text) => ({ type: 'text' as const, text })),
        fc.constantFrom('data:image/png;base64,AAAA', 'https://example.test/cat.png').map((url) => ({ type: 'image' as const, url })),
        fc.record({ type: fc.constant('audio'), id: fc.constantFrom('x', 'y') }),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  },
);

const callId = fc.constantFrom('c1', 'c2', 'c3', 'c4');
const argsValue = fc.oneof(
  fc.constant({}),
  fc.record({ q: words }),
  fc.record({ n: fc.integer({ min: 0, max: 3 }), tags: fc.array(words, { maxLength: 2 }) }),
);

/** Arguments as the object or as the JSON string OpenAI sends. */
export const argumentsArb: fc.Arbitrary<unknown> = fc.oneof(
  argsValue,
  argsValue.map((v) => JSON.stringify(v)),
);

export const toolCallArb: fc.Arbitrary<ToolCall> = fc.record({ id: callId, name: fc.constantFrom('f', 'g'), arguments: argumentsArb });

export const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant('system' as const), content: words }),
  fc.record({ role: fc.constant('user' as const), content: contentArb }, { requiredKeys: ['role', 'content'] }),
  fc.record(
    { role: fc.constant('assistant' as const), content: contentArb, toolCalls: fc.array(toolCallArb, { maxLength: 2 }) },
    { requiredKeys: ['role', 'content'] },
  ),
  fc.record(
    { role: fc.constant('tool' as const), content: words, toolCallId: fc.option(callId, { nil: null }), name: fc.constantFrom('f', 'g') },
    { requiredKeys: ['role', 'content', 'toolCallId'] },
  ),
);

export const nonSystemMessageArb = messageArb.filter((m) => m.role !== 'system');

const EVENT_TYPE_OF: Record<Message['role'], EventType> = {
  system: 'system_message',
  user: 'user_message',
  assistant: 'assistant_message',
  tool: 'tool_result',
};

export type LogOp =
  | { op: 'append'; type: EventType; data: EventData }
  | { op: 'replace'; type: EventType; data: EventData; start: number; width: number }
  | { op: 'bookkeeping'; type: EventType }
  | { op: 'read' };

export function dataOf(message: Message): EventData {
  const { role: _role, ...data } = message;
  return data;
}

export const logOpArb: fc.Arbitrary<LogOp> = fc.oneof(
  { weight: 6, arbitrary: messageArb.map((m) => ({ op: 'append' as const, type: EVENT_TYPE_OF[m.role], data: dataOf(m) })) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        op: fc.constant('replace' as const),
        message: messageArb,
        start: fc.nat({ max: 30 }),
        width: fc.nat({ max: 5 }),
      })
      .map(({ message, start, width }) => ({
        op: 'replace' as const,
        type: EVENT_TYPE_OF[message.role],
        data: dataOf(message),
        start,
        width,
      })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom<EventType>('tool_call', 'turn_start', 'turn_end', 'step_start', 'step_end', 'request_header')
      .map((type) => ({ op: 'bookkeeping' as const, type })),
  },
  { weight: 2, arbitrary: fc.constant({ op: 'read' as const }) },
);

export function applyOp(log: SessionLog, op: LogOp, time?: Date): void {
  switch (op.op) {
    case 'append':
      expectOk(log.append(op.type, op.data, time));
      break;
    case 'replace':
      expectOk(log.append(op.type, { ...op.data, replace: { start: op.start, stop: op.start + op.width } }, time));
      break;
    case 'bookkeeping':
      expectOk(log.append(op.type, {}, time));
      break;
    case 'read':
      log.deriveIndexed();
      break;
  }
}

function expectOk(result: ReturnType<SessionLog['append']>): void {
  if (!result.ok) throw result.error;
}

/** Any log: random surface events, bookkeeping and replaces over random ranges (maybe unbalanced). */
export const anyLogArb: fc.Arbitrary<SessionLog> = fc.array(logOpArb, { maxLength: 30 }).map((ops) => {
  const log = new SessionLog();
  ops.forEach((op) => applyOp(log, op, new Date(1_700_000_000_000)));
  return log;
});

/**
 * A balanced tool-calling transcript: optional system prompt, then turns of a
 * user message, steps of an assistant message whose calls are each answered by
 * a tool result, and a final answer; bookkeeping events in between.
 */
export const balancedLogArb: fc.Arbitrary<SessionLog> = fc
  .record({
    system: fc.option(words, { nil: undefined }),
    turns: fc.array(
      fc.record({
        user: contentArb,
        steps: fc.array(fc.array(fc.tuple(fc.constantFrom('f', 'g'), argumentsArb, words), { minLength: 1, maxLength: 3 }), {
          maxLength: 3,
        }),
        answer: contentArb,
      }),
      { maxLength: 4 },
    ),
  })
  .map(({ system, turns }) => {
    const log = new SessionLog();
    let nextId = 0;
    if (system !== undefined) log.append('system_message', { content: system });
    for (const turn of turns) {
      log.append('turn_start', {});
      log.append('user_message', { content: turn.user });
      for (const step of turn.steps) {
        log.append('step_start', {});
        const calls = step.map(([name, args]) => ({ id: `call_${nextId++}`, name, arguments: args }));
        log.append('assistant_message', { content: null, toolCalls: calls });
        calls.forEach((call, i) => {
          log.append('tool_call', { id: call.id });
          log.append('tool_result', { content: step[i]![2], toolCallId: call.id, name: call.name });
        });
        log.append('step_end', {});
      }
      log.append('assistant_message', { content: turn.answer });
      log.append('turn_end', {});
    }
    return log;
  });

const providerText = fc.constantFrom('hi', 'the weather', 'é✓😀', 'a longer answer with words');
const providerUserContent = fc.oneof(
  providerText,
  fc.array(
    fc.oneof(
      providerText.map((t) => ({ type: 'text' as const, text: t })),
      fc.constantFrom('data:image/png;base64,AAAA', 'https://example.test/cat.png').map((url) => ({ type: 'image' as const, url })),
    ),
    { minLength: 1, maxLength: 3 },
  ),
);

/**
 * A provider-representable transcript: optional leading system messages,
 * then turns of a user message and steps of an assistant message (text or
 * null) whose calls are all answered by tool messages named after the call.
 */
export const providerTranscriptArb: fc.Arbitrary<Message[]> = fc
  .record({
    system: fc.array(providerText, { maxLength: 2 }),
    turns: fc.array(
      fc.record({
        user: providerUserContent,
        name: fc.option(fc.constantFrom('ann', 'bob'), { nil: undefined }),
        steps: fc.array(
          fc.record({
            text: fc.option(providerText, { nil: null }),
            calls: fc.array(fc.tuple(fc.constantFrom('get_weather', 'search'), argumentsArb, providerText), { minLength: 1, maxLength: 3 }),
          }),
          { maxLength: 2 },
        ),
        answer: providerText,
      }),
      { maxLength: 3 },
    ),
  })
  .map(({ system, turns }) => {
    const out: Message[] = system.map((content) => ({ role: 'system', content }));
    let id = 0;
    for (const turn of turns) {
      out.push({ role: 'user', content: turn.user, ...(turn.name ? { name: turn.name } : {}) });
      for (const step of turn.steps) {
        const toolCalls = step.calls.map(([name, args]) => ({ id: `call_${id++}`, name, arguments: args }));
        out.push({ role: 'assistant', content: step.text, toolCalls });
        toolCalls.forEach((call, i) => out.push({ role: 'tool', content: step.calls[i]![2], toolCallId: call.id, name: call.name }));
      }
      out.push({ role: 'assistant', content: turn.answer });
    }
    return out;
  });

/** Responses items and Anthropic messages carry no user names. */
export const withoutUserNames = (ms: Message[]): Message[] => ms.map((m) => (m.role === 'user' ? { role: m.role, content: m.content } : m));
