// The package's own range check against semver's `satisfies`, which it
// stands in for at start-up: the same answer on generated versions and ranges
// of the shapes it decides itself (comparators, partial versions, carets,
// `*`, `||`; prereleases and build metadata; with and without
// includePrerelease), semver's answer for any other shape, and every range
// the package uses decided without semver.

import fc from 'fast-check';
import semverSatisfies from 'semver/functions/satisfies';
import { describe, expect, it } from 'vitest';
import { SessionInvariantInstrumentation } from '../src/instrumentation/session-invariant-instrumentation';
import { decidedHere, satisfies } from '../src/integrations/version-range';
import { SUPPORTED_VERSIONS } from '../src/integrations/supported-versions';
import { SDK_PACKAGES } from '../src/register/sdk-packages';

const number = fc.integer({ min: 0, max: 3 });
const identifier = fc.constantFrom('0', '1', '2', '10', 'alpha', 'beta', 'rc', 'a1', '0a', 'x-y');
const prerelease = fc.array(identifier, { minLength: 1, maxLength: 3 }).map((ids) => ids.join('.'));
const fullVersion = fc
  .tuple(number, number, number, fc.option(prerelease, { nil: undefined }))
  .map(([major, minor, patch, pre]) => `${major}.${minor}.${patch}${pre === undefined ? '' : `-${pre}`}`);
const version = fc
  .tuple(fullVersion, fc.option(fc.constantFrom('build.1', '001', 'sha-abc'), { nil: undefined }))
  .map(([plain, build]) => (build === undefined ? plain : `${plain}+${build}`));
const partialVersion = fc.oneof(
  number.map(String),
  fc.tuple(number, number).map(([major, minor]) => `${major}.${minor}`),
  fullVersion,
);
const op = fc.constantFrom('', '=', '<', '<=', '>', '>=');
const word = fc.oneof(
  fc.tuple(op, partialVersion).map(([o, v]) => `${o}${v}`),
  fc.tuple(number, number, number).map(([major, minor, patch]) => `^${major}.${minor}.${patch}`),
);
const set = fc.oneof(
  fc.constant('*'),
  fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' ')),
);
const range = fc.array(set, { minLength: 1, maxLength: 3 }).map((sets) => sets.join(' || '));
const options = fc.constantFrom(undefined, {}, { includePrerelease: false }, { includePrerelease: true });

describe('satisfies', () => {
  it('answers as semver does on the shapes it decides', () => {
    fc.assert(
      fc.property(version, range, options, (v, r, o) => {
        expect(decidedHere(r)).toBe(true);
        expect(satisfies(v, r, o), `${v} in ${r} ${JSON.stringify(o)}`).toBe(semverSatisfies(v, r, o));
      }),
      { numRuns: 5_000 },
    );
  });

  it('hands other shapes to semver, with its answer', () => {
    const cases: Array<[string, string]> = [
      ['1.2.3', '~1.2.0'],
      ['1.2.3', '1.x'],
      ['1.2.3', '1.0.0 - 2.0.0'],
      ['1.2.3', '>= 1.2.0'],
      ['1.2.3-beta', '^1.2.3-alpha'],
      ['v1.2.3', '>=1.0.0'],
      ['1.2', '>=1.0.0'],
      ['not a version', '*'],
      ['1.2.3', ''],
      ['1.2.3', 'garbage'],
    ];
    for (const [v, r] of cases) {
      for (const o of [{}, { includePrerelease: true }]) expect(satisfies(v, r, o), `${v} in ${r}`).toBe(semverSatisfies(v, r, o));
    }
    expect(decidedHere('~1.2.0')).toBe(false);
  });

  it('decides every range the package uses without semver', () => {
    const definitions = new SessionInvariantInstrumentation({ enabled: false }).getModuleDefinitions();
    const used = [
      ...Object.values(SDK_PACKAGES),
      ...Object.values(SUPPORTED_VERSIONS).map((entry) => entry.range),
      ...definitions.flatMap((definition) => [
        ...definition.supportedVersions,
        ...definition.files.flatMap((file) => file.supportedVersions),
      ]),
    ];
    expect(used.length).toBeGreaterThan(10);
    for (const r of used) expect(decidedHere(r), r).toBe(true);
  });
});
