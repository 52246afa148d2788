import { describe, expect, it } from 'vitest';
import { SessionLog, appendMessage, check, type Message } from '../src/index';
import { fromOpenAIChat } from '../src/adapters';
import { chatLog, exampleLog, system, user } from './support/transcripts';

function violationOf(log: SessionLog, request: readonly Message[]) {
  const result = check(log, request);
  if (result.ok) throw new Error('expected a violation');
  return result.violation;
}

describe('check: the cases of docs/behaviour.md §3.7', () => {
  it('a complete tool-calling transcript passes', () => {
    const log = exampleLog();
    expect(check(log, log.deriveMessages())).toEqual({ ok: true });
  });

  it('the same transcript rebuilt as fresh objects (a provider round trip) passes', () => {
    const log = exampleLog();
    const copy = JSON.parse(JSON.stringify(log.deriveMessages())) as Message[];
    expect(check(log, copy)).toEqual({ ok: true });
  });

  it('the empty log with the empty request passes', () => {
    expect(check(new SessionLog(), [])).toEqual({ ok: true });
  });

  it('an overlay concatenated onto the leading system message passes', () => {
    const log = exampleLog();
    const request = log.deriveMessages();
    request[0] = { ...request[0]!, content: 'sys\n\nYou are terse.' };
    expect(check(log, request)).toEqual({ ok: true });
  });

  it('an overlay prepended when the fold has no leading system message passes', () => {
    const log = chatLog(['user', 'hi'], ['assistant', 'hello']);
    expect(check(log, [system('overlay'), ...log.deriveMessages()])).toEqual({ ok: true });
  });

  it("a behaviour's own system prompt substituted for the leading one passes", () => {
    const log = exampleLog();
    const request = log.deriveMessages();
    request[0] = system('You are a ReAct agent. Think step by step.');
    expect(check(log, request)).toEqual({ ok: true });
  });

  it('a ghost user message appended gives extra_message at index 5', () => {
    const log = exampleLog();
    const violation = violationOf(log, [...log.deriveMessages(), user('ghost')]);
    expect(violation).toEqual({
      kind: 'extra_message',
      index: 5,
      requestLength: 6,
      logLength: 5,
      extra: [{ role: 'user', preview: 'ghost', toolCalls: 0, toolCallId: null, name: null }],
      missing: [],
      extraCount: 1,
      missingCount: 0,
      // The matching messages a picture draws beside the difference: two before it, none left after it.
      matchingRoles: { before: ['tool', 'assistant'], requestAfter: [], logAfter: [] },
    });
  });

  it('a dropped user message gives missing_message at index 1', () => {
    const log = exampleLog();
    const request = log.deriveMessages().filter((m) => m.role !== 'user');
    const violation = violationOf(log, request);
    expect(violation).toMatchObject({ kind: 'missing_message', index: 1, requestLength: 4, logLength: 5, extra: [] });
    expect(violation).toHaveProperty('missing', [{ role: 'user', preview: 'u1', toolCalls: 0, toolCallId: null, name: null }]);
  });

  it('a reversed two-message transcript gives order at 0 with equal lengths and empty lists', () => {
    const log = chatLog(['user', 'a'], ['assistant', 'b']);
    const violation = violationOf(log, [...log.deriveMessages()].reverse());
    expect(violation).toEqual({
      kind: 'order',
      index: 0,
      requestLength: 2,
      logLength: 2,
      extra: [],
      missing: [],
      extraCount: 0,
      missingCount: 0,
      // From the first message out of place on, each side in its own order.
      matchingRoles: { before: [], requestAfter: ['assistant', 'user'], logAfter: ['user', 'assistant'] },
    });
  });

  it('an orphan passes reconstruction and gives orphaned_tool_result', () => {
    // A positional replace over an unbalanced range shadows the calling
    // assistant message and leaves its result standing: the fold itself is unbalanced.
    const log = new SessionLog();
    log.append('user_message', { content: 'u1' });
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] });
    log.append('tool_result', { content: 'r', toolCallId: 'c1', name: 'f' });
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 1 } });
    expect(log.deriveMessages().map((m) => m.role)).toEqual(['system', 'tool']);
    expect(violationOf(log, log.deriveMessages())).toEqual({ kind: 'orphaned_tool_result', toolCallId: 'c1' });
  });

  it('a tool result paired with a later call is still orphaned', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'u1' });
    log.append('tool_result', { content: 'r', toolCallId: 'c1' });
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'f' }] });
    expect(violationOf(log, log.deriveMessages())).toEqual({ kind: 'orphaned_tool_result', toolCallId: 'c1' });
  });

  it('a tool result with a null toolCallId is orphaned', () => {
    const log = new SessionLog();
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'f' }] });
    log.append('tool_result', { content: 'r' });
    expect(violationOf(log, log.deriveMessages())).toEqual({ kind: 'orphaned_tool_result', toolCallId: null });
  });

  it('a second smuggled system message in front of an overlaid request is extra_message', () => {
    const log = chatLog(['user', 'hi'], ['assistant', 'hello']);
    const violation = violationOf(log, [system('overlay'), system('smuggled'), ...log.deriveMessages()]);
    expect(violation).toEqual({
      kind: 'extra_message',
      index: 0,
      requestLength: 3,
      logLength: 2,
      extra: [{ role: 'system' }],
      missing: [],
      extraCount: 1,
      missingCount: 0,
      // Past the surplus, both sides hold the same messages again.
      matchingRoles: { before: [], requestAfter: ['user', 'assistant'], logAfter: ['user', 'assistant'] },
    });
  });

  it('the overlay does not excuse a dropped user message', () => {
    const log = chatLog(['user', 'u1'], ['assistant', 'a1'], ['user', 'u2']);
    const request = [system('overlay'), ...log.deriveMessages().slice(0, 2)];
    expect(violationOf(log, request)).toMatchObject({ kind: 'missing_message', index: 2, requestLength: 2, logLength: 3 });
  });

  it('rewritten user content is missing_message with the new text in extra and the old in missing', () => {
    const log = exampleLog();
    const request = log.deriveMessages();
    request[1] = user('u1, rewritten');
    const violation = violationOf(log, request);
    expect(violation).toMatchObject({
      kind: 'missing_message',
      index: 1,
      extra: [{ role: 'user', preview: 'u1, rewritten' }],
      missing: [{ role: 'user', preview: 'u1' }],
    });
  });

  it('a dropped mid-transcript system message (a compaction summary) is missing_message', () => {
    const log = new SessionLog();
    log.append('system_message', { content: 'sys' });
    log.append('system_message', { content: '[Conversation Summary]\nearlier' });
    log.append('user_message', { content: 'next' });
    const request = log.deriveMessages().filter((_, i) => i !== 1);
    expect(violationOf(log, request)).toEqual({
      kind: 'missing_message',
      index: 1,
      requestLength: 2,
      logLength: 3,
      extra: [],
      missing: [{ role: 'system' }],
      extraCount: 0,
      missingCount: 1,
      matchingRoles: { before: ['system'], requestAfter: ['user'], logAfter: ['user'] },
    });
  });

  it('a request both unreconstructable and orphaned reports the reconstruction failure', () => {
    const log = chatLog(['user', 'hi']);
    const request: Message[] = [...log.deriveMessages(), { role: 'tool', content: 'r', toolCallId: 'nobody' }];
    expect(violationOf(log, request)).toMatchObject({ kind: 'extra_message', index: 1 });
  });
});

