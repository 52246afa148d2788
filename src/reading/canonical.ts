// The helpers every provider adapter is written with. Adapters are pure: they
// read the caller's objects and build new ones, never writing to their input,
// so a request is sent byte for byte as the caller built it. Reading
// (`from...`) never throws: what cannot be read becomes an entry the check
// reports. Building (`to...`) throws a TypeError for a message it cannot
// express.

import { MAX_REQUEST_MESSAGES } from '../model/messages';
import { EarlierCalls } from '../model/answered-call';
import { CACHE_MARKER } from '../invariant/message-equality';
import { describe } from '../log/events';
import { copyJsonSafe } from '../log/json-safe';
import type { ContentPart, Message, MessageContent, ToolCall } from '../model/messages';

/** A provider object read field by field, before anything is known about its shape. */
export type Loose = Record<string, unknown>;

/**
 * Whether `value` is a non-null, non-array object whose fields may be read.
 * Adapters test this before reading a field, so a malformed entry is passed on
 * for the check to report instead of throwing.
 */
export function isObject(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `developer` (OpenAI's newer name for the system role) reads as `system`. */
export function canonicalRole(role: unknown): unknown {
  return role === 'developer' ? 'system' : role;
}

/**
 * The entries of a provider list, read defensively: a sparse slot reads as
 * `undefined`. Something that is not a readable array, or a list longer than
 * `MAX_REQUEST_MESSAGES`, is not walked: `undefined` tells the adapter to
 * hand it on as it is, for the check to report.
 */
export function entriesOf(list: unknown): readonly unknown[] | undefined {
  try {
    return Array.isArray(list) && list.length <= MAX_REQUEST_MESSAGES ? list : undefined;
  } catch {
    return undefined; // a revoked Proxy
  }
}

/**
 * Whether a nested list (content parts, tool calls, blocks) may be walked:
 * one that claims more slots than a request may hold messages (a sparse
 * `length = 2**32 - 1`) is carried on unread, and no fold message matches it.
 */
export function isWalkable(list: unknown): list is readonly unknown[] {
  return Array.isArray(list) && list.length <= MAX_REQUEST_MESSAGES;
}

/**
 * Reads a provider request or one of its entries with `read`; what throws
 * when read (a throwing getter, a revoked Proxy) becomes an unreadable
 * marker, which no fold message matches, so the check reports it.
 */
export function readSafely<T>(input: T, read: (input: T) => Message[]): Message[] {
  try {
    return read(input);
  } catch {
    return [UNREADABLE];
  }
}

const UNREADABLE = Object.freeze({ role: 'unreadable', content: null }) as unknown as Message;

/**
 * A request entry the adapter does not understand (an unknown role, an
 * `item_reference`): a shallow copy, so the check can report it without the
 * caller's own object ever being handed on.
 */
export function opaqueEntry(entry: unknown): Message {
  if (typeof entry !== 'object' || entry === null) return entry as Message;
  return { ...(entry as Loose) } as unknown as Message;
}

/** Parts as message content: a lone text part collapses to its string, no parts to null. */
export function collapseText(parts: readonly ContentPart[]): MessageContent {
  if (parts.length === 0) return null;
  const only = parts.length === 1 ? parts[0]! : undefined;
  if (only?.type === 'text' && typeof (only as { text?: unknown }).text === 'string' && Object.keys(only).length === 2) {
    return (only as { text: string }).text;
  }
  return [...parts];
}

/** A call a tool result is named after: one with a string name. */
const hasName = (call: ToolCall): boolean => typeof call.name === 'string';

/**
 * Names tool results after the calls they answer, as the conversation is
 * read: providers send no name with a result. The calls are looked up by
 * model/answered-call.ts (the latest call with the result's id and a name).
 */
export class ToolCallNames {
  /** The calls of each assistant message read so far, in order. */
  readonly #made: (readonly ToolCall[])[] = [];
  readonly #calls = new EarlierCalls<ToolCall>(this.#made, (calls) => calls as readonly ToolCall[], hasName);

  /** Remembers the calls of an assistant message. */
  record(calls: readonly ToolCall[] | undefined): void {
    if (calls !== undefined) this.#made.push(calls);
  }

  /** The name of the call `toolCallId` names, if one was seen. */
  nameOf(toolCallId: string): string | undefined {
    return this.#calls.answered(toolCallId, this.#made.length)?.name;
  }

  /** A tool message for `toolCallId`, named after its call when one was seen. */
  toolMessage(content: MessageContent, toolCallId: unknown, name?: unknown): Message {
    const message: Message = { role: 'tool', content, toolCallId: toolCallId as string };
    const known = typeof name === 'string' ? name : typeof toolCallId === 'string' ? this.nameOf(toolCallId) : undefined;
    if (known !== undefined) message.name = known;
    return message;
  }
}

/** Whether message `i` continues a run of tool messages: providers put consecutive results in one turn. */
export function continuesToolRun(messages: readonly Message[], i: number): boolean {
  return i > 0 && messages[i - 1]?.role === 'tool';
}

/**
 * Runs a `to...` adapter's `build` over `messages` after checking that every
 * list in them can be walked (the messages, each content list and each
 * tool-call list). Whatever goes wrong becomes a TypeError naming the
 * adapter, so building never throws anything else and never walks a sparse
 * `length = 2**32 - 1`.
 */
export function building<T>(adapter: string, messages: readonly Message[], build: (messages: readonly Message[]) => T): T {
  try {
    if (!isWalkable(messages)) throw new TypeError(`${adapter}: expects an array of at most ${MAX_REQUEST_MESSAGES} messages`);
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i] as Partial<Message> | undefined;
      if (typeof m !== 'object' || m === null) throw new TypeError(`${adapter}: message ${i} is not an object`);
      const content: unknown = m.content;
      if (Array.isArray(content) && !isWalkable(content)) throw new TypeError(`${adapter}: message ${i} has too many content parts`);
      const calls: unknown = m.toolCalls;
      if (calls !== undefined && calls !== null && !isWalkable(calls))
        throw new TypeError(`${adapter}: message ${i} has toolCalls that are not a list`);
    }
    return build(messages);
  } catch (error) {
    if (error instanceof TypeError) throw error;
    throw new TypeError(`${adapter}: the messages cannot be read`, { cause: error });
  }
}

