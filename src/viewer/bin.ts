#!/usr/bin/env node
// The package's command: `npx nous-session-invariant view`. Stops on SIGINT and SIGTERM.

import { main } from './cli';
import type { RunningViewer } from './viewer';

let viewer: RunningViewer | undefined;
// Listening before the viewer starts: a signal right after it says where it listens still stops it cleanly.
const stop = (): void => {
  if (viewer) void viewer.close().then(() => process.exit(0));
  else process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

main(process.argv.slice(2)).then(
  (running) => {
    viewer = running;
    if (!running) {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
  (error: unknown) => {
    const inUse = (error as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';
    const hint = inUse ? ' (is a Collector already listening there? choose other ports with --otlp-port and --port)' : '';
    process.stderr.write(`nous-session-invariant: ${error instanceof Error ? error.message : String(error)}${hint}\n`);
    process.exit(1);
  },
);
