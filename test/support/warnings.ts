// The package's warnings captured per test: a fresh mock as its logger, and
// the once-only warnings forgotten, so each test sees its own.

import { afterEach, beforeEach, vi } from 'vitest';
import { setLogger } from '../../src/index';
import { resetWarnings } from '../../src/warnings';

/** Registers the hooks; returns the mock the package warns through. */
export function captureWarnings() {
  const warn = vi.fn();
  beforeEach(() => {
    resetWarnings();
    warn.mockReset();
    setLogger({ warn });
  });
  afterEach(() => setLogger(null));
  return warn;
}
