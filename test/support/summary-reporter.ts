// Prints one closing line, "tests: N passed, N failed[, N skipped]", after the run.

import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) counts[test.result().state]++;
    }
    const skipped = counts.skipped + counts.pending;
    console.log(`\ntests: ${counts.passed} passed, ${counts.failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  }
}
