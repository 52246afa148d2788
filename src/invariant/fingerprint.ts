// A 53-bit structural hash per message such that two messages that match
// (`messagesMatch`) always get the same fingerprint. The check uses it only
// after a mismatch, to pair the messages it cannot line up; the implicit
// conversation log keeps fingerprints instead of message text. This file is
// the one place that decides what a message hashes as (which equalities of
// `messagesMatch` it applies); value-hash.ts walks the values.

import { FLAT_FALSE, FLAT_NUMBER, FLAT_STRING, FLAT_TRUE, readFlatObject } from './flat-json';
import { CACHE_MARKER, NO_ARGUMENTS, isEmptyContent, parseJson, singleText } from './message-equality';
import {
  T_ARGS_TEXT,
  T_ARRAY,
  T_CALL,
  T_CALLS,
  T_FALSE,
  T_MESSAGE,
  T_NOT_A_LIST,
  T_NOT_A_MESSAGE,
  T_NULL,
  T_NUMBER,
  T_STRING,
  T_TRUE,
  finish,
  hashRange,
  hashString,
  mix,
  numberBits,
  seed,
  tagged,
} from './hash-lanes';
import { hashValue, newWalk, objectHash, pairHash, sequence, type Walk } from './value-hash';

/** A message's fingerprint: an integer in [0, 2**53). */
export type Fingerprint = number;

/** Every system message has this fingerprint: system content is never compared. */
export const SYSTEM_FINGERPRINT: Fingerprint = 1;

/** Options of `fingerprintOf`. The check passes none; the implicit log sets `ignoreToolResultName` (docs/behaviour.md §4.2). */
export interface FingerprintOptions {
  /**
   * Leave the name of tool messages out. Providers send no name with a tool
   * result; adapters derive it from the call, so on the request side it
   * repeats what the call already says.
   */
  ignoreToolResultName?: boolean;
}

/**
 * The fingerprint of a request entry or fold message. Hashes role, content,
 * tool calls, tool call id and name, with the equalities `messagesMatch`
 * applies (a string and its one-text-part list, JSON-string and parsed tool
 * arguments, absent and null, empty assistant content, no assistant name);
 * object key order never matters. Any value is accepted: malformed entries
 * get a fingerprint of their own. Linear in the entry's size even for shared
 * sub-structures, and never throws for a plain value (a throwing getter does
 * throw; callers guard).
 */
export function fingerprintOf(entry: unknown, options: FingerprintOptions = {}): Fingerprint {
  if (typeof entry !== 'object' || entry === null) return tagged(T_NOT_A_MESSAGE, hashValue(entry, newWalk()));
  const m = entry as Record<string, unknown>;
  const role = m.role;
  if (role === 'system') return SYSTEM_FINGERPRINT;
  const walk = newWalk();
  // Every part is hashed before the message's own state is seeded: nested hashing reuses the state.
  const roleHash = typeof role === 'string' ? hashString(role, T_STRING) : hashValue(role, walk);
  const contentPart = contentHash(m.content, role === 'assistant', walk);
  const callsPart = toolCallsHash(m.toolCalls, walk);
  const idPart = hashValue(m.toolCallId ?? null, walk);
  const name = role === 'assistant' || (role === 'tool' && options.ignoreToolResultName) ? null : (m.name ?? null);
  const namePart = hashValue(name, walk);
  seed(T_MESSAGE);
  mix(roleHash);
  mix(contentPart);
  mix(callsPart);
  mix(idPart);
  mix(namePart);
  const fingerprint = finish();
  return fingerprint === SYSTEM_FINGERPRINT ? fingerprint + 1 : fingerprint;
}

function contentHash(content: unknown, assistant: boolean, walk: Walk): number {
  if (content === undefined || content === null || (assistant && isEmptyContent(content))) return T_NULL;
  if (typeof content === 'string') return hashString(content, T_STRING);
  const text = singleText(content);
  if (text !== undefined) return hashString(text, T_STRING);
  return Array.isArray(content) ? sequence(T_ARRAY, content, walk, partHash) : hashValue(content, walk);
}

/** A content part hashes without its prompt-cache marker, which `messagesMatch` does not compare. */
function partHash(part: unknown, walk: Walk): number {
  if (typeof part !== 'object' || part === null || Array.isArray(part) || part instanceof Date || !(CACHE_MARKER in part))
    return hashValue(part, walk);
  const { [CACHE_MARKER]: _marker, ...rest } = part as Record<string, unknown>;
  return hashValue(rest, walk);
}

function toolCallsHash(toolCalls: unknown, walk: Walk): number {
  if (toolCalls === undefined || toolCalls === null) return T_CALLS;
  if (!Array.isArray(toolCalls)) return tagged(T_NOT_A_LIST, hashValue(toolCalls, walk));
  if (toolCalls.length === 0) return T_CALLS;
  return sequence(T_CALLS, toolCalls, walk, toolCallHash);
}

function toolCallHash(call: unknown, walk: Walk): number {
  if (typeof call !== 'object' || call === null) return hashValue(call, walk);
  const c = call as Record<string, unknown>;
  const id = hashValue(c.id, walk);
  const name = hashValue(c.name, walk);
  const args = argumentsHash(c.arguments, walk);
  seed(T_CALL);
  mix(id);
  mix(name);
  mix(args);
  return finish();
}

/** A JSON string hashes as the value it parses to, so it matches that value in any spacing or key order. */
function argumentsHash(args: unknown, walk: Walk): number {
  // A value hashes as `hashValue` has it, a text that is not JSON under a tag of its own.
  if (typeof args !== 'string') return hashValue(args === undefined ? NO_ARGUMENTS : args, walk);
  const flat = flatObjectHash(args);
  if (flat !== undefined) return flat;
  const parsed = parseJson(args);
  return parsed ? hashValue(parsed.value, walk) : hashString(args, T_ARGS_TEXT);
}

/** Positions `readFlatObject` writes, reused: fingerprints are computed one at a time. */
const flatRanges: number[] = [];

/**
 * `hashValue(JSON.parse(text))` for a flat object read in place (see
 * flat-json.ts), the same pairs summed as `hashObject` sums them; undefined
 * for any other text.
 */
function flatObjectHash(text: string): number | undefined {
  const keys = readFlatObject(text, flatRanges);
  if (keys < 0) return undefined;
  let lo = 0;
  let hi = 0;
  for (let k = 0; k < keys; k++) {
    const at = k * 5;
    const valueHash = flatValueHash(text, flatRanges[at + 2]!, flatRanges[at + 3]!, flatRanges[at + 4]!);
    const pair = pairHash(hashRange(text, flatRanges[at]!, flatRanges[at + 1]!, T_STRING), valueHash);
    lo = (lo + (pair >>> 0)) | 0;
    hi = (hi + ((pair / 0x100000000) | 0)) | 0;
  }
  return objectHash(lo, hi, keys);
}

/** `hashValue` of one value of a flat object, from its position in the text. */
function flatValueHash(text: string, kind: number, start: number, end: number): number {
  switch (kind) {
    case FLAT_STRING:
      return hashRange(text, start, end, T_STRING);
    case FLAT_NUMBER:
      return tagged(T_NUMBER, numberBits(Number(text.slice(start, end))));
    case FLAT_TRUE:
      return T_TRUE;
    case FLAT_FALSE:
      return T_FALSE;
    default:
      return T_NULL;
  }
}
