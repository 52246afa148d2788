// The LangChain message converter: a table of LangChain's message shapes,
// each read as ChatOpenAI sends it, and a round trip on the compared fields.
// The real @langchain/core and @langchain/openai come from the fixture project.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLog, check, messagesMatch, type Message } from '../src/index';
import { fromOpenAIChat } from '../src/adapters';
import { LANGCHAIN_ID_KEY, appendLangChainMessages, fromLangChainMessages, toLangChainMessages } from '../src/langchain';
import { providerTranscriptArb } from './support/arbitraries';

// The fixture's packages are loaded untyped, through require.
type Any = any;

const load = createRequire(join(__dirname, 'fixtures/langchain/package.json'));
const core = load('@langchain/core/messages');
const { AIMessage, ChatMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, coerceMessageLikeToMessage } = core;
const { convertMessagesToCompletionsMessageParams } = load('@langchain/openai');

/** What ChatOpenAI sends to Chat Completions for these LangChain messages, read back as canonical messages. */
function asSentByChatOpenAI(messages: Any[]): Message[] {
  return fromOpenAIChat(convertMessagesToCompletionsMessageParams({ messages, model: 'gpt-test' }));
}

function expectMatch(actual: readonly Message[], expected: readonly Message[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((m, i) =>
    expect(messagesMatch(m, expected[i]!), `message ${i}: ${JSON.stringify(m)} vs ${JSON.stringify(expected[i])}`).toBe(true),
  );
}

const call = { id: 'call_1', name: 'get_weather', args: { city: 'Lisbon' }, type: 'tool_call' as const };

describe('fromLangChainMessages: LangChain message shapes, read as ChatOpenAI sends them', () => {
  const table: Array<[string, () => Any[], Message[]]> = [
    ['a human message', () => [new HumanMessage('Umbrella?')], [{ role: 'user', content: 'Umbrella?' }]],
    ['a named human message', () => [new HumanMessage({ content: 'hi', name: 'ann' })], [{ role: 'user', content: 'hi', name: 'ann' }]],
    ['a system message', () => [new SystemMessage('sys')], [{ role: 'system', content: 'sys' }]],
    [
      'an AI message with tool calls and "" content (the API answered null)',
      () => [new AIMessage({ content: '', tool_calls: [call] })],
      [{ role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }] }],
    ],
    [
      "createAgent's name on an AI message (not compared)",
      () => [new AIMessage({ content: 'answer', name: 'model' })],
      [{ role: 'assistant', content: 'answer' }],
    ],
    [
      'a tool message, named after its tool',
      () => [
        new AIMessage({ content: '', tool_calls: [call] }),
        new ToolMessage({ content: '{"rain":true}', tool_call_id: 'call_1', name: 'get_weather' }),
      ],
      [
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Lisbon' } }] },
        { role: 'tool', content: '{"rain":true}', toolCallId: 'call_1', name: 'get_weather' },
      ],
    ],
    [
      'text and image_url parts',
      () => [
        new HumanMessage({
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'https://example.test/cat.png', detail: 'low' } },
          ],
        }),
      ],
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image', url: 'https://example.test/cat.png' },
          ],
        },
      ],
    ],
    [
      'a standard image block by URL',
      () => [new HumanMessage({ content: [{ type: 'image', url: 'https://example.test/cat.png' }] })],
      [{ role: 'user', content: [{ type: 'image', url: 'https://example.test/cat.png' }] }],
    ],
    [
      'a base64 data block with a source_type (sent as an image_url part)',
      () => [new HumanMessage({ content: [{ type: 'image', source_type: 'base64', data: 'AAAA', mime_type: 'image/png' }] })],
      [{ role: 'user', content: [{ type: 'image', url: 'data:image/png;base64,AAAA' }] }],
    ],
    [
      'a v1 base64 image block (sent as it is)',
      () => [new HumanMessage({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })],
      [{ role: 'user', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }],
    ],
    [
      'reasoning blocks in AI content (ChatOpenAI does not send them)',
      () => [
        new AIMessage({
          content: [
            { type: 'reasoning', reasoning: 'hmm' },
            { type: 'text', text: 'answer' },
          ],
        }),
      ],
      [{ role: 'assistant', content: 'answer' }],
    ],
    [
      'OpenAI tool calls in additional_kwargs',
      () => [
        new AIMessage({
          content: '',
          additional_kwargs: {
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }],
          },
        }),
      ],
      [{ role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Lisbon' } }] }],
    ],
    ['a ChatMessage with a role', () => [new ChatMessage({ content: 'hi', role: 'user' })], [{ role: 'user', content: 'hi' }]],
  ];

  it.each(table)('%s', (_name, make, expected) => {
    const messages = make();
    expectMatch(fromLangChainMessages(messages), expected);
    // The reader agrees with what ChatOpenAI puts on the wire.
    expectMatch(fromLangChainMessages(messages), asSentByChatOpenAI(messages));
  });

  it('serialized messages and message-likes read like the classes', () => {
    const classes = [
      new SystemMessage('sys'),
      new HumanMessage({ content: 'hi', id: 'h1' }),
      new AIMessage({ content: '', tool_calls: [call], id: 'a1' }),
      new ToolMessage({ content: 'r', tool_call_id: 'call_1', name: 'get_weather' }),
    ];
    const expected = fromLangChainMessages(classes);
    expectMatch(fromLangChainMessages(classes.map((m) => JSON.parse(JSON.stringify(m)))), expected);
    expectMatch(
      fromLangChainMessages([
        { role: 'system', content: 'sys' },
        { type: 'human', content: 'hi' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }],
        },
        { role: 'tool', content: 'r', tool_call_id: 'call_1', name: 'get_weather' },
      ]),
      expected,
    );
    expect(fromLangChainMessages(classes).map((m) => m.metadata?.[LANGCHAIN_ID_KEY])).toEqual([undefined, 'h1', 'a1', undefined]);
  });

  it('never throws: what it cannot read is an entry the check reports', () => {
    const throwing = Object.defineProperty({}, 'content', {
      get() {
        throw new Error('boom');
      },
      enumerable: true,
    });
    const read = fromLangChainMessages([null, 42, throwing, new RemoveMessage({ id: 'x' }), { role: 'wizard', content: 'x' }]);
    expect(read).toHaveLength(5);
    const log = new SessionLog();
    for (const m of read) expect(check(log, [m]).ok).toBe(false);
    expect(fromLangChainMessages('not a list' as never)).toBe('not a list');
  });
});

