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

/**
 * `text` with every control character escaped (C0, DEL, C1, and the Unicode
 * line and paragraph separators): `\n` as `\\n`, ESC as `\\x1b`, and so
 * on. The one place that keeps a console line one line: a value the caller
 * controls (an agent name, an id, an error message) can neither start a
 * forged `[nous-session-invariant]` line nor send escape sequences to a
 * terminal (docs/behaviour.md §6.6). Printable text, `\` included, is kept
 * as it is.
 */
export function consoleSafe(text: string): string {
  return CONTROL.test(text) ? text.replace(CONTROL_ALL, escapeControl) : text;
}

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeControl(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

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
 * Sends one warning line, control characters escaped (`consoleSafe`), to the
 * current logger. A logger that throws is ignored: a broken logger must not
 * break the caller's request (docs/behaviour.md §6.4).
 */
export function logWarning(message: string): void {
  try {
    current.warn(consoleSafe(message));
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