describe('check: an empty assistant part list (docs/behaviour.md §4.1 rule 4)', () => {
  it("a tool-call turn logged with null content and re-sent with content: [] passes (LangChain's ChatOpenAI re-sending a Claude turn)", () => {
    const log = new SessionLog();
    appendMessage(log, { role: 'user', content: 'weather?' });
    appendMessage(log, { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'weather', arguments: '{}' }] });
    appendMessage(log, { role: 'tool', content: 'rain', toolCallId: 'c1', name: 'weather' });
    const request = fromOpenAIChat([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: [], tool_calls: [{ id: 'c1', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'rain' },
    ] as never);
    expect(check(log, request)).toEqual({ ok: true });
    // Still a difference: the turn re-sent with text it never had.
    request[1] = { ...request[1]!, content: [{ type: 'text', text: 'I will check.' }] };
    expect(violationOf(log, request)).toMatchObject({ kind: 'missing_message', index: 1 });
  });
});

describe('check: the overlay slot', () => {
  it('excuses exactly one message: index and lengths are measured after it', () => {
    const log = chatLog(['user', 'u1']);
    const violation = violationOf(log, [system('overlay'), user('u1'), user('ghost')]);
    expect(violation).toMatchObject({ kind: 'extra_message', index: 1, requestLength: 2, logLength: 1 });
  });

  it('does not apply when the fold leads with a system message', () => {
    const log = new SessionLog();
    log.append('system_message', { content: 'sys' });
    log.append('user_message', { content: 'u1' });
    const violation = violationOf(log, [system('overlay'), ...log.deriveMessages()]);
    expect(violation).toMatchObject({ kind: 'extra_message', index: 1, requestLength: 3, logLength: 2 });
  });

  it('excuses a lone system message against the empty log', () => {
    expect(check(new SessionLog(), [system('overlay')])).toEqual({ ok: true });
  });

  it('does not excuse a leading non-system message', () => {
    expect(violationOf(new SessionLog(), [user('x')])).toMatchObject({ kind: 'extra_message', index: 0 });
  });
});

