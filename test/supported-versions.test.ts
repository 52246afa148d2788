// The one table of supported versions (src/integrations/supported-versions.ts)
// against everything that restates it: the projects under test/versions/ and
// the repository's own devDependencies (the versions CI runs), the suites
// that run them, and the ranges the README and docs/zero-code.md state. A
// range claimed is a range CI has run at both ends; any drift fails here.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_VERSIONS, type SupportedPackage } from '../src/integrations/supported-versions';

const ROOT = join(__dirname, '..');
const VERSIONS = join(ROOT, 'test/versions');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const manifest = (path: string) =>
  JSON.parse(read(path)) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    scripts?: Record<string, string>;
  };
const ENTRIES = Object.entries(SUPPORTED_VERSIONS) as Array<[string, SupportedPackage]>;

/** The version `project` pins of `name`. */
function pinned(project: string, name: string): string | undefined {
  if (project === 'devDependency') return manifest('package.json').devDependencies?.[name];
  return manifest(`test/versions/${project}/package.json`).dependencies?.[name];
}

/** The release after the last one of `version`'s line: the next major, or the next minor for 0.x. */
function nextLine(version: string): string {
  return semver.major(version) === 0 ? semver.inc(version, 'minor')! : semver.inc(version, 'major')!;
}

/** The majors `range` admits, from its lowest version up to (not including) the first major outside it. */
function majorsOf(range: string): number[] {
  const majors: number[] = [];
  for (let major = semver.minVersion(range)!.major; semver.intersects(range, `^${major}.0.0`); major++) majors.push(major);
  return majors;
}

describe('the table of supported versions', () => {
  for (const [key, entry] of ENTRIES) {
    it(`${key}: every tested version is an exact pin, inside the range unless marked outside`, () => {
      const name = entry.pinnedAs ?? entry.module;
      for (const { project, role } of entry.tested) {
        const version = pinned(project, name);
        expect(version, `${project} pins ${name}`).toBeDefined();
        expect(semver.valid(version), `${project} pins ${name} to one version, not ${version}`).not.toBeNull();
        expect(semver.satisfies(version!, entry.range), `${project}: ${name} ${version} against ${entry.range}`).toBe(role !== 'outside');
      }
    });

    it(`${key}: ${entry.range} is run at both ends`, () => {
      const name = entry.pinnedAs ?? entry.module;
      const lowest = entry.tested.filter((t) => t.role === 'lowest').map((t) => pinned(t.project, name)!);
      const highest = entry.tested.filter((t) => t.role === 'highest').map((t) => pinned(t.project, name)!);
      expect(lowest).toHaveLength(1);
      expect(highest).toHaveLength(1);
      const floor = semver.minVersion(entry.range)!.version;
      // Checked at run time: the very first version claimed is the one run. By major: the first major is.
      if (entry.claim === 'exact') expect(lowest[0]).toBe(floor);
      else expect(semver.major(lowest[0]!)).toBe(semver.major(floor));
      // The highest run is on the last line the range admits: the next line is outside it.
      expect(semver.satisfies(nextLine(highest[0]!), entry.range), `${highest[0]} is not on the last line of ${entry.range}`).toBe(false);
      if (entry.claim === 'majors') {
        const run = new Set(entry.tested.filter((t) => t.role !== 'outside').map((t) => semver.major(pinned(t.project, name)!)));
        expect([...run].sort()).toEqual(majorsOf(entry.range));
      }
    });
  }

  it('every project under test/versions/ is in the table, once', () => {
    const projects = readdirSync(VERSIONS, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const listed = ENTRIES.flatMap(([, entry]) => entry.tested.map((t) => t.project)).filter((p) => p !== 'devDependency');
    expect(listed.sort()).toEqual(projects);
  });

  it('every project is run: a suite loads it, or `npm run test:versions` does', () => {
    const scripts = Object.values(manifest('package.json').scripts ?? {}).join('\n');
    const suites = suiteSources();
    for (const [, entry] of ENTRIES) {
      for (const { project } of entry.tested) {
        if (project === 'devDependency') continue;
        expect(
          scripts.includes(`test/versions/${project}`) || suites.includes(`test/versions/${project}`),
          `${project} is run by nothing`,
        ).toBe(true);
      }
    }
  });

  it('the README and docs/zero-code.md state each range as the table has it', () => {
    const readme = read('README.md');
    const zeroCode = read('docs/zero-code.md');
    for (const [key, entry] of ENTRIES) {
      if (entry.claim === 'exact') {
        expect(readme, `README: ${key}`).toContain(`\`${entry.range}\``);
        expect(zeroCode, `docs/zero-code.md: ${key}`).toContain(`\`${entry.range}\``);
      } else {
        const majors = majorsOf(entry.range);
        expect(readme, `README: ${key}`).toContain(`| ${majors.join(', ')} `);
        expect(zeroCode, `docs/zero-code.md: ${key}`).toContain(`${majors.slice(0, -1).join(', ')} and ${majors.at(-1)}`);
      }
    }
  });
});

/** The text of every test source outside test/versions/ (where the projects' own node_modules live). */
function suiteSources(): string {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const d of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${d.name}`;
      if (d.isDirectory()) {
        if (path !== 'test/versions' && d.name !== 'node_modules') walk(path);
      } else if (/\.(ts|mts|cjs|mjs|js)$/.test(d.name)) out.push(read(path));
    }
  };
  walk('test');
  return out.join('\n');
}
