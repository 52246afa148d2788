// Anthropic Messages `{ system, messages }` <-> canonical messages.
// `system` is the overlay slot: each of its blocks is one system message.
// A user turn's `tool_result` blocks are tool messages, in order; its other
// blocks form user messages between them. `tool_use` blocks are tool calls.

import type { ContentPart, Message, MessageContent, ToolCall } from '../messages';
import { argumentsAsObject, isObject, nameToolResultsFromCalls, textOf, withoutTransportFields } from './shared';

export type AnthropicTextBlock = { type: 'text'; text: string };
export type AnthropicImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
export type AnthropicImageBlock = {
  type: 'image';
  source: { type: 'base64'; media_type: AnthropicImageMediaType; data: string } | { type: 'url'; url: string };
};
export type AnthropicToolUseBlock = { type: 'tool_use'; id: string; name: string; input: unknown };
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
};
export type AnthropicBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}

export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
}

/** Canonical messages from a Messages request body (`system` and `messages`). */
export function fromAnthropic(request: { system?: unknown; messages: readonly unknown[] }): Message[] {
  const out: Message[] = [...fromSystem(request.system)];
  for (const entry of request.messages) {
    if (!isObject(entry) || (entry.role !== 'user' && entry.role !== 'assistant')) {
      out.push(entry as Message);
    } else if (entry.role === 'assistant') {
      out.push(fromAssistant(entry.content));
    } else {
      out.push(...fromUser(entry.content));
    }
  }
  return nameToolResultsFromCalls(out);
}

function fromSystem(system: unknown): Message[] {
  if (system === undefined || system === null || system === '') return [];
  if (!Array.isArray(system)) return [{ role: 'system', content: system as string }];
  return system.map((block: unknown) => ({
    role: 'system' as const,
    content: isObject(block) && typeof block.text === 'string' ? block.text : (block as string),
  }));
}

function fromUser(content: unknown): Message[] {
  if (!Array.isArray(content)) return [{ role: 'user', content: content as MessageContent }];
  const out: Message[] = [];
  let parts: ContentPart[] = [];
  const flush = () => {
    if (parts.length > 0) out.push({ role: 'user', content: parts });
    parts = [];
  };
  for (const block of content as unknown[]) {
    if (isObject(block) && block.type === 'tool_result') {
      flush();
      out.push({ role: 'tool', content: fromToolResultContent(block.content), toolCallId: block.tool_use_id as string });
    } else {
      parts.push(fromBlock(block));
    }
  }
  flush();
  return out;
}

function fromAssistant(content: unknown): Message {
  if (!Array.isArray(content)) return { role: 'assistant', content: content as MessageContent };
  const texts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of content as unknown[]) {
    if (!isObject(block)) {
      texts.push(block as ContentPart);
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      toolCalls.push({ id: block.id as string, name: block.name as string, arguments: block.input });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      // Thinking is reasoning, which the check never compares.
      texts.push(fromBlock(block));
    }
  }
  const single = texts.length === 1 && texts[0]!.type === 'text' ? (texts[0] as { text: string }).text : undefined;
  const message: Message = { role: 'assistant', content: texts.length === 0 ? null : (single ?? texts) };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  return message;
}

function fromToolResultContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!Array.isArray(content)) return content as MessageContent;
  return content.map(fromBlock);
}

function fromBlock(block: unknown): ContentPart {
  if (!isObject(block)) return block as ContentPart;
  if (block.type === 'text') return { type: 'text', text: block.text as string };
  if (block.type === 'image' && isObject(block.source)) {
    const source = block.source;
    if (source.type === 'base64') {
      return { type: 'image', url: `data:${String(source.media_type)};base64,${String(source.data)}` };
    }
    if (source.type === 'url') return { type: 'image', url: source.url as string };
  }
  return withoutTransportFields(block);
}

/**
 * A Messages request body (`system` and `messages`) from canonical messages.
 * Leading system messages become `system`; Anthropic has no system role
 * later in a conversation, so a system message after the first non-system
 * message is a TypeError. Consecutive tool messages share one user turn.
 */
export function toAnthropic(messages: readonly Message[]): AnthropicRequest {
  let i = 0;
  const system: Message[] = [];
  while (i < messages.length && messages[i]!.role === 'system') system.push(messages[i++]!);
  const out: AnthropicMessageParam[] = [];
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    switch (m.role) {
      case 'user':
        out.push({ role: 'user', content: typeof m.content === 'string' ? m.content : toBlocks(m.content) });
        break;
      case 'assistant':
        out.push({ role: 'assistant', content: toAssistantContent(m) });
        break;
      case 'tool': {
        const result: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: m.toolCallId ?? '' };
        if (m.content !== null) result.content = typeof m.content === 'string' ? m.content : (toBlocks(m.content) as AnthropicToolResultBlock['content']);
        const previous = out[out.length - 1];
        const previousIsResults =
          previous?.role === 'user' && Array.isArray(previous.content) && previous.content.every((b) => b.type === 'tool_result') && messages[i - 1]?.role === 'tool';
        if (previousIsResults) (previous.content as AnthropicBlock[]).push(result);
        else out.push({ role: 'user', content: [result] });
        break;
      }
      case 'system':
        throw new TypeError(`toAnthropic: message ${i} is a system message after the conversation started; Anthropic Messages has no system role there`);
      default:
        throw new TypeError(`toAnthropic: unknown role ${JSON.stringify((m as { role?: unknown }).role)}`);
    }
  }
  const request: AnthropicRequest = { messages: out };
  if (system.length === 1) request.system = textOf(system[0]!.content);
  else if (system.length > 1) request.system = system.map((s) => ({ type: 'text', text: textOf(s.content) }));
  return request;
}

function toAssistantContent(m: Message): string | AnthropicBlock[] {
  const calls = m.toolCalls ?? [];
  if (calls.length === 0) return typeof m.content === 'string' ? m.content : m.content === null ? '' : toBlocks(m.content);
  const blocks: AnthropicBlock[] = [];
  if (typeof m.content === 'string') {
    if (m.content !== '') blocks.push({ type: 'text', text: m.content });
  } else if (m.content !== null) {
    blocks.push(...toBlocks(m.content));
  }
  for (const call of calls) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: argumentsAsObject(call) });
  return blocks;
}

function toBlocks(content: MessageContent): AnthropicBlock[] {
  if (content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): AnthropicBlock => {
    if (part.type === 'image' && typeof part.url === 'string') {
      const data = /^data:([^;,]+);base64,(.*)$/s.exec(part.url);
      return data
        ? { type: 'image', source: { type: 'base64', media_type: data[1] as AnthropicImageMediaType, data: data[2]! } }
        : { type: 'image', source: { type: 'url', url: part.url } };
    }
    return part as unknown as AnthropicBlock;
  });
}
