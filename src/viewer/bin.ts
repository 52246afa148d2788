#!/usr/bin/env node
// The package's command: `npx nous-session-invariant view`. Stops on SIGINT and SIGTERM.

import { main } from './cli';

main(process.argv.slice(2)).then(
  (viewer) => {
    if (!viewer) return;
    const stop = (): void => void viewer.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
  (error: unknown) => {
    process.stderr.write(`nous-session-invariant: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
