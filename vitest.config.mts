import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Installs the fixture projects that are missing or stale (test/support/fixture-projects.ts).
    globalSetup: ['./test/support/global-setup.ts'],
    // The parts the package loads on demand with require, provided as the runner loads them (src/lazy-part.ts).
    setupFiles: ['./test/support/lazy-parts.ts'],
    // Generous for a loaded 2-core machine; a subprocess that hangs is killed
    // sooner (test/support/run-node.ts) and its error says what it printed.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // it.concurrent tests mostly run an app in a subprocess: two at a time keep
    // each one's CPU share, and so its run time, close to that of an idle machine.
    maxConcurrency: 2,
    // The default reporter, plus one plain closing line ("N passed, N failed") CI can read.
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
