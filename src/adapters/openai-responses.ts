// OpenAI Responses `{ instructions, input }` <-> canonical messages.
// `instructions` is the overlay slot. `function_call` items are tool calls of
// the assistant message before them (or of a new one with null content);
// `function_call_output` items are tool messages. Reasoning items and the
// items of tools the provider hosts (web search, file search, ...) are not
// conversation messages and are left out.

import type { ContentPart, Message, MessageContent, ToolCall } from '../messages';
import { argumentsAsJson, isObject, nameToolResultsFromCalls, textOf } from './shared';

/** Parts other than text and images (files, say) are passed through as they are in the canonical message. */
export type OpenAIResponsesInputPart = { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' | 'low' | 'high' };
export type OpenAIResponsesOutputPart = { type: 'output_text'; text: string; annotations: [] };
export type OpenAIResponsesContentPart = OpenAIResponsesInputPart | OpenAIResponsesOutputPart;

export type OpenAIResponsesInputItem =
  | { type: 'message'; role: 'system' | 'developer' | 'user'; content: string | OpenAIResponsesInputPart[] }
  | { type: 'message'; role: 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | OpenAIResponsesInputPart[] };

const NOT_CONVERSATION = new Set([
  'reasoning',
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'code_interpreter_call',
  'image_generation_call',
  'local_shell_call',
  'local_shell_call_output',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
]);

/** Canonical messages from a Responses request body (`instructions` and `input`). */
export function fromOpenAIResponses(request: { instructions?: unknown; input?: unknown }): Message[] {
  const out: Message[] = [];
  if (typeof request.instructions === 'string' && request.instructions !== '') {
    out.push({ role: 'system', content: request.instructions });
  }
  const input = request.input;
  if (typeof input === 'string') {
    out.push({ role: 'user', content: input });
  } else if (Array.isArray(input)) {
    for (const item of input as unknown[]) addItem(out, item);
  }
  return nameToolResultsFromCalls(out);
}

function addItem(out: Message[], item: unknown): void {
  if (!isObject(item)) {
    out.push(item as Message);
    return;
  }
  const type = item.type ?? 'message';
  if (type === 'message' && typeof item.role === 'string') {
    const role = item.role === 'developer' ? 'system' : item.role;
    out.push({ role, content: fromContent(item.content) } as Message);
  } else if (type === 'function_call' || type === 'custom_tool_call') {
    const call: ToolCall = {
      id: item.call_id as string,
      name: item.name as string,
      arguments: type === 'function_call' ? item.arguments : item.input,
    };
    const previous = out[out.length - 1];
    if (previous?.role === 'assistant') previous.toolCalls = [...(previous.toolCalls ?? []), call];
    else out.push({ role: 'assistant', content: null, toolCalls: [call] });
  } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    out.push({ role: 'tool', content: fromContent(item.output), toolCallId: item.call_id as string });
  } else if (!NOT_CONVERSATION.has(type as string)) {
    // Unknown to the canonical shape (an item_reference, say): kept, so the check reports it.
    out.push(item as unknown as Message);
  }
}

function fromContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!Array.isArray(content)) return content as MessageContent;
  return content.map((part: unknown): ContentPart => {
    if (!isObject(part)) return part as ContentPart;
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text as string };
    if (part.type === 'input_image') return { type: 'image', url: (part.image_url ?? part.file_id) as string };
    return part as ContentPart;
  });
}

/** A Responses `input` array from canonical messages; system messages stay in `input`, `instructions` is left to the caller. */
export function toOpenAIResponses(messages: readonly Message[]): OpenAIResponsesInputItem[] {
  const items: OpenAIResponsesInputItem[] = [];
  for (const m of messages) {
    switch (m.role) {
      case 'system':
      case 'user':
        items.push({ type: 'message', role: m.role, content: toInputContent(m.content) });
        break;
      case 'assistant':
        // An assistant's text goes back as a string: the API takes output parts only on items with an id.
        if (m.content !== null) items.push({ type: 'message', role: 'assistant', content: textOf(m.content) });
        for (const call of m.toolCalls ?? []) {
          items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: argumentsAsJson(call.arguments) });
        }
        break;
      case 'tool':
        items.push({ type: 'function_call_output', call_id: m.toolCallId ?? '', output: toInputContent(m.content) });
        break;
      default:
        throw new TypeError(`toOpenAIResponses: unknown role ${JSON.stringify((m as { role?: unknown }).role)}`);
    }
  }
  return items;
}

function toInputContent(content: MessageContent): string | OpenAIResponsesInputPart[] {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part): OpenAIResponsesInputPart => {
    if (part.type === 'text') return { type: 'input_text', text: (part as { text: string }).text };
    if (part.type === 'image' && typeof part.url === 'string') return { type: 'input_image', image_url: part.url, detail: 'auto' };
    return part as OpenAIResponsesInputPart;
  });
}
