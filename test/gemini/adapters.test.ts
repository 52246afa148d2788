// The Gemini adapters (`toGemini`, `fromGemini`) and wire format: round
// trips on the compared fields, the reading rules for calls without ids, and
// which paths, bodies and replies are read.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLog, check, messagesMatch, type Message } from '../../src/index';
import { fromGemini, toGemini } from '../../src/adapters';
import { geminiBodyRequest } from '../../src/integrations/gemini/model-request';
import { geminiWireFormat } from '../../src/integrations/gemini/wire-format';
import { PROVIDERS, formatOfPath } from '../../src/integrations/providers';
import { ANTHROPIC_MODULE } from '../../src/integrations/anthropic/provider';
import { OPENAI_MODULE } from '../../src/integrations/openai/provider';

const wireFormatOfPath = (path: string) => formatOfPath(path)?.format;
import { providerTranscriptArb, withoutUserNames } from '../support/arbitraries';

const RUNS = { numRuns: 1000 };

function expectSameFingerprints(actual: readonly Message[], expected: readonly Message[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((m, i) =>
    expect(messagesMatch(m, expected[i]!), `message ${i}: ${JSON.stringify(m)} vs ${JSON.stringify(expected[i])}`).toBe(true),
  );
}

/** The body as the Gemini API usually sends it back: no `id` on function calls or responses. */
function withoutIds(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && ('name' in v || 'response' in v) ? { ...v, id: undefined } : v,
  ) as unknown;
}

/** `messages` with each call id replaced as `fromGemini` names a call sent without one: `{name}#{k}` within its turn. */
function withReadIds(messages: readonly Message[]): Message[] {
  const renamed = new Map<string, string>();
  return messages.map((m) => {
    if (m.role === 'assistant' && m.toolCalls) {
      const seen = new Map<string, number>();
      const toolCalls = m.toolCalls.map((call) => {
        const k = seen.get(call.name) ?? 0;
        seen.set(call.name, k + 1);
        renamed.set(call.id, `${call.name}#${k}`);
        return { ...call, id: `${call.name}#${k}` };
      });
      return { ...m, toolCalls };
    }
    if (m.role === 'tool' && typeof m.toolCallId === 'string') return { ...m, toolCallId: renamed.get(m.toolCallId) ?? null };
    return m;
  });
}

describe('gemini adapters: canonical -> Gemini -> canonical', () => {
  it('is the identity on the compared fields (user names aside: Gemini has none)', () => {
    fc.assert(
      fc.property(providerTranscriptArb.map(withoutUserNames), (messages) => {
        const request = JSON.parse(JSON.stringify(toGemini(messages))) as Parameters<typeof fromGemini>[0];
        expectSameFingerprints(fromGemini(request), messages);
      }),
      RUNS,
    );
  });

  it('with the ids left out on the wire, every call reads as {name}#{k} and every response pairs with its call', () => {
    fc.assert(
      fc.property(providerTranscriptArb.map(withoutUserNames), (messages) => {
        const read = fromGemini(withoutIds(toGemini(messages)) as Parameters<typeof fromGemini>[0]);
        expectSameFingerprints(read, withReadIds(messages));
        // Each response answers a call before it: never orphaned.
        expect(read.filter((m) => m.role === 'tool').every((m) => typeof m.toolCallId === 'string')).toBe(true);
      }),
      RUNS,
    );
  });

  it('a request built from a seeded log passes the check', () => {
    fc.assert(
      fc.property(providerTranscriptArb.map(withoutUserNames), (messages) => {
        const log = SessionLog.seed(messages);
        expect(check(log, fromGemini(toGemini(log.deriveMessages())))).toEqual({ ok: true });
      }),
      { numRuns: 300 },
    );
  });
});

