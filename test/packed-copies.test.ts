// Two installed copies of the packed tarball in one process: the app's, which
// `--require nous-session-invariant/register` enables, and a dependency's own
// (in the dependency's node_modules, with its own copies of every module the
// package depends on), which the dependency enables itself. Each request is
// still checked and counted once (docs/behaviour.md §8.5): two violating
// requests are two span events and a counter of two, whichever seam checks
// them and whichever log they are checked against.

import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from './support/fake-provider';
import { startOtlpReceiver, type OtlpReceiver } from './support/otlp-receiver';
import { installFreshProject, installProjectAt, packTarball, pinnedVersion } from './support/packed';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const fixture = (name: string) => readFileSync(join(PACKAGE_ROOT, 'test/fixtures', name), 'utf8');

let project: string;
let provider: FakeProvider;
const receivers: OtlpReceiver[] = [];

beforeAll(async () => {
  const tarball = packTarball();
  const app = installFreshProject(
    {
      'nous-session-invariant': `file:${tarball}`,
      '@opentelemetry/api': pinnedVersion('@opentelemetry/api'),
      '@opentelemetry/sdk-node': pinnedVersion('@opentelemetry/sdk-node'),
      openai: pinnedVersion('openai'),
    },
    { 'app.cjs': fixture('copies/app.cjs'), 'drop-loop.cjs': fixture('drop-loop.cjs') },
  );
  expect(app.npmStatus, app.npmOutput).toBe(0);
  project = app.dir;
  const plugin = installProjectAt(
    join(project, 'plugin'),
    { 'nous-session-invariant': `file:${tarball}`, '@opentelemetry/api': pinnedVersion('@opentelemetry/api') },
    { 'index.js': fixture('copies/plugin.cjs') },
  );
  expect(plugin.npmStatus, plugin.npmOutput).toBe(0);
  // Two copies on disk, each with its own @opentelemetry/instrumentation.
  const copyOf = (dir: string) => realpathSync(join(dir, 'node_modules/nous-session-invariant'));
  expect(copyOf(join(project, 'plugin'))).not.toBe(copyOf(project));
  provider = await startFakeProvider();
}, 600_000);
afterAll(async () => {
  await provider?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
});

describe('two installed copies of the packed tarball, both enabled', () => {
  it.each([
    ['openai', 'bound', 'plugin first'],
    ['openai', 'implicit', 'plugin first'],
    ['fetch', 'bound', 'plugin first'],
    ['fetch', 'implicit', 'plugin first'],
    ['openai', 'bound', 'plugin last'],
    ['openai', 'implicit', 'plugin last'],
  ])(
    'checked through %s against the %s log, %s: two violating requests, two events, a counter of two',
    async (client, log, order) => {
      const receiver = await startOtlpReceiver();
      receivers.push(receiver);
      const run = await runNode(
        ['--require', 'nous-session-invariant/register', 'app.cjs'],
        {
          CLIENT: client,
          ...(order === 'plugin last' ? { PLUGIN_LAST: '1' } : {}),
          LOG: log,
          FAKE_PROVIDER_URL: provider.openaiBaseURL,
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_METRICS_EXPORTER: 'otlp',
        },
        { cwd: project },
      );
      expect(run.stdout, run.stderr).toContain('agent done');
      const events = receiver.events().filter((e) => e.name === 'nous.session.invariant.violation');
      const counted = receiver.points('nous.session.invariant.violation').reduce((sum, p) => sum + p.value, 0);
      expect({ events: events.length, counted, lines: run.stderr.match(/\[nous-session-invariant\] .*violat/g)?.length ?? 0 }).toEqual({
        events: 2,
        counted: 2,
        lines: 2,
      });
    },
    120_000,
  );
});
