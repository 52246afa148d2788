// Gemini `generateContent` `{ systemInstruction, contents }` <-> canonical messages.

import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';
import {
  building,
  collapseText,
  dataUrl,
  entriesOf,
  isObject,
  isWalkable,
  opaqueEntry,
  parseDataUrl,
  readSafely,
  systemMessagesOf,
  userTurnMessages,
  textOf,
  unknownRole,
  type Loose,
} from '../../reading/canonical';

/** A Gemini text part. Read as `{ type: 'text', text }`: a `thoughtSignature` on it is dropped. */
export type GeminiTextPart = { text: string };
/** Inline bytes; an `image/*` one reads as an image part with a `data:` URL (docs/behaviour.md §4.3). */
export type GeminiInlineDataPart = { inlineData: { mimeType: string; data: string } };
/**
 * A model's function call. `id` is optional on the wire: the Gemini API
 * usually sends none. A call read without one gets the id `{name}#{k}`, `k`
 * counting the earlier calls of that name in the same model turn.
 */
export type GeminiFunctionCallPart = { functionCall: { name: string; args?: unknown; id?: string } };
/**
 * A function's result, in a user turn. Without an `id` it answers a call of
 * the latest model turn (see `fromGemini`). `response` is an object: string
 * content travels as `{ output: text }`.
 */
export type GeminiFunctionResponsePart = { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };
/** Any part `toGemini` writes. */
export type GeminiPart = GeminiTextPart | GeminiInlineDataPart | GeminiFunctionCallPart | GeminiFunctionResponsePart;

/** One entry of a request's `contents`. */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** The part of a `generateContent` body the adapters build and read; the caller adds `tools`, `generationConfig` and the rest. */
export interface GeminiRequest {
  systemInstruction?: { parts: GeminiTextPart[] };
  contents: GeminiContent[];
}

/**
 * Canonical messages from a `generateContent` body (`systemInstruction`,
 * `contents`), or from `contents` alone. `systemInstruction` is the overlay
 * slot: each of its text parts is one system message (a plain string, one).
 * A `model` turn, or a run of consecutive ones, is one assistant message:
 * its adjacent text parts joined into one text (a streamed reply arrives,
 * and is often re-sent, in pieces: `@google/genai`'s chat keeps one turn per
 * chunk), its `functionCall` parts its tool calls; `thought` parts are
 * reasoning, never compared. A `user` turn (also `function`, or no role) gives one tool
 * message per `functionResponse` part, in order, and user messages of the
 * parts between them.
 *
 * Call ids: a call without an `id` gets `{name}#{k}`, `k` counting the
 * earlier calls of that name in its turn, so the same turn reads the same
 * way in every request and as a reply. A response with an `id` answers the
 * call with that id. A response without one answers the first call of its
 * name in the latest model turn that no earlier response answered, and takes
 * that call's id; when there is none (no model turn before it called that
 * function, or every such call is answered) it has no call id (`null`), and
 * tool pairing reports it as orphaned. Never throws and never writes to its
 * input.
 */
export function fromGemini(request: { systemInstruction?: unknown; contents: readonly unknown[] } | readonly unknown[]): Message[] {
  return readSafely(request, (request) => {
    const { systemInstruction, contents } = Array.isArray(request)
      ? { systemInstruction: undefined, contents: request as readonly unknown[] }
      : (request as { systemInstruction?: unknown; contents: readonly unknown[] });
    const entries = entriesOf(contents);
    if (entries === undefined) return contents as unknown as Message[];
    const out: Message[] = [...fromSystem(systemInstruction)];
    const open = new OpenCalls();
    for (let i = 0; i < entries.length;) {
      const run = modelRun(entries, i);
      if (run > 1) out.push(...readSafely(entries.slice(i, i + run), (turns) => [fromModel(partsOf(turns), open)]));
      else out.push(...readSafely(entries[i], (entry) => fromEntry(entry, open)));
      i += Math.max(run, 1);
    }
    return out;
  });
}

/**
 * How many `model` turns with a list of parts follow one another from
 * `entries[i]` on (0 when it is not one). They are one assistant message:
 * `@google/genai`'s chat keeps a streamed reply as one turn per chunk.
 */
function modelRun(entries: readonly unknown[], i: number): number {
  let j = i;
  try {
    while (j < entries.length && isModelTurn(entries[j])) j++;
  } catch {
    // an entry that throws when read ends the run; it is read on its own
  }
  return j - i;
}

function isModelTurn(entry: unknown): boolean {
  return isObject(entry) && entry.role === 'model' && isWalkable(entry.parts);
}

/** The parts of consecutive model turns, in order. */
function partsOf(turns: readonly unknown[]): unknown[] {
  const parts: unknown[] = [];
  for (const turn of turns) for (const part of (turn as { parts: readonly unknown[] }).parts) parts.push(part);
  return parts;
}

