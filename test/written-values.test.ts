// The bounds on what the package writes, for all inputs (docs/behaviour.md §6.3, §6.6).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/telemetry/secret-shapes';
import { MAX_WRITTEN_LENGTH, writtenText } from '../src/telemetry/written-value';
import { consoleSafe } from '../src/warnings';

describe('writtenText', () => {
  it('never throws and never gives more than the bound and its marker, whatever the value', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 2_000 }), fc.string({ unit: 'binary', maxLength: 600 }), fc.anything()), (value) => {
        const text = writtenText(value);
        if (text === undefined) return;
        expect(text.length).toBeLessThanOrEqual(MAX_WRITTEN_LENGTH + 40);
        // Never a lone half of a surrogate pair at the cut.
        expect(text).toBe(Buffer.from(text, 'utf8').toString('utf8'));
      }),
    );
  });

  it('keeps a value within the bound as it is', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: MAX_WRITTEN_LENGTH }), (s) => {
        expect(writtenText(s)).toBe(s);
      }),
    );
  });
});

describe('consoleSafe', () => {
  it('leaves no control character and is one line, for all text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        // eslint-disable-next-line no-control-regex -- the assertion is about control characters
        expect(consoleSafe(s)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
      }),
    );
  });
});

describe('redactSecrets', () => {
  const token = (min: number) => fc.stringMatching(new RegExp(`^[A-Za-z0-9]{${min},40}$`));
  const secret = fc.oneof(
    token(16).map((t) => `sk-${t}`),
    token(16).map((t) => `sk-proj-${t}`),
    token(16).map((t) => `sk-ant-api03-${t}`),
    token(16).map((t) => `ghp_${t}`),
    token(16).map((t) => `AIza${t}`),
    fc.stringMatching(/^AKIA[0-9A-Z]{16}$/),
    token(12).map((t) => `xoxb-${t}`),
    token(12).map((t) => `sk_live_${t}`),
    fc.tuple(token(10), token(10)).map(([a, b]) => `eyJ${a}.eyJ${b}.sig`),
  );
  const around = fc.stringMatching(/^[a-z ,.:]{0,30}$/);

  it('no secret of a listed shape survives, whatever text surrounds it', () => {
    fc.assert(
      fc.property(around, secret, around, (before, key, after) => {
        const out = redactSecrets(`${before} ${key} ${after}`);
        expect(out).not.toContain(key.slice(-10));
        expect(out).toContain('[redacted]');
      }),
    );
  });

  it('keeps the scheme or the key name, and text with no secret as it is', () => {
    expect(redactSecrets('Authorization: Bearer abcdefghijkl0123')).toBe('Authorization: Bearer [redacted]');
    expect(redactSecrets('{"api_key": "abcd1234efgh"}')).toBe('{"api_key": "[redacted]"}');
    expect(redactSecrets('the task-management sketch of a skeleton key')).toBe('the task-management sketch of a skeleton key');
  });
});
