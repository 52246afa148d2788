// When the process ends, the last violations must reach the backend, and a
// backend that is down must not keep the process alive for long.

import { violationsRecorded } from '../telemetry/violation-event';

/**
 * Flushes at the end of the event loop (`beforeExit`) and on SIGTERM/SIGINT,
 * through `shutdown`, and returns the shutdown the registration hands out.
 * A signal listener cancels Node's default exit, so once flushed the signal is
 * raised again, unless the app listens for it itself (then exiting is the
 * app's call). `process.exit()` runs no asynchronous work, so nothing can be
 * exported after it: if violations were recorded since the last flush, one
 * line on stderr says they may be lost and what to do instead.
 */
export function flushOnExit(shutdown: () => Promise<void>): () => Promise<void> {
  let flushedUpTo = 0;
  const flush = (): Promise<void> => {
    const upTo = violationsRecorded();
    return shutdown().finally(() => (flushedUpTo = Math.max(flushedUpTo, upTo)));
  };
  process.once('beforeExit', () => void flush());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      void flush().finally(() => {
        if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    });
  }
  process.once('exit', () => {
    const unflushed = violationsRecorded() - flushedUpTo;
    if (unflushed <= 0) return;
    process.stderr.write(
      `[nous-session-invariant] the process exited before its telemetry was flushed: ${unflushed} violation(s) recorded ` +
        'since the last flush may not have been exported. Before process.exit(), await shutdown() from ' +
        "'nous-session-invariant/register', or set process.exitCode and let the process end.\n",
    );
  });
  return flush;
}
