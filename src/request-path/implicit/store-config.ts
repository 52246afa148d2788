// Which conversation store the implicit log uses: the option, else the
// environment, else the process's memory. A value that names no store is
// ignored with one warning, like the package's other variables: a typo never
// breaks the app, it only leaves checking in the process's memory. The one
// place a store URL is read: by hand, never by the Redis client, so that no
// URL can crash the app (a database that is not a number) and no password
// reaches a warning, whatever its characters.

import { warnOnce } from '../../warnings';
import type { RedisStoreClient } from '../host';

/** `memory`, or a `redis://` / `rediss://` / `redis+cluster://` URL: where implicit conversations are kept (docs/shared-store.md). */
export const STORE_ENV_VAR = 'NOUS_SESSION_INVARIANT_STORE';
/** The prefix of the shared store's keys; default, the service name. */
export const STORE_PREFIX_ENV_VAR = 'NOUS_SESSION_INVARIANT_STORE_PREFIX';

/** A Redis URL as read: its servers (one, or a Cluster's seeds), credentials and database. */
export interface RedisUrl {
  readonly kind: 'url';
  readonly cluster: boolean;
  readonly tls: boolean;
  readonly nodes: ReadonlyArray<{ host: string; port: number }>;
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly db: number;
  /** The URL as written (the store's identity: a new one opens a new connection). */
  readonly written: string;
  /** The URL with its credentials hidden, fit for a warning. */
  readonly shown: string;
}

/** Where the shared store's commands go: a URL the package connects to itself, or the app's own client. */
export type RedisTarget = RedisUrl | { readonly kind: 'client'; readonly client: RedisStoreClient };

/** The store resolved: the process's memory, or Redis at `target` with keys under `prefix`. */
export type StoreChoice = { kind: 'memory' } | { kind: 'redis'; target: RedisTarget; prefix: string };

const MEMORY: StoreChoice = Object.freeze({ kind: 'memory' });
const DEFAULT_SERVICE = 'unknown_service:node';

/** The store for the config's `store` and `storePrefix`, each falling back to its environment variable. */
export function storeChoice(
  options: { store?: string | RedisStoreClient | undefined; storePrefix?: string | undefined } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): StoreChoice {
  const given = options?.store;
  if (given !== undefined && typeof given !== 'string') {
    if (typeof given === 'function' || (typeof given === 'object' && given !== null && typeof given.call === 'function')) {
      return { kind: 'redis', target: { kind: 'client', client: given }, prefix: prefixOf(options?.storePrefix, env) };
    }
    warnOnce(
      'store:implicit.store',
      "implicit.store is neither a string, an ioredis client nor a function: conversations are kept in this process's memory",
    );
    return MEMORY;
  }
  const source = given !== undefined ? 'implicit.store' : STORE_ENV_VAR;
  const raw = (given ?? env[STORE_ENV_VAR])?.trim();
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'memory') return MEMORY;
  const url = readRedisUrl(raw);
  if (typeof url === 'string') {
    warnOnce(`store:${source}`, `${source}=${JSON.stringify(redactUrl(raw))} ${url}: conversations are kept in this process's memory`);
    return MEMORY;
  }
  return { kind: 'redis', target: url, prefix: prefixOf(options?.storePrefix ?? env[STORE_PREFIX_ENV_VAR], env) };
}

const SCHEMES: Readonly<Record<string, { cluster: boolean; tls: boolean }>> = {
  'redis:': { cluster: false, tls: false },
  'rediss:': { cluster: false, tls: true },
  'redis+cluster:': { cluster: true, tls: false },
  'rediss+cluster:': { cluster: true, tls: true },
};

/**
 * Reads a store URL: `redis://`, `rediss://` (TLS), or `redis+cluster://` /
 * `rediss+cluster://` with one or more comma-separated seed nodes of a
 * Cluster; `[user[:password]@]host[:port][,host[:port]...][/db]`. The
 * credentials run to the last `@`, so a password may hold any character,
 * encoded or not. Returns why the value is not one, as a phrase.
 */
