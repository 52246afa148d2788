// Where the package's own warnings go. Defaults to the console, prefixed, so a
// `warn`-mode violation is visible without any logging set-up; replaceable with
// `setLogger` (for example to route into the app's logger or into `diag`).

/**
 * Where the package's warnings go: anything with a `warn(message)` method (the
 * console, the app's logger, a `diag` wrapper). Installed with `setLogger`; see
 * docs/behaviour.md §6.4.
 */
export interface InvariantLogger {
  warn(message: string): void;
}

const PREFIX = '[nous-session-invariant]';

const consoleLogger: InvariantLogger = {
  warn: (message) => console.warn(`${PREFIX} ${message}`),
};

let current: InvariantLogger = consoleLogger;
const warnedKeys = new Set<string>();

/** Replace the sink for the package's warnings; `null` restores the console. */
export function setLogger(logger: InvariantLogger | null): void {
  current = logger ?? consoleLogger;
}

/**
 * Sends one warning line to the current logger. A logger that throws is
 * ignored: a broken logger must not break the caller's request
 * (docs/behaviour.md §6.4).
 */
export function logWarning(message: string): void {
  try {
    current.warn(message);
  } catch {
    // A broken logger must not break the caller's request.
  }
}

/** Logs `message` the first time `key` is seen in this process. */
export function warnOnce(key: string, message: string): void {
  if (warnedKeys.has(key)) return;
  warnedKeys.add(key);
  logWarning(message);
}

/** @internal Lets tests observe a warn-once message again. */
export function resetWarnings(): void {
  warnedKeys.clear();
}
