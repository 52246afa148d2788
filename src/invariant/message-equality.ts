// When a request message is the fold message it stands for: equal
// fingerprints (role, content, toolCalls, toolCallId, name), up to the
// differences that carry no model-visible meaning. Each of those is listed,
// with its reason, in docs/behaviour.md §4 ("What is not a difference").

import { deepEqual, objectsEqual } from './deep-equal';
import type { Message } from '../model/messages';
import type { FingerprintField } from './violation';

const hasOwn = Object.prototype.hasOwnProperty;

type Loose = Record<string, unknown>;

/**
 * Whether a request entry matches a fold message. Two system messages match
 * whatever their content: system text is re-derived for every request
 * (config, plugins, a behaviour's own prompt), so the log cannot say what it
 * should be. Otherwise the fingerprints must be equal, where:
 * - a string equals its one-text-part list;
 * - absent and `null` are the same for `toolCallId` and `name`, absent,
 *   `null` and `[]` for `toolCalls`;
 * - tool-call arguments as a JSON string equal the value they parse to;
 * - an assistant message's absent, `null`, `""`, `[]` and one-empty-text-part
 *   content are the same (a turn with only tool calls; frameworks send `""`
 *   or `[]` where the API said null);
 * - an assistant message's `name` is not compared (frameworks stamp a
 *   participant name on replies the model sent without one);
 * - absent tool-call arguments equal `{}` (and so `"{}"`);
 * - a content part's `cache_control` marker is not compared.
 * The request entry is untrusted; the fold message is the log's own bounded
 * copy, which bounds every walk.
 */
export function messagesMatch(entry: unknown, folded: Message): boolean {
  if (entry === folded) return true;
  if (typeof entry !== 'object' || entry === null) return false;
  const m = entry as Loose;
  const role = folded.role;
  if (m.role !== role) return false;
  if (role === 'system') return true;
  if (role === 'assistant') {
    if (!assistantContentEqual(m.content, folded.content)) return false;
  } else if (!contentEqual(m.content, folded.content)) {
    return false;
  }
  return (
    toolCallsEqual(m.toolCalls, folded.toolCalls) &&
    nullish(m.toolCallId) === nullish(folded.toolCallId) &&
    (role === 'assistant' || nullish(m.name) === nullish(folded.name))
  );
}

/**
 * The fingerprint fields in which a request entry differs from a fold
 * message (empty when `messagesMatch` holds): what a violation reports at the
 * first diverging position.
 */
export function fieldsDiffering(entry: unknown, folded: Message): FingerprintField[] {
  if (typeof entry !== 'object' || entry === null) return ['role'];
  const m = entry as Loose;
  if (m.role !== folded.role) return ['role'];
  if (folded.role === 'system') return [];
  const fields: FingerprintField[] = [];
  const sameContent =
    folded.role === 'assistant' ? assistantContentEqual(m.content, folded.content) : contentEqual(m.content, folded.content);
  if (!sameContent) fields.push('content');
  if (!toolCallsEqual(m.toolCalls, folded.toolCalls)) fields.push('toolCalls');
  if (nullish(m.toolCallId) !== nullish(folded.toolCallId)) fields.push('toolCallId');
  if (folded.role !== 'assistant' && nullish(m.name) !== nullish(folded.name)) fields.push('name');
  return fields;
}

/**
 * Absent, `null`, `""`, an empty part list or one empty text part: an
 * assistant turn that said nothing besides its tool calls. All five are one
 * value, so the relation stays an equivalence. (LangChain's `ChatOpenAI`
 * re-sends a Claude tool-call turn with `content: []`.)
 */
export function isEmptyContent(content: unknown): boolean {
  return (
    content === undefined ||
    content === null ||
    content === '' ||
    (Array.isArray(content) && content.length === 0) ||
    singleText(content) === ''
  );
}

function assistantContentEqual(a: unknown, b: unknown): boolean {
  const aEmpty = isEmptyContent(a);
  if (aEmpty || isEmptyContent(b)) return aEmpty && isEmptyContent(b);
  return contentEqual(a, b);
}

/**
 * Content equality for messages other than assistant ones (docs/behaviour.md
 * §1.4): a string equals its one-text-part list; absent equals `null`, but
 * `null` is not `""`; part lists are compared part by part, deeply, key order
 * ignored and the `cache_control` marker left out. Assistant content adds the
 * empty-content rule of docs/behaviour.md §4.1 on top.
 */
