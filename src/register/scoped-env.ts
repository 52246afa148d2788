// Setting environment variables for the length of one call: the SDK's
// exporters read OTEL_* variables once, when built, and the app must not see
// the values `register` chose.

/** Runs `run` with `env[name]` set to `value` unless it is already set, then puts the variable back as it was. */
export function withVariable<T>(env: NodeJS.ProcessEnv, name: string, value: string, run: () => T): T {
  if (env[name]?.trim()) return run();
  return withVariables(env, { [name]: value }, run);
}

/** Runs `run` with each variable of `values` set (undefined: unset), then puts them back as they were. */
export function withVariables<T>(env: NodeJS.ProcessEnv, values: Record<string, string | undefined>, run: () => T): T {
  const saved = Object.keys(values).map((name) => ({ name, had: Object.prototype.hasOwnProperty.call(env, name), previous: env[name] }));
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  try {
    return run();
  } finally {
    for (const { name, had, previous } of saved) {
      if (had) env[name] = previous;
      else delete env[name];
    }
  }
}
