// Deciding a request on a bucket's records and writing what changed back,
// with a compare-and-set: the one place that decides how a decision and its
// reply reach the shared store. A process that loses the race reads the
// bucket again and decides again on it (the winner's change is then part of
// the decision); a reply written after its decision puts back only the
// records it changed, each only if no other process changed it since.

import type { RunKey } from '../run';
import type { Conversation } from './conversation';
import { decodeBucket, encodeBucket, recordMeta } from './conversation-codec';
import type { Decision, ImplicitLogs, ReadRequest } from './implicit-logs';
import type { RedisBuckets } from './redis-buckets';
import { StoreFailure } from './redis-connection';
import { RequestStore, type Exchange, type GivenReply, type Written } from './shared-exchange';
import { backOff } from './unref-waits';

/** Records kept per bucket (the conversations and branches that start alike), the most recently used first. */
export const MAX_RECORDS_PER_BUCKET = 64;
/**
 * Tries of a compare-and-set before the write is given up (counted as a
 * `conflict`): enough for a handful of processes extending one bucket at
 * once, each retry after a short random wait so they do not collide again.
 */
const TRIES = 10;

/** A decision on a bucket's records, with the request's store it changes and the records it changed. */
export interface BucketDecision {
  decision: Decision;
  store: RequestStore;
  dirty: Set<Conversation>;
}

/** Decisions on a bucket's records, and their writes back to the store. */
export class BucketWrites {
  readonly #logs: ImplicitLogs;
  readonly #buckets: RedisBuckets;
  readonly #idleTimeoutMs: number;

  constructor(logs: ImplicitLogs, buckets: RedisBuckets, idleTimeoutMs: number) {
    this.#logs = logs;
    this.#buckets = buckets;
    this.#idleTimeoutMs = idleTimeoutMs;
  }

  /** The rules applied to `read` against a bucket's records (`data`), in a store of the request's own that notes what changes. */
  decideOn(read: ReadRequest, data: string | null, run: RunKey | undefined, captureContent: boolean): BucketDecision {
    const store = this.#requestStore(data);
    const dirty = new Set<Conversation>();
    store.onChange((c) => dirty.add(c));
    const decision = this.#logs.decide(read, store, run, captureContent);
    return { decision, store, dirty };
  }

  /**
   * Writes the decision, and `reply` with it, with a compare-and-set. On a
   * lost race the bucket is read again and the request decided again on it
   * (the winner's change is then part of the decision), not reported again.
   */
  async writeDecision(exchange: Exchange, reply: GivenReply | undefined): Promise<void> {
    const { read } = exchange;
    const written = exchange.written!;
    for (let attempt = 0; attempt < TRIES; attempt++) {
      if (attempt > 0) {
        await backOff(attempt - 1);
        const bucket = await this.#buckets.load(read.key);
        const { decision, store, dirty } = this.decideOn(read, bucket.data, exchange.run, exchange.captureContent);
        Object.assign(written, { pending: decision.commit(), store, dirty, version: bucket.version });
      }
      if (reply !== undefined) written.pending.reply(reply.messages, reply.stored, reply.context);
      const data = encodeBucket(written.store.newestFirst(), written.dirty, MAX_RECORDS_PER_BUCKET);
      const version = await this.#buckets.write(read.key, written.version, data, reply === undefined ? [] : written.store.replies);
      if (version !== undefined) {
        written.dirty.clear();
        written.version = version;
        return;
      }
    }
    throw new StoreFailure('conflict', `lost the compare-and-set ${TRIES} times`);
  }

  /**
   * Records a reply given after its decision was written, and writes back
   * what it changed. On a lost race only the records this request changed are put
   * back, each only if no other process changed it since (a reply goes onto
   * its conversation only if nothing extended it meanwhile, as in memory).
   */
  async writeReply(read: ReadRequest, written: Written, reply: GivenReply): Promise<void> {
    const base = new Map<Conversation, number | undefined>();
    for (const c of written.store.newestFirst()) base.set(c, recordMeta(c)?.rev);
    written.pending.reply(reply.messages, reply.stored, reply.context);
    if (written.dirty.size === 0) return;
    const dirty = [...written.dirty];
    let version = written.version;
    let records = written.store.newestFirst();
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const changed = new Set(dirty.filter((c) => records.includes(c)));
      if (changed.size === 0) return;
      const data = encodeBucket(records, changed, MAX_RECORDS_PER_BUCKET);
      const next = await this.#buckets.write(read.key, version, data, written.store.replies);
      if (next !== undefined) {
        written.dirty.clear();
        written.version = next;
        return;
      }
      await backOff(attempt);
      const bucket = await this.#buckets.load(read.key);
      version = bucket.version;
      records = mergeChanges(decoded(bucket.data), dirty, base);
    }
    throw new StoreFailure('conflict', `lost the compare-and-set ${TRIES} times`);
  }

  /** An in-memory store of the request's own, holding the bucket's records in their recency order. */
  #requestStore(data: string | null): RequestStore {
    const records = decoded(data);
    const store = new RequestStore({ maxConversations: 2 * MAX_RECORDS_PER_BUCKET + 16, idleTimeoutMs: this.#idleTimeoutMs }, () => {});
    for (let i = records.length - 1; i >= 0; i--) store.add(records[i]!);
    return store;
  }
}

/** A bucket's records; one that cannot be read is a `decode` failure. */
function decoded(data: string | null): Conversation[] {
  try {
    return decodeBucket(data);
  } catch (error) {
    throw new StoreFailure('decode', error instanceof Error ? error.message : String(error));
  }
}

/**
 * The fresh bucket with this request's changes put back: a record it
 * changed replaces the stored one only if that one is still at the
 * revision this request read; a record it made is added first.
 */
function mergeChanges(
  fresh: Conversation[],
  dirty: readonly Conversation[],
  base: ReadonlyMap<Conversation, number | undefined>,
): Conversation[] {
  const merged = fresh.slice();
  for (const mine of dirty) {
    const id = recordMeta(mine)?.id;
    const at = id === undefined ? -1 : merged.findIndex((c) => recordMeta(c)?.id === id);
    if (at >= 0) {
      if (recordMeta(merged[at]!)?.rev === base.get(mine)) merged[at] = mine;
    } else if (!base.has(mine)) merged.unshift(mine);
  }
  return merged;
}
