// The shared store's waits, none of which holds the process open (each timer
// is unref'd): a bounded wait for work, a plain sleep, and the random
// back-off after a lost compare-and-set.

/** Waits for `work`, at most `ms`; never rejects, and the timer never holds the process. */
export function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

/** A wait whose timer never holds the process. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A short random wait after the `attempt`th lost compare-and-set (a few milliseconds), so racing processes spread out. */
export function backOff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * (attempt + 1)).unref());
}
