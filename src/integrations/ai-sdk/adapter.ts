// Vercel AI SDK language-model prompt (LanguageModelV4Prompt) <-> canonical
// messages. System messages carry a string; user messages text and file
// parts; assistant messages text, reasoning (never compared) and tool-call
// parts; tool messages tool-result parts, each of which is one canonical tool
// message. A tool result's output keeps its type: `text` is string content,
// every other output is a one-part list holding it.

import type { ContentPart, Message, MessageContent, ToolCall } from '../../model/messages';
import {
  collapseText,
  contentFieldsOf,
  continuesToolRun,
  dataUrl,
  entriesOf,
  isObject,
  isWalkable,
  opaqueEntry,
  parseDataUrl,
  readSafely,
  textOf,
  unknownRole,
  building,
} from '../../reading/canonical';

/**
 * A text part of an AI SDK prompt. Read as `{ type: 'text', text }`: other
 * fields on it (provider options) are not content (docs/behaviour.md §4.3).
 */
export type AiSdkTextPart = { type: 'text'; text: string };
/**
 * A file part of an AI SDK prompt. An `image/*` file reads as an image part by
 * URL (its URL, or a `data:` URL for base64 text or bytes), so an image matches
 * however an API wrote it; other files are kept as they are, minus response
 * bookkeeping (docs/behaviour.md §4.3). `toAiSdkPrompt` writes canonical image
 * parts this way.
 */
export type AiSdkFilePart = { type: 'file'; data: string | URL | Uint8Array; mediaType: string; filename?: string };
/** An assistant's tool call in an AI SDK prompt; `input` is the call's arguments. */
export type AiSdkToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown };
/**
 * The output of an AI SDK tool result. Type `text` reads as string content; any
 * other type as a one-part list holding the output, so the output's type stays
 * part of what is compared (docs/behaviour.md §4.3).
 */
export type AiSdkToolResultOutput =
  | { type: 'text'; value: string }
  | { type: 'json'; value: unknown }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: unknown }
  | { type: 'execution-denied'; reason?: string }
  | { type: 'content'; value: unknown[] };
/**
 * A tool result in an AI SDK `tool` message. Each one reads as a canonical
 * `tool` message of its own, because canonical messages hold one result each
 * (docs/behaviour.md §4.3).
 */
export type AiSdkToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: AiSdkToolResultOutput };

/**
 * One message of an AI SDK language-model prompt (LanguageModelV4Prompt), as
 * `toAiSdkPrompt` writes it. Consecutive canonical tool messages share one
 * `tool` message, as the AI SDK groups a step's results.
 */
export type AiSdkPromptMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<AiSdkTextPart | AiSdkFilePart> }
  | { role: 'assistant'; content: Array<AiSdkTextPart | AiSdkFilePart | AiSdkToolCallPart> }
  | { role: 'tool'; content: AiSdkToolResultPart[] };

/**
 * Parts that are not what the model is sent as conversation: reasoning,
 * tool approvals, and `custom` parts (AI SDK 7 carries provider bookkeeping
 * in them, such as Anthropic's `message_start`, which never goes on the wire).
 */
const NOT_COMPARED = new Set(['reasoning', 'reasoning-file', 'tool-approval-response', 'tool-approval-request', 'custom']);

/**
 * Canonical messages from an AI SDK language-model prompt (or a step's
 * response messages). Reasoning and tool-approval parts are not compared;
 * provider options are not content. Never throws and never writes to its input.
 */
export function fromAiSdkPrompt(prompt: readonly unknown[]): Message[] {
  const entries = entriesOf(prompt);
  if (entries === undefined) return prompt as Message[];
  const out: Message[] = [];
  for (let i = 0; i < entries.length; i++) out.push(...readSafely(entries[i], fromPromptMessage));
  return out;
}

function fromPromptMessage(entry: unknown): Message[] {
  if (!isObject(entry)) return [entry as Message];
  const parts = isWalkable(entry.content) ? (entry.content as unknown[]) : undefined;
  switch (entry.role) {
    case 'system':
      return [{ role: 'system', content: entry.content as string }];
    case 'user':
      return [{ role: 'user', content: parts ? parts.filter(compared).map(fromPart) : (entry.content as MessageContent) }];
    case 'assistant':
      return [parts ? fromAssistant(parts) : { role: 'assistant', content: entry.content as MessageContent }];
    case 'tool':
      return (parts ?? []).filter(compared).map(fromToolResult);
    default:
      return [opaqueEntry(entry)];
  }
}

