// Tool-call arguments read in place (src/invariant/flat-json.ts) must
// fingerprint exactly as the value JSON.parse makes of them, and whatever
// that reading does not take must still fingerprint as before.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readFlatObject } from '../src/invariant/flat-json';
import { fingerprintOf } from '../src/invariant/fingerprint';
import type { Message } from '../src/model/messages';

const call = (args: unknown): Message => ({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: args }] });
const flatValue = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const flatObject = fc.dictionary(fc.string({ unit: 'binary' }), flatValue, { maxKeys: 20 });
/** JSON text of `value` with JSON whitespace sprinkled between tokens. */
const spaced = (value: unknown, seed: number): string => {
  const text = JSON.stringify(value, null, seed % 3 === 0 ? undefined : seed % 3 === 1 ? 2 : '\t');
  return seed % 5 === 0 ? ` \r\n${text}\t ` : text;
};

describe('tool-call arguments read in place', () => {
  it('a flat object text fingerprints as the object it parses to, in any spacing', () => {
    fc.assert(
      fc.property(flatObject, fc.nat(), (value, seed) => {
        const text = spaced(value, seed);
        expect(fingerprintOf(call(text))).toBe(fingerprintOf(call(JSON.parse(text))));
      }),
      { numRuns: 2_000 },
    );
  });

  it('a text that is not a flat object fingerprints as before: as what it parses to, or as text', () => {
    const texts = [
      '{"a":1,"a":2}',
      '{"a":"x\\ny"}',
      '{"a":{"b":1}}',
      '{"a":[1]}',
      '[1,2]',
      '"s"',
      '12',
      '{"a":01}',
      '{"a":1,}',
      '{"a" 1}',
      '{"a":tru}',
      '{"a":"\u0001"}',
      '{"a":1} x',
      '{',
      '',
      '{"a":-}',
      '{"a":1.}',
      '{"a":1e}',
      '{"a":-0}',
      '{"__proto__":1}',
    ];
    for (const text of texts) {
      let parsed: unknown;
      let parses = true;
      try {
        parsed = JSON.parse(text);
      } catch {
        parses = false;
      }
      // (A text that parses to a string is not compared: a string argument is itself read as JSON text.)
      if (parses && typeof parsed !== 'string') expect(fingerprintOf(call(text)), text).toBe(fingerprintOf(call(parsed)));
      else expect(fingerprintOf(call(text)), text).not.toBe(fingerprintOf(call({})));
    }
    expect(fingerprintOf(call('{"a":1,"a":2}'))).toBe(fingerprintOf(call({ a: 2 })));
    expect(fingerprintOf(call('{"a":1 , "b":"x"}'))).toBe(fingerprintOf(call({ b: 'x', a: 1 })));
  });

  it('a different value or key gives a different fingerprint', () => {
    expect(fingerprintOf(call('{"city":"Paris"}'))).not.toBe(fingerprintOf(call('{"city":"Pari"}')));
    expect(fingerprintOf(call('{"city":"Paris"}'))).not.toBe(fingerprintOf(call('{"town":"Paris"}')));
    expect(fingerprintOf(call('{"n":1}'))).not.toBe(fingerprintOf(call('{"n":"1"}')));
    expect(fingerprintOf(call('{"n":true}'))).not.toBe(fingerprintOf(call('{"n":"true"}')));
    expect(fingerprintOf(call('{"n":null}'))).not.toBe(fingerprintOf(call('{}')));
  });

  it('reads only flat objects with distinct keys and no escapes', () => {
    const out: number[] = [];
    expect(readFlatObject('{"a":"b", "c" : 1.5e3 ,"d":true,"e":false,"f":null}', out)).toBe(5);
    expect(readFlatObject('{}', out)).toBe(0);
    for (const text of ['{"a":1,"a":2}', '{"a":"\\""}', '{"a":{}}', '{"a":[]}', '[]', '{"a":1', '{"a":1}}', '{"a":+1}', '{"a":.5}'])
      expect(readFlatObject(text, out), text).toBe(-1);
  });
});
