// A bounded wait for a real service (Prometheus, the native stack) to show a result.

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
