// LangChain.js messages <-> canonical messages. LangChain messages are read
// by shape (never by class), so messages from any copy of @langchain/core
// (its CommonJS and ESM builds, or two installs) read alike, and this package
// needs none at run time. Reading never throws; what cannot be read becomes an
// entry the check reports.

import {
  contentFieldsOf,
  dataUrl,
  entriesOf,
  isObject,
  isWalkable,
  opaqueEntry,
  readSafely,
  unknownRole,
  building,
  type Loose,
} from '../../reading/canonical';
import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';

/** The metadata key under which the log keeps a message's LangChain id (never compared, docs/behaviour.md §1.3). */
export const LANGCHAIN_ID_KEY = 'langchainMessageId';

/** A LangChain tool call: `args` is an object. */
export interface LangChainToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  type: 'tool_call';
}

/**
 * A message as `toLangChainMessages` writes it: a LangChain "message-like"
 * that `ChatOpenAI.invoke`, `createAgent`, `createReactAgent` and LangGraph's
 * message reducer all accept and turn into `HumanMessage`, `AIMessage`,
 * `SystemMessage` or `ToolMessage`.
 */
export type LangChainMessageLike =
  | { role: 'system'; content: string | ContentPart[]; id?: string; name?: string }
  | { role: 'user'; content: string | ContentPart[]; id?: string; name?: string }
  | {
      role: 'assistant';
      content: string | ContentPart[];
      tool_calls?: LangChainToolCall[];
      id?: string;
      name?: string;
    }
  | { role: 'tool'; content: string | ContentPart[]; tool_call_id: string; id?: string; name?: string };

const ROLE_OF_TYPE: Record<string, string> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
};

const CLASS_TYPES: Record<string, string> = {
  HumanMessage: 'human',
  HumanMessageChunk: 'human',
  AIMessage: 'ai',
  AIMessageChunk: 'ai',
  SystemMessage: 'system',
  SystemMessageChunk: 'system',
  ToolMessage: 'tool',
  ToolMessageChunk: 'tool',
};

/** Content blocks ChatOpenAI leaves out of a Chat Completions message: reasoning and tool-call blocks that `tool_calls` carries. */
const NOT_SENT = new Set(['tool_use', 'tool_call', 'functionCall', 'reasoning', 'reasoning_content', 'thinking']);

/**
 * Canonical messages from LangChain messages: `HumanMessage`, `AIMessage`,
 * `SystemMessage`, `ToolMessage` and their chunks, `ChatMessage` with a role,
 * their serialized form (`{ lc: 1, type: 'constructor', ... }`), and the
 * message-likes LangChain accepts (`{ role | type, content, ... }`). Read as
 * `ChatOpenAI` writes them to Chat Completions: an AI message's `tool_calls`
 * (else `additional_kwargs.tool_calls`), a tool message's `tool_call_id`,
 * every message's `name`; reasoning and tool-call content blocks are left out,
 * and `image_url` parts and data blocks with a `source_type` are images
 * compared by URL (docs/behaviour.md §4.3). The LangChain id goes into
 * `metadata` (never compared). Never throws and never writes to its input.
 */
export function fromLangChainMessages(messages: readonly unknown[]): Message[] {
  const entries = entriesOf(messages);
  if (entries === undefined) return messages as Message[];
  const out: Message[] = [];
  for (let i = 0; i < entries.length; i++) out.push(...readSafely(entries[i], (entry) => [fromLangChainMessage(entry)]));
  return out;
}

/** The LangChain id of a message (or message-like), if it has one. */
export function langChainIdOf(message: unknown): string | undefined {
  try {
    if (!isObject(message)) return undefined;
    const fields = isSerialized(message) ? (message.kwargs as Loose) : message;
    return typeof fields.id === 'string' && fields.id !== '' ? fields.id : undefined;
  } catch {
    return undefined;
  }
}

function isSerialized(entry: Loose): boolean {
  return entry.lc === 1 && entry.type === 'constructor' && Array.isArray(entry.id) && isObject(entry.kwargs);
}

/** `human`, `ai`, `system`, `developer`, `tool`, a role, or undefined. */
function typeOf(entry: Loose): { type: unknown; fields: Loose } {
  if (isSerialized(entry)) return { type: CLASS_TYPES[String((entry.id as unknown[]).at(-1))], fields: entry.kwargs as Loose };
  const getType = entry.getType ?? entry._getType;
  let type: unknown = typeof getType === 'function' ? (getType as () => unknown).call(entry) : (entry.type ?? entry.role);
  // A ChatMessage ('generic') carries its role.
  if (type === 'generic') type = entry.role;
  // A message-like with a role other than the known ones has `type` unset and `role` set.
  if (typeof type !== 'string' || !(type in ROLE_OF_TYPE)) type = entry.role ?? type;
  return { type, fields: entry };
}

