// Reading the numeric variables register passes on.

/** A positive number of ms from `env[name]` or undefined when unset. */
export function readMillis(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const value = Number(env[name]?.trim() || NaN);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
