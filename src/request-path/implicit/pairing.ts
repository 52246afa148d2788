// Tool pairing on a request the implicit log reads: every tool result must
// answer a call made before it in the same request (the call is looked up by
// model/answered-call.ts).

import type { Message } from '../../model/messages';
import { EarlierCalls } from '../../model/answered-call';
import type { ViolationDetails } from '../../invariant/violation';

const assistantCalls = (message: unknown): readonly { id?: unknown }[] | undefined => {
  const m = message as Message | null | undefined;
  return m?.role === 'assistant' && Array.isArray(m.toolCalls) ? m.toolCalls : undefined;
};

/** The first tool result whose call precedes it nowhere in `messages`, as a violation. */
export function orphanedToolResult(messages: readonly Message[]): ViolationDetails | undefined {
  let calls: EarlierCalls<{ id?: unknown }> | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m?.role !== 'tool') continue;
    const id = m.toolCallId;
    if (id != null && (calls ??= new EarlierCalls(messages, assistantCalls)).answered(id, i) !== undefined) continue;
    return { kind: 'orphaned_tool_result', toolCallId: typeof id === 'string' ? id : null };
  }
  return undefined;
}
