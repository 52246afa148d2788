import { describe, expect, it } from 'vitest';
import { messagesMatch, type Message } from '../src/index';
import { fingerprintOf } from '../src/invariant/fingerprint';

const base: Message = { role: 'user', content: 'hello' };

describe('messagesMatch: the compared fields', () => {
  it('a string equals its one-element text part list, both ways', () => {
    expect(messagesMatch({ role: 'user', content: [{ type: 'text', text: 'hello' }] }, base)).toBe(true);
    expect(messagesMatch(base, { role: 'user', content: [{ type: 'text', text: 'hello' }] })).toBe(true);
  });

  it('a text part with an extra field, or two parts, is not the string', () => {
    expect(messagesMatch({ role: 'user', content: [{ type: 'text', text: 'hello', cache: true }] }, base)).toBe(false);
    expect(
      messagesMatch(
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hel' },
            { type: 'text', text: 'lo' },
          ],
        },
        base,
      ),
    ).toBe(false);
  });

  it('part lists compare deep and element by element, key order ignored', () => {
    const a: Message = { role: 'user', content: [{ type: 'image', url: 'data:x', mediaType: 'image/png' }] };
    const b: Message = { role: 'user', content: [{ mediaType: 'image/png', url: 'data:x', type: 'image' }] };
    expect(messagesMatch(a, b)).toBe(true);
    expect(messagesMatch(a, { role: 'user', content: [{ type: 'image', url: 'data:y' }] })).toBe(false);
  });

  it('tool call arguments: a JSON string equals the object it parses to', () => {
    const asObject: Message = { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: { a: 1, b: [2] } }] };
    const asString: Message = { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: '{"b":[2],"a":1}' }] };
    const reformatted: Message = {
      role: 'assistant',
      content: null,
      toolCalls: [{ id: 'c1', name: 'f', arguments: '{ "a": 1, "b": [2] }' }],
    };
    expect(messagesMatch(asString, asObject)).toBe(true);
    expect(messagesMatch(asObject, asString)).toBe(true);
    expect(messagesMatch(reformatted, asString)).toBe(true);
    expect(messagesMatch({ ...asString, toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":2,"b":[2]}' }] }, asObject)).toBe(false);
  });

  it('tool calls differ by id or name', () => {
    const call: Message = { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f' }] };
    expect(messagesMatch({ ...call, toolCalls: [{ id: 'c2', name: 'f' }] }, call)).toBe(false);
    expect(messagesMatch({ ...call, toolCalls: [{ id: 'c1', name: 'g' }] }, call)).toBe(false);
  });

  it('absent and [] toolCalls are the same; absent and null toolCallId and name are the same', () => {
    expect(messagesMatch({ role: 'user', content: 'x', toolCalls: [] }, { role: 'user', content: 'x' })).toBe(true);
    expect(messagesMatch({ role: 'tool', content: 'x', toolCallId: null, name: null }, { role: 'tool', content: 'x' })).toBe(true);
  });

  it('role, toolCallId and name are compared', () => {
    expect(messagesMatch({ role: 'assistant', content: 'hello' }, base)).toBe(false);
    expect(messagesMatch({ role: 'tool', content: 'x', toolCallId: 'a' }, { role: 'tool', content: 'x', toolCallId: 'b' })).toBe(false);
    expect(messagesMatch({ role: 'user', content: 'x', name: 'ann' }, { role: 'user', content: 'x' })).toBe(false);
  });

  it('metadata, createdAt and reasoningContent are never compared', () => {
    const rich: Message = {
      ...base,
      metadata: { source: 'ui' },
      createdAt: new Date(0),
      reasoningContent: 'thinking…',
    };
    expect(messagesMatch(rich, base)).toBe(true);
  });

  it('two system messages match whatever their content', () => {
    expect(messagesMatch({ role: 'system', content: 'a' }, { role: 'system', content: [{ type: 'text', text: 'b' }] })).toBe(true);
  });

  it('null content is not the empty string', () => {
    expect(messagesMatch({ role: 'user', content: '' }, { role: 'user', content: null })).toBe(false);
    expect(messagesMatch({ role: 'tool', content: '', toolCallId: 'c' }, { role: 'tool', content: null, toolCallId: 'c' })).toBe(false);
  });
});

describe('messagesMatch: what is not a difference (docs/behaviour.md §4)', () => {
  const same = (a: Message, b: Message) => {
    expect(messagesMatch(a, b)).toBe(true);
    expect(messagesMatch(b, a)).toBe(true);
    expect(fingerprintOf(a)).toBe(fingerprintOf(b));
  };

  it('absent tool-call arguments equal {} and "{}" (what the adapters send for a call logged without them)', () => {
    const absent: Message = { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'now' }] };
    same({ ...absent, toolCalls: [{ id: 'c1', name: 'now', arguments: '{}' }] }, absent);
    same({ ...absent, toolCalls: [{ id: 'c1', name: 'now', arguments: {} }] }, absent);
    expect(messagesMatch({ ...absent, toolCalls: [{ id: 'c1', name: 'now', arguments: '{"a":1}' }] }, absent)).toBe(false);
  });

  it("a content part's cache_control marker is not compared, also against the plain string", () => {
    const marked = { type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } };
    same({ role: 'user', content: [marked] }, base);
    same(
      { role: 'user', content: [marked, { type: 'image', url: 'data:x' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hello' },
          { type: 'image', url: 'data:x', cache_control: { type: 'ephemeral' } },
        ],
      },
    );
    expect(messagesMatch({ role: 'user', content: [{ ...marked, text: 'other' }] }, base)).toBe(false);
  });

  it("an assistant message's absent, null, '', [] and one-empty-text-part content are one value (rule 4)", () => {
    const call = [{ id: 'c1', name: 'f', arguments: '{}' }];
    const variants: Array<Message['content'] | undefined> = [undefined, null, '', [], [{ type: 'text', text: '' }]];
    for (const a of variants)
      for (const b of variants)
        same(
          { role: 'assistant', content: a as Message['content'], toolCalls: call },
          { role: 'assistant', content: b as Message['content'], toolCalls: call },
        );
    // Not for other roles: an empty part list is neither null nor "" there.
    expect(messagesMatch({ role: 'user', content: [] }, { role: 'user', content: null })).toBe(false);
    expect(messagesMatch({ role: 'user', content: [] }, { role: 'user', content: '' })).toBe(false);
    expect(fingerprintOf({ role: 'user', content: [] })).not.toBe(fingerprintOf({ role: 'user', content: null }));
    // And an empty assistant turn still differs from one that said something.
    expect(messagesMatch({ role: 'assistant', content: [], toolCalls: call }, { role: 'assistant', content: 'x', toolCalls: call })).toBe(
      false,
    );
  });
});
