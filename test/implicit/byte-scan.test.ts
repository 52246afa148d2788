// The structural scan of a serialised body (src/request-path/implicit/bytes):
// where a top-level value and an array's elements are, checked against
// JSON.parse/JSON.stringify for any JSON value, compact or indented.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayElements, objectEndsAt, skipValue, topLevelValue } from '../../src/request-path/implicit/bytes/json-scan';
import { bodyLayout, elementsFrom } from '../../src/request-path/implicit/bytes/body-layout';

const RUNS = { numRuns: 500 };
/** Any JSON value, strings with quotes, backslashes, escapes, brackets and non-ASCII text included. */
const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '[', ']', '{', '}', ',', ':', ' ', '\n', 'é', '日', '😀', '\u0001') });
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const indent = fc.constantFrom(undefined, 1, '\t');

describe('json-scan', () => {
  it('skipValue ends every value where JSON.stringify ends it', () => {
    fc.assert(
      fc.property(json, indent, text, (value, space, after) => {
        const serialised = JSON.stringify(value, null, space);
        expect(skipValue(serialised + ',' + after, 0)).toBe(serialised.length);
      }),
      RUNS,
    );
  });

  it('arrayElements gives each element of any array, compact or indented', () => {
    fc.assert(
      fc.property(fc.array(json, { maxLength: 8 }), indent, (elements, space) => {
        const body = JSON.stringify({ before: elements, list: elements }, null, space);
        const open = topLevelValue(body, 'list');
        const spans = arrayElements(body, open)!;
        expect(spans.map((span) => JSON.parse(body.slice(span.start, span.end)) as unknown)).toEqual(JSON.parse(JSON.stringify(elements)));
      }),
      RUNS,
    );
  });

  it('objectEndsAt holds at the end of each object of a list of objects, and nowhere else outside strings', () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(text, fc.oneof(fc.integer(), text)), { minLength: 1, maxLength: 6 }), indent, (objects, space) => {
        const body = JSON.stringify({ messages: objects }, null, space);
        const spans = arrayElements(body, topLevelValue(body, 'messages'))!;
        const ends = new Set(spans.map((span) => span.end));
        for (const span of spans) expect(objectEndsAt(body, span.end)).toBe(true);
        // Inside an element, outside its strings, a flat object has no boundary.
        for (const span of spans) {
          for (let at = span.start + 1; at < span.end; at++)
            if (!ends.has(at) && objectEndsAt(body, at)) expect(insideString(body, span.start, at)).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('a scan from an element end reads only the elements after it', () => {
    fc.assert(
      fc.property(fc.array(json, { minLength: 1, maxLength: 8 }), fc.nat(), indent, (elements, cut, space) => {
        const body = JSON.stringify({ messages: elements }, null, space);
        const open = topLevelValue(body, 'messages');
        const all = arrayElements(body, open)!;
        const k = cut % all.length;
        expect(arrayElements(body, open, all[k]!.end)).toEqual(all.slice(k + 1));
      }),
      RUNS,
    );
  });

  it('topLevelValue finds the value of a top-level key, never a nested one', () => {
    fc.assert(
      fc.property(fc.dictionary(text, json, { maxKeys: 5 }), json, indent, (others, value, space) => {
        const nested = { messages: 'nested' };
        const body = JSON.stringify({ ...others, inner: nested, messages: value }, null, space);
        const at = topLevelValue(body, 'messages');
        expect(JSON.parse(body.slice(at, skipValue(body, at)))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      RUNS,
    );
  });

  it('malformed or truncated bodies give -1 or undefined, never a throw', () => {
    fc.assert(
      fc.property(fc.array(json, { maxLength: 5 }), fc.nat(), (elements, cut) => {
        const body = JSON.stringify({ messages: elements });
        // Cut before the array's closing bracket (the body ends `]}`).
        const truncated = body.slice(0, cut % (body.length - 1));
        const open = topLevelValue(truncated, 'messages');
        if (open >= 0) expect(arrayElements(truncated, open)).toBeUndefined();
      }),
      RUNS,
    );
    expect(topLevelValue('[1,2]', 'messages')).toBe(-1);
    expect(topLevelValue('{"messages"', 'messages')).toBe(-1);
    expect(topLevelValue('{"a":1 "messages":[]}', 'messages')).toBe(-1);
    expect(arrayElements('{"messages":[1,,2]}', 12)).toBeUndefined();
  });
});

/** Whether `at` is inside a string of the value that starts at `start`. */
function insideString(s: string, start: number, at: number): boolean {
  let inside = false;
  for (let i = start; i < at; i++) {
    if (s[i] === '\\' && inside) i++;
    else if (s[i] === '"') inside = !inside;
  }
  return inside;
}

describe('body-layout', () => {
  it('p0 is the first element whose role is not system or developer, whatever the key order', () => {
    const messages = [
      { role: 'system', content: 'be brief' },
      { content: 'also this', role: 'developer' },
      { role: 'user', content: '{"role":"system"}' },
      { role: 'assistant', content: 'ok' },
    ];
    const body = JSON.stringify({ model: 'm', messages });
    const layout = bodyLayout(body, 'messages')!;
    expect(layout.systemCount).toBe(2);
    expect(JSON.parse(body.slice(layout.p0, layout.firstEnd))).toEqual(messages[2]);
    expect(elementsFrom(body, layout)!.map((e) => JSON.parse(body.slice(e.start, e.end)) as unknown)).toEqual(messages.slice(2));
  });

  it('finds Responses input, and follows no request with only system elements', () => {
    const input = [{ type: 'message', role: 'user', content: 'hi' }];
    const body = JSON.stringify({ model: 'm', input, instructions: 'x' });
    expect(JSON.parse(body.slice(bodyLayout(body, 'input')!.p0, bodyLayout(body, 'input')!.firstEnd))).toEqual(input[0]);
    expect(bodyLayout(JSON.stringify({ messages: [{ role: 'system', content: 's' }] }), 'messages')).toBeUndefined();
    expect(bodyLayout(JSON.stringify({ messages: [] }), 'messages')).toBeUndefined();
    expect(bodyLayout(JSON.stringify({ messages: 'not a list' }), 'messages')).toBeUndefined();
    expect(bodyLayout(JSON.stringify({ input: 'a string input' }), 'input')).toBeUndefined();
  });
});
