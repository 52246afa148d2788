// The log a request is checked against when it does not simply continue a
// known conversation: the conversation followed by the request's own later
// messages. The check's one reconstruction rule (invariant/reconstruct.ts)
// is applied to it on fingerprints: equal fingerprints match, and sketches
// say what was missing or surplus.

import { SYSTEM_FINGERPRINT, type Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import type { ViolationDetails } from '../../invariant/violation';
import { overlayOffset, reconstruct, type RequestAndLog } from '../../invariant/reconstruct';
import type { Conversation } from './conversation';
import type { Seen } from './seen-request';
import { sketchOf } from './stored-sketches';

/** A log the request is compared with: the conversation, or the conversation it implies. */
export interface Implied {
  fingerprints: readonly Fingerprint[];
  sketches: readonly MessageSketch[];
}

/** The conversation followed by the request's messages from `from` on (those `keep` accepts). */
export function concat(
  conversation: Conversation,
  seen: Seen,
  from: number,
  keep: (i: number) => boolean,
  captureContent: boolean,
): Implied {
  const fingerprints = Array.from(conversation.fingerprints);
  const sketches = conversation.sketches();
  for (let i = from; i < seen.messages.length; i++) {
    if (!keep(i)) continue;
    fingerprints.push(seen.fingerprints[i]!);
    sketches.push(sketchOf(seen, i, captureContent, false));
  }
  return { fingerprints, sketches };
}

/**
 * The check's reconstruction rule (reconstruct.ts), on fingerprints. `from`:
 * how many of the implied log's first messages the caller already found
 * equal to the request's (after the overlay slot); the lockstep starts there.
 */
export function reconstructionFailure(implied: Implied, seen: Seen, captureContent: boolean, from = 0): ViolationDetails | undefined {
  const lists = new RequestAndImplied(seen, implied, captureContent);
  return reconstruct(lists, overlayOffset(lists), from).violation;
}

/** A request and the log it implies, as the reconstruction rule reads them: equal fingerprints match. */
class RequestAndImplied implements RequestAndLog {
  readonly #seen: Seen;
  readonly #implied: Implied;
  readonly #captureContent: boolean;

  constructor(seen: Seen, implied: Implied, captureContent: boolean) {
    this.#seen = seen;
    this.#implied = implied;
    this.#captureContent = captureContent;
  }

  get requestLength(): number {
    return this.#seen.fingerprints.length;
  }

  get logLength(): number {
    return this.#implied.fingerprints.length;
  }

  requestLeadsWithSystem(): boolean {
    return this.#seen.fingerprints[0] === SYSTEM_FINGERPRINT;
  }

  logLeadsWithSystem(): boolean {
    return this.#implied.fingerprints[0] === SYSTEM_FINGERPRINT;
  }

  matches(i: number, j: number): boolean {
    return this.#seen.fingerprints[i] === this.#implied.fingerprints[j];
  }

  requestFingerprint(i: number): number {
    return this.#seen.fingerprints[i]!;
  }

  logFingerprint(j: number): number {
    return this.#implied.fingerprints[j]!;
  }

  requestSketch(i: number): MessageSketch {
    return sketchOf(this.#seen, i, this.#captureContent, true);
  }

  logSketch(j: number): MessageSketch {
    return this.#implied.sketches[j]!;
  }

  commonSuffix(room: number): number {
    const request = this.#seen.fingerprints;
    const log = this.#implied.fingerprints;
    const last = request.length - 1;
    const logLast = log.length - 1;
    let suffix = 0;
    while (suffix < room && request[last - suffix] === log[logLast - suffix]) suffix++;
    return suffix;
  }

  /** Fingerprints say whether two messages differ, not in what. */
  differs(): [] {
    return [];
  }
}
