// The test run's own machinery, which `npm test` on a fresh clone relies on:
// fixture projects are found and judged against their lockfiles, and a
// subprocess that hangs is reported with what it printed.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureProjects, staleReason } from './support/fixture-projects';
import { PACKAGE_ROOT, runNode } from './support/run-node';

const scratch = mkdtempSync(join(tmpdir(), 'nous-harness-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A project folder with `lock` as its lockfile and, if given, `installed` as npm's record of its node_modules. */
function project(name: string, lock: object, installed?: object): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock));
  if (installed) writeFileSync(join(dir, 'node_modules/.package-lock.json'), JSON.stringify(installed));
  return relative(PACKAGE_ROOT, dir);
}

const LOCK = {
  packages: {
    '': { name: 'fixture' },
    'node_modules/a': { version: '1.0.0' },
    'node_modules/a/node_modules/b': { version: '2.0.0' },
    'node_modules/only-elsewhere': { version: '3.0.0', optional: true },
  },
};

describe('fixture projects', () => {
  it('are every folder under test/fixtures and test/versions with a lockfile, and the global setup has installed them all', () => {
    const projects = fixtureProjects();
    expect(projects).toEqual(expect.arrayContaining(['test/fixtures/langchain', 'test/fixtures/tools/sentry', 'test/versions/ai-sdk-5']));
    expect(projects.filter((p) => p.includes('node_modules'))).toEqual([]);
    expect(projects.map((p) => [p, staleReason(p)])).toEqual(projects.map((p) => [p, undefined]));
  });

  it('are stale when not installed, or when a pinned package is missing or at another version', () => {
    expect(staleReason(project('none', LOCK))).toBe('not installed');
    const { 'node_modules/a/node_modules/b': _b, ...withoutB } = LOCK.packages;
    expect(staleReason(project('missing', LOCK, { packages: withoutB }))).toBe('b is not at 2.0.0');
    const older = { ...LOCK.packages, 'node_modules/a': { version: '0.9.0' } };
    expect(staleReason(project('older', LOCK, { packages: older }))).toBe('a is not at 1.0.0');
  });

  it('are ready with every pinned package installed, whatever was added since and with optional packages of other platforms absent', () => {
    const { 'node_modules/only-elsewhere': _other, ...installed } = LOCK.packages;
    const added = { ...installed, 'node_modules/nous-session-invariant': { version: '0.1.0' } };
    expect(staleReason(project('ready', LOCK, { packages: added }))).toBeUndefined();
  });
});

describe('runNode', () => {
  it('rejects a process that outlives its deadline, naming the command and what it printed', async () => {
    const hanging = runNode(
      ['-e', 'console.log("started"); console.error("waiting"); setInterval(() => {}, 1000)'],
      {},
      { timeoutMs: 1_000 },
    );
    await expect(hanging).rejects.toThrow(/node -e .* did not exit within 1000 ms and was killed\nstdout:\nstarted\n\nstderr:\nwaiting/);
  });

  it('resolves with the exit code and output of a process that ends in time', async () => {
    await expect(runNode(['-e', 'console.log("done"); process.exitCode = 3'], {})).resolves.toMatchObject({ code: 3, stdout: 'done\n' });
  });
});
