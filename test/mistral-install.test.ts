// `@mistralai/mistralai` 2.7 next to the SDK `register` starts: its optional
// OpenTelemetry peers pin the SDK's 2.x line, so a plain `npm install` stops
// with ERESOLVE; the overrides docs/zero-code.md gives (read from there, so
// the doc and the test cannot drift) install the packed tarball with no
// warning and no --legacy-peer-deps, and Mistral's own tool loop, run under
// `--import nous-session-invariant/register`, is checked.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import type { OtlpReceiver } from './support/otlp-receiver';
import { installFreshProject, packTarball, pinnedVersion, treeWarnings } from './support/packed';
import { PACKAGE_ROOT } from './support/run-node';
import { runRegisteredApp } from './support/zero-code-app';

/** The `overrides` block docs/zero-code.md tells Mistral users to add. */
function documentedOverrides(): Record<string, unknown> {
  const doc = readFileSync(join(PACKAGE_ROOT, 'docs/zero-code.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Next to `@mistralai/mistralai`'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  expect(block, 'docs/zero-code.md shows the overrides').not.toBeNull();
  return JSON.parse(block![1]!) as Record<string, unknown>;
}

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

const dependencies = () => ({
  'nous-session-invariant': `file:${tarball}`,
  '@opentelemetry/api': pinnedVersion('@opentelemetry/api'),
  '@opentelemetry/sdk-node': pinnedVersion('@opentelemetry/sdk-node'),
  '@mistralai/mistralai': pinnedVersion('@mistralai/mistralai', 'test/fixtures/mistral/package-lock.json'),
});

/** The zero-code Mistral app and the loop it shares, copied into the project. */
const appFiles = Object.fromEntries(
  ['mistral.mjs', 'agent-loop.cjs', 'faults.cjs'].map((name) => [
    name,
    readFileSync(join(PACKAGE_ROOT, 'test/fixtures/zero-code', name), 'utf8'),
  ]),
);

describe('the packed tarball next to @mistralai/mistralai 2.7, with the SDK register starts', () => {
  it('a plain install stops on the peer Mistral pins to the SDK 2.x line (the clash the doc explains)', () => {
    const project = installFreshProject(dependencies());
    expect(project.npmStatus).not.toBe(0);
    expect(project.npmOutput).toContain('ERESOLVE');
    expect(project.npmOutput).toContain('peerOptional @opentelemetry/exporter-trace-otlp-http@"^0.220.0" from @mistralai/mistralai');
  }, 300_000);

  it('with the documented overrides: installs with no warning, and register checks Mistral’s tool loop', async () => {
    const project = installFreshProject(dependencies(), appFiles, documentedOverrides());
    expect(project.npmStatus, project.npmOutput).toBe(0);
    expect(treeWarnings(project.npmOutput)).toEqual([]);

    const run = await runRegisteredApp(
      join(project.dir, 'mistral.mjs'),
      { FAKE_PROVIDER_URL: provider.openaiBaseURL, MISTRAL_ROOT: project.dir, FAULT: 'drop-old-turn' },
      receivers,
      project.dir,
    );
    expect(run.stderr).not.toContain('cannot start');
    expect(run.checks).toBe(10);
    expect(run.providers).toEqual(['mistral_ai']);
    expect(run.kinds).toEqual(['missing_message']);
  }, 300_000);
});
