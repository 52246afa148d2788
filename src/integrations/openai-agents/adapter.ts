// OpenAI Agents SDK items (AgentInputItem / AgentOutputItem, the Responses
// protocol in camelCase) <-> canonical messages. `function_call` items are
// tool calls of the assistant message before them (or of a new one with null
// content); `function_call_result` items are tool messages. Reasoning and
// hosted-tool items are not conversation messages and are left out.

import { argumentsAsJson, isObject, textOf, unknownRole, building } from '../../reading/canonical';
import { fromResponseContent, fromResponseItems, type ItemDialect } from '../../reading/response-items';
import type { ContentPart, Message } from '../../model/messages';

/** A message item of the OpenAI Agents SDK (the Responses protocol in camelCase), as `toAgentItems` writes it. */
export type AgentsMessageItem =
  | { type: 'message'; role: 'system' | 'user'; content: string }
  | { type: 'message'; role: 'assistant'; status: 'completed'; content: Array<{ type: 'output_text'; text: string }> };
/**
 * A tool call as an item of its own. Reading joins it to the assistant message
 * before it, or starts one with `null` content (docs/behaviour.md §4.3).
 */
export type AgentsFunctionCallItem = { type: 'function_call'; callId: string; name: string; arguments: string; status: 'completed' };
/** A tool result item: one canonical `tool` message. */
export type AgentsFunctionResultItem = {
  type: 'function_call_result';
  callId: string;
  name: string;
  status: 'completed';
  output: { type: 'text'; text: string };
};
/**
 * What `AgentsLogSession.getItems` hands the runner: the fold as Agents SDK
 * items. Reasoning, handoff and hosted-tool items are not conversation and are
 * not read (docs/behaviour.md §4.3).
 */
export type AgentsItem = AgentsMessageItem | AgentsFunctionCallItem | AgentsFunctionResultItem;

/** Canonical messages from Agents SDK items. Never throws and never writes to its input. */
export function fromAgentItems(items: readonly unknown[]): Message[] {
  return fromResponseItems(items, AGENTS_SDK);
}

const AGENTS_SDK: ItemDialect = {
  callId: 'callId',
  resultTypes: ['function_call_result'],
  readOutput: (output) => {
    if (typeof output === 'string') return output;
    if (isObject(output) && output.type === 'text' && typeof output.text === 'string') return output.text;
    if (Array.isArray(output)) return fromResponseContent(output);
    return output === undefined ? null : [output as ContentPart];
  },
  // Reasoning, hosted tools, handoffs and the like are not conversation messages here.
  isSkipped: () => true,
};

/** Agents SDK items from canonical messages (what a log-backed Session hands the runner). */
export function toAgentItems(messages: readonly Message[]): AgentsItem[] {
  return building('toAgentItems', messages, (messages) => {
    const items: AgentsItem[] = [];
    for (const m of messages) {
      switch (m.role) {
        case 'system':
        case 'user':
          items.push({ type: 'message', role: m.role, content: textOf(m.content) });
          break;
        case 'assistant':
          if (m.content !== null)
            items.push({
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: textOf(m.content) }],
            });
          for (const call of m.toolCalls ?? []) {
            items.push({
              type: 'function_call',
              callId: call.id,
              name: call.name,
              arguments: argumentsAsJson(call.arguments),
              status: 'completed',
            });
          }
          break;
        case 'tool':
          items.push({
            type: 'function_call_result',
            callId: m.toolCallId ?? '',
            name: m.name ?? '',
            status: 'completed',
            output: { type: 'text', text: textOf(m.content) },
          });
          break;
        default:
          throw unknownRole('toAgentItems', m);
      }
    }
    return items;
  });
}
