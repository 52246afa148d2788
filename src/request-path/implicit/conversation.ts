// One conversation of the implicit log: what the model has been sent and has
// answered, as fingerprints and content-free sketches, never as text.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import type { RunKey } from '../run';

/** The request that last extended a conversation, for the lost-reply rule. */
export interface LastRequest {
  run: RunKey | undefined;
  /** How many of the conversation's messages that request carried. */
  length: number;
  /** It ended in an assistant message the reply continues: its reply never counts as lost. */
  prefill: boolean;
  /** The model's reply to it entered the conversation as the model sent it. */
  replyObserved: boolean;
}

export class Conversation {
  readonly fingerprints: Fingerprint[];
  readonly sketches: MessageSketch[];
  /** The fingerprint of the first non-system message: the index key ("starts like"). */
  readonly key: Fingerprint;
  lastUsed: number;
  lastRequest: LastRequest;

  constructor(fingerprints: Fingerprint[], sketches: MessageSketch[], key: Fingerprint, now: number, lastRequest: LastRequest) {
    this.fingerprints = fingerprints;
    this.sketches = sketches;
    this.key = key;
    this.lastUsed = now;
    this.lastRequest = lastRequest;
  }

  get length(): number {
    return this.fingerprints.length;
  }
}
