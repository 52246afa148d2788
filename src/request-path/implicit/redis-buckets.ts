// The shared store's round trips to Redis (or Valkey): read a bucket, write
// it back if no other process wrote it since. `ioredis` is loaded only here,
// on first use, so an app that keeps the default store never loads it.
// Every wait is bounded (connect, command) and nothing is queued while Redis
// is away: a failure is thrown at once, classified, and the caller checks on
// the process's memory until the pause after it has passed.

import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import type { Fingerprint } from '../../invariant/fingerprint';

/** Why a round trip failed, as counted on `nous.session.invariant.store.errors`. */
export type StoreErrorReason = 'connection' | 'timeout' | 'script' | 'decode' | 'conflict' | 'client';

/** A failed round trip, with its reason. */
export class StoreFailure extends Error {
  readonly reason: StoreErrorReason;

  constructor(reason: StoreErrorReason, message: string) {
    super(message);
    this.name = 'StoreFailure';
    this.reason = reason;
  }
}

/** A bucket as read: its version (`0` when absent), its encoded records, and which of the replies asked about some process observed. */
export interface Bucket {
  version: string;
  data: string | null;
  replies: Fingerprint[];
}

/** How long one command may take; Redis answers in about a millisecond. */
export const COMMAND_TIMEOUT_MS = 500;
/** How long a connection may take to open. */
export const CONNECT_TIMEOUT_MS = 1000;
/** After a failure, the store is left alone this long (checks use the process's memory), then tried again. */
export const RETRY_AFTER_MS = 1000;

/**
 * Writes the bucket when its version is still the one read, and sets its
 * expiry: the compare-and-set every write goes through. Then marks the
 * replies the write recorded as observed (a key each under ARGV[4], with the
 * same expiry), so that another process takes them for replies a model sent.
 * Returns the new version, or nil when another process wrote first.
 */
const CAS_SCRIPT = `
local current = redis.call('HGET', KEYS[1], 'v')
if (current or '0') ~= ARGV[1] then return false end
local next = tostring((tonumber(current) or 0) + 1)
redis.call('HSET', KEYS[1], 'v', next, 'd', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
for i = 5, #ARGV do redis.call('SET', ARGV[4] .. ARGV[i], '1', 'PX', ARGV[3]) end
return next
`;

type CasClient = RedisClient & {
  nsiCas(key: string, expected: string, data: string, ttlMs: number, replyPrefix: string, ...replies: string[]): Promise<string | null>;
};

/** Buckets of conversation records in Redis, one key per "starts like" key, under a prefix. */
export class RedisBuckets {
  readonly #url: string;
  readonly #prefix: string;
  readonly #ttlMs: number;
  #client: Promise<CasClient> | undefined;
  #connecting: Promise<void> | undefined;
  #pausedUntil = 0;
  /** Round trips made (benchmarks and tests read it). */
  roundTrips = 0;

  /** `ttlMs`: a bucket not written for this long expires (the implicit log's idle timeout). */
  constructor(url: string, prefix: string, ttlMs: number) {
    this.#url = url;
    this.#prefix = prefix;
    this.#ttlMs = Math.max(1, Math.round(ttlMs));
  }

  /** The key a bucket is kept under. */
  keyOf(key: Fingerprint): string {
    return `${this.#prefix}:nsi:conv:${key.toString(36)}`;
  }

  /** Whether the store may be tried now (not within the pause after a failure). */
  available(now: number): boolean {
    return now >= this.#pausedUntil;
  }

  /** A failure happened at `now`: leave the store alone for a while. */
  pause(now: number): void {
    this.#pausedUntil = now + RETRY_AFTER_MS;
  }

  /** Reads a bucket, and which of `replies` (fingerprints) a process observed, in one round trip. */
  async load(key: Fingerprint, replies: readonly Fingerprint[] = []): Promise<Bucket> {
    const client = await this.#ready();
    this.roundTrips++;
    const pipeline = client.pipeline().hmget(this.keyOf(key), 'v', 'd');
    if (replies.length > 0) pipeline.mget(...replies.map((r) => this.#replyKey(r)));
    const results = await pipeline.exec().catch(rethrow);
    const failed = results?.find(([error]) => error !== null)?.[0];
    if (results === null || failed) rethrow(failed ?? new Error('the pipeline was discarded'));
    const [version, data] = results[0]![1] as Array<string | null>;
    const seen = replies.length > 0 ? (results[1]![1] as Array<string | null>) : [];
    return { version: version ?? '0', data: data ?? null, replies: replies.filter((_, i) => seen[i] !== null) };
  }

  /**
   * Writes a bucket if its version is still `expected`, and marks `replies`
   * (fingerprints of replies observed) for other processes: the new version,
   * or undefined when another process wrote first.
   */
  async write(key: Fingerprint, expected: string, data: string, replies: readonly Fingerprint[] = []): Promise<string | undefined> {
    const client = await this.#ready();
    this.roundTrips++;
    const version = await client
      .nsiCas(this.keyOf(key), expected, data, this.#ttlMs, this.#replyKey(''), ...replies.map((r) => r.toString(36)))
      .catch(rethrow);
    return version ?? undefined;
  }

  /** The key marking a reply (by fingerprint) as observed by some process; with '' its prefix. */
  #replyKey(reply: Fingerprint | ''): string {
    return `${this.#prefix}:nsi:reply:${reply === '' ? '' : reply.toString(36)}`;
  }

  /** Closes the connection, if one was opened (the process never waits on it). */
  close(): void {
    void this.#client?.then(
      (client) => client.disconnect(),
      () => {},
    );
  }

  async #ready(): Promise<CasClient> {
    const client = await (this.#client ??= createClient(this.#url));
    if (client.status === 'ready') return client;
    if (client.status === 'wait' || client.status === 'end' || client.status === 'close') {
      this.#connecting ??= client.connect().finally(() => (this.#connecting = undefined));
    }
    if (this.#connecting !== undefined) await this.#connecting.catch(rethrow);
    const status: string = client.status;
    if (status !== 'ready') throw new StoreFailure('connection', `the store is ${status}`);
    return client;
  }
}

async function createClient(url: string): Promise<CasClient> {
  let Redis: typeof import('ioredis').Redis;
  try {
    Redis = (await import('ioredis')).Redis;
  } catch {
    throw new StoreFailure('client', 'the shared store needs the ioredis package (npm install ioredis)');
  }
  const options: RedisOptions = {
    lazyConnect: true,
    // Nothing waits for a connection that is not there: a command then fails at once.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // No reconnect timer of ioredis's own (it would hold the process): the next check after the pause reconnects.
    retryStrategy: () => null,
  };
  const client = new Redis(url, options) as CasClient;
  // Failures are counted where a round trip fails; an unheard 'error' event would crash the app.
  client.on('error', () => {});
  // The connection never holds the process's exit.
  client.on('connect', () => client.stream?.unref?.());
  client.defineCommand('nsiCas', { numberOfKeys: 1, lua: CAS_SCRIPT });
  return client;
}

/** Rethrows a client's error as a `StoreFailure` with its reason. */
function rethrow(error: unknown): never {
  if (error instanceof StoreFailure) throw error;
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  if (/timed out|timeout/i.test(message)) throw new StoreFailure('timeout', message);
  if (name === 'ReplyError') throw new StoreFailure('script', message);
  throw new StoreFailure('connection', message);
}
