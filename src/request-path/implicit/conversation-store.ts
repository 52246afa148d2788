// The conversations the implicit log keeps, behind one seam: every change to a
// conversation record goes through a `ConversationStore`, so that a store
// shared between processes (shared-logs.ts) sees each one. The in-memory
// store here is the default: capped in number, the least recently used
// dropped first, idle ones dropped after a timeout, indexed by their first
// non-system message.

import type { Fingerprint } from '../../invariant/fingerprint';
import { SYSTEM_FINGERPRINT } from '../../invariant/fingerprint';
import type { MessageSketch } from '../../invariant/sketch';
import { chainOf as chainOfPrefix, type Conversation, type LastRequest } from './conversation';

/** Conversations by an integer key: one held as itself, more in a set (most keys have one). */
class MultiIndex {
  readonly #map = new Map<number, Conversation | Set<Conversation>>();

  /** How many keys it holds. */
  get size(): number {
    return this.#map.size;
  }

  add(key: number, conversation: Conversation): void {
    const held = this.#map.get(key);
    if (held === undefined) this.#map.set(key, conversation);
    else if (held instanceof Set) held.add(conversation);
    else if (held !== conversation) this.#map.set(key, new Set([held, conversation]));
  }

  delete(key: number, conversation: Conversation): void {
    const held = this.#map.get(key);
    if (held === conversation) this.#map.delete(key);
    else if (held instanceof Set) {
      held.delete(conversation);
      if (held.size === 1) this.#map.set(key, held.values().next().value as Conversation);
    }
  }

  /** The conversations under `key`, in the order they were put there. */
  get(key: number): Conversation | ReadonlySet<Conversation> | undefined {
    return this.#map.get(key);
  }
}

/** Calls `visit` for each conversation of an index entry, until it returns false. */
export function eachOf(held: Conversation | ReadonlySet<Conversation> | undefined, visit: (c: Conversation) => boolean | void): void {
  if (held === undefined) return;
  if (!(held instanceof Set)) {
    visit(held as Conversation);
    return;
  }
  for (const c of held) if (visit(c) === false) return;
}

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

/** What a reply adds to the conversation it answers (docs/behaviour.md §8.4). */
export interface RecordedReply {
  /** The request ended in a prefill: its last message is replaced by prefill and reply merged. */
  dropPrefill: boolean;
  fingerprints: readonly Fingerprint[];
  sketches: readonly MessageSketch[];
}

/**
 * The seam every change to a conversation record goes through
 * (docs/behaviour.md §10): the implicit log finds candidates through it and
 * never changes a `Conversation` itself. Reads are synchronous: a store
 * shared between processes loads what a request may continue into a
 * per-request in-memory store first, and writes back what `onChange`
 * reported (shared-logs.ts).
 */
export interface ConversationStore {
  /** How many conversations are kept. */
  readonly size: number;
  /** The conversations that start like a request with first non-system message `key`, most recent first, at most `limit` (idle ones evicted first). */
  candidates(key: Fingerprint, now: number, limit: number): Conversation[];
  /** The conversations whose messages (all but an open prefill) have this chain hash. */
  byEnd(chain: number): Conversation | ReadonlySet<Conversation> | undefined;
  /** The conversations whose last request, answered since, carried messages with this chain hash. */
  byLost(chain: number): Conversation | ReadonlySet<Conversation> | undefined;
  /** Whether any conversation could have lost a reply. */
  readonly anyLost: boolean;
  /** The conversations whose last message has this fingerprint. */
  byLast(fingerprint: number): Conversation | ReadonlySet<Conversation> | undefined;
  /** Whether `conversation` is still kept. */
  has(conversation: Conversation): boolean;
  /** Keeps a new conversation (a new one, or a branch of a known one) as the most recently used. */
  branch(conversation: Conversation): void;
  /** Appends a request's new messages to a kept conversation, which that request now last extended. */
  extend(
    conversation: Conversation,
    fingerprints: ArrayLike<Fingerprint>,
    sketches: readonly MessageSketch[],
    lastRequest: LastRequest,
    now: number,
  ): void;
  /** Appends the model's observed reply to the conversation its request extended. */
  recordReply(conversation: Conversation, reply: RecordedReply): void;
  /** Evicts the conversations idle past the timeout. */
  evict(now: number): void;
  /** Calls `listener` after each change to a conversation (kept, extended, replied to, touched). */
  onChange(listener: (conversation: Conversation) => void): void;
}

