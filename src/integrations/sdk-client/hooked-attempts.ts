// The one place that decides a fetch is an attempt of a request the SDK
// client hook checked: the fetch seam then leaves it to the hook (which
// reads its reply) without reading its URL, headers or body. The hook's
// `fetchWithTimeout` wrapper records the attempt's abort signal (the SDKs
// make an AbortController per attempt and send its signal with the fetch)
// with the URL it fetches; a fetch carrying that signal to that same URL is
// that attempt, however many middlewares or awaits lie between. Anything
// else (another signal, another URL, a Request) is inspected as before.

/** The URL each recorded attempt fetches, by its signal; held weakly (the controller ends with the attempt). */
const attempts = new WeakMap<object, unknown>();

/** Records the attempt `controller` stands for, fetching `url`, as one the client hook checked. */
export function recordHookedAttempt(url: unknown, controller: unknown): void {
  if (url === undefined || url === null) return;
  const signal = typeof controller === 'object' && controller !== null ? (controller as { signal?: unknown }).signal : undefined;
  if (typeof signal === 'object' && signal !== null) attempts.set(signal, url);
}

/** Whether a fetch of `input` with `signal` is an attempt `recordHookedAttempt` recorded. */
export function isHookedAttempt(input: unknown, signal: unknown): boolean {
  return typeof signal === 'object' && signal !== null && input !== undefined && attempts.get(signal) === input;
}
