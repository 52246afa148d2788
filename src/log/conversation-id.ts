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

/** The id of implicit conversation `n`. */
export function implicitConversationId(n: number): string {
  return `${processPrefix}.${n}`;
}