/**
 * The in-memory conversation store, the default: in recency order and indexed by the
 * fingerprint of their first non-system message ("starts like",
 * docs/behaviour.md §8.2). Capped at `maxConversations`, the least recently
 * used evicted first, and dropping those idle past `idleTimeoutMs`; each
 * eviction is reported through `onEvict` (docs/behaviour.md §8.6).
 */
export class MemoryConversationStore implements ConversationStore {
  /** Insertion order is recency order: a touched conversation is moved to the end. */
  readonly #recent = new Set<Conversation>();
  /** The most recently used conversation of each key; the rest of its bucket follows by `older` links. */
  readonly #byKey = new Map<Fingerprint, Conversation>();
  /**
   * The indexes a request finds its conversation by, whatever the number of
   * conversations that start alike (docs/behaviour.md §8.6): by the chain hash
   * of a conversation's messages (of all but the last while it ends in a
   * prefill with no reply yet), the continuation; by the chain hash of its
   * messages as its last request carried them, once the reply to it came, the
   * lost reply; by the fingerprint of its last message, a rejoin.
   */
  readonly #byEnd = new MultiIndex();
  readonly #byLost = new MultiIndex();
  readonly #byLast = new MultiIndex();
  #stamp = 0;
  /** The last of `#recent` (the most recently used), when known. */
  #newest: Conversation | undefined;
  /**
   * No conversation can be idle past the timeout at or before this time: the
   * earliest `lastUsed` plus the timeout, or earlier. Only ever lowered by a
   * conversation kept or touched, and set exactly by a walk of `expire`.
   */
  #quietUntil = Infinity;
  readonly #limits: StoreLimits;
  readonly #onEvict: (reason: EvictionReason) => void;
  readonly #listeners: Array<(conversation: Conversation) => void> = [];

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

  /** The conversations whose messages (all but an open prefill) have this chain hash. */
  byEnd(chain: number): Conversation | ReadonlySet<Conversation> | undefined {
    return this.#byEnd.get(chain);
  }

  /** The conversations whose last request, answered since, carried messages with this chain hash. */
  byLost(chain: number): Conversation | ReadonlySet<Conversation> | undefined {
    return this.#byLost.get(chain);
  }

  /** Whether any conversation could have lost a reply (its last request made in a run, and answered). */
  get anyLost(): boolean {
    return this.#byLost.size > 0;
  }

  /** The conversations whose last message has this fingerprint. */
  byLast(fingerprint: number): Conversation | ReadonlySet<Conversation> | undefined {
    return this.#byLast.get(fingerprint);
  }

  /**
   * Puts a kept conversation under its current keys, after its messages or
   * its last request changed. Constant time unless the last request is more
   * than one message behind (a reply of several messages).
   */
  reindex(conversation: Conversation): void {
    if (!this.#recent.has(conversation)) return;
    this.#unindex(conversation);
    const last = conversation.lastRequest;
    const length = conversation.length;
    const open = last.prefill && !last.replyObserved;
    conversation.indexedEnd = open ? conversation.chainButLast : conversation.chain;
    this.#byEnd.add(conversation.indexedEnd, conversation);
    if (last.run !== undefined && last.replyObserved && !last.prefill && length > last.length) {
      conversation.indexedLost =
        last.length === length - 1 ? conversation.chainButLast : chainOfPrefix(conversation.fingerprints, last.length);
      this.#byLost.add(conversation.indexedLost, conversation);
    }
    const lastFingerprint = conversation.fingerprints[length - 1];
    if (lastFingerprint !== undefined && lastFingerprint !== SYSTEM_FINGERPRINT) {
      conversation.indexedLast = lastFingerprint;
      this.#byLast.add(lastFingerprint, conversation);
    }
  }

  #unindex(conversation: Conversation): void {
    if (conversation.indexedEnd >= 0) this.#byEnd.delete(conversation.indexedEnd, conversation);
    if (conversation.indexedLost >= 0) this.#byLost.delete(conversation.indexedLost, conversation);
    if (conversation.indexedLast >= 0) this.#byLast.delete(conversation.indexedLast, conversation);
    conversation.indexedEnd = conversation.indexedLost = conversation.indexedLast = -1;
  }

