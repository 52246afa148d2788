// register with SDK packages it does not support, end to end: a copy of the
// built package installed beside a package folder of another version (or
// none), every other dependency linked from this repository. The versions are
// checked on the packages start-sdk.ts loaded, not looked up before it
// (docs/performance.md "Cold start"); an SDK package missing or out of range
// must still give the same warning, and no SDK.

import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const REPO_MODULES = join(PACKAGE_ROOT, 'node_modules');
const APP = join(PACKAGE_ROOT, 'test', 'fixtures', 'sdk-versions', 'app.cjs');
const made: string[] = [];

/**
 * A folder with the built package in `node_modules/nous-session-invariant`
 * and every package of this repository's node_modules linked beside it, but
 * `replaced` (`@opentelemetry/<name>` → a version that re-exports the real
 * package, or null for none).
 */
function install(replaced: Record<string, string | null>): string {
  const root = mkdtempSync(join(tmpdir(), 'nous-sdk-versions-'));
  made.push(root);
  const modules = join(root, 'node_modules');
  const own = join(modules, 'nous-session-invariant');
  mkdirSync(own, { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'dist'), join(own, 'dist'), { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'package.json'), join(own, 'package.json'));
  for (const entry of readdirSync(REPO_MODULES)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(REPO_MODULES, entry)).map((name) => `${entry}/${name}`) : [entry];
    for (const name of names) {
      mkdirSync(join(modules, name, '..'), { recursive: true });
      if (!(name in replaced)) symlinkSync(join(REPO_MODULES, name), join(modules, name));
    }
  }
  for (const [name, version] of Object.entries(replaced)) {
    if (version === null) continue;
    const folder = join(modules, name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version, main: 'index.js' }));
    writeFileSync(join(folder, 'index.js'), `module.exports = require(${JSON.stringify(join(REPO_MODULES, name))});`);
  }
  return root;
}

async function registerIn(root: string): Promise<{ stderr: string; tracerProvider: string }> {
  // The app runs from a folder of its own, so that no telemetry tool is found installed (later-setups.ts).
  const cwd = mkdtempSync(join(tmpdir(), 'nous-sdk-versions-app-'));
  made.push(cwd);
  const run = await runNode(
    ['--require', join(root, 'node_modules', 'nous-session-invariant', 'dist', 'register.js'), APP],
    { OTEL_API_PATH: join(REPO_MODULES, '@opentelemetry', 'api') },
    { cwd },
  );
  expect(run.code, run.stderr).toBe(0);
  return { stderr: run.stderr, tracerProvider: (JSON.parse(run.stdout.trim()) as { tracerProvider: string }).tracerProvider };
}

const INSTALL = 'Install the SDK (npm install @opentelemetry/sdk-node@^0.301.0), or register one before this package.';

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('register and the versions of the SDK packages', () => {
  it('starts the SDK when every package is in range', async () => {
    const run = await registerIn(install({}));
    expect(run.stderr).not.toContain('cannot start');
    expect(run.tracerProvider).not.toBe('NoopTracerProvider');
  });

  it('an SDK package out of range (and loadable): warns as before and starts no SDK', async () => {
    const run = await registerIn(install({ '@opentelemetry/sdk-node': '0.200.0' }));
    expect(run.stderr).toContain(
      '[nous-session-invariant] register cannot start the OpenTelemetry SDK (@opentelemetry/sdk-node is 0.200.0, not ^0.301.0), ' +
        `so nothing is exported. ${INSTALL}\n`,
    );
    expect(run.tracerProvider).toBe('NoopTracerProvider');
  });

  it('an SDK package missing and another out of range: names both, as before, and starts no SDK', async () => {
    const run = await registerIn(install({ '@opentelemetry/sdk-logs': null, '@opentelemetry/core': '2.5.0' }));
    expect(run.stderr).toContain(
      '[nous-session-invariant] register cannot start the OpenTelemetry SDK (@opentelemetry/sdk-logs ^3.1.0 is not installed; ' +
        `@opentelemetry/core is 2.5.0, not ^3.1.0), so nothing is exported. ${INSTALL}\n`,
    );
    expect(run.tracerProvider).toBe('NoopTracerProvider');
  });
});