describe('toLangChainMessages', () => {
  it('round trip on the compared fields: canonical -> LangChain classes (coerced by @langchain/core) -> canonical, and as ChatOpenAI sends them', () => {
    fc.assert(
      fc.property(providerTranscriptArb, (transcript) => {
        const classes = toLangChainMessages(transcript).map((m) => coerceMessageLikeToMessage(m));
        expectMatch(fromLangChainMessages(classes), transcript);
        expectMatch(asSentByChatOpenAI(classes), transcript);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the LangChain id the log recorded, and throws a TypeError for what LangChain cannot express', () => {
    const log = new SessionLog();
    appendLangChainMessages(log, [new HumanMessage({ content: 'hi', id: 'h1' }), new HumanMessage('no id')]);
    expect(toLangChainMessages(log.deriveMessages()).map((m) => m.id)).toEqual(['h1', undefined]);
    expect(() =>
      toLangChainMessages([{ role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'f', arguments: 'not json' }] }]),
    ).toThrow(TypeError);
    expect(() => toLangChainMessages([{ role: 'wizard', content: 'x' } as never])).toThrow(TypeError);
  });

  it('appendLangChainMessages appends each message once (by its LangChain id), naming an unnamed tool result after its call', () => {
    const log = new SessionLog();
    const reply = new AIMessage({ content: '', tool_calls: [call], id: 'chatcmpl-1' });
    const results = appendLangChainMessages(log, [
      new HumanMessage('hi'),
      reply,
      new ToolMessage({ content: 'r', tool_call_id: 'call_1' }),
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    expect(appendLangChainMessages(log, [reply])).toEqual([]);
    expect(log.count).toBe(3);
    expect(log.deriveMessages()[2]).toMatchObject({ role: 'tool', name: 'get_weather' });
  });
});
