// One conversation of the implicit log: what the model has been sent and has
// answered, as fingerprints and content-free sketches, never as text.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import { implicitConversationId } from '../../log/conversation-id';
import type { RunKey } from '../run';
import { PackedSketches } from './packed-sketches';

/** The chain hash of no messages. */
export const CHAIN_START = 0x2545f491;

/**
 * The chain hash after one more message: a 31-bit integer (a small integer to
 * a Map), a function of the hash so far and the message's fingerprint, so
 * that the chain of a sequence of fingerprints is computed once, left to
 * right, and two sequences that differ almost never share it. Equal chains are
 * only a hint: a match is always confirmed on the fingerprints.
 */
export function chainStep(chain: number, fingerprint: Fingerprint): number {
  const low = fingerprint | 0;
  const high = (fingerprint / 4294967296) | 0;
  let h = Math.imul(chain ^ low, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ high, 0x85ebca77);
  return (h ^ (h >>> 13)) & 0x7fffffff;
}

/** The chain hash of the first `length` fingerprints. */
export function chainOf(fingerprints: ArrayLike<Fingerprint>, length: number): number {
  let chain = CHAIN_START;
  for (let i = 0; i < length; i++) chain = chainStep(chain, fingerprints[i]!);
  return chain;
}

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
  /**
   * The conversation's messages as fingerprints (tool-result names left out,
   * docs/behaviour.md §4.2), and a sketch per message, for violation details
   * (previews only with content capture on), packed (packed-sketches.ts).
   * Both exactly as long as the conversation: grown by copying once per
   * request and per reply (about 9 bytes a message), not by pushing, which
   * leaves half as much again unused.
   */
  #fingerprints: readonly Fingerprint[];
  readonly #sketches: PackedSketches;
  /** The fingerprint of the first non-system message: the index key ("starts like"). */
  readonly key: Fingerprint;
  /** When it was last used (epoch milliseconds), for idle eviction and recency. */
  lastUsed: number;
  /** The request that last extended it, for the lost-reply rule (docs/behaviour.md §8.2). */
  lastRequest: LastRequest;
  /** The conversation store's links between conversations with the same key, by recency (see conversation-store.ts). */
  newer: Conversation | undefined = undefined;
  older: Conversation | undefined = undefined;
  /** The chain hash of all its fingerprints, and of all but the last (kept as messages are appended). */
  chain: number;
  chainButLast: number;
  /** Recency, as the store orders it: a larger stamp was used more recently. */
  stamp = 0;
  /** The keys the store's indexes hold it under (see conversation-store.ts), -1 for none. */
  indexedEnd = -1;
  indexedLost = -1;
  indexedLast = -1;

  /** A conversation as first seen: the request's messages, keyed by its first non-system message. */
  constructor(
    number: number,
    fingerprints: ArrayLike<Fingerprint>,
    sketches: readonly MessageSketch[],
    key: Fingerprint,
    now: number,
    lastRequest: LastRequest,
  ) {
    this.number = number;
    this.#fingerprints = Array.from(fingerprints);
    this.#sketches = new PackedSketches(sketches);
    this.key = key;
    this.lastUsed = now;
    this.lastRequest = lastRequest;
    this.chainButLast = chainOf(fingerprints, fingerprints.length - 1);
    this.chain = fingerprints.length === 0 ? CHAIN_START : chainStep(this.chainButLast, fingerprints[fingerprints.length - 1]!);
  }

  /** The conversation's messages as fingerprints (read only: it grows through `append`). */
  get fingerprints(): readonly Fingerprint[] {
    return this.#fingerprints;
  }

  /** A sketch per message, rebuilt from their packed form (for a violation's details, a branch): the first `length`. */
  sketches(length = this.length): MessageSketch[] {
    return this.#sketches.toArray(length);
  }

  /** Appends messages: their fingerprints and sketches (as many), the chain hashes kept up to date. */
  append(fingerprints: ArrayLike<Fingerprint>, sketches: readonly MessageSketch[]): void {
    if (fingerprints.length === 0) return;
    for (let i = 0; i < fingerprints.length; i++) {
      this.chainButLast = this.chain;
      this.chain = chainStep(this.chain, fingerprints[i]!);
    }
    this.#fingerprints = this.#fingerprints.concat(Array.isArray(fingerprints) ? fingerprints : Array.from(fingerprints));
    this.#sketches.append(sketches);
  }

  /** Drops the last message (a prefill the reply replaces). */
  dropLast(): void {
    this.#fingerprints = this.#fingerprints.slice(0, -1);
    this.#sketches.dropLast();
    this.chain = this.chainButLast;
    this.chainButLast = chainOf(this.#fingerprints, this.#fingerprints.length - 1);
  }

  /** `gen_ai.conversation.id`, spelt from `number` when a violation needs it. */
  get id(): string {
    return implicitConversationId(this.number);
  }

  /** How many messages it holds. */
  get length(): number {
    return this.#fingerprints.length;
  }
}
