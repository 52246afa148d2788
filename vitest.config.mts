import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    // The default reporter, plus one plain closing line ("N passed, N failed") CI can read.
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
