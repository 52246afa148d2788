// OpenAI Agents SDK items (AgentInputItem / AgentOutputItem, the Responses
// protocol in camelCase) <-> canonical messages. `function_call` items are
// tool calls of the assistant message before them (or of a new one with null
// content); `function_call_result` items are tool messages. Reasoning and
// hosted-tool items are not conversation messages and are left out.

import type { ContentPart, Message, MessageContent, ToolCall } from '../messages';
import { argumentsAsJson, isObject, nameToolResultsFromCalls, textOf } from './shared';

export type AgentsMessageItem =
  | { type: 'message'; role: 'system' | 'user'; content: string }
  | { type: 'message'; role: 'assistant'; status: 'completed'; content: Array<{ type: 'output_text'; text: string }> };
export type AgentsFunctionCallItem = { type: 'function_call'; callId: string; name: string; arguments: string; status: 'completed' };
export type AgentsFunctionResultItem = {
  type: 'function_call_result';
  callId: string;
  name: string;
  status: 'completed';
  output: { type: 'text'; text: string };
};
export type AgentsItem = AgentsMessageItem | AgentsFunctionCallItem | AgentsFunctionResultItem;

const CONVERSATION_TYPES = new Set(['message', 'function_call', 'function_call_result']);

/** Canonical messages from Agents SDK items. */
export function fromAgentItems(items: readonly unknown[]): Message[] {
  const out: Message[] = [];
  for (const item of items) {
    if (!isObject(item)) {
      out.push(item as Message);
      continue;
    }
    const type = item.type ?? 'message';
    if (!CONVERSATION_TYPES.has(type as string)) continue;
    if (type === 'message') {
      out.push({ role: item.role === 'developer' ? 'system' : item.role, content: fromContent(item.content) } as Message);
    } else if (type === 'function_call') {
      const call: ToolCall = { id: item.callId as string, name: item.name as string, arguments: item.arguments };
      const previous = out[out.length - 1];
      if (previous?.role === 'assistant') previous.toolCalls = [...(previous.toolCalls ?? []), call];
      else out.push({ role: 'assistant', content: null, toolCalls: [call] });
    } else {
      out.push({ role: 'tool', content: fromOutput(item.output), toolCallId: item.callId as string, name: item.name as string });
    }
  }
  return nameToolResultsFromCalls(out);
}

function fromContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!Array.isArray(content)) return content as MessageContent;
  return content.map((part: unknown): ContentPart => {
    if (!isObject(part)) return part as ContentPart;
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text as string };
    if (part.type === 'input_image' && typeof part.image === 'string') return { type: 'image', url: part.image };
    return part as ContentPart;
  });
}

function fromOutput(output: unknown): MessageContent {
  if (typeof output === 'string') return output;
  if (isObject(output) && output.type === 'text' && typeof output.text === 'string') return output.text;
  if (Array.isArray(output)) return fromContent(output);
  return output === undefined ? null : [output as ContentPart];
}

/** Agents SDK items from canonical messages (what a log-backed Session hands the runner). */
export function toAgentItems(messages: readonly Message[]): AgentsItem[] {
  const items: AgentsItem[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'user':
        items.push({ type: 'message', role: m.role, content: textOf(m.content) });
        break;
      case 'assistant':
        if (m.content !== null) items.push({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: textOf(m.content) }] });
        for (const call of m.toolCalls ?? []) {
          items.push({ type: 'function_call', callId: call.id, name: call.name, arguments: argumentsAsJson(call.arguments), status: 'completed' });
        }
        break;
      case 'tool':
        items.push({ type: 'function_call_result', callId: m.toolCallId ?? '', name: m.name ?? '', status: 'completed', output: { type: 'text', text: textOf(m.content) } });
        break;
      default:
        throw new TypeError(`toAgentItems: unknown role ${JSON.stringify((m as { role?: unknown }).role)}`);
    }
  }
  return items;
}
