// The ESLint rule that keeps the overlay slot's decision in
// src/invariant/overlay.ts: it reports the decision written elsewhere (the
// forms the package once had among them), passes the calls that ask
// overlay.ts, and the repository's configuration applies it to every module
// of src/ but overlay.ts.

import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import local from '../../scripts/eslint-overlay-rule.mjs';

const RULE = 'local/overlay-slot-decided-once';

function problems(code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(
    code,
    [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { local }, rules: { [RULE]: 'error' } }],
    { filename: 'src/request-path/somewhere.ts' },
  );
  const fatal = messages.filter((m) => m.fatal);
  expect(fatal).toEqual([]);
  return messages.map((m) => m.ruleId ?? '');
}

describe('the overlay slot is decided only in overlay.ts (ESLint)', () => {
  it.each([
    [
      'the implicit log inline on fingerprints (as reconstructionFailure once had it)',
      `const offset = seen.fingerprints[0] === SYSTEM_FINGERPRINT && implied.fingerprints[0] !== SYSTEM_FINGERPRINT ? 1 : 0;`,
    ],
    [
      'the session view on roles (as SessionView.offset had it)',
      `function offset(fold: { role: string }[]) { return fold[0]?.role === 'system' ? 0 : 1; }`,
    ],
    ['through Number()', `const slot = Number(requestLeadsWithSystem && !logLeadsWithSystem);`],
    ['through unary plus', `const slot = +(head.role === 'system' && fold[0]?.role !== 'system');`],
    ['as an if that returns 1', `function slot(a: boolean, b: boolean) { if (a && !isSystem(b)) return 1; return 0; }`],
    ['as an if that counts up', `let offset = 0; if (leadsWithSystem(request)) offset++;`],
    ['as a second overlaySlotOf', `export function overlaySlotOf(a: boolean, b: boolean) { return a && !b ? 1 : 0; }`],
  ])('reports %s', (_name, code) => {
    expect(problems(code)).toContain(RULE);
  });

  it.each([
    ['a call to overlay.ts', `const offset = overlaySlotOf(seen.fingerprints[0] === SYSTEM_FINGERPRINT, false);`],
    [
      'a 0 that encodes "nothing kept" for a system sketch',
      `function encode(s: { role: string }) { if (s.role === 'system') return 0; return [s.role]; }`,
    ],
    ['a choice on something else', `const n = ready ? 1 : 0;`],
  ])('passes %s', (_name, code) => {
    expect(problems(code)).toEqual([]);
  });

  it("is on for every module of src/ but overlay.ts in the repository's configuration", async () => {
    const eslint = new ESLint({ cwd: process.cwd() });
    const severity = async (file: string): Promise<unknown> => {
      const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> };
      const setting = config.rules?.[RULE];
      return Array.isArray(setting) ? setting[0] : setting;
    };
    for (const file of [
      'src/request-path/implicit/prefix-match.ts',
      'src/history/view.ts',
      'src/invariant/check.ts',
      'src/integrations/langchain/recorder.ts',
    ]) {
      expect([2, 'error']).toContain(await severity(file));
    }
    expect(await severity('src/invariant/overlay.ts')).toBeUndefined();
  });
});