function compared(part: unknown): boolean {
  return !(isObject(part) && NOT_COMPARED.has(part.type as string));
}

function fromAssistant(parts: unknown[]): Message {
  const content: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  for (const part of parts.filter(compared)) {
    if (isObject(part) && part.type === 'tool-call') {
      toolCalls.push({ id: part.toolCallId as string, name: part.toolName as string, arguments: part.input });
    } else if (!(isObject(part) && part.type === 'tool-result')) {
      // A provider-executed tool's result stays with the provider; anything else is content.
      content.push(fromPart(part));
    }
  }
  const message: Message = { role: 'assistant', content: collapseText(content) };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  return message;
}

function fromToolResult(part: unknown): Message {
  if (!isObject(part) || part.type !== 'tool-result') return { role: 'tool', content: [part as ContentPart], toolCallId: null };
  const output = isObject(part.output) ? part.output : { type: 'text', value: '' };
  const content: MessageContent = output.type === 'text' ? (output.value as string) : [{ ...output } as ContentPart];
  return { role: 'tool', content, toolCallId: part.toolCallId as string, name: part.toolName as string };
}

function fromPart(part: unknown): ContentPart {
  if (!isObject(part)) return part as ContentPart;
  if (part.type === 'text') return { type: 'text', text: part.text as string };
  if (part.type === 'file' && typeof part.mediaType === 'string' && part.mediaType.startsWith('image/')) {
    const url = fileUrl(part.data, part.mediaType);
    if (url !== undefined) return { type: 'image', url };
  }
  return contentFieldsOf(part);
}

function fileUrl(data: unknown, mediaType: string): string | undefined {
  if (data instanceof URL) return data.href;
  if (data instanceof Uint8Array) return dataUrl(mediaType, Buffer.from(data).toString('base64'));
  // AI SDK 7: `{ type: 'url', url }` or `{ type: 'data', data }`.
  if (isObject(data))
    return data.type === 'url' ? fileUrl(data.url, mediaType) : data.type === 'data' ? fileUrl(data.data, mediaType) : undefined;
  if (typeof data !== 'string') return undefined;
  return /^(https?|data):/i.test(data) ? data : dataUrl(mediaType, data);
}

/** An AI SDK language-model prompt from canonical messages; consecutive tool messages share one tool message. */
export function toAiSdkPrompt(messages: readonly Message[]): AiSdkPromptMessage[] {
  return building('toAiSdkPrompt', messages, (messages) => {
    const out: AiSdkPromptMessage[] = [];
    messages.forEach((m, i) => {
      switch (m.role) {
        case 'system':
          out.push({ role: 'system', content: textOf(m.content) });
          break;
        case 'user':
          out.push({ role: 'user', content: toParts(m.content) as Array<AiSdkTextPart | AiSdkFilePart> });
          break;
        case 'assistant': {
          const content: Array<AiSdkTextPart | AiSdkFilePart | AiSdkToolCallPart> = [];
          if (m.content !== null && m.content !== '') content.push(...(toParts(m.content) as Array<AiSdkTextPart | AiSdkFilePart>));
          for (const call of m.toolCalls ?? [])
            content.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.arguments });
          out.push({ role: 'assistant', content });
          break;
        }
        case 'tool': {
          const part: AiSdkToolResultPart = {
            type: 'tool-result',
            toolCallId: m.toolCallId ?? '',
            toolName: m.name ?? '',
            output: toOutput(m.content),
          };
          if (continuesToolRun(messages, i)) (out[out.length - 1]!.content as AiSdkToolResultPart[]).push(part);
          else out.push({ role: 'tool', content: [part] });
          break;
        }
        default:
          throw unknownRole('toAiSdkPrompt', m);
      }
    });
    return out;
  });
}

function toParts(content: MessageContent): Array<AiSdkTextPart | AiSdkFilePart | ContentPart> {
  if (content === null) return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part) => {
    if (part.type === 'image' && typeof part.url === 'string') {
      return { type: 'file', data: new URL(part.url), mediaType: parseDataUrl(part.url)?.mediaType ?? 'image/*' } satisfies AiSdkFilePart;
    }
    return { ...part };
  });
}

function toOutput(content: MessageContent): AiSdkToolResultOutput {
  if (typeof content === 'string') return { type: 'text', value: content };
  if (content === null) return { type: 'text', value: '' };
  const only = content.length === 1 ? (content[0] as { type: string }) : undefined;
  if (only && ['json', 'error-text', 'error-json', 'execution-denied', 'content'].includes(only.type)) return only as AiSdkToolResultOutput;
  return { type: 'content', value: content };
}
