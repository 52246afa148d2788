// The fold written straight from docs/behaviour.md §2, quadratic and
// unmemoized, as the oracle the real (memoized, interval-based) fold must equal.

import type { Message, SessionEvent } from '../../src/index';

const ROLE: Record<string, Message['role']> = {
  system_message: 'system',
  user_message: 'user',
  assistant_message: 'assistant',
  tool_result: 'tool',
};

function position(event: SessionEvent): number {
  return event.data.replace ? event.data.replace.start : event.seq;
}

export function referenceFold(events: readonly SessionEvent[]): Array<[number, Message]> {
  const surface = events.filter((e) => e.type in ROLE);
  const visible = surface.filter(
    (e) =>
      !surface.some((r) => r.data.replace && e.seq < r.seq && r.data.replace.start <= position(e) && position(e) <= r.data.replace.stop),
  );
  const ordered = visible
    .map((e, i) => ({ e, i }))
    .sort((a, b) => position(a.e) - position(b.e) || a.i - b.i)
    .map(({ e }) => e);
  return ordered.map((e) => {
    const m: Message = {
      role: ROLE[e.type]!,
      content: (e.data.content ?? null) as Message['content'],
      toolCalls: (e.data.toolCalls ?? []) as Message['toolCalls'],
    };
    if ('toolCallId' in e.data) m.toolCallId = e.data.toolCallId ?? null;
    if ('name' in e.data) m.name = e.data.name ?? null;
    if ('reasoningContent' in e.data) m.reasoningContent = e.data.reasoningContent ?? null;
    m.metadata = e.data.metadata ?? {};
    m.createdAt = e.time;
    return [e.seq, m];
  });
}

/** The first tool message whose id no preceding assistant message called. */
export function referenceOrphan(messages: readonly Message[]): { found: false } | { found: true; toolCallId: string | null } {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'tool') continue;
    const id = m.toolCallId ?? null;
    const called = messages.slice(0, i).some((p) => p.role === 'assistant' && (p.toolCalls ?? []).some((c) => c.id === id));
    if (!called) return { found: true, toolCallId: id };
  }
  return { found: false };
}
