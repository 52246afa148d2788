// The lowest @opentelemetry/api the peer range admits (1.3.0; the suite runs
// on the highest, 1.10): the packed tarball installed next to it and an SDK of
// its time (test/fixtures/api-lowest, installed by the test run's global setup), with register
// attaching to the app's providers. The highest is every other test.

import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { installTarballInto, packTarball, treeWarnings } from './support/packed';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const dir = join(PACKAGE_ROOT, 'test/fixtures/api-lowest');
const peerRange = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { peerDependencies: Record<string, string> })
  .peerDependencies['@opentelemetry/api'];
let provider: FakeProvider;
let install: { status: number | null; output: string } | undefined;

beforeAll(async () => {
  provider = await startFakeProvider();
  if (!existsSync(join(dir, 'node_modules'))) return;
  install = installTarballInto(dir, packTarball());
  copyFileSync(join(PACKAGE_ROOT, 'test/fixtures/agent-app.cjs'), join(dir, 'app.cjs'));
}, 300_000);
afterAll(() => provider.close());

const versionIn = (path: string) =>
  (JSON.parse(readFileSync(join(dir, 'node_modules', path, 'package.json'), 'utf8')) as { version: string }).version;

describe(`@opentelemetry/api at the bottom of the peer range (${peerRange})`, () => {
  it('is what the fixture installs, and npm adds the tarball next to it with no warning', () => {
    expect(existsSync(join(dir, 'node_modules')), 'run npm ci --prefix test/fixtures/api-lowest').toBe(true);
    expect(install!.status, install!.output).toBe(0);
    expect(treeWarnings(install!.output)).toEqual([]);
    expect(peerRange).toBe(`^${versionIn('@opentelemetry/api')}`);
  });

  it('a --require app is checked: the violation is on its span and counted, through the bound session', async () => {
    const run = await runNode(
      ['--require', './otel.cjs', '--require', 'nous-session-invariant/register', 'app.cjs'],
      { FAKE_PROVIDER_URL: provider.openaiBaseURL },
      { cwd: dir },
    );
    expect(run.stdout, run.stderr).toContain('agent done');
    expect(run.code, run.stderr).toBe(0);
    const recorded = JSON.parse(/^RECORDED (.*)$/m.exec(run.stdout)![1]!) as {
      spans: Array<{ name: string; events: Array<{ name: string; attributes: Record<string, unknown> }> }>;
      violations: Array<{ value: number; attributes: Record<string, unknown> }>;
    };
    const events = recorded.spans.flatMap((span) => span.events.filter((event) => event.name === 'nous.session.invariant.violation'));
    expect(events).toHaveLength(1);
    expect(events[0]!.attributes).toMatchObject({ 'nous.session.invariant.kind': 'extra_message', 'nous.session.invariant.log': 'bound' });
    expect(recorded.violations).toEqual([
      { value: 1, attributes: expect.objectContaining({ 'nous.session.invariant.kind': 'extra_message' }) as unknown },
    ]);
  });
});
