// The one lookup of the call a tool result answers (model/answered-call.ts)
// against a naive scan, and the sites that use it against naive versions of
// their rules: the implicit log's tool pairing, the fold's first orphan and
// the name of the call a logged result answers.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EarlierCalls } from '../src/model/answered-call';
import type { Message, ToolCall } from '../src/model/messages';
import { orphanedToolResult } from '../src/request-path/implicit/pairing';
import { firstOrphan, nameOfCall } from '../src/log/tool-call-index';

const RUNS = { numRuns: 500 };

// Few ids, so that calls share them, and lists longer than the window looked at first (8 messages).
const idArb = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const callArb: fc.Arbitrary<ToolCall> = fc.record({
  id: idArb,
  name: fc.oneof(fc.constantFrom('f', 'g', 'h'), fc.constant(undefined as unknown as string)),
});
const messageArb: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant('assistant' as const), content: fc.constant(null), toolCalls: fc.array(callArb, { maxLength: 3 }) }),
  fc.record({ role: fc.constant('tool' as const), content: fc.constant('r'), toolCallId: idArb }),
  fc.record({ role: fc.constant('user' as const), content: fc.constant('u') }),
);
const listArb = fc.array(messageArb, { maxLength: 60 });

const assistantCalls = (m: unknown): readonly ToolCall[] | undefined =>
  (m as Message).role === 'assistant' ? (m as Message).toolCalls : undefined;
const named = (call: ToolCall): boolean => typeof call.name === 'string';

/** The latest counted call with `id` before `before`, by looking at every earlier message. */
function naive(messages: readonly Message[], id: string, before: number, counts: (call: ToolCall) => boolean): ToolCall | undefined {
  let found: ToolCall | undefined;
  for (let j = 0; j < before; j++) for (const call of assistantCalls(messages[j]) ?? []) if (call.id === id && counts(call)) found = call;
  return found;
}

describe('the call a tool result answers', () => {
  it('is the latest earlier call with its id, for any look-ups in any order', () => {
    // Long lists, so that most look-ups reach past the window to the table.
    const lookupsArb = fc
      .array(messageArb, { minLength: 12, maxLength: 60 })
      .chain((messages) =>
        fc.tuple(
          fc.constant(messages),
          fc.array(fc.tuple(idArb, fc.integer({ min: 0, max: messages.length })), { minLength: 1, maxLength: 20 }),
          fc.boolean(),
        ),
      );
    fc.assert(
      fc.property(lookupsArb, ([messages, lookups, onlyNamed]) => {
        const counts = onlyNamed ? named : () => true;
        const calls = new EarlierCalls(messages, assistantCalls, counts);
        for (const [id, before] of lookups) expect(calls.answered(id, before)).toBe(naive(messages, id, before, counts));
      }),
      RUNS,
    );
  });

  it('pairs tool results as a naive scan does (the implicit log and the fold alike)', () => {
    fc.assert(
      fc.property(listArb, (messages) => {
        const orphan = messages.findIndex((m, i) => m.role === 'tool' && naive(messages, m.toolCallId!, i, () => true) === undefined);
        const expected = orphan < 0 ? undefined : messages[orphan]!.toolCallId!;
        expect(orphanedToolResult(messages)).toEqual(
          expected === undefined ? undefined : { kind: 'orphaned_tool_result', toolCallId: expected },
        );
        expect(firstOrphan(messages)).toEqual(expected === undefined ? null : { toolCallId: expected });
      }),
      RUNS,
    );
  });

  it('names a logged result after the latest call with its id, as the fold grows in place', () => {
    fc.assert(
      fc.property(listArb, fc.array(fc.tuple(fc.nat(), idArb), { maxLength: 10 }), (messages, probes) => {
        const fold: Message[] = [];
        for (const message of messages) {
          fold.push(message);
          for (const [, id] of probes) {
            const call = naive(fold, id, fold.length, () => true);
            expect(nameOfCall(fold, id)).toBe(call === undefined ? undefined : typeof call.name === 'string' ? call.name : null);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