export function contentEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string') return isSingleTextPart(b, a);
  if (typeof b === 'string') return isSingleTextPart(a, b);
  if (a === undefined || a === null) return b === undefined || b === null;
  if (!Array.isArray(a) || !Array.isArray(b)) return deepEqual(a, b);
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!partsEqual(a[i], b[i])) return false;
  return true;
}

/**
 * A content part's prompt-cache marker is not content: Anthropic's prompt
 * caching moves `cache_control` to the newest message every turn, so the
 * same history carries it on different parts from one request to the next.
 */
export const CACHE_MARKER = 'cache_control';

function partsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isPlainRecord(a) || !isPlainRecord(b)) return deepEqual(a, b);
  return objectsEqual(a, b, CACHE_MARKER);
}

function isPlainRecord(value: unknown): value is Loose {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** `[{ type: 'text', text }]` and nothing else: the list form of a plain string. */
export function isSingleTextPart(value: unknown, text: string): boolean {
  return singleText(value) === text;
}

/** The text of a one-text-part list with no other field, else undefined. */
export function singleText(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length !== 1) return undefined;
  const part = value[0] as unknown;
  if (typeof part !== 'object' || part === null) return undefined;
  const p = part as Loose;
  if (p.type !== 'text' || typeof p.text !== 'string') return undefined;
  for (const key in p) {
    if (hasOwn.call(p, key) && key !== 'type' && key !== 'text' && key !== CACHE_MARKER && p[key] !== undefined) return undefined;
  }
  return p.text;
}

/**
 * Tool-call list equality (docs/behaviour.md §1.5): absent, `null` and `[]` are
 * the same list, and calls are compared in order on `id`, `name` and
 * `arguments` only. Arguments as a JSON string equal the value they parse to
 * (OpenAI sends a string, Anthropic an object), and absent arguments equal
 * `{}`.
 */
export function toolCallsEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const aLength = toolCallCount(a);
  if (aLength !== toolCallCount(b)) return false;
  if (aLength === 0) return true;
  if (aLength < 0) return deepEqual(a, b);
  const as = a as unknown[];
  const bs = b as unknown[];
  for (let i = 0; i < aLength; i++) if (!toolCallEqual(as[i], bs[i])) return false;
  return true;
}

/** 0 for absent, null and `[]`; -1 for something that is not a list. */
function toolCallCount(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return Array.isArray(value) ? value.length : -1;
}

function toolCallEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return false;
  const x = a as Loose;
  const y = b as Loose;
  return x.id === y.id && x.name === y.name && argumentsEqual(x.arguments, y.arguments);
}

/**
 * Absent arguments are the empty object: a call that takes none goes to
 * OpenAI as `"{}"` and to Anthropic as `{}`, so the adapters write one of
 * those for a call logged without arguments.
 */
export const NO_ARGUMENTS: Readonly<Record<string, never>> = Object.freeze({});

function argumentsEqual(a: unknown, b: unknown): boolean {
  if (a === undefined) a = NO_ARGUMENTS;
  if (b === undefined) b = NO_ARGUMENTS;
  if (deepEqual(a, b)) return true;
  if (typeof a !== 'string' && typeof b !== 'string') return false;
  const parsedA = typeof a === 'string' ? parseJson(a) : { value: a };
  const parsedB = typeof b === 'string' ? parseJson(b) : { value: b };
  return parsedA !== undefined && parsedB !== undefined && deepEqual(parsedA.value, parsedB.value);
}

/**
 * `JSON.parse` that returns `undefined` instead of throwing. The result is
 * wrapped in `{ value }` so a string that parses to `null` (or any falsy value)
 * is told apart from one that does not parse.
 */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * `undefined` as `null`, so absent and `null` compare equal: serialisers differ
 * in how they write "nothing" (docs/behaviour.md §4.1).
 */
export function nullish(value: unknown): unknown {
  return value === undefined ? null : value;
}

/** Whether `list` begins with every message of `prefix`, in order, matched as the check matches them: the one prefix test (the AI SDK and Agents recorders and the Agents model call use it). */
export function startsWithMessages(list: readonly unknown[], prefix: readonly Message[]): boolean {
  if (prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (!messagesMatch(list[i], prefix[i]!)) return false;
  return true;
}
