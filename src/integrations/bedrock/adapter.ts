// Bedrock Converse `{ system, messages }` -> canonical messages. Converse
// content blocks are unions with one member each (`{ text }`, `{ toolUse }`,
// `{ toolResult }`, `{ image }`, ...), not `type`-tagged objects.

import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';
import {
  ToolCallNames,
  collapseText,
  dataUrl,
  isObject,
  isWalkable,
  readSafely,
  readTurns,
  userTurnMessages,
  type Loose,
} from '../../reading/canonical';

/**
 * Canonical messages from a Converse request (`system` and `messages`).
 * Each `system` text block is one system message; `cachePoint` blocks
 * (prompt-cache markers) are not content. A user turn's `toolResult` blocks
 * are tool messages, in order, named after the `toolUse` they answer; its
 * other blocks form user messages between them. `toolUse` blocks are tool
 * calls; `reasoningContent` is reasoning, never compared. A result's
 * `status` is not read, as Anthropic's `is_error` is not. Never throws and
 * never writes to its input.
 */
export function fromConverse(request: { system?: unknown; messages: readonly unknown[] }): Message[] {
  return readTurns(request, { system: fromSystem, user: fromUser, assistant: fromAssistant });
}

/** The canonical message a Converse reply's `content` blocks are (the model's reply). */
export function fromConverseReply(content: readonly unknown[]): Message[] {
  return readSafely(content, (blocks) => [fromAssistant(blocks, new ToolCallNames())]);
}

function fromSystem(system: unknown): Message[] {
  if (system === undefined || system === null) return [];
  if (!isWalkable(system)) return [{ role: 'system', content: system as string }];
  return system.flatMap((block): Message[] => {
    if (isCachePoint(block)) return [];
    return [{ role: 'system', content: isObject(block) && typeof block.text === 'string' ? block.text : (block as string) }];
  });
}

function fromUser(content: unknown, names: ToolCallNames): Message[] {
  if (!isWalkable(content)) return [{ role: 'user', content: content as MessageContent }];
  return userTurnMessages(
    content,
    (block) =>
      isObject(block) && isObject(block.toolResult)
        ? names.toolMessage(fromResultContent(block.toolResult.content), block.toolResult.toolUseId)
        : undefined,
    (block) => (isCachePoint(block) ? undefined : fromBlock(block)),
  );
}

function fromAssistant(content: unknown, names: ToolCallNames): Message {
  if (!isWalkable(content)) return { role: 'assistant', content: content as MessageContent };
  const parts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const block of content as unknown[]) {
    if (isObject(block) && isObject(block.toolUse)) {
      const call = block.toolUse;
      toolCalls.push({ id: call.toolUseId as string, name: call.name as string, arguments: call.input });
    } else if (!(isObject(block) && block.reasoningContent !== undefined) && !isCachePoint(block)) {
      parts.push(fromBlock(block));
    }
  }
  const message: Message = { role: 'assistant', content: collapseText(parts) };
  if (toolCalls.length > 0) {
    message.toolCalls = toolCalls;
    names.record(toolCalls);
  }
  return message;
}

function fromResultContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!isWalkable(content)) return content as MessageContent;
  return content.map(fromBlock);
}

/** A `{ text }` block is a text part; an image with its bytes a `data:` URL image; any other block is compared as it is. */
function fromBlock(block: unknown): ContentPart {
  if (!isObject(block)) return block as ContentPart;
  if (typeof block.text === 'string' && Object.keys(block).length === 1) return { type: 'text', text: block.text };
  if (isObject(block.image)) {
    const image = imagePart(block.image);
    if (image !== undefined) return image;
  }
  return { type: 'converse', ...block };
}

/** An image block whose source is its bytes (a Uint8Array from the SDK, base64 in JSON). */
function imagePart(image: Loose): ContentPart | undefined {
  const bytes = isObject(image.source) ? image.source.bytes : undefined;
  if (typeof image.format !== 'string') return undefined;
  const mediaType = `image/${image.format}`;
  if (bytes instanceof Uint8Array) return { type: 'image', url: dataUrl(mediaType, Buffer.from(bytes).toString('base64')) };
  if (typeof bytes === 'string') return { type: 'image', url: dataUrl(mediaType, bytes) };
  return undefined;
}

function isCachePoint(block: unknown): boolean {
  return isObject(block) && block.cachePoint !== undefined && Object.keys(block).length === 1;
}
