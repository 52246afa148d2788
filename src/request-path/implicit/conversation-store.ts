// The conversations the implicit log keeps: capped in number, the least
// recently used dropped first, idle ones dropped after a timeout, indexed by
// their first non-system message.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { Conversation } from './conversation';

export type EvictionReason = 'idle' | 'capacity';

export interface StoreLimits {
  maxConversations: number;
  idleTimeoutMs: number;
}

export class ConversationStore {
  /** Insertion order is recency order: a touched conversation is moved to the end. */
  readonly #recent = new Set<Conversation>();
  readonly #byKey = new Map<Fingerprint, Set<Conversation>>();
  readonly #limits: StoreLimits;
  readonly #onEvict: (reason: EvictionReason) => void;

  constructor(limits: StoreLimits, onEvict: (reason: EvictionReason) => void) {
    this.#limits = limits;
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#recent.size;
  }

  /** The conversations that start like a request with first non-system message `key`, most recent first. */
  candidates(key: Fingerprint, now: number, limit: number): Conversation[] {
    this.expire(now);
    const found = this.#byKey.get(key);
    if (found === undefined) return [];
    const list = [...found].sort((a, b) => b.lastUsed - a.lastUsed);
    return list.length > limit ? list.slice(0, limit) : list;
  }

  add(conversation: Conversation): void {
    this.#recent.add(conversation);
    let bucket = this.#byKey.get(conversation.key);
    if (bucket === undefined) this.#byKey.set(conversation.key, (bucket = new Set()));
    bucket.add(conversation);
    while (this.#recent.size > this.#limits.maxConversations) {
      const oldest = this.#recent.values().next().value as Conversation;
      this.#remove(oldest);
      this.#onEvict('capacity');
    }
  }

  touch(conversation: Conversation, now: number): void {
    conversation.lastUsed = now;
    if (this.#recent.delete(conversation)) this.#recent.add(conversation);
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
    const bucket = this.#byKey.get(conversation.key);
    bucket?.delete(conversation);
    if (bucket?.size === 0) this.#byKey.delete(conversation.key);
  }
}
