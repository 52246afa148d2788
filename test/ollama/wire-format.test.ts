// Ollama's own chat API (`POST /api/chat`) as the transport seams read it:
// which paths are model requests, the messages (tool calls without ids,
// results by tool name: ids by position), and the reply from one JSON body
// or from its NDJSON stream, which is whole at `done: true` whatever the
// chunking (the client stops reading there).

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatOfPath } from '../../src/integrations/providers';
import { ollamaChatWireFormat } from '../../src/integrations/ollama/wire-format';
import { JsonLinesParser } from '../../src/integrations/http/json-lines';
import { ReplyCollector, framingOf } from '../../src/integrations/http/reply-collector';

const call = (name: string, args: unknown) => ({ function: { name, arguments: args } });

describe('ollama wire format', () => {
  it.each(['/api/chat', '/ollama/api/chat'])('%s is a model request', (path) => {
    expect(formatOfPath(path)?.format).toBe(ollamaChatWireFormat);
  });

  it.each(['/api/generate', '/api/embed', '/api/chat/x', '/v1/chat/completions'])('%s is not an Ollama chat', (path) => {
    expect(formatOfPath(path)?.format).not.toBe(ollamaChatWireFormat);
  });

  it('reads calls by position and results by tool name; a result with no name answers the first open call', () => {
    const request = ollamaChatWireFormat.request('/api/chat', {
      model: 'llama3.2',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather?', images: ['aGk='] },
        { role: 'assistant', content: '', thinking: 'hmm', tool_calls: [call('get', { city: 'A' }), call('get', { city: 'B' })] },
        { role: 'tool', tool_name: 'get', content: 'rain' },
        { role: 'tool', content: 'sun' },
        { role: 'tool', tool_name: 'get', content: 'orphan' },
        { role: 'assistant', content: 'Rain in A, sun in B.' },
      ],
    });
    expect(request).toEqual({
      provider: 'ollama',
      model: 'llama3.2',
      replyFormat: 'ollama.chat',
      callIds: 'positional',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image', url: 'data:;base64,aGk=' },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoningContent: 'hmm',
          toolCalls: [
            { id: 'get#0', name: 'get', arguments: { city: 'A' } },
            { id: 'get#1', name: 'get', arguments: { city: 'B' } },
          ],
        },
        { role: 'tool', content: 'rain', name: 'get', toolCallId: 'get#0' },
        { role: 'tool', content: 'sun', name: 'get', toolCallId: 'get#1' },
        { role: 'tool', content: 'orphan', name: 'get', toolCallId: null },
        { role: 'assistant', content: 'Rain in A, sun in B.' },
      ],
    });
  });

  it('reads an id a client put on a call or a result the same as none (ids by position)', () => {
    const read = (messages: unknown[]) => ollamaChatWireFormat.request('/api/chat', { model: 'm', messages })?.messages;
    const withIds = read([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_9', ...call('get', {}) }] },
      { role: 'tool', tool_call_id: 'call_9', content: 'ok' },
    ]);
    const without = read([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: '', tool_calls: [call('get', {})] },
      { role: 'tool', tool_name: 'get', content: 'ok' },
    ]);
    expect(withIds).toEqual(without);
  });

  it('reads a JSON reply, and a streamed one only once done', () => {
    const message = { role: 'assistant', content: '', tool_calls: [call('get', { city: 'A' })] };
    expect(ollamaChatWireFormat.replyFromBody({ model: 'm', message, done: true })).toEqual({
      messages: [{ role: 'assistant', content: null, toolCalls: [{ id: 'get#0', name: 'get', arguments: { city: 'A' } }] }],
    });
    const stream = ollamaChatWireFormat.assembler();
    stream.event({ message: { role: 'assistant', content: 'Hel' }, done: false }, undefined);
    stream.event({ message: { role: 'assistant', content: 'lo' }, done: false }, undefined);
    expect(stream.finished?.()).toBe(false);
    expect(stream.reply()).toBeUndefined();
    stream.event({ message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' }, undefined);
    expect(stream.finished?.()).toBe(true);
    expect(stream.reply()).toEqual({ messages: [{ role: 'assistant', content: 'Hello' }] });
  });
});

describe('NDJSON reply bodies', () => {
  it('are framed as lines by their content type; SSE as events; anything else as one JSON value', () => {
    expect(framingOf('application/x-ndjson')).toBe('lines');
    expect(framingOf('application/x-ndjson; charset=utf-8')).toBe('lines');
    expect(framingOf('text/event-stream; charset=utf-8')).toBe('events');
    expect(framingOf('application/json')).toBe('json');
    expect(framingOf(null)).toBe('json');
  });

  const lineArb = fc.oneof(fc.json(), fc.constantFrom('', ' ', 'not json'));
  it('any chunking of a stream gives the lines of the stream read whole', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(lineArb, fc.constantFrom('\n', '\r\n')), { maxLength: 20 }), fc.array(fc.nat()), (lines, cuts) => {
        const text = lines.map(([line, end]) => line + end).join('');
        const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const seen: string[] = [];
        const parser = new JsonLinesParser((line) => seen.push(line));
        let from = 0;
        for (const cut of [...at, text.length]) {
          parser.push(text.slice(from, cut));
          from = cut;
        }
        parser.end();
        expect(seen).toEqual(lines.map(([line]) => line).filter((line) => line.trim() !== ''));
      }),
    );
  });

  it('a streamed reply is whole at its done line, before the body ends, in any chunking', () => {
    const lines = [
      { message: { role: 'assistant', content: 'ans' }, done: false },
      { message: { role: 'assistant', content: 'wer é' }, done: false },
      { message: { role: 'assistant', content: '' }, done: true },
    ];
    const bytes = new TextEncoder().encode(lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    fc.assert(
      fc.property(fc.array(fc.nat({ max: bytes.length })), (cuts) => {
        const collector = new ReplyCollector('ollama.chat', 'lines');
        let from = 0;
        for (const cut of [...new Set(cuts)].sort((a, b) => a - b).concat(bytes.length)) {
          // The done line ends with the body's last byte: nothing before it finishes the reply.
          expect(collector.finished()).toBe(from === bytes.length);
          collector.push(bytes.slice(from, cut));
          from = cut;
        }
        expect(collector.finished()).toBe(true);
        expect(collector.reply(false)).toEqual({ messages: [{ role: 'assistant', content: 'answer é' }] });
      }),
    );
  });
});
