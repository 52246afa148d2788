// The packed tarball installed into fresh projects, as a user would: npm
// installs it without a warning about engines or peers, the SDK packages come
// only with the register set-up, and a `--require` app run from the installed
// package exports its violation. The same holds for the tarball `npm pack`
// makes from a clean clone, where prepack has to build dist/ first.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { installFreshProject, packCleanClone, packTarball, pinnedVersion, treeWarnings } from './support/packed';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const agentApp = readFileSync(join(PACKAGE_ROOT, 'test/fixtures/agent-app.cjs'), 'utf8');

let tarball: string;
let provider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  tarball = packTarball();
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

/** Installs `tarball` with the SDK register needs; a --require app must export its violation over OTLP. */
async function expectRegisterWorks(tarball: string): Promise<void> {
  const project = installFreshProject(
    {
      'nous-session-invariant': `file:${tarball}`,
      '@opentelemetry/api': pinnedVersion('@opentelemetry/api'),
      '@opentelemetry/sdk-node': pinnedVersion('@opentelemetry/sdk-node'),
      openai: pinnedVersion('openai'),
    },
    { 'app.cjs': agentApp },
  );
  expect(project.npmStatus, project.npmOutput).toBe(0);
  expect(treeWarnings(project.npmOutput)).toEqual([]);
  expect(existsSync(join(project.dir, 'node_modules/nous-session-invariant/LICENSE'))).toBe(true);

  const receiver = await startOtlpReceiver();
  receivers.push(receiver);
  const run = await runNode(
    ['--require', 'nous-session-invariant/register', 'app.cjs'],
    {
      FAKE_PROVIDER_URL: provider.openaiBaseURL,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    },
    { cwd: project.dir },
  );
  expect(run.stdout, run.stderr).toContain('agent done');
  expect(run.code).toBe(0);
  expect(run.stderr).not.toContain('cannot start');
  const events = receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
  expect(events.map((e) => e.attributes['nous.session.invariant.kind'])).toEqual(['extra_message']);
  expect(receiver.points('nous.session.invariant.violation').map((p) => p.value)).toEqual([1]);
}

describe('the packed tarball in a fresh project', () => {
  it('with the SDK for register: installs with no warning, and a --require app exports its violation over OTLP', async () => {
    await expectRegisterWorks(tarball);
  }, 300_000);

  it('without it: no SDK package is installed, the core entries work, and register says what to install', async () => {
    const project = installFreshProject(
      { 'nous-session-invariant': `file:${tarball}`, '@opentelemetry/api': pinnedVersion('@opentelemetry/api') },
      {
        'core.cjs': `
          const { SessionLog, check } = require('nous-session-invariant');
          const { SessionInvariantInstrumentation } = require('nous-session-invariant/instrumentation');
          const log = new SessionLog();
          log.append('user_message', { content: 'hi' });
          const instrumentation = new SessionInvariantInstrumentation({ enabled: false });
          console.log(JSON.stringify({ kind: check(log, []).violation.kind, instrumentation: instrumentation.instrumentationName }));`,
      },
    );
    expect(project.npmStatus, project.npmOutput).toBe(0);
    expect(treeWarnings(project.npmOutput)).toEqual([]);
    for (const name of ['sdk-node', 'sdk-metrics', 'sdk-trace', 'core', 'resources', 'context-async-hooks']) {
      expect(existsSync(join(project.dir, 'node_modules/@opentelemetry', name)), name).toBe(false);
    }

    const core = await runNode(['core.cjs'], {}, { cwd: project.dir });
    expect(core.code, core.stderr).toBe(0);
    expect(JSON.parse(core.stdout)).toEqual({ kind: 'missing_message', instrumentation: 'nous-session-invariant' });

    const register = await runNode(
      ['--require', 'nous-session-invariant/register', '-e', 'console.log("app ran")'],
      {},
      { cwd: project.dir },
    );
    expect(register.code, register.stderr).toBe(0);
    expect(register.stdout).toContain('app ran');
    expect(register.stderr).toContain('@opentelemetry/sdk-node ^0.301.0 is not installed');
    expect(register.stderr).toContain('npm install @opentelemetry/sdk-node@^0.301.0');
  }, 300_000);
});

describe('npm pack of a clean clone (no dist/ until prepack builds it)', () => {
  it('ships the build, and --require nous-session-invariant/register works from the installed tarball', async () => {
    const packed = packCleanClone();
    if (packed === undefined) return void process.stdout.write('[skipped] npm pack of a clean clone: not a git checkout\n');
    expect(packed.files).toEqual(expect.arrayContaining(['dist/register.js', 'dist/register.mjs', 'dist/index.js', 'dist/index.d.ts']));
    await expectRegisterWorks(packed.tarball);
  }, 300_000);
});
