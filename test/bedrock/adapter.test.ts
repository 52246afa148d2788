// The Converse shape read as canonical messages: content blocks as unions
// with one member, tool results named after the toolUse they answer, prompt
// cache points and reasoning left out, and a ConverseStream reply assembled
// from its events as the SDK yields them.

import { describe, expect, it } from 'vitest';
import { fromConverse } from '../../src/integrations/bedrock/adapter';
import { converseModelRequest } from '../../src/integrations/bedrock/model-request';
import { converseAssembler, converseReply } from '../../src/integrations/bedrock/replies';
import { PROVIDERS } from '../../src/integrations/providers';

describe('Converse requests', () => {
  it('reads system blocks, tool calls and tool results by toolUseId; cache points and reasoning are not content', () => {
    const messages = fromConverse({
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      messages: [
        { role: 'user', content: [{ text: 'Rain?' }, { cachePoint: { type: 'default' } }] },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'hmm', signature: 's' } } },
            { text: 'Checking.' },
            { toolUse: { toolUseId: 't1', name: 'get_weather', input: { city: 'Lisbon' } } },
          ],
        },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'wet' }], status: 'success' } }, { text: 'Thanks' }],
        },
      ],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Rain?' }] },
      { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 't1', name: 'get_weather', arguments: { city: 'Lisbon' } }] },
      { role: 'tool', content: [{ type: 'text', text: 'wet' }], toolCallId: 't1', name: 'get_weather' },
      { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it('reads an image from its bytes as a data: URL, the same from the SDK (Uint8Array) and from JSON (base64)', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const fromSdk = fromConverse({ messages: [{ role: 'user', content: [{ image: { format: 'png', source: { bytes } } }] }] });
    const fromJson = fromConverse({ messages: [{ role: 'user', content: [{ image: { format: 'png', source: { bytes: 'AQID' } } }] }] });
    expect(fromSdk).toEqual([{ role: 'user', content: [{ type: 'image', url: 'data:image/png;base64,AQID' }] }]);
    expect(fromJson).toEqual(fromSdk);
  });

  it('is named aws.bedrock with the modelId; a Bedrock-managed prompt is stateful; a hostile input is passed on for the check', () => {
    expect(converseModelRequest({ modelId: 'm', messages: [] })).toEqual({ provider: 'aws.bedrock', model: 'm', messages: [] });
    expect(converseModelRequest({ modelId: 'arn:prompt', promptVariables: { a: { text: 'x' } } })?.stateful).toBeDefined();
    expect(converseModelRequest({ modelId: 'm', messages: 'nope' })?.messages).toBe('nope');
    expect(converseModelRequest(null)).toBeUndefined();
  });

  it('is a provider of the registry with a hook of its own and no wire format at the fetch seam', () => {
    const bedrock = PROVIDERS.find((provider) => provider.name === 'aws.bedrock');
    expect(bedrock?.hook?.name).toBe('@aws-sdk/client-bedrock-runtime');
    expect(bedrock?.wireFormats).toEqual([]);
  });
});

describe('Converse replies', () => {
  it('reads output.message', () => {
    const output = { output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'f', input: {} } }] } } };
    expect(converseReply(output)).toEqual([{ role: 'assistant', content: null, toolCalls: [{ id: 't', name: 'f', arguments: {} }] }]);
    expect(converseReply({ stream: {} })).toBeUndefined();
  });

  it('assembles a stream: text in deltas, a tool call opened then its JSON in pieces; no reply before messageStop', () => {
    const assembler = converseAssembler();
    const events = [
      { messageStart: { role: 'assistant' } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'Let me ' } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: 'check.' } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockStart: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 't9', name: 'get_weather' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { toolUse: { input: '"Faro"}' } } } },
      { contentBlockStop: { contentBlockIndex: 1 } },
    ];
    for (const event of events) assembler.event(event);
    expect(assembler.reply()).toBeUndefined();
    assembler.event({ messageStop: { stopReason: 'tool_use' } });
    expect(assembler.reply()).toEqual([
      { role: 'assistant', content: 'Let me check.', toolCalls: [{ id: 't9', name: 'get_weather', arguments: { city: 'Faro' } }] },
    ]);
  });
});