/** The error every `to...` adapter throws for a message whose role it has no place for. */
export function unknownRole(adapter: string, message: Message): TypeError {
  return new TypeError(`${adapter}: unknown role ${describe((message as { role?: unknown }).role)}`);
}

/** `data:{mediaType};base64,{data}`. */
export function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

/** The parts of a base64 `data:` URL, if it is one. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!, data: match[2]! } : undefined;
}

/**
 * Tool call arguments as the JSON string OpenAI wants. Arguments that are
 * not JSON data, or that would expand past what a log event may hold (a
 * small shared structure can stand for millions of values), are a TypeError.
 */
export function argumentsAsJson(args: unknown): string {
  if (typeof args === 'string') return args;
  if (args === undefined) return '{}';
  const copy = copyJsonSafe(args, 'arguments');
  if (!copy.ok) throw new TypeError(`tool call arguments: ${copy.error.message}`);
  return JSON.stringify(copy.value);
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

/**
 * A copy of a provider block without what is not content: prompt-cache
 * hints (`cache_control`, which Anthropic's prompt caching moves to the
 * newest message every turn) and response bookkeeping (`id`, `status`,
 * `annotations`, `logprobs`) that comes back when an item is re-sent.
 */
export function contentFieldsOf(block: Loose): ContentPart {
  const copy: Loose = {};
  for (const key of Object.keys(block)) if (!NOT_CONTENT.has(key)) copy[key] = block[key];
  return copy as ContentPart;
}

const NOT_CONTENT = new Set([CACHE_MARKER, 'id', 'status', 'annotations', 'logprobs', 'providerOptions', 'providerMetadata']);

/** The id a Responses `item_reference` entry names (a stored item the request refers to instead of re-sending it), else undefined. */
export function referenceId(entry: unknown): string | undefined {
  return isObject(entry) && entry.type === 'item_reference' && typeof entry.id === 'string' ? entry.id : undefined;
}

/**
 * A system prompt given as a list of text blocks (Anthropic `system`, Gemini
 * `systemInstruction.parts`): one system message per block, with its text; a
 * block with no text is kept as it is, for the check to compare.
 */
export function systemMessagesOf(blocks: readonly unknown[]): Message[] {
  return blocks.map((block) => ({
    role: 'system' as const,
    content: isObject(block) && typeof block.text === 'string' ? block.text : (block as string),
  }));
}

/**
 * A user turn whose parts may include tool results among its content
 * (Anthropic, Gemini), in order: each run of content parts is one user
 * message, and each tool result its own tool message. `toolResult` gives the
 * tool message a part is, if it is one; `contentPart` the content part
 * another part is, or undefined to leave it out.
 */
export function userTurnMessages(
  parts: readonly unknown[],
  toolResult: (part: unknown) => Message | undefined,
  contentPart: (part: unknown) => ContentPart | undefined,
): Message[] {
  const out: Message[] = [];
  let run: ContentPart[] = [];
  for (const part of parts) {
    const tool = toolResult(part);
    if (tool === undefined) {
      const content = contentPart(part);
      if (content !== undefined) run.push(content);
      continue;
    }
    if (run.length > 0) out.push({ role: 'user', content: run });
    run = [];
    out.push(tool);
  }
  if (run.length > 0) out.push({ role: 'user', content: run });
  return out;
}

/** How one API of system text and user/assistant turns reads its parts (Anthropic Messages, Bedrock Converse). */
export interface TurnReader {
  system(system: unknown): Message[];
  user(content: unknown, names: ToolCallNames): Message[];
  assistant(content: unknown, names: ToolCallNames): Message;
}

/**
 * The one walk of a request whose system prompt stands apart and whose
 * `messages` are user and assistant turns (tool results inside user turns):
 * the system messages, then each turn as `read` reads it, tool results
 * named after the calls read before them. An entry of another role is
 * passed on as it is; what cannot be read is reported, never thrown.
 */
export function readTurns(request: { system?: unknown; messages: readonly unknown[] }, read: TurnReader): Message[] {
  return readSafely(request, ({ system, messages }) => {
    const entries = entriesOf(messages);
    if (entries === undefined) return messages as Message[];
    const out: Message[] = [...read.system(system)];
    const names = new ToolCallNames();
    const turn = (entry: unknown): Message[] => {
      if (!isObject(entry)) return [entry as Message];
      if (entry.role === 'assistant') return [read.assistant(entry.content, names)];
      if (entry.role === 'user') return read.user(entry.content, names);
      return [opaqueEntry(entry)];
    };
    for (let i = 0; i < entries.length; i++) out.push(...readSafely(entries[i], turn));
    return out;
  });
}
