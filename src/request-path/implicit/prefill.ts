// A prefill and the model's reply to it, as the one assistant message an app
// sends back.

import { textOf } from '../../reading/canonical';
import type { Message } from '../../model/messages';

/** The prefill's text followed by the reply's, and the prefill's tool calls followed by the reply's. */
export function mergePrefill(prefill: Message, reply: Message): Message {
  const merged: Message = { role: 'assistant', content: textOf(prefill.content) + textOf(reply.content) };
  const calls = [...(prefill.toolCalls ?? []), ...(reply.toolCalls ?? [])];
  if (calls.length > 0) merged.toolCalls = calls;
  return merged;
}
