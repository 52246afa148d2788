// A request as the implicit log reads it: its messages with their
// fingerprints, the orphaned tool result it holds, and its "starts like"
// key. The rules (implicit-rules.ts), the writes (conversation-writes.ts)
// and `ImplicitLogs` all take it in this shape.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import type { ViolationDetails } from '../../invariant/violation';
import type { Message } from '../../model/messages';

/**
 * A request in the implicit log's terms: its messages and their
 * fingerprints. A request read from where its bytes first differ from a
 * conversation's (divergence.ts) was not read in full: its messages in each
 * `known` range (before the difference, and a run after it) are the
 * conversation's sketches, which say their role and tool ids, and
 * `sketchOf` (stored-sketches.ts) gives those sketches where a message's
 * sketch is asked for.
 */
export interface Seen {
  messages: readonly Message[];
  fingerprints: Fingerprint[];
  known?: readonly KnownRange[] | undefined;
}

/** Messages of a request known equal to a conversation's, kept as that conversation's sketches (content-free). */
export interface KnownRange {
  from: number;
  to: number;
  /** The sketches of messages `from` to `to`, in order. */
  sketches: readonly MessageSketch[];
}

/** A request read for the implicit log: its messages and fingerprints, the orphaned tool result it holds, its "starts like" key. */
export interface ReadRequest {
  seen: Seen;
  orphan: ViolationDetails | undefined;
  /** The index of its first non-system message, and that message's fingerprint. */
  first: number;
  key: Fingerprint;
}

/** Whether the request ends in an assistant message (a prefill the reply continues). */
export function endsInAssistant(seen: Seen): boolean {
  return seen.messages[seen.messages.length - 1]?.role === 'assistant';
}
