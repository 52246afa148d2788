// Helpers for tests that run the demo against real services (Prometheus, the
// native stack): the app's environment without the test runner's, and a
// bounded wait for a service to show a result.

/** This process's environment less the test runner's variables and any OTEL_* setting. */
export function appEnvironment(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined && !/^(VITEST|NODE_TEST_CONTEXT|JEST_WORKER_ID|NODE_ENV|OTEL_)/.test(entry[0]),
    ),
  );
}

/** Polls `probe` until it gives a value, for at most `timeoutMs`; the last error, if any, is in the timeout's message. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, intervalMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}
