// Fingerprint equality: role, content, toolCalls, toolCallId and name, with
// the equivalences providers force on us (a string is its one-text-part list,
// JSON-string tool arguments equal the object they parse to, absent = null/[]).
// Everything else on a message (metadata, createdAt, reasoningContent) is ignored.

import { deepEqual } from './deep-equal';
import type { Message } from './messages';

const hasOwn = Object.prototype.hasOwnProperty;

type Loose = Record<string, unknown>;

/**
 * Whether a request entry matches a fold message. Both `system`: match
 * regardless of content (system text is re-derived per request). The request
 * entry is untrusted; the fold message is acyclic, which bounds every walk.
 */
export function messagesMatch(entry: unknown, folded: Message): boolean {
  if (entry === folded) return true;
  if (typeof entry !== 'object' || entry === null) return false;
  const m = entry as Loose;
  if (m.role !== folded.role) return false;
  if (folded.role === 'system') return true;
  return (
    contentEqual(m.content, folded.content) &&
    toolCallsEqual(m.toolCalls, folded.toolCalls) &&
    nullish(m.toolCallId) === nullish(folded.toolCallId) &&
    nullish(m.name) === nullish(folded.name)
  );
}

function contentEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'string') return isSingleTextPart(b, a);
  if (typeof b === 'string') return isSingleTextPart(a, b);
  if (a === undefined || a === null) return b === undefined || b === null;
  return deepEqual(a, b);
}

/** `[{ type: 'text', text }]` and nothing else, the list form of a plain string. */
export function isSingleTextPart(value: unknown, text: string): boolean {
  if (!Array.isArray(value) || value.length !== 1) return false;
  const part = value[0] as unknown;
  if (typeof part !== 'object' || part === null) return false;
  const p = part as Loose;
  if (p.type !== 'text' || p.text !== text) return false;
  for (const key in p) {
    if (hasOwn.call(p, key) && key !== 'type' && key !== 'text' && p[key] !== undefined) return false;
  }
  return true;
}

function toolCallsEqual(a: unknown, b: unknown): boolean {
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

function argumentsEqual(a: unknown, b: unknown): boolean {
  if (deepEqual(a, b)) return true;
  if (typeof a !== 'string' && typeof b !== 'string') return false;
  const parsedA = typeof a === 'string' ? parseJson(a) : { value: a };
  const parsedB = typeof b === 'string' ? parseJson(b) : { value: b };
  return parsedA !== undefined && parsedB !== undefined && deepEqual(parsedA.value, parsedB.value);
}

export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function nullish(value: unknown): unknown {
  return value === undefined ? null : value;
}
