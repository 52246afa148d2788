// A request as the implicit log reads it: its messages with their
// fingerprints, the orphaned tool result it holds, and its "starts like"
// key. The rules (implicit-rules.ts), the writes (conversation-writes.ts)
// and `ImplicitLogs` all take it in this shape.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { ViolationDetails } from '../../invariant/violation';
import type { Message } from '../../model/messages';

/** A request in the implicit log's terms: its messages and their fingerprints. */
export interface Seen {
  messages: readonly Message[];
  fingerprints: Fingerprint[];
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
