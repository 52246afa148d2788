// Ollama's own chat API (`POST /api/chat`) `messages` -> canonical messages.

import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';
import { entriesOf, isObject, isWalkable, opaqueEntry, readSafely } from '../../reading/canonical';

/**
 * Canonical messages from an `/api/chat` request's `messages` (or a reply's
 * `message`). Roles are `system`, `user`, `assistant` and `tool`. A
 * message's `images` (base64, no media type) follow its text as image parts
 * with a `data:;base64,` URL; `thinking` is reasoning, never compared; an
 * assistant's empty `content` is no content. A tool call (`function: { name,
 * arguments }`) may carry no id; a tool result names the tool it answers
 * (`tool_name`), and one without a name (older clients) answers the first
 * call of the latest assistant message that no earlier result answered.
 * Ids are then read by position (invariant/positional-call-ids.ts), as the
 * request reader does. Never throws and never writes to its input.
 */
export function fromOllama(messages: readonly unknown[]): Message[] {
  const entries = entriesOf(messages);
  if (entries === undefined) return messages as unknown as Message[];
  const out: Message[] = [];
  let open: string[] = [];
  for (const entry of entries) {
    const [message] = readSafely(entry, (e) => [fromOllamaMessage(e)]);
    if (isObject(message) && message.role === 'assistant') {
      open = (message.toolCalls ?? []).map((call) => (isObject(call) ? String(call.name) : ''));
    } else if (isObject(message) && message.role === 'tool') {
      const at = typeof message.name === 'string' ? open.indexOf(message.name) : 0;
      const [answered] = at >= 0 ? open.splice(at, 1) : [];
      if (message.name === undefined && answered !== undefined) message.name = answered;
    }
    out.push(message!);
  }
  return out;
}

/** One message as it reads on its own. */
export function fromOllamaMessage(entry: unknown): Message {
  if (!isObject(entry)) return entry as Message;
  const role = entry.role;
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return opaqueEntry(entry);
  const content = contentOf(entry.content, entry.images, role === 'assistant');
  if (role === 'tool') {
    const message: Message = { role, content, toolCallId: typeof entry.tool_call_id === 'string' ? entry.tool_call_id : null };
    if (typeof entry.tool_name === 'string') message.name = entry.tool_name;
    return message;
  }
  const message: Message = { role, content };
  if (role === 'assistant' && isWalkable(entry.tool_calls) && entry.tool_calls.length > 0) {
    message.toolCalls = entry.tool_calls.map(fromToolCall);
  }
  if (typeof entry.thinking === 'string' && entry.thinking !== '') message.reasoningContent = entry.thinking;
  return message;
}

function contentOf(content: unknown, images: unknown, assistant: boolean): MessageContent {
  const text = content === undefined || content === null || (assistant && content === '') ? null : content;
  if (!isWalkable(images) || images.length === 0) return text as MessageContent;
  const parts: ContentPart[] = typeof text === 'string' && text !== '' ? [{ type: 'text', text }] : [];
  for (const image of images) parts.push({ type: 'image', url: `data:;base64,${String(image)}` });
  return parts;
}

function fromToolCall(call: unknown): ToolCall {
  if (!isObject(call)) return call as ToolCall;
  const fn = isObject(call.function) ? call.function : {};
  const read: ToolCall = { id: call.id as string, name: fn.name as string, arguments: fn.arguments };
  return read;
}
