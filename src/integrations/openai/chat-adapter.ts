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
  type Loose,
  building,
} from '../../adapters/canonical';
import { EntryMemo } from '../../adapters/entry-memo';
import { markStable } from '../../adapters/stable-messages';
import type { ContentPart, Message, MessageContent, ToolCall } from '../../invariant/messages';

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
  const names = new ToolCallNames();
  const out: Message[] = [];
  for (let i = 0; i < entries.length; i++) out.push(...readSafely(entries[i], (entry) => [fromChatMessage(entry, names)]));
  return out;
}

/**
 * `fromOpenAIChat` for the request path: an entry seen before and unchanged
 * since (by reference) is not read again (see adapters/entry-memo.ts). Tool
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
  const readings = new Array<ChatReading>(entries.length);
  const names = new CallNamesBefore(readings);
  const out = new Array<Message>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const reading = chatEntries.get(entries[i], readStable);
    readings[i] = reading;
    const name = reading.answers === undefined ? undefined : names.nameOf(reading.answers, i);
    out[i] = name === undefined ? reading.message : namedCopy(reading, name);
  }
  return out;
}

/**
 * What the memo keeps of an entry: its message, and what the naming pass
 * needs of it, read once (the message is frozen).
 */
interface ChatReading {
  readonly message: Message;
  /** An assistant message's calls. */
  readonly calls: readonly ToolCall[] | undefined;
  /** A tool message with no name of its own: the id of the call it answers, whose name it takes. */
  readonly answers: string | undefined;
  /** The last named copy made of the message. */
  named: Message | undefined;
}

const chatEntries = new EntryMemo<ChatReading>();
/** A few entries of each request read without the memo, to notice when the next request re-sends them. */
const probed = new WeakSet<object>();

/** Whether the request re-sends an entry of an earlier one, judged by a few entries (the first two, the middle one). */
function reusesEntries(entries: readonly unknown[]): boolean {
  const probes = [entries[0], entries[1], entries[entries.length >> 1]];
  if (probes.some((entry) => typeof entry === 'object' && entry !== null && (probed.has(entry) || chatEntries.knows(entry)))) return true;
  for (const entry of probes) if (typeof entry === 'object' && entry !== null) probed.add(entry);
  return false;
}

function readStable(entry: unknown): ChatReading {
  // A names table of its own: the message must not take a name from calls read before (that is the naming pass's job).
  const [read] = readSafely(entry, (e) => [fromChatMessage(e, new ToolCallNames())]);
  const message = Object.freeze(markStable(read!));
  const m = typeof message === 'object' && message !== null ? message : undefined;
  return {
    message,
    calls: m?.role === 'assistant' ? m.toolCalls : undefined,
    answers: m?.role === 'tool' && m.name === undefined && typeof m.toolCallId === 'string' ? m.toolCallId : undefined,
    named: undefined,
  };
}

function namedCopy(reading: ChatReading, name: string): Message {
  if (reading.named?.name === name) return reading.named;
  return (reading.named = Object.freeze(markStable({ ...reading.message, name })));
}

/** How far back a tool result's call is looked for before the table of every call is built. */
const NEAR = 8;

/**
 * The name of a call made before a given entry of a request: the last call
 * with that id and a name, as `ToolCallNames` would give it. A result usually
 * follows its call closely, so the few entries before it are searched first;
 * a call further back is found in a table of every call before the entry,
 * built once per request, as far as it is needed.
 */
class CallNamesBefore {
  readonly #readings: readonly ChatReading[];
  #names: ToolCallNames | undefined;
  #recorded = 0;

  constructor(readings: readonly ChatReading[]) {
    this.#readings = readings;
  }

  nameOf(id: string, at: number): string | undefined {
    for (let j = at - 1; j >= 0 && j >= at - NEAR; j--) {
      const calls = this.#readings[j]!.calls;
      if (calls === undefined) continue;
      for (let c = calls.length - 1; c >= 0; c--) {
        const call = calls[c];
        if (call?.id === id && typeof call.name === 'string') return call.name;
      }
    }
    // None near: what lies further back decides (the calls near it did not name this id).
    this.#names ??= new ToolCallNames();
    for (; this.#recorded < at; this.#recorded++) this.#names.record(this.#readings[this.#recorded]!.calls);
    return this.#names.nameOf(id);
  }
}

function fromChatMessage(entry: unknown, names: ToolCallNames): Message {
  if (!isObject(entry)) return entry as Message;
  const role = canonicalRole(entry.role);
  const content = fromChatContent(entry.content);
  if (role === 'tool') return names.toolMessage(content, entry.tool_call_id ?? null, entry.name);
  if (role !== 'system' && role !== 'user' && role !== 'assistant') return opaqueEntry(entry);
  const message: Message = { role, content };
  if (isWalkable(entry.tool_calls)) {
    message.toolCalls = entry.tool_calls.map(fromChatToolCall);
    names.record(message.toolCalls);
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
  const fn = (isObject(call.function) ? call.function : isObject(call.custom) ? call.custom : {}) as Loose;
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
