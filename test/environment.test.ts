// The one boolean environment reader (src/environment.ts): OpenTelemetry's
// reading (`getBooleanFromEnv`), with a default and one warning per bad value.

import fc from 'fast-check';
import { getBooleanFromEnv } from '@opentelemetry/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { booleanFromEnv } from '../src/environment';
import { setLogger } from '../src/index';
import { resetWarnings } from '../src/warnings';

const NAME = 'NOUS_SESSION_INVARIANT_TEST_FLAG';
const warn = vi.fn();

beforeEach(() => {
  resetWarnings();
  warn.mockReset();
  setLogger({ warn });
});
afterEach(() => {
  setLogger(null);
  delete process.env[NAME];
});

describe('booleanFromEnv', () => {
  it('reads true and false in any case, blanks around them ignored; unset or empty keeps the default', () => {
    expect(booleanFromEnv(NAME, false, 'x', { [NAME]: ' TRUE ' })).toBe(true);
    expect(booleanFromEnv(NAME, true, 'x', { [NAME]: 'False' })).toBe(false);
    expect(booleanFromEnv(NAME, true, 'x', {})).toBe(true);
    expect(booleanFromEnv(NAME, false, 'x', { [NAME]: '  ' })).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });

  it('keeps the default for any other value (1, on, off, 0) and warns once per value, naming the setting', () => {
    for (const value of ['off', '0', 'off', 'on', '1'])
      expect(booleanFromEnv(NAME, true, 'the implicit log', { [NAME]: value })).toBe(true);
    expect(warn.mock.calls.map(([line]) => line as string)).toEqual([
      `${NAME}="off" is not "true" or "false"; it is ignored and the implicit log stays on`,
      `${NAME}="0" is not "true" or "false"; it is ignored and the implicit log stays on`,
      `${NAME}="on" is not "true" or "false"; it is ignored and the implicit log stays on`,
      `${NAME}="1" is not "true" or "false"; it is ignored and the implicit log stays on`,
    ]);
  });

  it('reads any value as @opentelemetry/core getBooleanFromEnv does (default false)', () => {
    const valueArb = fc.oneof(
      fc.string(),
      fc.constantFrom('true', 'false', 'TRUE', ' False ', '\ttrue\n', '1', '0', 'on', 'off', 'yes', ''),
      fc.mixedCase(fc.constantFrom('true', 'false')),
    );
    fc.assert(
      fc.property(valueArb, (value) => {
        process.env[NAME] = value;
        expect(booleanFromEnv(NAME, false, 'x')).toBe(getBooleanFromEnv(NAME));
      }),
      { numRuns: 500 },
    );
  });
});
