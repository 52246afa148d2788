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
 * The messages a tail adds when it is `expected` (the reply the
 * conversation holds after its last request, as fingerprints; empty when
 * none was observed) followed by at least one user message or tool result,
 * every tool result answering a call made in the tail; undefined otherwise
 * (any assistant or system message past the reply, a reply that differs, a
 * tool result whose call is further back, an element that does not parse
 * or read). Those are the cases where the rules need the whole request.
 */
export function continuedByTail(
  body: SerialisedBody,
  tail: readonly ElementSpan[],
  expected: readonly Fingerprint[],
  options: FingerprintOptions,
): TailMessages | undefined {
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
  if (read.length <= expected.length) return undefined;
  const calls = new Set<string>();
  for (let i = 0; i < expected.length; i++) {
    const message = read[i]!;
    if (fingerprintOf(message, options) !== expected[i]) return undefined;
    for (const call of message.toolCalls ?? []) calls.add(call.id);
  }
  const messages = read.slice(expected.length);
  const fingerprints: Fingerprint[] = [];
  for (const message of messages) {
    if (message.role === 'tool') {
      if (typeof message.toolCallId !== 'string' || !calls.has(message.toolCallId)) return undefined;
    } else if (message.role !== 'user') return undefined;
    fingerprints.push(fingerprintOf(message, options));
  }
  return { messages, fingerprints };
}
