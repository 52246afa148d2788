// Cohere v2 chat (`POST /v2/chat`) as the transport seams read it: which
// paths are model requests, the messages (content as a string or parts,
// `tool_plan` and thinking as reasoning, results by `tool_call_id`), and the
// reply from a JSON body or from its stream of events.

import { describe, expect, it } from 'vitest';
import { formatOfPath } from '../../src/integrations/providers';
import { cohereChatWireFormat } from '../../src/integrations/cohere/wire-format';

const call = (id: string, args: string) => ({ id, type: 'function', function: { name: 'get', arguments: args } });

describe('cohere wire format', () => {
  it.each(['/v2/chat', '/cohere/v2/chat'])('%s is a model request', (path) => {
    expect(formatOfPath(path)?.format).toBe(cohereChatWireFormat);
  });

  it.each(['/v1/chat', '/v2/embed', '/v2/rerank', '/v2/chat/x'])('%s is not a Cohere chat', (path) => {
    expect(formatOfPath(path)?.format).not.toBe(cohereChatWireFormat);
  });

  it('reads content as a string or parts, the plan and thinking as reasoning, and names each result after its call', () => {
    const request = cohereChatWireFormat.request('/v2/chat', {
      model: 'command-a',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          ],
        },
        { role: 'assistant', tool_plan: 'I will look it up.', tool_calls: [call('c1', '{"city":"A"}')] },
        { role: 'tool', tool_call_id: 'c1', content: [{ type: 'document', document: { data: { rain: true }, id: 'd1' } }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'It rains.' },
            { type: 'text', text: 'Rain.' },
          ],
          citations: [{ start: 0, end: 4 }],
        },
      ],
    });
    expect(request).toEqual({
      provider: 'cohere',
      model: 'command-a',
      replyFormat: 'cohere.chat',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image', url: 'https://x/y.png' },
          ],
        },
        {
          role: 'assistant',
          content: null,
          reasoningContent: 'I will look it up.',
          toolCalls: [{ id: 'c1', name: 'get', arguments: '{"city":"A"}' }],
        },
        { role: 'tool', toolCallId: 'c1', name: 'get', content: [{ type: 'document', document: { data: { rain: true }, id: 'd1' } }] },
        { role: 'assistant', content: 'Rain.', reasoningContent: 'It rains.' },
      ],
    });
  });

  it('a lone text part reads as its string, as apps re-send a reply either way', () => {
    const read = (content: unknown) =>
      cohereChatWireFormat.request('/v2/chat', { model: 'm', messages: [{ role: 'assistant', content }] })?.messages;
    expect(read([{ type: 'text', text: 'Hi' }])).toEqual(read('Hi'));
  });

  it('reads a JSON reply (its message, with its tool plan and calls)', () => {
    const body = {
      id: 'r1',
      finish_reason: 'TOOL_CALL',
      message: { role: 'assistant', tool_plan: 'Plan.', tool_calls: [call('c1', '{}')] },
    };
    expect(cohereChatWireFormat.replyFromBody(body)).toEqual({
      messages: [{ role: 'assistant', content: null, reasoningContent: 'Plan.', toolCalls: [{ id: 'c1', name: 'get', arguments: '{}' }] }],
    });
  });

  it('assembles a streamed reply from its events, whole at message-end', () => {
    const stream = cohereChatWireFormat.assembler();
    const events: Array<Record<string, unknown>> = [
      { type: 'message-start', id: 'r2', delta: { message: { role: 'assistant' } } },
      { type: 'tool-plan-delta', delta: { message: { tool_plan: 'Pl' } } },
      { type: 'tool-plan-delta', delta: { message: { tool_plan: 'an.' } } },
      { type: 'tool-call-start', index: 0, delta: { message: { tool_calls: call('c1', '') } } },
      { type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: '{"a":' } } } } },
      { type: 'tool-call-start', index: 1, delta: { message: { tool_calls: call('c2', '{}') } } },
      { type: 'tool-call-delta', index: 0, delta: { message: { tool_calls: { function: { arguments: '1}' } } } } },
      { type: 'tool-call-end', index: 0 },
      { type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } },
      { type: 'content-delta', index: 0, delta: { message: { content: { text: 'Done' } } } },
    ];
    for (const event of events) stream.event(event, event.type as string);
    expect(stream.finished?.()).toBe(false);
    expect(stream.reply()).toBeUndefined();
    stream.event({ type: 'message-end', delta: { finish_reason: 'TOOL_CALL' } }, 'message-end');
    expect(stream.finished?.()).toBe(true);
    expect(stream.reply()).toEqual({
      id: 'r2',
      messages: [
        {
          role: 'assistant',
          content: 'Done',
          reasoningContent: 'Plan.',
          toolCalls: [
            { id: 'c1', name: 'get', arguments: '{"a":1}' },
            { id: 'c2', name: 'get', arguments: '{}' },
          ],
        },
      ],
    });
  });
});
