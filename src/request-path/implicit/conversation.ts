// One conversation of the implicit log: what the model has been sent and has
// answered, as fingerprints and content-free sketches, never as text.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import { implicitConversationId } from '../../log/conversation-id';
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

/**
 * One conversation of the implicit log: what the model has been sent and has
 * answered, kept as fingerprints and content-free sketches, never as text, so
 * no prompt text outlives the request that carried it (docs/behaviour.md §8.6).
 */
export class Conversation {
  /**
   * The number its `gen_ai.conversation.id` is spelt from: given when the
   * conversation was first seen, kept by the branches a violation ties to it,
   * never derived from content.
   */
  readonly number: number;
  /** The conversation's messages as fingerprints (tool-result names left out, docs/behaviour.md §4.2). */
  readonly fingerprints: Fingerprint[];
  /** A sketch per message, for violation details; previews only with content capture on. */
  readonly sketches: MessageSketch[];
  /** The fingerprint of the first non-system message: the index key ("starts like"). */
  readonly key: Fingerprint;
  /** When it was last used (epoch milliseconds), for idle eviction and recency. */
  lastUsed: number;
  /** The request that last extended it, for the lost-reply rule (docs/behaviour.md §8.2). */
  lastRequest: LastRequest;
  /** The conversation store's links between conversations with the same key, by recency (see conversation-store.ts). */
  newer: Conversation | undefined = undefined;
  older: Conversation | undefined = undefined;

  /** A conversation as first seen: the request's messages, keyed by its first non-system message. */
  constructor(
    number: number,
    fingerprints: Fingerprint[],
    sketches: MessageSketch[],
    key: Fingerprint,
    now: number,
    lastRequest: LastRequest,
  ) {
    this.number = number;
    this.fingerprints = fingerprints;
    this.sketches = sketches;
    this.key = key;
    this.lastUsed = now;
    this.lastRequest = lastRequest;
  }

  /** `gen_ai.conversation.id`, spelt from `number` when a violation needs it. */
  get id(): string {
    return implicitConversationId(this.number);
  }

  /** How many messages it holds. */
  get length(): number {
    return this.fingerprints.length;
  }
}