  branch(conversation: Conversation): void {
    this.add(conversation);
    this.#changed(conversation);
  }

  extend(
    conversation: Conversation,
    fingerprints: ArrayLike<Fingerprint>,
    sketches: readonly MessageSketch[],
    lastRequest: LastRequest,
    now: number,
  ): void {
    conversation.append(fingerprints, sketches);
    conversation.lastRequest = lastRequest;
    this.touch(conversation, now);
    this.#changed(conversation);
  }

  recordReply(conversation: Conversation, reply: RecordedReply): void {
    if (reply.dropPrefill) conversation.dropLast();
    conversation.append(reply.fingerprints, reply.sketches);
    conversation.lastRequest.replyObserved = true;
    this.reindex(conversation);
    this.#changed(conversation);
  }

  evict(now: number): void {
    this.expire(now);
  }

  onChange(listener: (conversation: Conversation) => void): void {
    this.#listeners.push(listener);
  }

  #changed(conversation: Conversation): void {
    for (const listener of this.#listeners) listener(conversation);
  }

  /** Every conversation kept, the most recently used first (a shared store writes them back in this order). */
  newestFirst(): Conversation[] {
    return [...this.#recent].reverse();
  }

  /** Whether `conversation` is still kept (not evicted). */
  has(conversation: Conversation): boolean {
    return this.#recent.has(conversation);
  }

  /** Adds a conversation as the most recently used, then evicts the least recently used while over the cap. */
  add(conversation: Conversation): void {
    if (!this.#recent.has(conversation)) this.#newest = conversation;
    this.#recent.add(conversation);
    this.#lowerQuietUntil(conversation.lastUsed);
    conversation.stamp = ++this.#stamp;
    this.#link(conversation);
    this.reindex(conversation);
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
    this.#lowerQuietUntil(now);
    if (conversation === this.#newest) {
      // Already the most recently used (a loop continuing its conversation): only its keys moved.
      conversation.stamp = ++this.#stamp;
      this.reindex(conversation);
      if (conversation.newer !== undefined) {
        this.#unlink(conversation);
        this.#link(conversation);
      }
      return;
    }
    if (!this.#recent.delete(conversation)) return;
    this.#recent.add(conversation);
    this.#newest = conversation;
    conversation.stamp = ++this.#stamp;
    this.reindex(conversation);
    this.#unlink(conversation);
    this.#link(conversation);
  }

  /**
   * Drops conversations idle for longer than the timeout (the oldest are
   * first in recency order). Walks nothing while no conversation can have
   * gone idle: `#quietUntil` is a time up to which none can.
   */
  expire(now: number): void {
    if (now <= this.#quietUntil) return;
    this.#quietUntil = Infinity;
    for (const conversation of this.#recent) {
      if (now - conversation.lastUsed <= this.#limits.idleTimeoutMs) {
        this.#quietUntil = conversation.lastUsed + this.#limits.idleTimeoutMs;
        break;
      }
      this.#remove(conversation);
      this.#onEvict('idle');
    }
  }

  /** Keeps `#quietUntil` at or before the time a conversation last used at `used` goes idle. */
  #lowerQuietUntil(used: number): void {
    const idle = used + this.#limits.idleTimeoutMs;
    if (idle < this.#quietUntil) this.#quietUntil = idle;
  }

  #remove(conversation: Conversation): void {
    if (conversation === this.#newest) this.#newest = undefined;
    this.#recent.delete(conversation);
    this.#unlink(conversation);
    this.#unindex(conversation);
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
