// OpenAI Responses `{ instructions, input }` <-> canonical messages.

import { argumentsAsJson, readSafely, textOf, unknownRole, building } from '../../reading/canonical';
import { fromResponseContent, fromResponseItems, type ItemDialect } from '../../reading/response-items';
import type { Message, MessageContent } from '../../model/messages';

/** Parts other than text and images (files, say) are carried as they are in the canonical message. */
export type OpenAIResponsesInputPart =
  { type: 'input_text'; text: string } | { type: 'input_image'; image_url: string; detail: 'auto' | 'low' | 'high' };
/**
 * An `output_text` part, as a reply's assistant message carries it. Read as a
 * text part: `annotations`, `logprobs` and ids are response bookkeeping that
 * comes back when an output item is re-sent (docs/behaviour.md §4.3).
 */
export type OpenAIResponsesOutputPart = { type: 'output_text'; text: string; annotations: [] };
/** Any Responses content part the adapter reads or writes. */
export type OpenAIResponsesContentPart = OpenAIResponsesInputPart | OpenAIResponsesOutputPart;

/**
 * One item of a Responses `input`, as `toOpenAIResponses` writes it. An
 * assistant turn with tool calls is several items (a message, then one
 * `function_call` per call), which reading joins back into one message
 * (docs/behaviour.md §4.3). Assistant text goes back as a string, since the API
 * takes output parts only on items with an id.
 */
export type OpenAIResponsesInputItem =
  | { type: 'message'; role: 'system' | 'developer' | 'user'; content: string | OpenAIResponsesInputPart[] }
  | { type: 'message'; role: 'assistant'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | OpenAIResponsesInputPart[] };

/** Item types that are not conversation messages: reasoning, and the calls of tools the provider hosts. */
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

const RESPONSES_API: ItemDialect = {
  callId: 'call_id',
  resultTypes: ['function_call_output', 'custom_tool_call_output'],
  readOutput: fromResponseContent,
  // Anything else unknown to the canonical shape (an `item_reference`, say) is kept, so the check reports it.
  isSkipped: (type) => NOT_CONVERSATION.has(type),
};

/**
 * Canonical messages from a Responses request body. `instructions` is the
 * overlay slot (a system message in front); `input` is a user string or
 * items. Reasoning and provider-hosted tool items are left out. Never throws
 * and never writes to its input.
 */
export function fromOpenAIResponses(request: { instructions?: unknown; input?: unknown }): Message[] {
  return readSafely(request, ({ instructions, input }) => {
    const out: Message[] = [];
    if (typeof instructions === 'string' && instructions !== '') out.push({ role: 'system', content: instructions });
    if (typeof input === 'string') out.push({ role: 'user', content: input });
    else if (Array.isArray(input)) return fromResponseItems(input, RESPONSES_API, out);
    return out;
  });
}

/** Canonical messages from a response's `output` items (the model's reply). */
export function fromOpenAIResponsesOutput(output: readonly unknown[]): Message[] {
  return fromResponseItems(output, RESPONSES_API);
}

/** A Responses `input` array from canonical messages; system messages stay in `input`, `instructions` is left to the caller. */
export function toOpenAIResponses(messages: readonly Message[]): OpenAIResponsesInputItem[] {
  return building('toOpenAIResponses', messages, (messages) => {
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
          throw unknownRole('toOpenAIResponses', m);
      }
    }
    return items;
  });
}

function toInputContent(content: MessageContent): string | OpenAIResponsesInputPart[] {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part): OpenAIResponsesInputPart => {
    if (part.type === 'text') return { type: 'input_text', text: (part as { text: string }).text };
    if (part.type === 'image' && typeof part.url === 'string') return { type: 'input_image', image_url: part.url, detail: 'auto' };
    return { ...part } as OpenAIResponsesInputPart;
  });
}