describe('gemini adapters: reading', () => {
  it('systemInstruction is the overlay; thoughts, signatures dropped; a model turn’s text pieces are one text', () => {
    expect(
      fromGemini({
        systemInstruction: { parts: [{ text: 'rules' }, { text: 'more rules' }] },
        contents: [
          { role: 'user', parts: [{ text: 'hi' }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
          {
            role: 'model',
            parts: [
              { text: 'thinking…', thought: true },
              { text: 'Hel', thoughtSignature: 's1' },
              { text: 'lo' },
              { thoughtSignature: 's2' },
            ],
          },
        ],
      }),
    ).toEqual([
      { role: 'system', content: 'rules' },
      { role: 'system', content: 'more rules' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image', url: 'data:image/png;base64,AAAA' },
        ],
      },
      { role: 'assistant', content: 'Hello' },
    ]);
    expect(fromGemini({ systemInstruction: 'be brief', contents: [] })).toEqual([{ role: 'system', content: 'be brief' }]);
  });

  it('calls without ids are {name}#{k} per turn; responses pair by name, in order, with the latest model turn', () => {
    const messages = fromGemini([
      { role: 'user', parts: [{ text: 'weather in two cities' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: { city: 'Lisbon' } } },
          { functionCall: { name: 'get_time', args: {} } },
          { functionCall: { name: 'get_weather', args: { city: 'Porto' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: 'rain' } } },
          { functionResponse: { name: 'get_weather', response: { temperature: 20 } } },
          { functionResponse: { name: 'get_time', response: {} } },
          { functionResponse: { name: 'get_weather', response: { output: 'one too many' } } },
        ],
      },
    ]);
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'get_weather#0', name: 'get_weather', arguments: { city: 'Lisbon' } },
          { id: 'get_time#0', name: 'get_time', arguments: {} },
          { id: 'get_weather#1', name: 'get_weather', arguments: { city: 'Porto' } },
        ],
      },
      { role: 'tool', content: 'rain', toolCallId: 'get_weather#0', name: 'get_weather' },
      {
        role: 'tool',
        content: [{ type: 'function_response', response: { temperature: 20 } }],
        toolCallId: 'get_weather#1',
        name: 'get_weather',
      },
      { role: 'tool', content: null, toolCallId: 'get_time#0', name: 'get_time' },
      // Every get_weather call is answered: this one answers none, and is orphaned.
      { role: 'tool', content: 'one too many', toolCallId: null, name: 'get_weather' },
    ]);
  });

  it('consecutive model turns are one assistant message (the SDK chat keeps a streamed reply as one turn per chunk)', () => {
    expect(
      fromGemini([
        { role: 'user', parts: [{ text: 'hi' }] },
        { role: 'model', parts: [{ text: 'Let me ' }] },
        { role: 'model', parts: [{ text: 'check.' }, { functionCall: { name: 'f', args: {} } }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: { b: 1 } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] },
      ]),
    ).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      {
        role: 'assistant',
        content: 'Let me check.',
        toolCalls: [
          { id: 'f#0', name: 'f', arguments: {} },
          { id: 'f#1', name: 'f', arguments: { b: 1 } },
        ],
      },
      { role: 'tool', content: null, toolCallId: 'f#0', name: 'f' },
    ]);
  });

  it('ids given on the wire are used as they are', () => {
    const messages = fromGemini([
      { role: 'model', parts: [{ functionCall: { id: 'c9', name: 'f', args: { a: 1 } } }] },
      { role: 'user', parts: [{ functionResponse: { id: 'c9', name: 'f', response: { output: 'ok' } } }] },
    ]);
    expect(messages).toEqual([
      { role: 'assistant', content: null, toolCalls: [{ id: 'c9', name: 'f', arguments: { a: 1 } }] },
      { role: 'tool', content: 'ok', toolCallId: 'c9', name: 'f' },
    ]);
  });

  it('never throws: what it cannot read is passed on for the check to report', () => {
    expect(() => fromGemini({ contents: [null, 3, { role: 'robot', parts: [] }, { role: 'model', parts: 'x' }] })).not.toThrow();
    expect(fromGemini({ contents: [{ role: 'robot', parts: [] }] })).toEqual([{ role: 'robot', parts: [] }]);
  });
});

describe('gemini adapters: building', () => {
  it('a system message after the conversation started is a clear error', () => {
    expect(() =>
      toGemini([
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'late' },
      ]),
    ).toThrow(/toGemini: message 1 is a system message/);
  });

  it('an assistant message right after another is a clear error: Gemini reads consecutive model turns as one', () => {
    expect(() =>
      toGemini([
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'one' },
        { role: 'assistant', content: 'two' },
      ]),
    ).toThrow(/toGemini: message 2 is an assistant message right after another/);
  });

  it('leading system messages become systemInstruction; consecutive tool results share one user turn', () => {
    expect(
      toGemini([
        { role: 'system', content: 'rules' },
        { role: 'user', content: 'hi' },
        {
          role: 'assistant',
          content: null,
          toolCalls: [
            { id: 'a', name: 'f', arguments: '{"x":1}' },
            { id: 'b', name: 'f' },
          ],
        },
        { role: 'tool', content: 'one', toolCallId: 'a', name: 'f' },
        { role: 'tool', content: 'two', toolCallId: 'b', name: 'f' },
      ]),
    ).toEqual({
      systemInstruction: { parts: [{ text: 'rules' }] },
      contents: [
        { role: 'user', parts: [{ text: 'hi' }] },
        {
          role: 'model',
          parts: [{ functionCall: { id: 'a', name: 'f', args: { x: 1 } } }, { functionCall: { id: 'b', name: 'f', args: {} } }],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'a', name: 'f', response: { output: 'one' } } },
            { functionResponse: { id: 'b', name: 'f', response: { output: 'two' } } },
          ],
        },
      ],
    });
  });
});

