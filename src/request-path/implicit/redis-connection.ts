// The one place the shared store's commands reach Redis: through a client the
// package opens itself from a URL (an ioredis `Redis`, or a `Cluster` for
// `redis+cluster://`), or through the app's own client (an ioredis instance,
// or a function that sends one command). `ioredis` is loaded only here, on
// first use, and only for a URL. Every wait is bounded, whoever owns the
// client: a command that has not answered by its deadline fails as a
// `timeout`, and each failure is classified once, here, into the reason the
// store's error counter carries.

import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { warnOnce } from '../../warnings';
import type { RedisStoreClient } from '../host';
import type { RedisTarget, RedisUrl } from './store-config';

/** Why a round trip failed, as counted on `nous.session.invariant.store.errors` (docs/shared-store.md). */
export type StoreErrorReason = 'connection' | 'timeout' | 'auth' | 'script' | 'decode' | 'conflict' | 'client';

/** A failed round trip, with its reason. */
export class StoreFailure extends Error {
  readonly reason: StoreErrorReason;

  constructor(reason: StoreErrorReason, message: string) {
    super(message);
    this.name = 'StoreFailure';
    this.reason = reason;
  }
}

/**
 * How long one command may take; Redis answers in about a millisecond. No
 * caller waits for it (shared-logs.ts): it bounds how late a check is
 * reported, and how soon a store that stopped answering is found down. A
 * loaded machine's Redis that answers within it is not taken for down.
 */
export const COMMAND_TIMEOUT_MS = 1000;
/** How long a connection may take to open (and to pass its ready check); no caller waits for it either. */
export const CONNECT_TIMEOUT_MS = 2000;

/** Commands to Redis, whoever owns the client. */
export interface RedisConnection {
  /** Whether a command may name keys of several slots: one server, not a Cluster (a function's client may be either: no). */
  readonly oneServer: boolean;
  /** Sends one command (its words); rejects with a `StoreFailure` on an error or past the deadline. */
  send(args: readonly string[]): Promise<unknown>;
  /** Closes a client the package opened; the app's own client is left alone. */
  close(): void;
}

/** The connection for a store target. */
export function connectionFor(target: RedisTarget): RedisConnection {
  return target.kind === 'url' ? new OwnClient(target) : new AppClient(target.client);
}

/** The app's own client: commands go through it as they are, each with the package's deadline. */
class AppClient implements RedisConnection {
  readonly #client: RedisStoreClient;
  readonly oneServer: boolean;

  constructor(client: RedisStoreClient) {
    this.#client = client;
    // An ioredis `Redis` says `isCluster: false`; a `Cluster`, true.
    this.oneServer = typeof client !== 'function' && (client as { isCluster?: unknown }).isCluster === false;
  }

  send(args: readonly string[]): Promise<unknown> {
    const client = this.#client;
    return deadline(
      // A function that throws instead of rejecting is a failure like any other.
      Promise.resolve().then(() => (typeof client === 'function' ? client(...args) : client.call(args[0]!, ...args.slice(1)))),
      COMMAND_TIMEOUT_MS,
    );
  }

  close(): void {}
}

type OwnRedis = Redis | Cluster;

/**
 * A client the package opens from a URL: nothing queued while Redis is away,
 * no reconnect timer of the client's own (the next round trip after the
 * store's pause reconnects), and no socket that holds the process's exit.
 */
class OwnClient implements RedisConnection {
  readonly #url: RedisUrl;
  #client: Promise<OwnRedis> | undefined;
  #connecting: Promise<void> | undefined;
  /** The client's last error event: why a connection did not become ready (refused credentials, say). */
  #lastError: unknown;
  #authChecked = false;
  readonly oneServer: boolean;

  constructor(url: RedisUrl) {
    this.#url = url;
    this.oneServer = !url.cluster;
  }

  async send(args: readonly string[]): Promise<unknown> {
    // Loading ioredis is not bounded (it is the module's first use, off the caller's path in warn mode); connecting is.
    const client = await deadline(
      this.#ready(await (this.#client ??= createClient(this.#url, (error) => (this.#lastError = error)))),
      CONNECT_TIMEOUT_MS,
    );
    return deadline(client.call(args[0]!, ...args.slice(1)), COMMAND_TIMEOUT_MS);
  }

