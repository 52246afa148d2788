// OpenAI Chat Completions `messages` <-> canonical messages.

import {
  ToolCallNames,
  argumentsAsJson,
  canonicalRole,
  contentFieldsOf,
  entriesOf,
  isObject,
  isWalkable,
  opaqueEntry,
  readSafely,
  unknownRole,
  building,
} from '../../reading/canonical';
import { EntryMemo } from '../../reading/entry-memo';
import { EarlierCalls } from '../../model/answered-call';
import { chatEntrySnapshots, type ChatEntrySnapshot } from './chat-entry-snapshot';
import { markStable, stableSlot } from '../../invariant/stable-messages';
import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';

/** Parts other than text and images (audio, files) are carried as they are in the canonical message. */
export type OpenAIChatContentPart =
  { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

/**
 * A tool call on a Chat Completions assistant message. `arguments` is a JSON
 * string, OpenAI's form, and compares equal to the value it parses to
 * (docs/behaviour.md §1.5). Only `id` and the function's `name` and
 * `arguments` (a custom tool's `name` and `input`) are read: `type` is
 * envelope, not conversation (docs/behaviour.md §4.1).
 */
export interface OpenAIChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * One Chat Completions message, as `toOpenAIChat` writes it. Reading takes
 * `role`, `content`, `tool_calls`, `tool_call_id` and `name` only: `refusal`,
 * `audio` and `annotations` on a re-sent assistant message are response
 * bookkeeping, and `developer` reads as `system` (docs/behaviour.md §4.3).
 */
export type OpenAIChatMessage =
  | { role: 'system' | 'developer'; content: string | Array<{ type: 'text'; text: string }>; name?: string }
  | { role: 'user'; content: string | OpenAIChatContentPart[]; name?: string }
  | {
      role: 'assistant';
      content?: string | Array<{ type: 'text'; text: string }> | null;
      tool_calls?: OpenAIChatToolCall[];
      name?: string;
    }
  | { role: 'tool'; tool_call_id: string; content: string | Array<{ type: 'text'; text: string }> };

/**
 * Canonical messages from a Chat Completions request's `messages` (or a
 * response's `choices[].message`). `developer` reads as `system`; a tool
 * message is named after the call it answers; response bookkeeping on a
 * re-sent assistant message (`refusal: null`, `annotations`, `audio`) is not
 * part of the message. Never throws and never writes to its input.
 */
export function fromOpenAIChat(messages: readonly unknown[]): Message[] {
  const entries = entriesOf(messages);
  if (entries === undefined) return messages as Message[];
  const out: Message[] = new Array<Message>(entries.length);
  const nameOf = namesOf(out);
  for (let i = 0; i < entries.length; i++) {
    const [message] = readSafely(entries[i], (entry) => [fromChatMessage(entry)]);
    const name = unnamedToolResult(message) ? nameOf(message!.toolCallId!, i) : undefined;
    if (name !== undefined) message!.name = name; // a message of its own, just made
    out[i] = message!;
  }
  return out;
}

/**
 * `fromOpenAIChat` for the request path: an entry seen before and unchanged
 * since (by reference) is not read again (see reading/entry-memo.ts). Tool
 * messages are named after their calls in a pass of their own, since the
 * name depends on the messages before them; a named copy is kept too.
 * The messages returned are shared between requests and must not be changed.
 */
export function fromOpenAIChatReusing(messages: readonly unknown[]): Message[] {
  const entries = entriesOf(messages);
  if (entries === undefined) return messages as Message[];
  // An app that builds new message objects for every request (a framework converting its own types) gains
  // nothing from the memo and would pay for remembering every entry: only once a request carries an object
  // seen before is everything remembered.
  if (!reusesEntries(entries)) return fromOpenAIChat(entries);
  const out: Message[] = new Array<Message>(entries.length);
  const nameOf = namesOf(out);
  for (let i = 0; i < entries.length; i++) {
    let message = chatEntries.get(entries[i], readStable);
    const name = unnamedToolResult(message) ? nameOf(message.toolCallId!, i) : undefined;
    if (name !== undefined) message = namedCopy(message, name);
    out[i] = message;
  }
  return out;
}

/** A tool result read without a name of its own: it is named after its call. */
function unnamedToolResult(message: Message | null | undefined): boolean {
  // Not an object: an entry handed on as it is (an array may be a Proxy of the app's), never read here.
  return isObject(message) && message.role === 'tool' && message.name === undefined && typeof message.toolCallId === 'string';
}

/** The calls a message read from the request makes: an entry of an unknown role is copied as it is and makes none. */
function callsOf(message: unknown): readonly ToolCall[] | undefined {
  if (!isObject(message)) return undefined; // as in unnamedToolResult
  const role = message.role;
  const calls: unknown = message.toolCalls;
  return (role === 'assistant' || role === 'user' || role === 'system') && Array.isArray(calls) ? (calls as ToolCall[]) : undefined;
}

/** A call a tool result is named after: one with a string name. */
const hasName = (call: ToolCall): boolean => typeof call.name === 'string';

/**
 * The name of the call a tool result at `before` answers, among the messages
 * read before it (model/answered-call.ts). The calls' table is made at the
 * first tool result: a reply, or a request with none, never needs it.
 */
function namesOf(messages: readonly (Message | null | undefined)[]): (toolCallId: string, before: number) => string | undefined {
  let calls: EarlierCalls<ToolCall> | undefined;
  return (toolCallId, before) => (calls ??= new EarlierCalls<ToolCall>(messages, callsOf, hasName)).answered(toolCallId, before)?.name;
}

const chatEntries = new EntryMemo<Message, ChatEntrySnapshot>(chatEntrySnapshots);
/** A few entries of each request read without the memo, to notice when the next request re-sends them. */
const probed = new WeakSet<object>();

/** Whether the request re-sends an entry of an earlier one, judged by a few entries (the first two, the middle one). */
function reusesEntries(entries: readonly unknown[]): boolean {
  const probes = [entries[0], entries[1], entries[entries.length >> 1]];
  if (probes.some((entry) => typeof entry === 'object' && entry !== null && (probed.has(entry) || chatEntries.knows(entry)))) return true;
  for (const entry of probes) if (typeof entry === 'object' && entry !== null) probed.add(entry);
  return false;
}

/**
 * One entry as it reads on its own, whatever request carries it: a tool
 * result takes no name from any call, since only the calls before it in the
 * same request name it (the request's own pass, `namedCopy`).
 */
function readStable(entry: unknown): Message {
  const [message] = readSafely(entry, (e) => [fromChatMessage(e)]);
  // An entry that is no message object is handed on as it is: it is the app's own, never to be frozen or marked.
  return message === entry ? message! : Object.freeze(markStable(message!));
}

function namedCopy(message: Message, name: string): Message {
  const slot = stableSlot(message);
  const known = slot?.named;
  if (known?.name === name) return known;
  const copy = Object.freeze(markStable({ ...message, name }));
  if (slot !== undefined) slot.named = copy;
  return copy;
}

/** Never recorded into: a tool result read on its own keeps only a name it carries itself. */
const NO_CALLS = new ToolCallNames();

/** One message, as it reads on its own: a tool result is named after its call by the request's own pass. */
function fromChatMessage(entry: unknown): Message {
  if (!isObject(entry)) return entry as Message;
  const role = canonicalRole(entry.role);
  const content = fromChatContent(entry.content);
  if (role === 'tool') return NO_CALLS.toolMessage(content, entry.tool_call_id ?? null, entry.name);
  if (role !== 'system' && role !== 'user' && role !== 'assistant') return opaqueEntry(entry);
  const message: Message = { role, content };
  if (isWalkable(entry.tool_calls)) {
    message.toolCalls = entry.tool_calls.map(fromChatToolCall);
  }
  if (entry.tool_call_id != null) message.toolCallId = entry.tool_call_id as string;
  if (entry.name != null) message.name = entry.name as string;
  return message;
}

function fromChatContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!isWalkable(content)) return content as MessageContent;
  return content.map((part: unknown): ContentPart => {
    if (!isObject(part)) return part as ContentPart;
    if (part.type === 'text') return { type: 'text', text: part.text as string };
    if (part.type === 'image_url' && isObject(part.image_url)) return { type: 'image', url: part.image_url.url as string };
    return contentFieldsOf(part);
  });
}

