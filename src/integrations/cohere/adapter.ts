// Cohere v2 chat (`POST /v2/chat`) `messages` -> canonical messages.

import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';
import {
  ToolCallNames,
  collapseText,
  contentFieldsOf,
  entriesOf,
  isObject,
  isWalkable,
  opaqueEntry,
  readSafely,
} from '../../reading/canonical';

/**
 * Canonical messages from a v2 chat request's `messages` (or a reply's
 * `message`). Content is a string or a list of parts: `text`, `image_url`
 * (an image part with its URL), a tool result's `document` (compared as it
 * is); a lone text part equals its string. On an assistant message,
 * `thinking` parts and `tool_plan` (the plan the model states before its
 * calls) are reasoning, never compared: apps re-send the plan or leave it
 * out, and the calls it led to are compared. `citations` are bookkeeping.
 * Tool calls keep the ids the model gave them (`function: { name, arguments
 * }`, arguments a JSON string); a tool result answers one by `tool_call_id`
 * and is named after it. Never throws and never writes to its input.
 */
export function fromCohere(messages: readonly unknown[]): Message[] {
  const entries = entriesOf(messages);
  if (entries === undefined) return messages as unknown as Message[];
  const names = new ToolCallNames();
  return entries.flatMap((entry) => readSafely(entry, (e) => [fromCohereMessage(e, names)]));
}

/** One message; `names` remembers the calls read so far, to name the results that answer them. */
export function fromCohereMessage(entry: unknown, names: ToolCallNames = new ToolCallNames()): Message {
  if (!isObject(entry)) return entry as Message;
  const role = entry.role;
  if (role === 'tool') return names.toolMessage(contentOf(entry.content), entry.tool_call_id ?? null);
  if (role !== 'system' && role !== 'user' && role !== 'assistant') return opaqueEntry(entry);
  const reasoning: string[] = [];
  const message: Message = { role, content: contentOf(entry.content, role === 'assistant' ? reasoning : undefined) };
  if (role === 'assistant') {
    if (isWalkable(entry.tool_calls) && entry.tool_calls.length > 0) message.toolCalls = entry.tool_calls.map(fromToolCall);
    names.record(message.toolCalls);
    if (typeof entry.tool_plan === 'string' && entry.tool_plan !== '') reasoning.unshift(entry.tool_plan);
    if (reasoning.length > 0) message.reasoningContent = reasoning.join('\n');
  }
  return message;
}

/** Content as a string or parts; `reasoning` (an assistant's) collects its thinking parts, which are left out. */
function contentOf(content: unknown, reasoning?: string[]): MessageContent {
  if (content === undefined || content === null) return null;
  if (!isWalkable(content)) return content as MessageContent;
  const parts: ContentPart[] = [];
  for (const part of content) {
    if (!isObject(part)) parts.push(part as ContentPart);
    else if (part.type === 'text') parts.push({ type: 'text', text: part.text as string });
    else if (part.type === 'thinking' && reasoning !== undefined) reasoning.push(String(part.thinking ?? ''));
    else if (part.type === 'image_url' && isObject(part.image_url)) parts.push({ type: 'image', url: part.image_url.url as string });
    else parts.push(contentFieldsOf(part));
  }
  return collapseText(parts);
}

function fromToolCall(call: unknown): ToolCall {
  if (!isObject(call)) return call as ToolCall;
  const fn = isObject(call.function) ? call.function : {};
  return { id: call.id as string, name: fn.name as string, arguments: fn.arguments };
}