  close(): void {
    void this.#client?.then(
      (client) => client.disconnect(),
      () => {},
    );
  }

  async #ready(client: OwnRedis): Promise<OwnRedis> {
    if (client.status === 'ready') return client;
    if (client.status === 'wait' || client.status === 'end' || client.status === 'close') {
      this.#lastError = undefined;
      this.#connecting ??= client.connect().finally(() => (this.#connecting = undefined));
    }
    if (this.#connecting !== undefined)
      await this.#connecting.catch((error: unknown) => Promise.reject(classify(this.#lastError ?? error)));
    const status: string = client.status;
    if (status !== 'ready') throw classify(this.#lastError ?? new Error(`the store is ${status}`));
    if (!this.#authChecked) {
      this.#authChecked = true;
      void warnOnUnneededPassword(client, this.#url);
    }
    return client;
  }
}

async function createClient(url: RedisUrl, onError: (error: unknown) => void): Promise<OwnRedis> {
  let ioredis: { Redis: typeof import('ioredis').Redis; Cluster: typeof import('ioredis').Cluster };
  try {
    ioredis = await import('ioredis');
  } catch {
    throw new StoreFailure('client', 'the shared store needs the ioredis package (npm install ioredis)');
  }
  const node: RedisOptions = {
    username: url.username,
    password: url.password,
    tls: url.tls ? {} : undefined,
    // Nothing waits for a connection that is not there: a command then fails at once.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // No reconnect timer of ioredis's own (it would hold the process).
    retryStrategy: () => null,
  };
  const unref = (redis: Redis): void => {
    // Failures are counted where a round trip fails; an unheard 'error' event would crash the app.
    redis.on('error', onError);
    // The connection never holds the process's exit.
    redis.on('connect', () => redis.stream?.unref?.());
  };
  if (!url.cluster) {
    const client = new ioredis.Redis({ ...node, host: url.nodes[0]!.host, port: url.nodes[0]!.port, db: url.db, lazyConnect: true });
    unref(client);
    return client;
  }
  const options: ClusterOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    // No timer that refreshes the slots (it would hold the process): a MOVED reply refreshes them.
    slotsRefreshInterval: 0,
    slotsRefreshTimeout: CONNECT_TIMEOUT_MS,
    redisOptions: node,
  };
  const cluster = new ioredis.Cluster(
    url.nodes.map((n) => ({ host: n.host, port: n.port })),
    options,
  );
  cluster.on('error', onError);
  cluster.on('+node', unref);
  return cluster;
}

/**
 * One warning when the URL carries a password its Redis user does not need:
 * the server takes any password then, so the URL's is not what protects the
 * store. Off the caller's path; a user that may not ask (no ACL rights) is
 * left alone.
 */
async function warnOnUnneededPassword(client: OwnRedis, url: RedisUrl): Promise<void> {
  if (url.password === undefined) return;
  try {
    const user = String(await deadline(client.call('ACL', 'WHOAMI'), COMMAND_TIMEOUT_MS));
    const described = await deadline(client.call('ACL', 'GETUSER', user), COMMAND_TIMEOUT_MS);
    const flags: unknown = Array.isArray(described) ? (described as unknown[])[described.indexOf('flags') + 1] : undefined;
    if (Array.isArray(flags) && flags.includes('nopass')) {
      warnOnce(
        'store:nopass',
        `the shared store URL ${url.shown} carries a password, but the Redis user "${user}" needs none: the server accepts any password`,
      );
    }
  } catch {
    // No rights to ask: nothing to say.
  }
}

/** `work`, or a `timeout` failure after `ms` (the timer never holds the process; a late rejection is absorbed). */
function deadline<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new StoreFailure('timeout', `no answer within ${ms} ms`)), ms);
    timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(classify(error));
      },
    );
  });
}

/** The one place that decides a failure's reason, from the client's error. */
export function classify(error: unknown): StoreFailure {
  if (error instanceof StoreFailure) return error;
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  if (/WRONGTYPE/.test(message)) return new StoreFailure('decode', message);
  if (/NOAUTH|WRONGPASS|NOPERM|invalid (username|password)|AUTH failed/i.test(message)) return new StoreFailure('auth', message);
  if (/timed out|timeout|ETIMEDOUT/i.test(message)) return new StoreFailure('timeout', message);
  // An error reply (ioredis's ReplyError, or any client's `ERR ...`, `NOSCRIPT ...`): Redis refused the command.
  if (name === 'ReplyError' || /^[A-Z]{3,} /.test(message)) return new StoreFailure('script', message);
  return new StoreFailure('connection', message);
}
