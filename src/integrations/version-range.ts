// The one place that decides whether a version is in a range, as semver's
// `satisfies` does. semver's `satisfies` loads 19 modules and builds its
// regular expressions at the first call, about 8 ms of a cold start
// (docs/performance.md "Cold start"), for ranges that here are all of a few
// plain shapes. Those shapes are decided here: `*`, comparators
// (`>=6.0.0 <8`, `<0.21`, `1.2`) and carets of a whole version (`^3.1.0`),
// joined by spaces and `||`, on versions `X.Y.Z[-pre][+build]`. Any other
// range or version is handed to semver itself, loaded then, so the answer is
// semver's for every input (test/version-range.test.ts compares the two on
// generated ranges and versions).

import { createRequire } from 'node:module';

/** `X.Y.Z` and the prerelease identifiers. */
interface Version {
  readonly main: readonly [number, number, number];
  readonly pre: readonly string[];
}

type Op = '<' | '<=' | '>' | '>=' | '=';

interface Comparator {
  readonly op: Op;
  readonly version: Version;
}

/** A set of comparators that must all hold; empty for `*`. */
type ComparatorSet = readonly Comparator[];

interface Options {
  includePrerelease?: boolean;
}

const NUMBER = '0|[1-9]\\d*';
const IDENTIFIER = `(?:${NUMBER}|\\d*[a-zA-Z-][a-zA-Z0-9-]*)`;
const PRERELEASE = `${IDENTIFIER}(?:\\.${IDENTIFIER})*`;
const VERSION = new RegExp(`^v?(${NUMBER})\\.(${NUMBER})\\.(${NUMBER})(?:-(${PRERELEASE}))?(?:\\+[0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*)?$`);
const COMPARATOR = new RegExp(`^(<=|>=|<|>|=)?(${NUMBER})(?:\\.(${NUMBER})(?:\\.(${NUMBER})(?:-(${PRERELEASE}))?)?)?$`);
const CARET = new RegExp(`^\\^(${NUMBER})\\.(${NUMBER})\\.(${NUMBER})$`);
const NUMERIC = /^[0-9]+$/;

const ranges = new Map<string, readonly ComparatorSet[] | undefined>();

/** Whether `version` is in `range`, as semver's `satisfies(version, range, options)` answers. */
export function satisfies(version: string, range: string, options: Options = {}): boolean {
  const includePrerelease = options.includePrerelease === true;
  const key = `${includePrerelease ? 'p' : ''}${range}`;
  let sets = ranges.get(key);
  if (sets === undefined && !ranges.has(key)) ranges.set(key, (sets = parseRange(range, includePrerelease)));
  const parsed = parseVersion(version);
  if (sets === undefined || parsed === undefined) return semverSatisfies(version, range, options);
  return sets.some((set) => testSet(set, parsed, includePrerelease));
}

function semverSatisfies(version: string, range: string, options: Options): boolean {
  const satisfiesOf = createRequire(__filename)('semver/functions/satisfies') as (
    version: string,
    range: string,
    options: Options,
  ) => boolean;
  return satisfiesOf(version, range, options);
}

function parseVersion(text: string): Version | undefined {
  if (text.length > 256) return undefined;
  const match = VERSION.exec(text.trim());
  if (!match) return undefined;
  const main = [Number(match[1]), Number(match[2]), Number(match[3])] as const;
  if (!main.every(Number.isSafeInteger)) return undefined;
  const pre = match[4]?.split('.') ?? [];
  if (pre.some((id) => NUMERIC.test(id) && !Number.isSafeInteger(Number(id)))) return undefined;
  return { main, pre };
}

/** The comparator sets of `range`, in the shapes this file decides, or undefined for any other. */
function parseRange(range: string, includePrerelease: boolean): ComparatorSet[] | undefined {
  const sets: ComparatorSet[] = [];
  for (const part of range.split('||')) {
    const words = part.trim().split(/\s+/).filter(Boolean);
    if (words.length === 1 && words[0] === '*') {
      sets.push([]);
      continue;
    }
    if (words.length === 0) return undefined;
    const set: Comparator[] = [];
    for (const word of words) {
      const comparators = parseComparator(word, includePrerelease);
      if (comparators === undefined) return undefined;
      set.push(...comparators);
    }
    sets.push(set);
  }
  // semver keeps only a `*` set when there is one (a prerelease then needs includePrerelease).
  return sets.some((set) => set.length === 0) ? [[]] : sets;
}

