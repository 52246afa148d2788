// Which tool calls a message list has made so far, kept incrementally for the
// fold: the check's tool pairing and the naming of tool results read it.

import type { Message } from '../model/messages';

/** The first tool message with no preceding call for its id (a null id included). */
export interface Orphan {
  readonly toolCallId: string | null;
}

interface Index {
  /** How many messages of the list are indexed. */
  length: number;
  /** Tool call id -> the name of the call (the latest call with that id wins). */
  names: Map<string, string | null>;
  orphan: Orphan | null;
}

/**
 * Keyed by the fold's own array, which a plain append extends in place and a
 * rebuild replaces: an index is extended by what was appended since, and a
 * rebuilt fold gets a new one.
 */
const indexes = new WeakMap<readonly Message[], Index>();

function indexOf(messages: readonly Message[]): Index {
  let index = indexes.get(messages);
  if (index === undefined || index.length > messages.length) {
    index = { length: 0, names: new Map(), orphan: null };
    indexes.set(messages, index);
  }
  for (; index.length < messages.length; index.length++) {
    const message = messages[index.length]!;
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? []) {
        if (typeof call?.id === 'string') index.names.set(call.id, typeof call.name === 'string' ? call.name : null);
      }
    } else if (message.role === 'tool' && index.orphan === null) {
      const id = message.toolCallId ?? null;
      if (id === null || !index.names.has(id)) index.orphan = Object.freeze({ toolCallId: id });
    }
  }
  return index;
}

/** The first orphaned tool result of `fold`, or null. Amortized O(1) per appended message. */
export function firstOrphan(fold: readonly Message[]): Orphan | null {
  return indexOf(fold).orphan;
}

/** The name of the call `toolCallId` answers, from the calls in `fold`, if any. */
export function nameOfCall(fold: readonly Message[], toolCallId: string): string | null | undefined {
  return indexOf(fold).names.get(toolCallId);
}