/** The model's reply: a candidate's `content` (a `model` turn) as canonical messages. */
export function fromGeminiReply(content: unknown): Message[] {
  return readSafely(content, (turn) => (isObject(turn) && isWalkable(turn.parts) ? [fromModel(turn.parts, new OpenCalls())] : []));
}

/**
 * The calls of the latest model turn that no response has answered yet, by
 * name, in order. Gemini's own rule, not the lookup by id of
 * model/answered-call.ts: a `functionResponse` may carry no id, and then
 * answers the first open call of its name in the turn before it.
 */
class OpenCalls {
  #byName = new Map<string, string[]>();

  /** A new model turn: its calls replace the last turn's. */
  turn(calls: readonly ToolCall[]): void {
    this.#byName = new Map();
    for (const call of calls) {
      const ids = this.#byName.get(call.name);
      if (ids) ids.push(call.id);
      else this.#byName.set(call.name, [call.id]);
    }
  }

  /** The id of the call a response answers (given, or the first open call of its name); null when it answers none. */
  answer(name: unknown, id: unknown): string | null {
    if (typeof id === 'string') {
      for (const ids of this.#byName.values()) {
        const at = ids.indexOf(id);
        if (at >= 0) ids.splice(at, 1);
      }
      return id;
    }
    return (typeof name === 'string' && this.#byName.get(name)?.shift()) || null;
  }
}

function fromEntry(entry: unknown, open: OpenCalls): Message[] {
  if (!isObject(entry)) return [entry as Message];
  if (entry.role === 'model') return [fromModel(entry.parts, open)];
  if (entry.role === 'user' || entry.role === 'function' || entry.role === undefined) return fromUser(entry.parts, open);
  return [opaqueEntry(entry)];
}

function fromSystem(system: unknown): Message[] {
  if (system === undefined || system === null || system === '') return [];
  if (typeof system === 'string') return [{ role: 'system', content: system }];
  const parts = isObject(system) ? system.parts : system;
  if (!isWalkable(parts)) return [{ role: 'system', content: system as string }];
  return systemMessagesOf(parts);
}

function fromUser(parts: unknown, open: OpenCalls): Message[] {
  if (!isWalkable(parts)) return [{ role: 'user', content: parts as MessageContent }];
  return userTurnMessages(
    parts,
    (part) => {
      if (!isObject(part) || !isObject(part.functionResponse)) return undefined;
      const response = part.functionResponse;
      const message: Message = {
        role: 'tool',
        content: fromResponse(response.response),
        toolCallId: open.answer(response.name, response.id),
      };
      if (typeof response.name === 'string') message.name = response.name;
      return message;
    },
    (part) => (isNotContent(part) ? undefined : fromPart(part)),
  );
}

function fromModel(parts: unknown, open: OpenCalls): Message {
  if (!isWalkable(parts)) return { role: 'assistant', content: parts as MessageContent };
  const content: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  const seen = new Map<string, number>();
  for (const part of parts as unknown[]) {
    if (isNotContent(part)) continue;
    if (isObject(part) && isObject(part.functionCall)) {
      const call = part.functionCall;
      const name = call.name as string;
      const k = seen.get(name) ?? 0;
      seen.set(name, k + 1);
      const id = typeof call.id === 'string' ? call.id : `${name}#${k}`;
      toolCalls.push(call.args === undefined ? { id, name } : { id, name, arguments: call.args });
      continue;
    }
    const read = fromPart(part);
    const last = content[content.length - 1];
    // Adjacent text parts of one turn are one text: a streamed reply comes, and is often re-sent, in pieces.
    if (read.type === 'text' && last?.type === 'text' && Object.keys(read).length === 2 && Object.keys(last).length === 2)
      content[content.length - 1] = { type: 'text', text: `${last.text as string}${read.text as string}` };
    else content.push(read);
  }
  const message: Message = { role: 'assistant', content: collapseText(content) };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  open.turn(toolCalls);
  return message;
}

/** `{}` or none is no content; `{ output: text }` alone is the text; any other response is one `function_response` part. */
function fromResponse(response: unknown): MessageContent {
  if (response === undefined || response === null) return null;
  if (isObject(response)) {
    const keys = Object.keys(response);
    if (keys.length === 0) return null;
    if (keys.length === 1 && typeof response.output === 'string') return response.output;
  }
  return [{ type: 'function_response', response }];
}

/** Keys of a part that say how it was produced, not what it says. */
const BOOKKEEPING = new Set(['thoughtSignature', 'thought', 'partMetadata', 'mediaResolution']);

/** A thought (reasoning), or a part with nothing but bookkeeping (a streamed chunk carrying only a `thoughtSignature`). */
function isNotContent(part: unknown): boolean {
  return isObject(part) && (part.thought === true || Object.keys(part).every((key) => BOOKKEEPING.has(key)));
}

function fromPart(part: unknown): ContentPart {
  if (!isObject(part)) return part as ContentPart;
  if (typeof part.text === 'string') return { type: 'text', text: part.text };
  const inline = part.inlineData;
  if (isObject(inline) && typeof inline.mimeType === 'string' && inline.mimeType.startsWith('image/'))
    return { type: 'image', url: dataUrl(inline.mimeType, String(inline.data)) };
  const file = part.fileData;
  if (isObject(file) && typeof file.fileUri === 'string' && (file.mimeType === undefined || String(file.mimeType).startsWith('image/')))
    return typeof file.mimeType === 'string'
      ? { type: 'image', url: file.fileUri, mediaType: file.mimeType }
      : { type: 'image', url: file.fileUri };
  // Any other part (inline audio or files, executable code and its result): `{ kind: { ...fields } }` reads as `{ type: kind, ...fields }`.
  const copy: Loose = {};
  for (const key of Object.keys(part)) if (!BOOKKEEPING.has(key)) copy[key] = part[key];
  const keys = Object.keys(copy);
  if (keys.length === 1 && isObject(copy[keys[0]!])) return { ...(copy[keys[0]!] as Loose), type: keys[0]! };
  return { type: 'part', ...copy };
}

/**
 * A `generateContent` body (`systemInstruction` and `contents`) from
 * canonical messages. Leading system messages become `systemInstruction`,
 * one text part each; Gemini has no system role in `contents`, so a system
 * message after the first other message is a TypeError, and so is an
 * assistant message right after another (`fromGemini` reads consecutive
 * model turns as one). Tool messages become
 * `functionResponse` parts (consecutive ones share one user turn), named
 * after the message's `name` and carrying its `toolCallId` as `id`; a tool
 * call's `id` is written as it is, so `fromGemini` reads back the ids it was
 * given. A string tool result is sent as `{ output: text }`.
 */
export function toGemini(messages: readonly Message[]): GeminiRequest {
  return building('toGemini', messages, (messages) => {
    let i = 0;
    const system: Message[] = [];
    while (i < messages.length && messages[i]!.role === 'system') system.push(messages[i++]!);
    const contents: GeminiContent[] = [];
    for (; i < messages.length; i++) {
      const m = messages[i]!;
      switch (m.role) {
        case 'user':
          contents.push({ role: 'user', parts: toParts(m.content) });
          break;
        case 'assistant':
          if (messages[i - 1]?.role === 'assistant')
            throw new TypeError(
              `toGemini: message ${i} is an assistant message right after another; Gemini reads consecutive model turns as one`,
            );
          contents.push({ role: 'model', parts: toModelParts(m) });
          break;
        case 'tool': {
          const part: GeminiFunctionResponsePart = { functionResponse: { name: m.name ?? '', response: toResponse(m.content) } };
          if (typeof m.toolCallId === 'string') part.functionResponse.id = m.toolCallId;
          const last = contents[contents.length - 1];
          if (messages[i - 1]?.role === 'tool' && last) last.parts.push(part);
          else contents.push({ role: 'user', parts: [part] });
          break;
        }
        case 'system':
          throw new TypeError(`toGemini: message ${i} is a system message after the conversation started; Gemini has no system role there`);
        default:
          throw unknownRole('toGemini', m);
      }
    }
    const request: GeminiRequest = { contents };
    if (system.length > 0) request.systemInstruction = { parts: system.map((s) => ({ text: textOf(s.content) })) };
    return request;
  });
}

function toModelParts(m: Message): GeminiPart[] {
  const parts = m.content === '' ? [] : toParts(m.content);
  for (const call of m.toolCalls ?? []) {
    const functionCall: GeminiFunctionCallPart['functionCall'] = { name: call.name, args: argumentsOf(call) };
    if (call.id !== undefined) functionCall.id = call.id;
    parts.push({ functionCall });
  }
  return parts;
}

function argumentsOf(call: ToolCall): unknown {
  if (typeof call.arguments !== 'string') return call.arguments ?? {};
  try {
    return JSON.parse(call.arguments) as unknown;
  } catch {
    throw new TypeError(`toGemini: tool call ${call.id} (${call.name}) has arguments that are not JSON; Gemini needs an object`);
  }
}

function toResponse(content: MessageContent): Record<string, unknown> {
  if (content === null) return {};
  if (typeof content === 'string') return { output: content };
  const only = content.length === 1 ? content[0] : undefined;
  if (only?.type === 'function_response' && isObject(only.response)) return only.response;
  return { output: textOf(content) };
}

function toParts(content: MessageContent): GeminiPart[] {
  if (content === null) return [];
  if (typeof content === 'string') return [{ text: content }];
  return content.map((part): GeminiPart => {
    if (part.type === 'text' && typeof part.text === 'string') return { text: part.text };
    if (part.type === 'image' && typeof part.url === 'string') {
      const data = parseDataUrl(part.url);
      if (data) return { inlineData: { mimeType: data.mediaType, data: data.data } };
      return { fileData: { fileUri: part.url, ...(typeof part.mediaType === 'string' ? { mimeType: part.mediaType } : {}) } } as never;
    }
    const { type: kind, ...rest } = part;
    return { [kind]: rest } as unknown as GeminiPart;
  });
}