function fromLangChainMessage(entry: unknown): Message {
  if (typeof entry === 'string') return { role: 'user', content: entry };
  if (!isObject(entry)) return entry as Message;
  const { type, fields } = typeOf(entry);
  const role = typeof type === 'string' ? ROLE_OF_TYPE[type] : undefined;
  if (role !== 'system' && role !== 'user' && role !== 'assistant' && role !== 'tool') return opaqueEntry(entry);
  const message: Message = { role, content: fromContent(fields.content) };
  if (role === 'assistant') {
    const calls = toolCallsOf(fields);
    if (calls !== undefined) message.toolCalls = calls;
  }
  if (role === 'tool') message.toolCallId = (fields.tool_call_id ?? null) as string | null;
  if (typeof fields.name === 'string' && fields.name !== '') message.name = fields.name;
  const id = typeof fields.id === 'string' && fields.id !== '' ? fields.id : undefined;
  if (id !== undefined) message.metadata = { [LANGCHAIN_ID_KEY]: id };
  return message;
}

function toolCallsOf(fields: Loose): ToolCall[] | undefined {
  if (isWalkable(fields.tool_calls) && fields.tool_calls.length > 0) return fields.tool_calls.map(fromToolCall);
  const kwargs = isObject(fields.additional_kwargs) ? fields.additional_kwargs : undefined;
  if (kwargs && isWalkable(kwargs.tool_calls) && kwargs.tool_calls.length > 0) return kwargs.tool_calls.map(fromToolCall);
  return undefined;
}

/** A LangChain tool call (`{ id, name, args }`) or an OpenAI one (`{ id, function: { name, arguments } }`). */
function fromToolCall(call: unknown): ToolCall {
  if (!isObject(call)) return call as ToolCall;
  if (isObject(call.function)) return { id: call.id as string, name: call.function.name as string, arguments: call.function.arguments };
  return { id: call.id as string, name: call.name as string, arguments: call.args };
}

function fromContent(content: unknown): MessageContent {
  if (content === undefined || content === null) return null;
  if (!isWalkable(content)) return content as MessageContent;
  const parts: ContentPart[] = [];
  for (const part of content) {
    if (typeof part === 'string') parts.push({ type: 'text', text: part });
    else if (!isObject(part)) parts.push(part as ContentPart);
    else if (typeof part.type === 'string' && NOT_SENT.has(part.type)) continue;
    else if (part.type === 'text') parts.push({ type: 'text', text: part.text as string });
    else if (part.type === 'image_url')
      parts.push({ type: 'image', url: (isObject(part.image_url) ? part.image_url.url : part.image_url) as string });
    else if (part.type === 'image' && typeof part.source_type === 'string' && imageUrlOf(part) !== undefined)
      parts.push({ type: 'image', url: imageUrlOf(part)! });
    else parts.push(contentFieldsOf(part));
  }
  return parts;
}

/**
 * The URL of a LangChain data block with a `source_type` (`url`, or `base64`
 * as a `data:` URL), which ChatOpenAI sends as an `image_url` part. A block
 * without one (v1's `{ type: 'image', url | data, mimeType }`) it sends as it
 * is, and it is read as it is.
 */
function imageUrlOf(part: Loose): string | undefined {
  if (part.source_type === 'url' && typeof part.url === 'string') return part.url;
  const mediaType = part.mime_type ?? part.mimeType;
  if (part.source_type === 'base64' && typeof part.data === 'string' && typeof mediaType === 'string') return dataUrl(mediaType, part.data);
  return undefined;
}

/**
 * LangChain message-likes from canonical messages (a log's fold, say), for
 * `ChatOpenAI.invoke(...)` or an agent's `messages` input. Each keeps the
 * LangChain id the log recorded for it, so an agent's recorder knows it
 * already holds it. Tool-call arguments become the object LangChain wants;
 * arguments that are not a JSON object become an invalid tool call, carrying
 * the string. Throws a TypeError for a message it cannot express.
 */
export function toLangChainMessages(messages: readonly Message[]): LangChainMessageLike[] {
  return building('toLangChainMessages', messages, (messages) =>
    messages.map((m): LangChainMessageLike => {
      const extra: { id?: string; name?: string } = {};
      const id = m.metadata?.[LANGCHAIN_ID_KEY];
      if (typeof id === 'string') extra.id = id;
      if (m.name) extra.name = m.name;
      switch (m.role) {
        case 'system':
        case 'user':
          return { role: m.role, content: toContent(m.content), ...extra };
        case 'assistant': {
          const out: LangChainMessageLike = { role: 'assistant', content: toContent(m.content), ...extra };
          const calls = m.toolCalls ?? [];
          if (calls.length > 0) out.tool_calls = calls.map(toToolCall);
          return out;
        }
        case 'tool':
          return { role: 'tool', content: toContent(m.content), tool_call_id: m.toolCallId ?? '', ...extra };
        default:
          throw unknownRole('toLangChainMessages', m);
      }
    }),
  );
}

/** LangChain wants `args` as an object, and ChatOpenAI sends no other kind of call: arguments that are not a JSON object cannot be written. */
function toToolCall(call: ToolCall): LangChainToolCall {
  let args: unknown = call.arguments ?? {};
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args) as unknown;
    } catch {
      args = undefined;
    }
  }
  if (!isObject(args))
    throw new TypeError(`toLangChainMessages: tool call ${call.id} (${call.name}) has arguments that are not a JSON object`);
  return { id: call.id, name: call.name, args, type: 'tool_call' };
}

function toContent(content: MessageContent): string | ContentPart[] {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part): ContentPart => {
    if (part.type === 'image' && typeof part.url === 'string') return { type: 'image_url', image_url: { url: part.url } };
    return { ...part };
  });
}
