// Which tool calls a message list has made so far, kept incrementally for the
// fold: the check's tool pairing and the naming of tool results read it. The
// call a result answers is looked up by model/answered-call.ts.

import type { Message, ToolCall } from '../model/messages';
import { EarlierCalls } from '../model/answered-call';

/** The first tool message with no preceding call for its id (a null id included). */
export interface Orphan {
  readonly toolCallId: string | null;
}

interface Index {
  /** How many messages of the list are indexed (searched for the first orphan, until one is found). */
  length: number;
  /** The calls of the list: assistant messages' calls with a string id. */
  calls: EarlierCalls<ToolCall>;
  orphan: Orphan | null;
}

const assistantCalls = (message: unknown): readonly ToolCall[] | undefined =>
  (message as Message).role === 'assistant' ? (message as Message).toolCalls : undefined;
const hasStringId = (call: ToolCall): boolean => typeof call.id === 'string';

/**
 * Keyed by the fold's own array, which a plain append extends in place and a
 * rebuild replaces: an index is extended by what was appended since, and a
 * rebuilt fold gets a new one.
 */
const indexes = new WeakMap<readonly Message[], Index>();

function indexOf(messages: readonly Message[]): Index {
  let index = indexes.get(messages);
  if (index === undefined || index.length > messages.length) {
    index = { length: 0, calls: new EarlierCalls(messages, assistantCalls, hasStringId), orphan: null };
    indexes.set(messages, index);
  }
  for (; index.orphan === null && index.length < messages.length; index.length++) {
    const message = messages[index.length]!;
    if (message.role !== 'tool') continue;
    const id = message.toolCallId ?? null;
    if (id === null || index.calls.answered(id, index.length) === undefined) index.orphan = Object.freeze({ toolCallId: id });
  }
  index.length = messages.length; // past the first orphan, nothing more to search
  return index;
}

/** The first orphaned tool result of `fold`, or null. Amortized O(1) per appended message. */
export function firstOrphan(fold: readonly Message[]): Orphan | null {
  return indexOf(fold).orphan;
}

/** The name of the call `toolCallId` answers, from the calls in `fold`, if any (null: a call with no string name). */
export function nameOfCall(fold: readonly Message[], toolCallId: string): string | null | undefined {
  const call = indexOf(fold).calls.answered(toolCallId, fold.length);
  return call === undefined ? undefined : typeof call.name === 'string' ? call.name : null;
}