describe('gemini wire format', () => {
  it.each([
    ['/v1beta/models/gemini-2.5-flash:generateContent', 'gcp.gemini', 'gemini-2.5-flash'],
    ['/v1beta/models/gemini-2.5-flash:streamGenerateContent', 'gcp.gemini', 'gemini-2.5-flash'],
    ['/v1beta/tunedModels/my-model:generateContent', 'gcp.gemini', 'my-model'],
    ['/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:generateContent', 'gcp.vertex_ai', 'gemini-2.5-pro'],
    [
      '/v1beta1/projects/p/locations/global/publishers/google/models/gemini-2.5-pro:streamGenerateContent',
      'gcp.vertex_ai',
      'gemini-2.5-pro',
    ],
    ['/v1/publishers/google/models/gemini-2.5-pro:generateContent', 'gcp.vertex_ai', 'gemini-2.5-pro'],
  ])('%s is a model request', (path, provider, model) => {
    expect(wireFormatOfPath(path)).toBe(geminiWireFormat);
    expect(geminiBodyRequest(path, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })).toEqual({
      provider,
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      replyFormat: 'gemini.generateContent',
      callIds: 'positional',
    });
  });

  it.each([
    '/v1beta/models/gemini-2.5-flash:countTokens',
    '/v1beta/models/gemini-2.5-flash:embedContent',
    '/v1beta/models/gemini-2.5-flash',
    '/v1beta/cachedContents',
  ])('%s is not', (path) => {
    expect(wireFormatOfPath(path)).toBeUndefined();
  });

  it('is one entry of the provider registry, beside the providers the client hook checks', () => {
    expect(PROVIDERS.flatMap((provider) => provider.wireFormats.map((format) => [format.name, provider.client?.module]))).toEqual([
      ['openai.chat', OPENAI_MODULE],
      ['openai.responses', OPENAI_MODULE],
      ['anthropic.messages', ANTHROPIC_MODULE],
      ['gemini.generateContent', undefined],
      ['ollama.chat', undefined],
      ['cohere.chat', undefined],
    ]);
    expect(wireFormatOfPath('/v1/chat/completions')?.name).toBe('openai.chat');
    expect(wireFormatOfPath('/openai/deployments/d/responses')?.name).toBe('openai.responses');
    expect(wireFormatOfPath('/v1/messages')?.name).toBe('anthropic.messages');
    expect(wireFormatOfPath('/v1/messages/count_tokens')).toBeUndefined();
  });

  it('a request with cachedContent continues a prefix the provider holds: stateful', () => {
    expect(geminiBodyRequest('/v1beta/models/m:generateContent', { cachedContent: 'cachedContents/x', contents: [] })).toMatchObject({
      stateful: 'cachedContent',
      messages: [],
    });
  });

  it('reads a JSON reply, a streamed one (candidates by index: 0 is the reply, the others siblings) and a JSON array of chunks', () => {
    const call = { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'sig' };
    expect(geminiWireFormat.replyFromBody({ candidates: [{ content: { role: 'model', parts: [call] }, finishReason: 'STOP' }] })).toEqual({
      messages: [{ role: 'assistant', content: null, toolCalls: [{ id: 'f#0', name: 'f', arguments: { a: 1 } }] }],
    });
    const stream = geminiWireFormat.assembler();
    const chunk = (index: number, text: string, done = false) => ({
      candidates: [{ index, content: { role: 'model', parts: [{ text }] }, ...(done ? { finishReason: 'STOP' } : {}) }],
    });
    stream.event(chunk(0, 'Hel'), undefined);
    stream.event(chunk(1, 'Other'), undefined);
    stream.event(chunk(1, '', true), undefined);
    expect(stream.reply()).toBeUndefined(); // candidate 0 has not finished
    stream.event(chunk(0, 'lo', true), undefined);
    expect(stream.reply()).toEqual({
      messages: [{ role: 'assistant', content: 'Hello' }],
      siblings: [[{ role: 'assistant', content: 'Other' }]],
    });
    expect(geminiWireFormat.replyFromBody([chunk(0, 'a'), chunk(0, 'b', true)])).toEqual({
      messages: [{ role: 'assistant', content: 'ab' }],
    });
    expect(geminiWireFormat.replyFromBody({ candidates: [{ finishReason: 'SAFETY' }] })).toBeUndefined();
  });
});
