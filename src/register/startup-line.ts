// The one line `register` prints at start-up, and only where it tells the
// user what they cannot see otherwise: that implicit conversations are kept in
// a shared store, and which one (a wrong URL or key prefix splits what the
// replicas see). A process on the defaults starts silently.

import { MODE_ENV_VAR } from '../invariant/mode';
import { resolveMode } from '../reaction/resolve-mode';
import { implicitLogFromEnv } from '../request-path/host';
import { storeChoice } from '../request-path/implicit/store-config';

/** The start-up line for `env`, without the package's prefix, or undefined when there is nothing worth a line. */
export function startupLine(env: NodeJS.ProcessEnv): string | undefined {
  if (resolveMode(env[MODE_ENV_VAR]) === 'off' || !implicitLogFromEnv(env)) return undefined;
  const store = storeChoice(undefined, env);
  if (store.kind !== 'redis') return undefined;
  const where = store.target.kind === 'url' ? store.target.shown : "the app's own client";
  return `implicit conversations are kept in the shared store ${where} under the key prefix ${JSON.stringify(store.prefix)}`;
}
