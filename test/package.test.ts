// The published shape: the exports map serves a working CommonJS entry to
// `require` and a working ESM entry to `import`, and they are one instance.

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as api from '../src/index';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../src/version';

const root = join(__dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
}

const probe = `
  const log = new m.SessionLog();
  log.append('user_message', { content: 'hi' });
  const ok = m.check(log, log.deriveMessages());
  const bad = m.check(log, []);
  console.log(JSON.stringify({ ok, kind: bad.violation.kind, names: Object.keys(m).sort() }));
`;

describe('package', () => {
  it('keeps the version in step with package.json', () => {
    expect(PACKAGE_NAME).toBe(pkg.name);
    expect(PACKAGE_VERSION).toBe(pkg.version);
  });

  it('has been built (npm test builds first), every entry with types for require and import', () => {
    const exportsMap = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }).exports;
    for (const [subpath, target] of Object.entries(exportsMap)) {
      if (typeof target === 'string') continue;
      const conditions = target as Record<'import' | 'require', { types: string; default: string }>;
      for (const condition of ['import', 'require'] as const) {
        for (const file of [conditions[condition].types, conditions[condition].default]) {
          expect(existsSync(join(root, file)), `${subpath} ${condition}: ${file} (run \`npm run build\`)`).toBe(true);
        }
      }
    }
  });

  it.each(['', '/instrumentation', '/adapters', '/ai-sdk', '/openai-agents', '/langchain', '/history'])(
    'nous-session-invariant%s: import and require see the same names',
    (subpath) => {
      const names = (code: string[]) => JSON.parse(node(code)) as string[];
      const list = 'console.log(JSON.stringify(Object.keys(m).filter((n) => n !== "default" && n !== "__esModule").sort()))';
      const cjs = names(['-e', `const m = require('nous-session-invariant${subpath}');${list}`]);
      const esm = names(['--input-type=module', '-e', `import * as m from 'nous-session-invariant${subpath}';${list}`]);
      expect(cjs.length).toBeGreaterThan(0);
      expect(esm).toEqual(cjs);
    },
  );

  it('importing the root loads none of the instrumentation machinery', () => {
    const loaded = JSON.parse(
      node(['-e', `require('nous-session-invariant'); console.log(JSON.stringify(Object.keys(require.cache)))`]),
    ) as string[];
    const foreign = loaded.filter((file) => file.includes('node_modules') && !file.includes('/node_modules/@opentelemetry/api/'));
    expect(foreign).toEqual([]);
    expect(loaded.some((file) => file.includes('/dist/instrumentation/') || file.includes('/dist/integrations/'))).toBe(false);
  });

  it('require() gets the CommonJS build through the exports map', () => {
    const out = JSON.parse(node(['-e', `const m = require('nous-session-invariant');${probe}`])) as Record<string, unknown>;
    expect(out).toEqual({ ok: { ok: true }, kind: 'missing_message', names: Object.keys(api).sort() });
  });

  it('import gets the ESM build through the exports map', () => {
    const out = JSON.parse(node(['--input-type=module', '-e', `import * as m from 'nous-session-invariant';${probe}`])) as Record<
      string,
      unknown
    >;
    expect(out).toMatchObject({ ok: { ok: true }, kind: 'missing_message' });
  });

  it('an app mixing require and import shares one instance', () => {
    const out = node([
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import { SessionLog } from 'nous-session-invariant';
       const cjs = createRequire(import.meta.url)('nous-session-invariant');
       console.log(String(SessionLog === cjs.SessionLog));`,
    ]);
    expect(out.trim()).toBe('true');
  });
});

describe('public API (docs/behaviour.md §9)', () => {
  it('exports exactly the contract names from the package root', () => {
    for (const name of [
      'SessionLog',
      'check',
      'verify',
      'SessionInvariantViolation',
      'MODES',
      'resolveMode',
      'VIOLATION_EVENT',
      'VIOLATION_METRIC',
    ]) {
      expect(api, name).toHaveProperty(name);
    }
    expect(api.VIOLATION_EVENT).toBe('nous.session.invariant.violation');
    expect(api.VIOLATION_METRIC).toBe('nous.session.invariant.violation');
  });
});
