// A content-free id per conversation, for `gen_ai.conversation.id`: random,
// never derived from text, so it says nothing about what was said.

import { randomUUID } from 'node:crypto';
import type { SessionLog } from './session-log';

/** A new random conversation id. */
export function newConversationId(): string {
  return randomUUID();
}

const logIds = new WeakMap<SessionLog, string>();

/** The id of a bound log whose session names none: random, given on first use, the same for the log's lifetime. */
export function conversationIdOf(log: SessionLog): string {
  let id = logIds.get(log);
  if (id === undefined) logIds.set(log, (id = newConversationId()));
  return id;
}

// The implicit log keeps many conversations: each holds a small sequence number
// and spells its id from it on demand, with a prefix random per process so ids
// from two processes never collide.
const processPrefix = randomUUID();
let sequence = 0;

/** The next implicit conversation's number. */
export function nextConversationNumber(): number {
  return ++sequence;
}

/**
 * Ids born in another process, by the local number each was given when its
 * record was read from a shared store: bounded, the least recently read
 * dropped first (a record read from a store lives for one request).
 */
const adopted = new Map<number, string>();
const adoptedNumbers = new Map<string, number>();
const MAX_ADOPTED = 50_000;

/** The local number of a conversation whose id was born with its record elsewhere: it spells that id. */
export function adoptConversationId(id: string): number {
  let n = adoptedNumbers.get(id);
  if (n !== undefined) {
    adoptedNumbers.delete(id);
    adopted.delete(n);
  } else n = ++sequence;
  adoptedNumbers.set(id, n);
  adopted.set(n, id);
  if (adopted.size > MAX_ADOPTED) {
    const [oldest, oldestId] = adopted.entries().next().value as [number, string];
    adopted.delete(oldest);
    adoptedNumbers.delete(oldestId);
  }
  return n;
}

/** The id of implicit conversation `n`: the one it was born with, here or in the process that made its record. */
export function implicitConversationId(n: number): string {
  return adopted.get(n) ?? `${processPrefix}.${n}`;
}
