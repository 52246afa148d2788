// Reading Responses-protocol items, which the OpenAI Responses API
// (snake_case: `call_id`, `function_call_output`) and the Agents SDK
// (camelCase: `callId`, `function_call_result`) both speak.

import type { ContentPart, Message, MessageContent, ToolCall } from '../model/messages';
import { ToolCallNames, canonicalRole, contentFieldsOf, entriesOf, isObject, isWalkable, opaqueEntry, readSafely } from './canonical';

/**
 * How one speaker of the Responses item protocol spells it: the OpenAI
 * Responses API (snake_case `call_id`, `function_call_output`) or the Agents
 * SDK (camelCase `callId`, `function_call_result`). Both are read by the same
 * rules, so they cannot drift apart.
 */
export interface ItemDialect {
  /** The field that holds a call's id on call and result items. */
  callId: 'call_id' | 'callId';
  /** Item types that are tool results, and how to read their output. */
  resultTypes: readonly string[];
  /** Reads a result item's `output` as message content. */
  readOutput(output: unknown): MessageContent;
  /** Item types that are not conversation messages (reasoning, hosted tools): left out. Any other unknown type is kept for the check to report. */
  isSkipped(type: string): boolean;
}

/**
 * Canonical messages from items: a `message` item is a message (its
 * bookkeeping, `id` and `status`, is not); `function_call` and
 * `custom_tool_call` items are tool calls of the assistant message before
 * them, or of a new one with null content; result items are tool messages,
 * named after their call. Never throws and never writes to its input.
 */
export function fromResponseItems(items: readonly unknown[], dialect: ItemDialect, out: Message[] = []): Message[] {
  const entries = entriesOf(items);
  if (entries === undefined) return items as Message[];
  const names = new ToolCallNames();
  for (let i = 0; i < entries.length; i++) {
    out.push(...readSafely(entries[i], (item) => fromItem(item, dialect, out, names)));
  }
  return out;
}

/** The messages one item adds; a tool call joins the assistant message before it instead. */
function fromItem(item: unknown, dialect: ItemDialect, out: Message[], names: ToolCallNames): Message[] {
  if (!isObject(item)) return [item as Message];
  const type = (item.type ?? 'message') as string;
  if (type === 'message' && typeof item.role === 'string') {
    return [{ role: canonicalRole(item.role), content: fromResponseContent(item.content) } as Message];
  }
  if (type === 'function_call' || type === 'custom_tool_call') {
    const call: ToolCall = {
      id: item[dialect.callId] as string,
      name: item.name as string,
      arguments: type === 'function_call' ? item.arguments : item.input,
    };
    names.record([call]);
    const previous = out[out.length - 1];
    if (previous?.role === 'assistant') {
      // `previous` is this adapter's own message, never the caller's object.
      previous.toolCalls = [...(previous.toolCalls ?? []), call];
      return [];
    }
    return [{ role: 'assistant', content: null, toolCalls: [call] }];
  }
  if (dialect.resultTypes.includes(type)) return [names.toolMessage(dialect.readOutput(item.output), item[dialect.callId], item.name)];
  return dialect.isSkipped(type) ? [] : [opaqueEntry(item)];
}

/** Item content: `input_text`/`output_text` parts are text, `input_image` an image; response bookkeeping is dropped. */
export function fromResponseContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!isWalkable(content)) return content as MessageContent;
  return content.map((part: unknown): ContentPart => {
    if (!isObject(part)) return part as ContentPart;
    if (part.type === 'input_text' || part.type === 'output_text') return { type: 'text', text: part.text as string };
    if (part.type === 'input_image') {
      const url = part.image_url ?? part.image ?? part.file_id;
      if (typeof url === 'string') return { type: 'image', url };
    }
    return contentFieldsOf(part);
  });
}
