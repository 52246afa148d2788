// Tool pairing on a request the implicit log reads: every tool result must
// answer a call made before it in the same request. Agents put a call's
// result right after the assistant message that made it, so the call is
// looked for a few messages back first; only a result whose call is further
// back pays for a table of every call before it. Checked on every request,
// this keeps the usual case free of a set of all call ids.

import type { Message } from '../../model/messages';
import type { ViolationDetails } from '../../invariant/violation';

/** Messages looked at behind a tool result before the table of every earlier call is built. */
const NEARBY = 8;

/** The first tool result whose call precedes it nowhere in `messages`, as a violation. */
export function orphanedToolResult(messages: readonly Message[]): ViolationDetails | undefined {
  let called: Set<unknown> | undefined;
  let recorded = 0; // messages[0, recorded) are in `called`
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== 'tool') continue;
    const id = m.toolCallId;
    if (id != null && calledNearby(messages, i, id)) continue;
    if (id != null) {
      called ??= new Set();
      for (; recorded < i; recorded++) recordCalls(called, messages[recorded]);
      if (called.has(id)) continue;
    }
    return { kind: 'orphaned_tool_result', toolCallId: typeof id === 'string' ? id : null };
  }
  return undefined;
}

function calledNearby(messages: readonly Message[], i: number, id: unknown): boolean {
  for (let j = i - 1; j >= 0 && j >= i - NEARBY; j--) {
    const m = messages[j];
    if (m?.role !== 'assistant' || !Array.isArray(m.toolCalls)) continue;
    for (const call of m.toolCalls as unknown[]) if ((call as { id?: unknown } | null | undefined)?.id === id) return true;
  }
  return false;
}

function recordCalls(called: Set<unknown>, m: Message | undefined): void {
  if (m?.role !== 'assistant' || !Array.isArray(m.toolCalls)) return;
  for (const call of m.toolCalls as unknown[]) called.add((call as { id?: unknown } | null | undefined)?.id);
}
