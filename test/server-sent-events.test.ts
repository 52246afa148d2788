// The server-sent-events reader (integrations/http/server-sent-events.ts):
// any chunking of a stream gives the same events as the stream read whole,
// and those are the events a plain reading of the standard's rules gives
// (CRLF, LF and CR line ends; one leading space stripped from a value).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventStreamParser, type ServerSentEvent } from '../src/integrations/http/server-sent-events';

function parse(chunks: readonly string[]): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  const parser = new EventStreamParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  parser.end();
  return events;
}

/** The whole stream read line by line, as the standard describes it. */
function reference(text: string): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) events.push({ event, data: data.join('\n') });
    event = undefined;
    data = [];
  };
  for (const line of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    if (line === '') dispatch();
    else if (!line.startsWith(':')) {
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
    }
  }
  dispatch();
  return events;
}

const valueArb = fc.stringMatching(/^[ a-z{}":é]{0,8}$/);
const lineArb = fc.oneof(
  valueArb.map((v) => `data:${v}`),
  valueArb.map((v) => `event:${v}`),
  valueArb.map((v) => `:${v}`),
  valueArb.map((v) => `id:${v}`),
  fc.constantFrom('data', 'event', ''),
);
const streamArb = fc
  .array(fc.tuple(lineArb, fc.constantFrom('\r\n', '\n', '\r')), { maxLength: 30 })
  .map((lines) => lines.map(([line, end]) => line + end).join(''));

/** `text` cut at the given positions. */
function chunked(text: string, cuts: readonly number[]): string[] {
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const cut of at) {
    chunks.push(text.slice(from, cut));
    from = cut;
  }
  chunks.push(text.slice(from));
  return chunks;
}

describe('server-sent events', () => {
  it('any chunking of a stream gives the events the whole stream gives, as the standard reads them', () => {
    fc.assert(
      fc.property(streamArb, fc.array(fc.nat(), { maxLength: 12 }), (text, cuts) => {
        const whole = parse([text]);
        expect(whole).toEqual(reference(text));
        expect(parse(chunked(text, cuts))).toEqual(whole);
        expect(parse([...text])).toEqual(whole); // one character at a time
      }),
      { numRuns: 1000 },
    );
  });

  it('a CRLF split across two chunks ends one line, not two (the event is not split)', () => {
    expect(parse(['data: {"a":1}\r', '\ndata: {"b":2}\r\n\r\n'])).toEqual([{ event: undefined, data: '{"a":1}\n{"b":2}' }]);
  });

  it('strips one leading space from a value and nothing else, the event name included', () => {
    expect(parse(['event:  delta \ndata:  x \n\n'])).toEqual([{ event: ' delta ', data: ' x ' }]);
    expect(parse(['event:delta\ndata:x\n\n'])).toEqual([{ event: 'delta', data: 'x' }]);
  });
});
