// Anthropic Messages `{ system, messages }` <-> canonical messages.

import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';
import {
  ToolCallNames,
  argumentsAsObject,
  collapseText,
  contentFieldsOf,
  continuesToolRun,
  dataUrl,
  isObject,
  isWalkable,
  parseDataUrl,
  readSafely,
  readTurns,
  systemMessagesOf,
  userTurnMessages,
  textOf,
  unknownRole,
  building,
} from '../../reading/canonical';

/**
 * A Messages text block. Read as `{ type: 'text', text }`: other fields
 * (`cache_control`, citations) are dropped, because prompt caching moves the
 * marker to the newest message every turn (docs/behaviour.md §4.3).
 */
export type AnthropicTextBlock = { type: 'text'; text: string };
/** The image media types a Messages base64 image source may have. */
export type AnthropicImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
/**
 * A Messages image block. A base64 source reads as a `data:` URL image part and
 * a URL source as that URL, so an image matches whichever API wrote it
 * (docs/behaviour.md §4.3).
 */
export type AnthropicImageBlock = {
  type: 'image';
  source: { type: 'base64'; media_type: AnthropicImageMediaType; data: string } | { type: 'url'; url: string };
};
/**
 * An assistant's tool call. `input` is an object: `toAnthropic` parses
 * JSON-string arguments, and a string and the object it parses to compare equal
 * (docs/behaviour.md §1.5).
 */
export type AnthropicToolUseBlock = { type: 'tool_use'; id: string; name: string; input: unknown };
/**
 * A tool result block in a user turn. Each reads as one canonical `tool`
 * message, named after the `tool_use` it answers because Anthropic sends no
 * name with a result (docs/behaviour.md §4.3).
 */
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
};
/** Any content block `toAnthropic` writes. */
export type AnthropicBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

/**
 * One entry of a Messages request's `messages`. Only `user` and `assistant`
 * exist there: system text goes in `system`, and tool results are blocks of a
 * user turn.
 */
export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}

/**
 * The part of a Messages request body the adapters build and read: `system` and
 * `messages`; the caller adds `model` and the rest. `toAnthropic` writes
 * leading system messages into `system`, a string for one and text blocks for
 * several.
 */
export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
}

/**
 * Canonical messages from a Messages request body (`system` and `messages`).
 * `system` is the overlay slot: each of its blocks is one system message. A
 * user turn's `tool_result` blocks are tool messages, in order, named after
 * the `tool_use` they answer; its other blocks form user messages between
 * them. `tool_use` blocks are tool calls; thinking blocks are reasoning,
 * never compared. Prompt-cache markers (`cache_control`) are not content.
 * Never throws and never writes to its input.
 */
export function fromAnthropic(request: { system?: unknown; messages: readonly unknown[] }): Message[] {
  return readTurns(request, { system: fromSystem, user: fromUser, assistant: fromAssistant });
}

/** Canonical messages from a Messages response's `content` blocks (the model's reply). */
export function fromAnthropicReply(content: readonly unknown[]): Message[] {
  return readSafely(content, (blocks) => [fromAssistant(blocks, new ToolCallNames())]);
}

function fromSystem(system: unknown): Message[] {
  if (system === undefined || system === null || system === '') return [];
  if (!isWalkable(system)) return [{ role: 'system', content: system as string }];
  return systemMessagesOf(system);
}

function fromUser(content: unknown, names: ToolCallNames): Message[] {
  if (!isWalkable(content)) return [{ role: 'user', content: content as MessageContent }];
  return userTurnMessages(
    content,
    (block) =>
      isObject(block) && block.type === 'tool_result'
        ? names.toolMessage(fromToolResultContent(block.content), block.tool_use_id)
        : undefined,
    fromBlock,
  );
}

function fromAssistant(content: unknown, names: ToolCallNames): Message {
  if (!isWalkable(content)) return { role: 'assistant', content: content as MessageContent };
  const texts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of content as unknown[]) {
    if (!isObject(block)) {
      texts.push(block as ContentPart);
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      toolCalls.push({ id: block.id as string, name: block.name as string, arguments: block.input });
    } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
      texts.push(fromBlock(block));
    }
  }
  const message: Message = { role: 'assistant', content: collapseText(texts) };
  if (toolCalls.length > 0) {
    message.toolCalls = toolCalls;
    names.record(toolCalls);
  }
  return message;
}

function fromToolResultContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!isWalkable(content)) return content as MessageContent;
  return content.map(fromBlock);
}

function fromBlock(block: unknown): ContentPart {
  if (!isObject(block)) return block as ContentPart;
  if (block.type === 'text') return { type: 'text', text: block.text as string };
  if (block.type === 'image' && isObject(block.source)) {
    const source = block.source;
    if (source.type === 'base64') return { type: 'image', url: dataUrl(String(source.media_type), String(source.data)) };
    if (source.type === 'url') return { type: 'image', url: source.url as string };
  }
  return contentFieldsOf(block);
}

/**
 * A Messages request body (`system` and `messages`) from canonical messages.
 * Leading system messages become `system`; Anthropic has no system role
 * later in a conversation, so a system message after the first non-system
 * message is a TypeError. Consecutive tool messages share one user turn.
 */
export function toAnthropic(messages: readonly Message[]): AnthropicRequest {
  return building('toAnthropic', messages, (messages) => {
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
          if (m.content !== null)
            result.content = typeof m.content === 'string' ? m.content : (toBlocks(m.content) as AnthropicToolResultBlock['content']);
          if (continuesToolRun(messages, i)) (out[out.length - 1]!.content as AnthropicBlock[]).push(result);
          else out.push({ role: 'user', content: [result] });
          break;
        }
        case 'system':
          throw new TypeError(
            `toAnthropic: message ${i} is a system message after the conversation started; Anthropic Messages has no system role there`,
          );
        default:
          throw unknownRole('toAnthropic', m);
      }
    }
    const request: AnthropicRequest = { messages: out };
    if (system.length === 1) request.system = textOf(system[0]!.content);
    else if (system.length > 1) request.system = system.map((s) => ({ type: 'text', text: textOf(s.content) }));
    return request;
  });
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
      const data = parseDataUrl(part.url);
      return data
        ? { type: 'image', source: { type: 'base64', media_type: data.mediaType as AnthropicImageMediaType, data: data.data } }
        : { type: 'image', source: { type: 'url', url: part.url } };
    }
    return { ...part } as unknown as AnthropicBlock;
  });
}
