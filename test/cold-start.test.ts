// What `register` costs at a cold start that a figure cannot show alone: the
// work it does per file of a hooked SDK. The figures are in
// bench/cold-start.ts (docs/performance.md "Cold start").

import { describe, expect, it } from 'vitest';
import { runNode } from './support/run-node';

describe('a cold start under register', () => {
  it("reads a hooked SDK's package.json once per package folder, not once per file the SDK loads", async () => {
    const run = await runNode(
      [
        '--require',
        './test/fixtures/cold-start/count-manifest-reads.cjs',
        '--require',
        'nous-session-invariant/register',
        'bench/cold-start-app.cjs',
      ],
      { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
    );
    expect(run.code, run.stderr).toBe(0);
    const reads = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    // Both SDKs were hooked (their versions were read), and each folder was read once: the SDKs load hundreds of files.
    expect(reads).toMatchObject({ 'node_modules/openai': 1, 'node_modules/@anthropic-ai/sdk': 1 });
  });
});
