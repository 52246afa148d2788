// The implicit log's tool pairing looks a few messages back before it builds
// a table of every earlier call: for any request it must find the same first
// orphan as the plain rule (a result whose call precedes it nowhere).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/model/messages';
import { orphanedToolResult } from '../../src/request-path/implicit/pairing';

/** The rule as stated: one set of every call id seen so far. */
function plainRule(messages: readonly Message[]) {
  const called = new Set<unknown>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const call of m.toolCalls ?? []) called.add(call.id);
    else if (m.role === 'tool' && (m.toolCallId == null || !called.has(m.toolCallId)))
      return { kind: 'orphaned_tool_result', toolCallId: typeof m.toolCallId === 'string' ? m.toolCallId : null };
  }
  return undefined;
}

const id = fc.constantFrom('a', 'b', 'c', 'd');
const message: fc.Arbitrary<Message> = fc.oneof(
  fc.constant<Message>({ role: 'user', content: 'u' }),
  fc
    .array(id, { maxLength: 3 })
    .map((ids): Message => ({ role: 'assistant', content: null, toolCalls: ids.map((i) => ({ id: i, name: 'f', arguments: {} })) })),
  id.map((i): Message => ({ role: 'tool', content: 'r', toolCallId: i })),
  fc.constant<Message>({ role: 'tool', content: 'r', toolCallId: null }),
  // A run of filler between a call and its result, so that some calls are further back than the look-back.
  fc.integer({ min: 1, max: 12 }).map((n): Message => ({ role: 'user', content: 'x'.repeat(n) })),
);

describe('tool pairing on implicit requests', () => {
  it('finds the same first orphan as the plain rule, however far back the call is', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(message, fc.constant('gap' as const)), { maxLength: 40 }), (items) => {
        const messages = items.flatMap((m): Message[] =>
          m === 'gap' ? Array.from({ length: 10 }, () => ({ role: 'user', content: 'g' })) : [m],
        );
        expect(orphanedToolResult(messages)).toEqual(plainRule(messages));
      }),
      { numRuns: 2_000 },
    );
  });

  it('a result whose call is far back is paired; one whose call comes after it is not', () => {
    const call: Message = { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'f', arguments: {} }] };
    const result: Message = { role: 'tool', content: 'r', toolCallId: 'a' };
    const filler = Array.from({ length: 20 }, (): Message => ({ role: 'user', content: 'u' }));
    expect(orphanedToolResult([call, ...filler, result])).toBeUndefined();
    expect(orphanedToolResult([...filler, result, call])).toEqual({ kind: 'orphaned_tool_result', toolCallId: 'a' });
  });
});
