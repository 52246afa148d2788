// The package as a user gets it: the tarball `npm pack` makes, installed with
// npm into a fresh project outside this repository. npm runs on the Node that
// runs the tests, and the cache the repository's own install filled makes the
// installs work offline for the versions the lockfile pins.

import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { PACKAGE_ROOT } from './run-node';

/** The environment for npm: this Node first on PATH, none of the parent npm's npm_* settings. */
export function npmEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  return { ...env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` };
}

/** Packs the built package (run `npm run build` first) into a new temporary folder; returns the tarball's path. */
export function packTarball(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nous-packed-'));
  const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
    cwd: PACKAGE_ROOT,
    env: npmEnv(),
    encoding: 'utf8',
  });
  const [packed] = JSON.parse(out) as Array<{ filename: string }>;
  return join(dir, packed!.filename);
}

/**
 * Packs the package as a clean clone of the repository would: the files git
 * tracks (and new ones it does not ignore) copied into a new folder, with no
 * dist/, and `npm pack` run there with its scripts, so prepack must build.
 * The clone borrows this checkout's node_modules for the build. Returns the
 * tarball's path and the files npm put in it; undefined outside a git checkout.
 */
export function packCleanClone(): { tarball: string; files: string[] } | undefined {
  let listed: string;
  try {
    listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: PACKAGE_ROOT, encoding: 'utf8' });
  } catch {
    return undefined;
  }
  const clone = mkdtempSync(join(tmpdir(), 'nous-clean-clone-'));
  for (const file of listed.split('\0')) {
    if (file === '' || !existsSync(join(PACKAGE_ROOT, file))) continue;
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    copyFileSync(join(PACKAGE_ROOT, file), join(clone, file));
  }
  symlinkSync(join(PACKAGE_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
  const destination = mkdtempSync(join(tmpdir(), 'nous-packed-'));
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: clone,
    env: npmEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // npm prints the scripts' output before the JSON on stdout.
  const [packed] = JSON.parse(out.slice(out.indexOf('[\n'))) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: join(destination, packed!.filename), files: packed!.files.map((file) => file.path) };
}

/**
 * The version of `name` that a lockfile of this repository pins (the root
 * one unless `lockfile` names another, relative to the root), so that npm
 * finds it in the cache the repository's install filled.
 */
export function pinnedVersion(name: string, lockfile = 'package-lock.json'): string {
  const lock = JSON.parse(readFileSync(join(PACKAGE_ROOT, lockfile), 'utf8')) as {
    packages: Record<string, { version: string } | undefined>;
  };
  const entry = lock.packages[`node_modules/${name}`];
  if (entry === undefined) throw new Error(`${lockfile} pins no ${name}`);
  return entry.version;
}

export interface FreshProject {
  dir: string;
  /** npm's combined output. */
  npmOutput: string;
  npmStatus: number | null;
}

/**
 * A new project folder with `dependencies` (and `manifest`'s other fields, npm's
 * `overrides` say), installed by `npm install`; `files` are written into it first.
 */
export function installFreshProject(
  dependencies: Record<string, string>,
  files: Record<string, string> = {},
  manifest: Record<string, unknown> = {},
): FreshProject {
  return installProjectAt(mkdtempSync(join(tmpdir(), 'nous-fresh-project-')), dependencies, files, manifest);
}

/** `installFreshProject` in the folder `dir` (made if missing), say a folder inside another project with its own node_modules. */
export function installProjectAt(
  dir: string,
  dependencies: Record<string, string>,
  files: Record<string, string> = {},
  manifest: Record<string, unknown> = {},
): FreshProject {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fresh-project', private: true, ...manifest, dependencies }, null, 2));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const run = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: dir,
    env: npmEnv(),
    encoding: 'utf8',
    timeout: 240_000,
  });
  return { dir, npmOutput: `${run.stdout}${run.stderr}`, npmStatus: run.status };
}

/** npm's warnings about the tree: engines, peers and resolution (not its notices about install scripts). */
export function treeWarnings(npmOutput: string): string[] {
  return npmOutput.split('\n').filter((line) => /EBADENGINE|ERESOLVE|peer dep|EBADPLATFORM|deprecated/i.test(line));
}

/**
 * Adds the tarball to an installed project as a user would (`npm install
 * <tarball>`, which resolves it against the tree and its peers), then puts the
 * project's package.json and lockfile back, so the fixture stays as committed.
 */
export function installTarballInto(dir: string, tarball: string): { status: number | null; output: string } {
  const kept = ['package.json', 'package-lock.json'].map((name) => [name, readFileSync(join(dir, name), 'utf8')] as const);
  try {
    const run = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: dir,
      env: npmEnv(),
      encoding: 'utf8',
      timeout: 240_000,
    });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  } finally {
    for (const [name, text] of kept) writeFileSync(join(dir, name), text);
  }
}
