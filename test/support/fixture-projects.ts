// The fixture projects some suites load their packages from (other versions of
// the SDKs and frameworks, telemetry tools, the lowest API): each is a folder
// under test/fixtures or test/versions with its own package-lock.json. A
// project is ready when its node_modules holds every package its lockfile pins,
// at the pinned version; the test run's global setup installs the ones that
// are not (test/support/global-setup.ts), so `npm test` needs no other step.

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { npmEnv } from './packed';
import { PACKAGE_ROOT } from './run-node';

const FIXTURE_ROOTS = ['test/fixtures', 'test/versions'];

/** The fixture projects, as paths relative to the package root, in a stable order. */
export function fixtureProjects(): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    if (existsSync(join(dir, 'package-lock.json'))) found.push(relative(PACKAGE_ROOT, dir));
    if (depth === 0) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name !== 'node_modules') walk(join(dir, entry.name), depth - 1);
    }
  };
  for (const root of FIXTURE_ROOTS) walk(join(PACKAGE_ROOT, root), 2);
  return found.sort();
}

type Lock = { packages?: Record<string, { version?: string; optional?: boolean }> };

function readLock(path: string): Lock | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Lock;
  } catch {
    return undefined;
  }
}

/**
 * Why `project` must be installed, or undefined when it is ready: npm's record
 * of what it installed (node_modules/.package-lock.json) must hold every
 * package of the lockfile at its version. Packages added since (a test adds
 * the packed tarball to some projects) do not make it stale.
 */
export function staleReason(project: string): string | undefined {
  const dir = join(PACKAGE_ROOT, project);
  const wanted = readLock(join(dir, 'package-lock.json'))?.packages ?? {};
  const installed = readLock(join(dir, 'node_modules/.package-lock.json'))?.packages;
  if (installed === undefined) return 'not installed';
  for (const [path, { version, optional }] of Object.entries(wanted)) {
    if (path === '') continue;
    // an optional package for another platform is never installed
    if (optional && installed[path] === undefined) continue;
    if (installed[path]?.version !== version) return `${path.replace(/^.*node_modules\//, '')} is not at ${version}`;
  }
  return undefined;
}

/** `npm ci` in `project`; resolves with npm's output, rejects with its tail when npm fails. */
export function installProject(project: string): Promise<string> {
  return new Promise((resolveInstall, rejectInstall) => {
    const child = spawn('npm', ['ci', '--no-audit', '--no-fund', '--prefix', project], {
      cwd: PACKAGE_ROOT,
      env: npmEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', rejectInstall);
    child.on('close', (code) => {
      if (code === 0) resolveInstall(output);
      else rejectInstall(new Error(`npm ci --prefix ${project} exited ${code}:\n${output.split('\n').slice(-20).join('\n')}`));
    });
  });
}