/** Whether `range` is of the shapes decided here (the others go to semver). */
export function decidedHere(range: string): boolean {
  return parseRange(range, false) !== undefined && parseRange(range, true) !== undefined;
}

const at = (major: number, minor: number, patch: number, pre: readonly string[] = []): Version => ({ main: [major, minor, patch], pre });
/** The lowest prerelease of a version, `-0`: a bound below it and all its prereleases. */
const LOWEST = ['0'];

/** One word of a range as semver reads it: a partial version is the span it names, a caret the versions compatible with it. */
function parseComparator(word: string, includePrerelease: boolean): Comparator[] | undefined {
  const caret = CARET.exec(word);
  if (caret) {
    const [major, minor, patch] = [Number(caret[1]), Number(caret[2]), Number(caret[3])];
    // Below the next major; on 0.m, the next minor; on 0.0, the next patch.
    const upper = major > 0 ? at(major + 1, 0, 0, LOWEST) : minor > 0 ? at(0, minor + 1, 0, LOWEST) : at(0, 0, patch + 1, LOWEST);
    return [
      { op: '>=', version: at(major, minor, patch) },
      { op: '<', version: upper },
    ];
  }
  const match = COMPARATOR.exec(word);
  if (!match) return undefined;
  const op = (match[1] ?? '=') as Op;
  const major = Number(match[2]);
  const minor = match[3] === undefined ? undefined : Number(match[3]);
  const patch = match[4] === undefined ? undefined : Number(match[4]);
  if (![major, minor ?? 0, patch ?? 0].every(Number.isSafeInteger)) return undefined;
  if (minor !== undefined && patch !== undefined) return [{ op, version: at(major, minor, patch, match[5]?.split('.') ?? []) }];
  // A partial version: `M` spans M.0.0 up to (M+1).0.0, `M.m` spans M.m.0 up to M.(m+1).0; with
  // includePrerelease, from the lowest prerelease of its first version.
  const floor = includePrerelease ? LOWEST : [];
  const low = minor === undefined ? at(major, 0, 0, floor) : at(major, minor, 0, floor);
  const next = minor === undefined ? at(major + 1, 0, 0, floor) : at(major, minor + 1, 0, floor);
  const below = (version: Version): Version => at(...version.main, LOWEST);
  switch (op) {
    case '=':
      return [
        { op: '>=', version: low },
        { op: '<', version: below(next) },
      ];
    case '>=':
      return [{ op: '>=', version: low }];
    case '>':
      return [{ op: '>=', version: next }];
    case '<':
      return [{ op: '<', version: below(low) }];
    case '<=':
      return [{ op: '<', version: below(next) }];
  }
}

function testSet(set: ComparatorSet, version: Version, includePrerelease: boolean): boolean {
  for (const comparator of set) if (!holds(comparator, version)) return false;
  if (version.pre.length === 0 || includePrerelease) return true;
  // A prerelease is in a range only where a comparator names a prerelease of the same X.Y.Z (`*` names none).
  return set.some(
    ({ version: bound }) =>
      bound.pre.length > 0 && bound.main[0] === version.main[0] && bound.main[1] === version.main[1] && bound.main[2] === version.main[2],
  );
}

function holds({ op, version: bound }: Comparator, version: Version): boolean {
  const order = compare(version, bound);
  switch (op) {
    case '=':
      return order === 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a.main[i] !== b.main[i]) return a.main[i]! < b.main[i]! ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length === 0 ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; ; i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? -1 : 1;
    if (x === y) continue;
    const xNumeric = NUMERIC.test(x);
    const yNumeric = NUMERIC.test(y);
    if (xNumeric && yNumeric) return Number(x) < Number(y) ? -1 : 1;
    if (xNumeric !== yNumeric) return xNumeric ? -1 : 1;
    return x < y ? -1 : 1;
  }
}
