// register's look-ups before it starts an SDK: the SDK packages it needs
// (found, missing, of another version) and the telemetry tools that would set
// up OpenTelemetry after it. Run against real package folders on disk.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { laterSetupWarning, laterSetups } from '../src/register/later-setups';
import { SDK_PACKAGES, sdkProblem } from '../src/register/sdk-packages';

/** A project folder with `packages` (name → version) installed as minimal real packages. */
function project(packages: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'nous-register-setups-'));
  writeFileSync(join(dir, 'package.json'), '{"name":"app","private":true}');
  for (const [name, version] of Object.entries(packages)) {
    const folder = join(dir, 'node_modules', name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name, version, main: 'index.js' }));
    writeFileSync(join(folder, 'index.js'), 'module.exports = {};');
  }
  return dir;
}
const resolverIn = (dir: string) => createRequire(join(dir, 'package.json')).resolve;
const lowest = (range: string) => range.replace(/^\^/, '');

describe('sdkProblem', () => {
  it('finds none when every SDK package is installed in range (as in this repository)', () => {
    expect(sdkProblem()).toBeUndefined();
    const all = Object.fromEntries(Object.entries(SDK_PACKAGES).map(([name, range]) => [name, lowest(range)]));
    expect(sdkProblem(resolverIn(project(all)))).toBeUndefined();
  });

  it('names each package missing or out of range', () => {
    const dir = project({ '@opentelemetry/sdk-node': '0.203.0', '@opentelemetry/core': '3.1.4' });
    const problem = sdkProblem(resolverIn(dir));
    expect(problem).toContain('@opentelemetry/sdk-node is 0.203.0, not ^0.301.0');
    expect(problem).toContain('@opentelemetry/sdk-metrics ^3.1.0 is not installed');
    expect(problem).not.toContain('@opentelemetry/core');
  });
});

describe('laterSetups', () => {
  const register = ['--require', 'nous-session-invariant/register'];

  it('names nothing when no tool is installed or preloaded', () => {
    expect(laterSetups(register, '', project({}))).toEqual([]);
    expect(laterSetupWarning([])).toBeUndefined();
  });

  it('names a tool the app has installed, since the app may set it up after register', () => {
    expect(laterSetups(register, '', project({ '@sentry/node': '11.12.0' }))).toEqual(['@sentry/node (Sentry.init())']);
  });

  it('names a tool preloaded after register, in argv or NODE_OPTIONS, and not one preloaded before it', () => {
    const auto = '@opentelemetry/auto-instrumentations-node/register';
    const dir = project({});
    expect(laterSetups([...register, '--require', auto], '', dir)).toEqual([`@opentelemetry/auto-instrumentations-node (${auto})`]);
    expect(laterSetups([], `--import=nous-session-invariant/register --require ${auto}`, dir)).toHaveLength(1);
    expect(laterSetups(['-r', auto, ...register], '', dir)).toEqual([]);
    // register required from the app's code: every preload ran before it.
    expect(laterSetups(['-r', auto], '', dir)).toEqual([]);
  });

  it('says what to change in the warning', () => {
    const warning = laterSetupWarning(['@sentry/node (Sentry.init())']);
    expect(warning).toContain('@sentry/node (Sentry.init())');
    expect(warning).toContain('before nous-session-invariant/register');
  });
});
