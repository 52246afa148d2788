// Which conversation store the implicit log uses: the option, else the
// environment, else the process's memory. A value that names no store is
// ignored with one warning, like the package's other variables: a typo never
// breaks the app, it only leaves checking in the process's memory.

import { warnOnce } from '../../warnings';

/** `memory`, or a `redis://` / `rediss://` URL: where implicit conversations are kept (docs/shared-store.md). */
export const STORE_ENV_VAR = 'NOUS_SESSION_INVARIANT_STORE';
/** The prefix of the shared store's keys; default, the service name. */
export const STORE_PREFIX_ENV_VAR = 'NOUS_SESSION_INVARIANT_STORE_PREFIX';

/** The store resolved: the process's memory, or Redis at `url` with keys under `prefix`. */
export type StoreChoice = { kind: 'memory' } | { kind: 'redis'; url: string; prefix: string };

const MEMORY: StoreChoice = Object.freeze({ kind: 'memory' });

/** The store for the config's `store` and `storePrefix`, each falling back to its environment variable. */
export function storeChoice(
  options: { store?: string | undefined; storePrefix?: string | undefined } | undefined,
  env: NodeJS.ProcessEnv = process.env,
): StoreChoice {
  const fromOption = options?.store !== undefined;
  const raw = (fromOption ? options.store : env[STORE_ENV_VAR])?.trim();
  if (raw === undefined || raw === '' || raw.toLowerCase() === 'memory') return MEMORY;
  const source = fromOption ? 'implicit.store' : STORE_ENV_VAR;
  if (!isRedisUrl(raw)) {
    warnOnce(
      `store:${source}`,
      `${source}=${JSON.stringify(redactUrl(raw))} is neither "memory" nor a redis:// or rediss:// URL: conversations are kept in this process's memory`,
    );
    return MEMORY;
  }
  return { kind: 'redis', url: raw, prefix: prefixOf(options?.storePrefix ?? env[STORE_PREFIX_ENV_VAR], env) };
}

function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A key prefix: the one given when it is a non-empty string without spaces, else the service name (one warning). */
function prefixOf(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const trimmed = given?.trim();
  if (trimmed !== undefined && trimmed !== '' && !/\s/.test(trimmed)) return trimmed;
  if (given !== undefined) {
    warnOnce('store:prefix', `the store prefix ${JSON.stringify(given)} is empty or has spaces: the service name is used instead`);
  }
  return serviceName(env);
}

/** OTEL_SERVICE_NAME, else `service.name` of OTEL_RESOURCE_ATTRIBUTES, else OpenTelemetry's `unknown_service:node`. */
export function serviceName(env: NodeJS.ProcessEnv = process.env): string {
  const named = env.OTEL_SERVICE_NAME?.trim();
  if (named) return named;
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const [key, value] = pair.split('=');
    if (key?.trim() === 'service.name' && value?.trim()) {
      try {
        return decodeURIComponent(value.trim());
      } catch {
        return value.trim();
      }
    }
  }
  return 'unknown_service:node';
}

/** A URL fit for a warning: its password replaced. */
export function redactUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password !== '') url.password = '***';
    return url.toString();
  } catch {
    return value.replace(/\/\/[^@/]*@/, '//***@');
  }
}
