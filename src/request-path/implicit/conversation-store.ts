// The conversations the implicit log keeps: capped in number, the least
// recently used dropped first, idle ones dropped after a timeout, indexed by
// their first non-system message.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { Conversation } from './conversation';

/**
 * Why the implicit log dropped a conversation: `idle` (unused past the idle
 * timeout) or `capacity` (the cap was reached and it was the least recently
 * used). Recorded on the eviction counter (docs/behaviour.md §6.2, §8.6).
 */
export type EvictionReason = 'idle' | 'capacity';

/**
 * The implicit log's bounds, which keep its memory bounded however many
 * conversations a process sees (docs/behaviour.md §8.6).
 */
export interface StoreLimits {
  /** Conversations kept at most. */
  maxConversations: number;
  /** Milliseconds a conversation may go unused before it is dropped. */
  idleTimeoutMs: number;
}

/**
 * The conversations the implicit log keeps, in recency order and indexed by the
 * fingerprint of their first non-system message ("starts like",
 * docs/behaviour.md §8.2). Capped at `maxConversations`, the least recently
 * used evicted first, and dropping those idle past `idleTimeoutMs`; each
 * eviction is reported through `onEvict` (docs/behaviour.md §8.6).
 */
export class ConversationStore {
  /** Insertion order is recency order: a touched conversation is moved to the end. */
  readonly #recent = new Set<Conversation>();
  /** The most recently used conversation of each key; the rest of its bucket follows by `older` links. */
  readonly #byKey = new Map<Fingerprint, Conversation>();
  readonly #limits: StoreLimits;
  readonly #onEvict: (reason: EvictionReason) => void;

  /** `onEvict` is called once per conversation dropped, with the reason. */
  constructor(limits: StoreLimits, onEvict: (reason: EvictionReason) => void) {
    this.#limits = limits;
    this.#onEvict = onEvict;
  }

  /** How many conversations are kept. */
  get size(): number {
    return this.#recent.size;
  }

  /**
   * The conversations that start like a request with first non-system message
   * `key`, most recent first, at most `limit`. A bucket is a list in recency
   * order (`add` and `touch` put a conversation first), so this walks its
   * first `limit`: neither a sort nor a walk of the whole bucket, which may
   * hold every conversation kept (one system prompt and first message shared
   * by all).
   */
  candidates(key: Fingerprint, now: number, limit: number): Conversation[] {
    this.expire(now);
    const list: Conversation[] = [];
    for (let c = this.#byKey.get(key); c !== undefined && list.length < limit; c = c.older) list.push(c);
    return list;
  }

  /** Whether `conversation` is still kept (not evicted). */
  has(conversation: Conversation): boolean {
    return this.#recent.has(conversation);
  }

  /** Adds a conversation as the most recently used, then evicts the least recently used while over the cap. */
  add(conversation: Conversation): void {
    this.#recent.add(conversation);
    this.#link(conversation);
    while (this.#recent.size > this.#limits.maxConversations) {
      const oldest = this.#recent.values().next().value as Conversation;
      this.#remove(oldest);
      this.#onEvict('capacity');
    }
  }

  /**
   * Marks a conversation used at `now` and moves it to the most recent end
   * of the store, and first in its bucket. That keeps recency order sorted by
   * `lastUsed`, so `expire` can stop at the first conversation still fresh
   * and `candidates` can take a bucket's first ones.
   */
  touch(conversation: Conversation, now: number): void {
    conversation.lastUsed = now;
    if (!this.#recent.delete(conversation)) return;
    this.#recent.add(conversation);
    this.#unlink(conversation);
    this.#link(conversation);
  }

  /** Drops conversations idle for longer than the timeout (the oldest are first in recency order). */
  expire(now: number): void {
    for (const conversation of this.#recent) {
      if (now - conversation.lastUsed <= this.#limits.idleTimeoutMs) break;
      this.#remove(conversation);
      this.#onEvict('idle');
    }
  }

  #remove(conversation: Conversation): void {
    this.#recent.delete(conversation);
    this.#unlink(conversation);
  }

  /** Puts a conversation first in its bucket. */
  #link(conversation: Conversation): void {
    const newest = this.#byKey.get(conversation.key);
    conversation.older = newest;
    conversation.newer = undefined;
    if (newest !== undefined) newest.newer = conversation;
    this.#byKey.set(conversation.key, conversation);
  }

  /** Takes a conversation out of its bucket (a bucket left empty is dropped). */
  #unlink(conversation: Conversation): void {
    const { newer, older } = conversation;
    if (older !== undefined) older.newer = newer;
    if (newer !== undefined) newer.older = older;
    else if (older !== undefined) this.#byKey.set(conversation.key, older);
    else this.#byKey.delete(conversation.key);
    conversation.newer = conversation.older = undefined;
  }
}