export function readRedisUrl(raw: string): RedisUrl | string {
  const notStore = 'is neither "memory" nor a redis://, rediss:// or redis+cluster:// URL';
  const schemeEnd = raw.indexOf('://');
  const scheme = SCHEMES[raw.slice(0, schemeEnd + 1).toLowerCase()];
  if (schemeEnd < 0 || scheme === undefined) return notStore;
  let rest = raw.slice(schemeEnd + 3);
  let username: string | undefined;
  let password: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = rest.slice(0, at);
    rest = rest.slice(at + 1);
    const colon = userinfo.indexOf(':');
    username = decoded(colon < 0 ? userinfo : userinfo.slice(0, colon)) || undefined;
    password = colon < 0 ? undefined : decoded(userinfo.slice(colon + 1)) || undefined;
  }
  const hostEnd = rest.search(/[/?#]/);
  const hostList = hostEnd < 0 ? rest : rest.slice(0, hostEnd);
  const tail = hostEnd < 0 ? '' : rest.slice(hostEnd);
  const nodes: Array<{ host: string; port: number }> = [];
  for (const part of hostList.split(',')) {
    const node = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+)(?::(\d{1,5}))?$/.exec(part);
    const port = node?.[2] === undefined ? 6379 : Number(node[2]);
    if (node === null || port < 1 || port > 65535) return `${notStore} (no host, or a port that is not a number from 1 to 65535)`;
    nodes.push({ host: node[1]!.replace(/^\[|\]$/g, ''), port });
  }
  if (!scheme.cluster && nodes.length > 1) return 'names several servers: a Redis Cluster is named by redis+cluster://';
  const path = /^(?:\/(\d*))?\/?$/.exec(tail);
  if (path === null) return 'has a database that is not a number, or query parameters (the package reads none)';
  const db = path[1] ? Number(path[1]) : 0;
  if (scheme.cluster && db !== 0) return 'names a database: a Redis Cluster has only database 0';
  return { kind: 'url', ...scheme, nodes, username, password, db, written: raw, shown: redactUrl(raw) };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A key prefix: the one given when it is a non-empty string without spaces, else the service name (one warning). */
function prefixOf(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const trimmed = given?.trim();
  if (trimmed !== undefined && trimmed !== '' && !/\s/.test(trimmed)) return trimmed;
  if (given !== undefined) {
    warnOnce('store:prefix', `the store prefix ${JSON.stringify(given)} is empty or has spaces: the service name is used instead`);
  }
  const service = serviceName(env);
  if (service === DEFAULT_SERVICE) {
    warnOnce(
      'store:unnamed',
      `the shared store's keys are prefixed "${DEFAULT_SERVICE}", as are those of every other app with no OTEL_SERVICE_NAME: ` +
        `apps that share a prefix share their conversations; set OTEL_SERVICE_NAME or ${STORE_PREFIX_ENV_VAR}`,
    );
  }
  return service;
}

/** OTEL_SERVICE_NAME, else `service.name` of OTEL_RESOURCE_ATTRIBUTES, else OpenTelemetry's `unknown_service:node`. */
export function serviceName(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.OTEL_SERVICE_NAME?.trim();
  if (named) return named;
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const [key, value] = pair.split('=');
    if (key?.trim() === 'service.name' && value?.trim()) return decoded(value.trim());
  }
  return DEFAULT_SERVICE;
}

/**
 * A value fit for a warning: what lies between `//` (or the start) and the
 * last `@` is hidden, but for a user name before a `:`, so no password
 * shows, whatever characters it holds.
 */
export function redactUrl(value: string): string {
  const at = value.lastIndexOf('@');
  if (at < 0) return value;
  const start = value.indexOf('//');
  const from = start >= 0 && start < at ? start + 2 : 0;
  const colon = value.indexOf(':', from);
  const user = colon >= 0 && colon < at ? value.slice(from, colon + 1) : '';
  return `${value.slice(0, from)}${user}***${value.slice(at)}`;
}
