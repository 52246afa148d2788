// What `register` costs at a cold start that a figure cannot show alone: the
// work its require hook does per required file, of a hooked SDK or of any
// other package. The figures are in
// bench/cold-start.ts (docs/performance.md "Cold start").

import { describe, expect, it } from 'vitest';
import { runNode } from './support/run-node';

const NO_EXPORTS = { OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' };

interface Resolutions {
  unrelated: number;
  hooked: number;
  patched: boolean;
}

async function resolutions(preload: string[]): Promise<Resolutions> {
  const run = await runNode([...preload, 'test/fixtures/cold-start/count-resolutions.cjs'], NO_EXPORTS);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Resolutions;
}

describe('a cold start under register', () => {
  it.each(['--require', '--import'])(
    'resolves no module a require of a package it does not hook loads (%s): as many resolutions as without it',
    async (flag) => {
      const [bare, registered] = await Promise.all([resolutions([]), resolutions([flag, 'nous-session-invariant/register'])]);
      expect(bare.patched).toBe(false);
      // The SDK is hooked (its client patched) ...
      expect(registered.patched).toBe(true);
      // ... and nothing else is resolved for a package no integration hooks (the hook of
      // @opentelemetry/instrumentation resolved each of its files a second time: twice as many).
      expect(bare.unrelated).toBeGreaterThan(20);
      expect(registered.unrelated).toBe(bare.unrelated);
      // The hooked package's own files are not resolved again either: a few resolutions of its name at most.
      expect(registered.hooked - bare.hooked).toBeLessThanOrEqual(3);
    },
  );

  it("reads a hooked SDK's package.json once per package folder, not once per file the SDK loads", async () => {
    const run = await runNode(
      [
        '--require',
        './test/fixtures/cold-start/count-manifest-reads.cjs',
        '--require',
        'nous-session-invariant/register',
        'bench/cold-start-app.cjs',
      ],
      NO_EXPORTS,
    );
    expect(run.code, run.stderr).toBe(0);
    const reads = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number>;
    // Both SDKs were hooked (their versions were read), and each folder was read once: the SDKs load hundreds of files.
    expect(reads).toMatchObject({ 'node_modules/openai': 1, 'node_modules/@anthropic-ai/sdk': 1 });
  });

  it('keeps the Instrumentation contract on its own hook: registered, patched once, unpatched by disable(), patched again by enable()', async () => {
    const run = await runNode(['test/fixtures/cold-start/contract.cjs'], NO_EXPORTS);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).toEqual({
      madeEnabled: false,
      registeredEnabled: true,
      required: 1,
      requiredAgain: 1,
      disabled: 0,
      enabledTwice: 1,
      names: ['openai', '@anthropic-ai/sdk', 'groq-sdk', '@aws-sdk/client-bedrock-runtime', 'ai', '@openai/agents-core'],
      identity: ['nous-session-invariant', false],
    });
  });
});
