// Setting an environment variable for the length of one call: the SDK's
// exporters read OTEL_* variables once, when built, and the app must not see
// the defaults `register` chose.

/** Runs `run` with `env[name]` set to `value` unless it is already set, then puts the variable back as it was. */
export function withVariable<T>(env: NodeJS.ProcessEnv, name: string, value: string, run: () => T): T {
  if (env[name]?.trim()) return run();
  const had = Object.prototype.hasOwnProperty.call(env, name);
  const previous = env[name];
  env[name] = value;
  try {
    return run();
  } finally {
    if (had) env[name] = previous;
    else delete env[name];
  }
}
