// A request the byte fast path did not take, read from where its bytes first
// differ from a kept conversation's: the one place that builds such a
// reading. The elements before the last equal mark (byte-record.ts) are the
// conversation's own messages, so their fingerprints and sketches are taken
// from it and only the elements after are parsed, read and fingerprinted.
// The rules (implicit-rules.ts) then decide on it exactly as on the request
// read whole: what a violation reports is the same, found for the cost of
// what follows the difference.

import { SYSTEM_FINGERPRINT, type Fingerprint } from '../../invariant/fingerprint';
import { MAX_REQUEST_MESSAGES, type Message } from '../../model/messages';
import type { SerialisedBody } from '../model-request';
import type { Conversation } from './conversation';
import type { ByteDivergence } from './bytes/byte-conversations';
import { orphanedToolResult } from './pairing';
import type { ReadRequest } from './seen-request';

/** Wire formats whose reader makes exactly one canonical message of each element, so an element's index is its message's. */
const ONE_MESSAGE_PER_ELEMENT: ReadonlySet<SerialisedBody['format']> = new Set(['openai.chat']);

/** How many marks the reading may try, going back, to take in the calls of the tool results after the difference. */
const MAX_TRIES = 3;

/** What was read of a request from its first difference on, and how much of it was read (for tests). */
export interface DivergentReading {
  read: ReadRequest;
  /** The request's non-system elements taken from the conversation, unread. */
  known: number;
}

/**
 * The request `body` as the rules read it, with its elements up to the
 * divergence taken from the conversation; undefined when that cannot be
 * done exactly (the caller then reads the request whole): a wire format
 * whose elements are not one message each, a conversation that changed
 * since its bytes were recorded or whose last request ended in a prefill,
 * leading system elements or a tail that do not read as messages one for
 * one, or a tool result after the difference whose call is before the
 * earliest mark tried (then pairing and naming need the whole request).
 */
export function readFromDivergence(
  body: SerialisedBody,
  divergence: ByteDivergence<Conversation>,
  fingerprint: (message: unknown) => Fingerprint,
): DivergentReading | undefined {
  const { conversation, layout } = divergence;
  const readElements = body.readElements;
  if (readElements === undefined || !ONE_MESSAGE_PER_ELEMENT.has(body.format)) return undefined;
  if (divergence.since !== conversation.lastRequest || conversation.lastRequest.prefill) return undefined;
  // The conversation's index of the recorded bytes' first non-system element.
  const start = divergence.messagesAt - divergence.elementsAt;
  if (start < 0 || divergence.messagesAt > conversation.length) return undefined;
  const system = parsed(body.text, layout.open + 1, layout.systemEnd, readElements);
  if (system === undefined || system.length !== layout.systemCount || system.some((m) => m?.role !== 'system')) return undefined;
  // From one mark before the last equal one: a tool result just after a mark usually answers a call just before it.
  const tries = divergence.equal.length > 1 ? divergence.equal.slice(1, 1 + MAX_TRIES) : divergence.equal;
  for (const known of tries) {
    const spans = divergence.tailAfter(known);
    if (spans === undefined) return undefined;
    // The request's last message is read, never a known one: a prefill the reply continues is merged with it.
    if (spans.length === 0) continue;
    const tail = parsed(body.text, spans[0]!.start, spans[spans.length - 1]!.end, readElements);
    if (tail === undefined || tail.length !== spans.length) return undefined;
    // The known elements hold no orphan (the bytes were recorded from a request that passed); a tool result after
    // them whose call is not after them too is read again from an earlier mark.
    let orphan: unknown;
    try {
      orphan = orphanedToolResult(tail);
    } catch {
      return undefined;
    }
    if (orphan !== undefined) continue;
    if (system.length + known + tail.length > MAX_REQUEST_MESSAGES) return undefined;
    const fingerprints = new Array<Fingerprint>(system.length + known + tail.length);
    let at = 0;
    for (const message of system) fingerprints[at++] = fingerprint(message);
    const kept = conversation.fingerprints;
    for (let i = 0; i < known; i++) fingerprints[at++] = kept[start + i]!;
    for (const message of tail) fingerprints[at++] = fingerprint(message);
    const sketches = conversation.sketches(start + known).slice(start);
    // Where the rules read a known message, they read its role: the sketch has it (and sketchOf gives the sketch).
    const messages = [...system, ...(sketches as unknown as Message[]), ...tail];
    const first = system.length;
    if (fingerprints[first] === SYSTEM_FINGERPRINT) return undefined;
    return {
      read: {
        seen: { messages, fingerprints, known: { from: first, to: first + known, sketches } },
        orphan: undefined,
        first,
        key: fingerprints[first]!,
      },
      known,
    };
  }
  return undefined;
}

/** The elements in `text[from, to)` (a run of array elements), read as canonical messages; undefined when they do not parse or read. */
function parsed(
  text: string,
  from: number,
  to: number,
  readElements: (entries: readonly unknown[]) => readonly Message[],
): readonly Message[] | undefined {
  if (to <= from) return [];
  try {
    return readElements(JSON.parse(`[${text.slice(from, to)}]`) as unknown[]);
  } catch {
    return undefined;
  }
}
