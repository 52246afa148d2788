// The shared store's round trips to Redis (or Valkey, or a Redis Cluster):
// read a bucket, write it back if no other process wrote it since. Each
// conversation's bucket is one key, hash-tagged (`{...}`) so that a Cluster
// keeps it and the script that writes it on one node; a reply's mark is a key
// of its own, set and read by plain commands, so no command spans two slots.
// The commands go through a `RedisConnection` (the package's client or the
// app's); a failure is thrown at once, classified, and the caller checks on
// the process's memory until the pause after it has passed.

import type { Fingerprint } from '../../invariant/fingerprint';
import { StoreFailure, type RedisConnection } from './redis-connection';
import { runScript } from './redis-scripts/script';
import { MARK_FAULT } from './redis-scripts/mark-fault';
import { WRITE_BUCKET } from './redis-scripts/write-bucket';

/** A bucket as read: its version (`0` when absent), its encoded records, which of the replies asked about some process observed, and whether a fault hid some of its replies. */
export interface Bucket {
  version: string;
  data: string | null;
  replies: Fingerprint[];
  faulted: boolean;
}

/** After a failure, the store is left alone this long (checks use the process's memory), then probed again. */
export const RETRY_AFTER_MS = 1000;

/** Buckets of conversation records in Redis, one key per "starts like" key, under a prefix. */
export class RedisBuckets {
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #ttlMs: number;
  /**
   * Known down since a failure: no request uses the store until a probe
   * (off every request's path) finds it answering. The one place that
   * decides whether a request may try the store.
   */
  #down = false;
  #pausedUntil = 0;
  /** Round trips made, one per wait on Redis however many commands it carried (benchmarks and tests read it). */
  roundTrips = 0;

  /** `ttlMs`: a bucket not written for this long expires (the implicit log's idle timeout). */
  constructor(connection: RedisConnection, prefix: string, ttlMs: number) {
    this.#connection = connection;
    this.#prefix = prefix;
    this.#ttlMs = Math.max(1, Math.round(ttlMs));
  }

  /** The key a bucket is kept under: its hash tag is the conversation's key, one slot per bucket in a Cluster. */
  keyOf(key: Fingerprint): string {
    return `${this.#prefix}:nsi:conv:{${key.toString(36)}}`;
  }

  /** Whether a request may use the store now: not known to be down. */
  available(_now: number): boolean {
    return !this.#down;
  }

  /** A failure happened at `now`: the store is down until a probe after the pause finds it answering. */
  pause(now: number): void {
    this.#down = true;
    this.#pausedUntil = now + RETRY_AFTER_MS;
  }

  /**
   * Whether the store may be used again: true at once when it is not known
   * to be down; false within the pause; after it, one `PING` (its own
   * deadline bounds it) decides: any answer, an error reply too, says the
   * server is there, and a failure to reach it (or to be let in) is thrown,
   * as a round trip's failure is.
   */
  async probe(now: number): Promise<boolean> {
    if (!this.#down) return true;
    if (now < this.#pausedUntil) return false;
    this.#pausedUntil = now + RETRY_AFTER_MS;
    try {
      await this.#connection.send(['PING']);
    } catch (error) {
      const reason = error instanceof StoreFailure ? error.reason : 'connection';
      if (reason === 'connection' || reason === 'timeout' || reason === 'client' || reason === 'auth') throw error;
    }
    this.#down = false;
    return true;
  }

  /**
   * Reads a bucket, and which of `replies` (fingerprints) a process
   * observed: its commands sent at once, one round trip. The marks are asked
   * with one MGET on one server, a GET each on a Cluster (their keys are in
   * as many slots).
   */
  async load(key: Fingerprint, replies: readonly Fingerprint[] = []): Promise<Bucket> {
    this.roundTrips++;
    const marks = replies.map((r) => this.#replyKey(r));
    const asked =
      marks.length === 0
        ? []
        : this.#connection.oneServer
          ? [this.#connection.send(['MGET', ...marks])]
          : marks.map((mark) => this.#connection.send(['GET', mark]));
    const [bucket, ...answers] = await Promise.all([this.#connection.send(['HMGET', this.keyOf(key), 'v', 'd', 'f']), ...asked]);
    const seen: unknown[] = this.#connection.oneServer && Array.isArray(answers[0]) ? (answers[0] as unknown[]) : answers;
    const [version, data, faulted] = Array.isArray(bucket) ? (bucket as Array<string | null>) : [];
    return {
      version: typeof version === 'string' ? version : '0',
      data: typeof data === 'string' ? data : null,
      replies: replies.filter((_, i) => seen[i] !== null && seen[i] !== undefined),
      faulted: typeof faulted === 'string',
    };
  }

  /**
   * Writes a bucket if its version is still `expected`, and marks `replies`
   * (fingerprints of replies observed) for other processes, in the same
   * round trip: the new version, or undefined when another process wrote
   * first. A mark says a process observed that reply, true whether or not
   * this write wins.
   */
  async write(key: Fingerprint, expected: string, data: string, replies: readonly Fingerprint[] = []): Promise<string | undefined> {
    this.roundTrips++;
    const ttl = String(this.#ttlMs);
    const [version] = await Promise.all([
      runScript(this.#connection, WRITE_BUCKET, [this.keyOf(key)], [expected, data, ttl]),
      ...replies.map((r) => this.#connection.send(['SET', this.#replyKey(r), '1', 'PX', ttl])),
    ]);
    return typeof version === 'string' ? version : undefined;
  }

  /**
   * After a fault: marks `replies` observed (as `write` does) and the bucket
   * as one a fault hid some replies of, in one round trip.
   */
  async markFault(key: Fingerprint, replies: readonly Fingerprint[]): Promise<void> {
    this.roundTrips++;
    const ttl = String(this.#ttlMs);
    await Promise.all([
      runScript(this.#connection, MARK_FAULT, [this.keyOf(key)], [ttl]),
      ...replies.map((r) => this.#connection.send(['SET', this.#replyKey(r), '1', 'PX', ttl])),
    ]);
  }

  /** The key marking a reply (by fingerprint) as observed by some process; hash-tagged on its own. */
  #replyKey(reply: Fingerprint): string {
    return `${this.#prefix}:nsi:reply:{${reply.toString(36)}}`;
  }

  /** Closes the connection, if the package opened it (the process never waits on it). */
  close(): void {
    this.#connection.close();
  }
}
