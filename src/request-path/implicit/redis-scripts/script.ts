// A Lua script the shared store runs, one per file in this folder, as Redis
// knows it: by its SHA1. Run with EVALSHA, and with EVAL when Redis does not
// know it yet (after a restart, a failover, a SCRIPT FLUSH, or on a Cluster
// node that never ran it): a script is never loaded ahead, so the app's own
// client needs nothing but one command at a time.

import { createHash } from 'node:crypto';
import type { RedisConnection } from '../redis-connection';

/** A script's source and hash; its keys are all in one slot (a Cluster runs it on one node). */
export interface RedisScript {
  readonly lua: string;
  readonly sha: string;
}

/** A script from its source. */
export function redisScript(lua: string): RedisScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/** Runs `script` on `keys` with `args`: by its hash, by its source when Redis answers NOSCRIPT. */
export async function runScript(
  connection: RedisConnection,
  script: RedisScript,
  keys: readonly string[],
  args: readonly string[],
): Promise<unknown> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return await connection.send(['EVALSHA', script.sha, ...tail]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.includes('NOSCRIPT')) throw error;
    return connection.send(['EVAL', script.lua, ...tail]);
  }
}
