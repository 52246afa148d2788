// Helpers the provider adapters share.

import type { ContentPart, Message, ToolCall } from '../messages';

export type Loose = Record<string, unknown>;

export function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Providers carry no name on a tool result; it is the name of the call it
 * answers. Fills `name` on tool messages from the closest preceding call with
 * that id (left as is when no call is found), so a log that records tool
 * results under the tool's name matches the provider's request.
 */
export function nameToolResultsFromCalls(messages: Message[]): Message[] {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (!isObject(message)) continue;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) if (typeof call.id === 'string') names.set(call.id, call.name);
    } else if (message.role === 'tool' && message.name === undefined && typeof message.toolCallId === 'string') {
      const name = names.get(message.toolCallId);
      if (name !== undefined) message.name = name;
    }
  }
  return messages;
}

/** Tool call arguments as the JSON string OpenAI wants. */
export function argumentsAsJson(args: unknown): string {
  if (typeof args === 'string') return args;
  return args === undefined ? '{}' : JSON.stringify(args);
}

/** Tool call arguments as the object Anthropic wants; a string that is not JSON is a caller error. */
export function argumentsAsObject(call: ToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments) as unknown;
  } catch {
    throw new TypeError(`tool call ${call.id} (${call.name}) has arguments that are not JSON; Anthropic needs an object`);
  }
}

/** The text of a message's content: the string, or its text parts joined. */
export function textOf(content: Message['content']): string {
  if (typeof content === 'string') return content;
  if (content === null) return '';
  return content
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('');
}

/** A copy of a provider block without transport-only fields (prompt-cache hints). */
export function withoutTransportFields(block: Loose): ContentPart {
  const { cache_control: _cacheControl, ...rest } = block;
  return rest as ContentPart;
}
