import fc from 'fast-check';
import { getBooleanFromEnv } from '@opentelemetry/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MODES, resolveMode, setLogger } from '../src/index';
import { booleanFromEnv, isTestEnvironment } from '../src/environment';
import { resetWarnings } from '../src/warnings';

const warn = vi.fn();
beforeEach(() => {
  resetWarnings();
  warn.mockReset();
  setLogger({ warn });
});
afterEach(() => {
  setLogger(null);
  vi.unstubAllEnvs();
});

describe('resolveMode', () => {
  it('has exactly three modes', () => {
    expect(MODES).toEqual(['off', 'warn', 'strict']);
  });

  it('defaults to warn', () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', undefined);
    expect(resolveMode()).toBe('warn');
  });

  it.each(MODES)('takes %s from config', (mode) => {
    expect(resolveMode(mode)).toBe(mode);
  });

  it.each(MODES)('takes %s from NOUS_SESSION_INVARIANT when config is silent', (mode) => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', mode);
    expect(resolveMode()).toBe(mode);
    expect(resolveMode(undefined)).toBe(mode);
  });

  it('prefers config over the environment', () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'off');
    expect(resolveMode('strict')).toBe('strict');
  });

  it('accepts case and blanks around a mode name', () => {
    vi.stubEnv('NOUS_SESSION_INVARIANT', ' STRICT ');
    expect(resolveMode()).toBe('strict');
  });

  it('falls back to warn on a value that is not a mode, and warns once per process', () => {
    expect(resolveMode('loud')).toBe('warn');
    expect(resolveMode(42)).toBe('warn');
    vi.stubEnv('NOUS_SESSION_INVARIANT', 'stirct');
    expect(resolveMode()).toBe('warn');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/"loud" is not a mode/);
  });

  it('never throws, whatever it is given', () => {
    const hostile = {
      toString() {
        throw new Error('boom');
      },
    };
    expect(() => resolveMode(hostile)).not.toThrow();
    expect(resolveMode(Symbol('x'))).toBe('warn');
  });
});

describe('isTestEnvironment', () => {
  it.each([{ NODE_ENV: 'test' }, { VITEST: 'true' }, { NODE_TEST_CONTEXT: 'child-v8' }, { JEST_WORKER_ID: '1' }])(
    'recognises %o',
    (env) => {
      expect(isTestEnvironment(env)).toBe(true);
    },
  );

  it('is false for production', () => {
    expect(isTestEnvironment({ NODE_ENV: 'production' })).toBe(false);
    expect(isTestEnvironment({})).toBe(false);
  });

  it('is true under this test runner', () => {
    expect(isTestEnvironment()).toBe(true);
  });
});

// The one boolean environment reader (src/environment.ts): OpenTelemetry's
// reading (`getBooleanFromEnv`), with a default and one warning per bad value.
const NAME = 'NOUS_SESSION_INVARIANT_TEST_FLAG';

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
        vi.stubEnv(NAME, value);
        expect(booleanFromEnv(NAME, false, 'x')).toBe(getBooleanFromEnv(NAME));
      }),
      { numRuns: 500 },
    );
  });
});