function fromChatToolCall(call: unknown): ToolCall {
  if (!isObject(call)) return call as ToolCall;
  const fn = isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {};
  return { id: call.id as string, name: fn.name as string, arguments: 'arguments' in fn ? fn.arguments : fn.input };
}

/** A Chat Completions `messages` array from canonical messages (a log's fold, say). */
export function toOpenAIChat(messages: readonly Message[]): OpenAIChatMessage[] {
  return building('toOpenAIChat', messages, (messages) => {
    return messages.map((m): OpenAIChatMessage => {
      const named = m.name ? { name: m.name } : {};
      switch (m.role) {
        case 'system':
          return { role: 'system', content: toTextContent(m.content), ...named };
        case 'user':
          return { role: 'user', content: toUserContent(m.content), ...named };
        case 'assistant': {
          const calls = m.toolCalls ?? [];
          return {
            role: 'assistant',
            content: m.content === null ? null : toTextContent(m.content),
            ...(calls.length > 0 ? { tool_calls: calls.map(toChatToolCall) } : {}),
            ...named,
          };
        }
        case 'tool':
          return { role: 'tool', tool_call_id: m.toolCallId ?? '', content: toTextContent(m.content) };
        default:
          throw unknownRole('toOpenAIChat', m);
      }
    });
  });
}

function toChatToolCall(call: ToolCall): OpenAIChatToolCall {
  return { id: call.id, type: 'function', function: { name: call.name, arguments: argumentsAsJson(call.arguments) } };
}

function toTextContent(content: MessageContent): string | Array<{ type: 'text'; text: string }> {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((p) => ({ ...p }) as { type: 'text'; text: string });
}

function toUserContent(content: MessageContent): string | OpenAIChatContentPart[] {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part): OpenAIChatContentPart => {
    if (part.type === 'image' && typeof part.url === 'string') return { type: 'image_url', image_url: { url: part.url } };
    return { ...part } as OpenAIChatContentPart;
  });
}