describe('check: sketches are bounded', () => {
  it('keeps at most 5 entries per list and previews at most 120 characters', () => {
    const log = chatLog(['user', 'keep']);
    const long = 'x'.repeat(500);
    const request = [...log.deriveMessages(), ...Array.from({ length: 8 }, (_, i) => user(`${long}${i}`))];
    const violation = violationOf(log, request);
    if (!('extra' in violation)) throw new Error('expected a reconstruction violation');
    expect(violation.extra).toHaveLength(5);
    expect(violation.extraCount).toBe(8); // the true surplus, which the span event and logs report
    expect(violation.missingCount).toBe(0);
    expect(violation.extra[0]).toEqual({ role: 'user', preview: 'x'.repeat(120), toolCalls: 0, toolCallId: null, name: null });
  });

  it('summarizes part lists, null content, tool calls, ids and names', () => {
    const log = new SessionLog();
    const request: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', url: 'data:image/png;base64,AAAA' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        toolCalls: [
          { id: 'c1', name: 'f' },
          { id: 'c2', name: 'g' },
        ],
      },
      { role: 'tool', content: 'r', toolCallId: 'c1', name: 'f' },
    ];
    const violation = violationOf(log, request);
    expect(violation).toMatchObject({
      kind: 'extra_message',
      extra: [
        { role: 'user', preview: '[2 content parts]', toolCalls: 0, toolCallId: null, name: null },
        { role: 'assistant', preview: null, toolCalls: 2, toolCallId: null, name: null },
        { role: 'tool', preview: 'r', toolCalls: 0, toolCallId: 'c1', name: 'f' },
      ],
    });
  });

  it('never cuts a surrogate pair', () => {
    const log = new SessionLog();
    const violation = violationOf(log, [user('😀'.repeat(200))]);
    if (!('extra' in violation)) throw new Error('expected a reconstruction violation');
    const preview = (violation.extra[0] as { preview: string }).preview;
    expect(Array.from(preview)).toHaveLength(120);
    expect(preview).toBe('😀'.repeat(120));
  });
});

describe('check: malformed requests never throw', () => {
  const log = exampleLog();

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'hello'],
    ['an object', { messages: [] }],
  ])('a request that is %s is an invalid_request violation', (_, request) => {
    expect(violationOf(log, request as unknown as Message[])).toMatchObject({ kind: 'invalid_request' });
  });

  it('null entries are messages no event produced', () => {
    const request = [...log.deriveMessages(), null] as unknown as Message[];
    expect(violationOf(log, request)).toMatchObject({ kind: 'extra_message', index: 5, extra: [{ role: 'invalid' }] });
  });

  it('an unknown role is a message no event produced', () => {
    const request = [...log.deriveMessages(), { role: 'developer', content: 'x' }] as unknown as Message[];
    expect(violationOf(log, request)).toMatchObject({ kind: 'extra_message', extra: [{ role: 'developer', preview: 'x' }] });
  });

  it('cyclic content is reported, not looped over', () => {
    const cyclic: Record<string, unknown> = { type: 'text' };
    cyclic.self = cyclic;
    const request = log.deriveMessages();
    request[1] = { role: 'user', content: [cyclic as never] };
    expect(violationOf(log, request)).toMatchObject({ kind: 'missing_message', index: 1 });
  });

  it('a throwing getter is an invalid_request violation', () => {
    const request = log.deriveMessages();
    request[1] = Object.defineProperty({ role: 'user' }, 'content', {
      get() {
        throw new Error('boom');
      },
      enumerable: true,
    }) as Message;
    expect(violationOf(log, request)).toMatchObject({ kind: 'invalid_request' });
  });

  it('a log that is not a SessionLog is an invalid_request violation', () => {
    expect(violationOf({} as SessionLog, [])).toMatchObject({ kind: 'invalid_request' });
  });
});

describe('check: purity', () => {
  it('reads no configuration: the mode variable does not change the result', () => {
    const log = exampleLog();
    const before = check(log, []);
    process.env.NOUS_SESSION_INVARIANT = 'off';
    try {
      expect(check(log, [])).toEqual(before);
    } finally {
      delete process.env.NOUS_SESSION_INVARIANT;
    }
  });

  it('leaves the log and the request untouched', () => {
    const log = exampleLog();
    const request = [...log.deriveMessages(), user('ghost')];
    const snapshot = JSON.stringify(request);
    const events = log.count;
    check(log, request);
    expect(JSON.stringify(request)).toBe(snapshot);
    expect(log.count).toBe(events);
  });
});

describe('a log mirrored by hand from provider messages', () => {
  it('names a tool result after the call the log holds, so the mirrored log matches the request (no name on the wire)', () => {
    const wire = [
      { role: 'user', content: 'Umbrella in Lisbon?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"rain":true}' },
      { role: 'assistant', content: 'Take one.' },
    ];
    const log = new SessionLog();
    // One message at a time, as an app mirrors each message when it sends or receives it.
    for (const message of wire) expect(appendMessage(log, fromOpenAIChat([message])[0]!).ok).toBe(true);
    expect(log.deriveMessages()[2]!.name).toBe('get_weather');
    expect(check(log, fromOpenAIChat(wire))).toEqual({ ok: true });
  });
});
