// Two instances in one process, each enabled: the app's own OpenTelemetry
// set-up with SessionInvariantInstrumentation followed by `--require
// nous-session-invariant/register` (the order the README recommends), and
// with a second copy of the package enabled too (a dependency's nested
// copy). Each history bug is still one violation: one span event, a counter
// of one, whether the fetch seam or the SDK client hook checks the request.

import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver';
import { PACKAGE_ROOT, runNode } from '../support/run-node';

let provider: FakeProvider;
let nested: string;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  provider = await startFakeProvider();
  // A second copy of the built package, in a node_modules folder of its own (its dependencies resolve from the root's).
  mkdirSync(join(PACKAGE_ROOT, '.tmp'), { recursive: true });
  nested = mkdtempSync(join(PACKAGE_ROOT, '.tmp', 'nested-copy-'));
  const copy = join(nested, 'node_modules', 'nous-session-invariant');
  mkdirSync(copy, { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'package.json'), join(copy, 'package.json'));
  cpSync(join(PACKAGE_ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
});
afterAll(async () => {
  await provider.close();
  await Promise.all(receivers.map((r) => r.close()));
});

/** Runs `app` after the app's own set-up and register; returns the violation events and counter points it exported. */
async function runApp(app: string, env: Record<string, string>): Promise<{ events: string[]; counted: string[] }> {
  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const run = await runNode(
    [
      '--require',
      './test/fixtures/instances/own-setup.cjs',
      '--require',
      'nous-session-invariant/register',
      `test/fixtures/zero-code/${app}`,
    ],
    {
      FAKE_PROVIDER_URL: provider.openaiBaseURL,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_SERVICE_NAME: 'two-instances',
      ...env,
    },
  );
  expect(run.stdout, run.stderr).toContain('agent done');
  const kind = (attributes: Record<string, unknown>) => attributes['nous.session.invariant.kind'] as string;
  return {
    events: receiver
      .events()
      .filter((e) => e.name === 'nous.session.invariant.violation')
      .map((e) => kind(e.attributes)),
    counted: receiver.points('nous.session.invariant.violation').flatMap((p) => Array<string>(p.value).fill(kind(p.attributes))),
  };
}

describe.each([
  ['the fetch seam', 'fetch-chat.cjs', '0'],
  ['the fetch seam, streamed', 'fetch-chat.cjs', '1'],
  ['the SDK client hook', 'openai-chat.cjs', '0'],
  ['the SDK client hook, streamed', 'openai-chat.cjs', '1'],
])('two instances enabled, checked by %s', (_, app, stream) => {
  it.concurrent.each([
    ['the same copy', false],
    ['a nested copy too', true],
  ])('with %s: a dropped turn is one violation', async (_, withNested) => {
    const result = await runApp(app, { STREAM: stream, FAULT: 'drop-old-turn', ...(withNested ? { NESTED_COPY: nested } : {}) });
    expect(result.events).toEqual(['missing_message']);
    expect(result.counted).toEqual(['missing_message']);
  });
});
