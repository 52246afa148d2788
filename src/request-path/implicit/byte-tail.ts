// What the byte fast path accepts of a request's new elements (the tail after
// the bytes its conversation already has): the one place that decides when a
// tail is a continuation the rules would pass without reading the rest.

import { fingerprintOf, type Fingerprint, type FingerprintOptions } from '../../invariant/fingerprint';
import type { Message } from '../../model/messages';
import type { SerialisedBody } from '../model-request';
import type { ElementSpan } from './bytes/json-scan';

/** The new messages of an accepted tail, and their fingerprints. */
export interface TailMessages {
  messages: readonly Message[];
  fingerprints: Fingerprint[];
}

/**
 * The messages a tail adds when it is the expected messages (`held` from
 * `from` on: the reply the conversation holds after its last request, as
 * fingerprints; none when no reply was observed) followed by at least one user message or tool result,
 * every tool result answering a call made in the tail; undefined otherwise
 * (any assistant or system message past the reply, a reply that differs, a
 * tool result whose call is further back, an element that does not parse
 * or read). Those are the cases where the rules need the whole request.
 */
export function continuedByTail(
  body: SerialisedBody,
  tail: readonly ElementSpan[],
  held: readonly Fingerprint[],
  from: number,
  options: FingerprintOptions,
): TailMessages | undefined {
  const expected = held.length - from;
  if (body.readElements === undefined || tail.length === 0) return undefined;
  let entries: unknown;
  try {
    entries = JSON.parse(`[${body.text.slice(tail[0]!.start, tail[tail.length - 1]!.end)}]`);
  } catch {
    return undefined;
  }
  let read: readonly Message[];
  try {
    read = body.readElements(entries as unknown[]);
  } catch {
    return undefined;
  }
  if (read.length <= expected) return undefined;
  for (let i = 0; i < expected; i++) if (fingerprintOf(read[i]!, options) !== held[from + i]) return undefined;
  const messages = read.slice(expected);
  const fingerprints: Fingerprint[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      if (typeof message.toolCallId !== 'string' || !callIn(read, expected, message.toolCallId)) return undefined;
    } else if (message.role !== 'user') return undefined;
    fingerprints.push(fingerprintOf(message, options));
  }
  return { messages, fingerprints };
}

/** Whether one of the first `count` messages (the reply) made the call `id`. */
function callIn(messages: readonly Message[], count: number, id: string): boolean {
  for (let i = 0; i < count; i++) for (const call of messages[i]!.toolCalls ?? []) if (call.id === id) return true;
  return false;
}
