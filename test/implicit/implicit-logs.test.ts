// The implicit conversation log's rules, driven with canonical messages.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { heapSnapshot, occurrencesBetween, retainedBytes } from '../support/heap';
import type { Message } from '../../src/index';
import { Conversation } from '../../src/request-path/implicit/conversation';
import { MemoryConversationStore } from '../../src/request-path/implicit/conversation-store';
import { implicitHarness } from '../support/implicit-harness';
import { inFrameworkRun } from '../../src/request-path/run';

const sys = (content = 'You are helpful.'): Message => ({ role: 'system', content });
const user = (content: string): Message => ({ role: 'user', content });
const assistant = (content: string | null, calls: Array<[id: string, name: string]> = []): Message => ({
  role: 'assistant',
  content,
  ...(calls.length > 0 ? { toolCalls: calls.map(([id, name]) => ({ id, name, arguments: '{"city":"Lisbon"}' })) } : {}),
});
const tool = (id: string, content: string): Message => ({ role: 'tool', content, toolCallId: id });

/** A correct tool loop of two user turns, each request extending the last with the model's reply. */
function correctLoop(h: ReturnType<typeof implicitHarness>, run?: object) {
  const options = run ? { run } : {};
  const r1 = [sys(), user('Weather in Lisbon?')];
  const a1 = assistant(null, [['c1', 'weather']]);
  const r2 = [...r1, a1, tool('c1', '{"rain":true}')];
  const a2 = assistant('It rains; take an umbrella.');
  const r3 = [...r2, a2, user('And tomorrow?')];
  const a3 = assistant('Dry.');
  return [h.turn(r1, a1, options), h.turn(r2, a2, options), h.turn(r3, a3, options), { r1, a1, r2, a2, r3, a3 }] as const;
}

describe('implicit log: strict mode', () => {
  it('a refused request is not recorded: the model was not sent it, so sent again it is refused again', () => {
    const h = implicitHarness({ mode: 'strict' });
    const [, , , { r2, a2 }] = correctLoop(h);
    const dropped = [...r2.filter((m) => m.role !== 'tool'), a2, user('And tomorrow?')];
    for (let attempt = 0; attempt < 3; attempt++) {
      expect(() => h.send(dropped)).toThrow(expect.objectContaining({ details: expect.objectContaining({ kind: 'missing_message' }) }));
    }
    expect(h.logs.size).toBe(1);
    expect(h.send([...r2, a2, user('And tomorrow?')]).violation).toBeUndefined();
  });
});

describe('implicit log: correct loops stay silent', () => {
  it('a tool loop where each request extends the last with the reply', () => {
    const h = implicitHarness();
    const [s1, s2, s3] = correctLoop(h);
    expect([s1.violation, s2.violation, s3.violation]).toEqual([undefined, undefined, undefined]);
    expect(h.logs.size).toBe(1);
  });

  it('with the reply taken from the next request when it was not observable', () => {
    const h = implicitHarness();
    const r1 = [sys(), user('hi')];
    expect(h.send(r1).violation).toBeUndefined();
    expect(h.send([...r1, assistant('hello'), user('bye')]).violation).toBeUndefined();
  });

  it('a system prompt that changes between requests, and an overlay prepended', () => {
    const h = implicitHarness();
    const r1 = [user('hi')];
    h.turn(r1, assistant('hello'));
    expect(h.send([sys('Today is Monday.'), ...r1, assistant('hello'), user('bye')]).violation).toBeUndefined();
    const h2 = implicitHarness();
    h2.turn([sys('v1'), user('hi')], assistant('hello'));
    expect(h2.send([sys('v2'), user('hi'), assistant('hello'), user('bye')]).violation).toBeUndefined();
  });

  it('sibling samples with the same history, and parallel sub-agents', () => {
    const h = implicitHarness();
    const run = {};
    const history = [sys(), user('Plan a trip')];
    expect(h.turn(history, assistant('Plan A'), { run }).violation).toBeUndefined();
    expect(h.turn(history, assistant('Plan B'), { run }).violation).toBeUndefined();
    expect(h.send([...history, assistant('Plan B'), user('go with B')], { run }).violation).toBeUndefined();
    expect(h.send([...history, assistant('Plan A'), user('go with A')], { run }).violation).toBeUndefined();
    const shared = [sys(), user('Research X'), assistant('ok'), user('split')];
    expect(h.send([...shared, user('sub-agent 1: part one')], { run }).violation).toBeUndefined();
    expect(h.send([...shared, user('sub-agent 2: part two')], { run }).violation).toBeUndefined();
  });

  it('n > 1: the app continues with any one of the choices the model sent (each a sibling branch)', () => {
    for (const k of [0, 1, 2]) {
      const h = implicitHarness();
      const run = {};
      const r1 = [sys(), user('Name a colour')];
      const choices = [assistant('red'), assistant('green'), assistant('blue')];
      const sent = h.send(r1, { run });
      sent.pending!.reply([choices[0]!], undefined, { siblings: [[choices[1]!], [choices[2]!]] });
      const r2 = [...r1, choices[k]!, user('Why?')];
      expect(h.turn(r2, assistant('Because.'), { run }).violation, `choice ${k}`).toBeUndefined();
      expect(h.send([...r2, assistant('Because.'), user('Thanks')], { run }).violation, `choice ${k}, later`).toBeUndefined();
    }
  });

  it('two unrelated conversations that begin with the same messages', () => {
    const h = implicitHarness();
    const start = [sys(), user('Hi')];
    h.turn(start, assistant('Hello, Ann'));
    h.turn(start, assistant('Hello, Bob'));
    expect(h.send([...start, assistant('Hello, Bob'), user('weather?')]).violation).toBeUndefined();
    expect(h.send([...start, assistant('Hello, Ann'), user('news?')]).violation).toBeUndefined();
  });

  it('a regenerate, an edit-and-resend, and a summary or judge request over part of the transcript', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    expect(h.turn(r3, assistant('Sunny.')).violation, 'regenerate across runs').toBeUndefined();
    expect(h.send([...r3.slice(0, -1), user('And the day after?')]).violation, 'edit-and-resend').toBeUndefined();
    expect(h.send([sys('Summarize.'), user(`Transcript: ${JSON.stringify(r3)}`)]).violation, 'summary').toBeUndefined();
    expect(h.send([sys('Judge the answer.'), ...r3.slice(4), a3]).violation, 'judge over the tail').toBeUndefined();
  });

  it('a prefill: the reply continues it, and the app sends both back as one message', () => {
    const h = implicitHarness();
    const r1 = [user('JSON please'), assistant('{')];
    expect(h.turn(r1, assistant('"ok":true}')).violation).toBeUndefined();
    expect(h.send([user('JSON please'), assistant('{"ok":true}'), user('again')]).violation).toBeUndefined();
    const h2 = implicitHarness();
    h2.send(r1);
    expect(h2.send([user('JSON please'), assistant('{"ok":true}'), user('again')]).violation, 'reply not observed').toBeUndefined();
  });

  it('a tool-call reply the model sent with null content, re-sent with content: [] (LangChain ChatOpenAI, a Claude turn)', () => {
    const h = implicitHarness();
    const run = {};
    const r1 = [sys(), user('Weather in Lisbon?')];
    const a1 = assistant(null, [['c1', 'weather']]);
    h.turn(r1, a1, { run });
    const resent: Message = { ...a1, content: [] };
    expect(h.send([...r1, resent, tool('c1', 'rain')], { run }).violation).toBeUndefined();
    // An edited reply is still caught.
    const h2 = implicitHarness();
    h2.turn(r1, a1, { run });
    const edited: Message = { ...a1, content: [{ type: 'text', text: 'Checking.' }] };
    expect(h2.send([...r1, edited, tool('c1', 'rain')], { run }).violation).toMatchObject({ kind: 'missing_message', index: 2 });
  });

  it('a new conversation is accepted as it is, assistant messages in its seed included', () => {
    const h = implicitHarness();
    expect(h.send([sys(), user('2+2?'), assistant('4'), user('3+3?')]).violation).toBeUndefined();
  });

  it('a sub-agent reply handed to another agent was sent by a model', () => {
    const h = implicitHarness();
    h.turn([sys('worker'), user('find X')], assistant('X is 42'));
    const boss = [sys('boss'), user('delegate')];
    h.turn(boss, assistant('asking the worker'));
    expect(h.send([...boss, assistant('asking the worker'), assistant('X is 42'), user('thanks')]).violation).toBeUndefined();
  });
});

describe('implicit log: each fault class is caught with its kind', () => {
  /** Three user turns, each request extending the last. */
  function threeTurns(h: ReturnType<typeof implicitHarness>) {
    const turns: Message[] = [sys()];
    for (const n of [1, 2, 3]) {
      turns.push(user(`question ${n}`));
      const reply = assistant(`answer ${n}`);
      h.turn([...turns], reply);
      turns.push(reply);
    }
    return turns;
  }

  it('drop an old turn', () => {
    const h = implicitHarness();
    const turns = threeTurns(h);
    const dropped = [...turns.slice(0, 3), ...turns.slice(5), user('question 4')];
    expect(h.send(dropped).violation).toMatchObject({
      kind: 'missing_message',
      index: 3,
      missing: [expect.objectContaining({ role: 'user' }), expect.objectContaining({ role: 'assistant' })],
    });
  });

  it('dropping the oldest turns (a sliding window) looks like a request over the tail: out of reach without a bound log', () => {
    const h = implicitHarness();
    const turns = threeTurns(h);
    expect(h.send([turns[0]!, ...turns.slice(3), user('question 4')]).violation).toBeUndefined();
  });

  it('drop a tool result', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    const dropped = [...r3.slice(0, 3), ...r3.slice(4), a3, user('more')];
    expect(h.send(dropped).violation).toMatchObject({
      kind: 'missing_message',
      missing: [expect.objectContaining({ role: 'tool', toolCallId: 'c1' })],
    });
  });

  it('drop the last reply, within one run', () => {
    const h = implicitHarness();
    const run = {};
    const r1 = [sys(), user('hi')];
    h.turn(r1, assistant('hello'), { run });
    expect(h.send([...r1, user('are you there?')], { run }).violation).toMatchObject({
      kind: 'missing_message',
      index: 2,
      missing: [expect.objectContaining({ role: 'assistant' })],
    });
  });

  it('the same request without the reply in another run is a branch (a regenerate looks like that)', () => {
    const h = implicitHarness();
    const r1 = [sys(), user('hi')];
    h.turn(r1, assistant('hello'), { run: {} });
    expect(h.send([...r1, user('are you there?')], { run: {} }).violation).toBeUndefined();
  });

  it('duplicate a message', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    const duplicated = [...r3.slice(0, 2), r3[1]!, ...r3.slice(2), a3, user('more')];
    expect(h.send(duplicated).violation).toMatchObject({ kind: 'extra_message', extra: [expect.objectContaining({ role: 'user' })] });
  });

  it('rewrite a tool result (truncated)', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    const rewritten = [...r3.slice(0, 3), tool('c1', '{"rain":'), ...r3.slice(4), a3, user('more')];
    expect(h.send(rewritten).violation).toMatchObject({ kind: 'missing_message', index: 3 });
  });

  it('reorder two messages', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    const reordered = [r3[0]!, r3[1]!, r3[3]!, r3[2]!, ...r3.slice(4), a3, user('more')];
    expect(h.send(reordered).violation).toMatchObject({ kind: 'order', index: 2 });
  });

  it('invent an assistant reply where the replies are observable', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    expect(h.send([...r3, a3, user('more'), assistant('Sure, I promise a refund.'), user('great')]).violation).toMatchObject({
      kind: 'extra_message',
      extra: [expect.objectContaining({ role: 'assistant' })],
    });
  });

  it('send an assistant reply of the conversation again, after the observed reply', () => {
    const h = implicitHarness();
    const [, , , { r3, a3 }] = correctLoop(h);
    expect(h.send([...r3, a3, r3[4]!, user('again?')]).violation).toMatchObject({
      kind: 'extra_message',
      extra: [expect.objectContaining({ role: 'assistant' })],
    });
  });

  it('n > 1: the reply dropped, or a choice edited, is missing_message', () => {
    const run = {};
    const r1 = [sys(), user('Name a colour')];
    const reply = (h: ReturnType<typeof implicitHarness>) =>
      h.send(r1, { run }).pending!.reply([assistant('red')], undefined, { siblings: [[assistant('green')]] });
    const h = implicitHarness();
    reply(h);
    expect(h.send([...r1, user('Why?')], { run }).violation).toMatchObject({ kind: 'missing_message', index: 2 });
    const h2 = implicitHarness();
    reply(h2);
    expect(h2.send([...r1, assistant('green, or rather mauve'), user('Why?')], { run }).violation).toMatchObject({
      kind: 'missing_message',
      index: 2,
    });
  });

  it('edit the reply the model sent, within one run', () => {
    const h = implicitHarness();
    const run = {};
    const r1 = [sys(), user('hi')];
    h.turn(r1, assistant('hello'), { run });
    expect(h.send([...r1, assistant('hello, I am a lawyer'), user('ok')], { run }).violation).toMatchObject({ kind: 'missing_message' });
  });

  it('a tool result whose call precedes it nowhere', () => {
    const h = implicitHarness();
    expect(h.send([user('hi'), tool('c9', 'x')]).violation).toEqual({ kind: 'orphaned_tool_result', toolCallId: 'c9' });
  });

  it('after a violation the conversation as the model saw it goes on: the next correct request is silent', () => {
    const h = implicitHarness();
    const turns = threeTurns(h);
    const dropped = [...turns.slice(0, 3), ...turns.slice(5), user('question 4')];
    expect(h.turn(dropped, assistant('fine')).violation).toBeDefined();
    expect(h.send([...dropped, assistant('fine'), user('next')]).violation).toBeUndefined();
  });
});

describe('implicit log: turns the provider holds (previous_response_id, a thread continued), then a full re-send', () => {
  /** A stateful request continuing from the reply `id`, adding `messages`; the reply to it, with its own id. */
  const continueFrom = (h: ReturnType<typeof implicitHarness>, id: string, messages: Message[], reply?: Message, replyId?: string) => {
    const pending = h.logs.continueHeld({ provider: 'test', model: 'm', messages, stateful: 'previous_response_id', continues: id });
    if (reply) pending?.reply([reply], undefined, replyId ? { id: replyId } : undefined);
    return pending;
  };
  /** r1 sent in full, then two turns continued on the provider's side; the history the model has seen. */
  function chain(h: ReturnType<typeof implicitHarness>, run: object) {
    const r1 = [sys(), user('Weather in Lisbon?')];
    const a1 = assistant(null, [['c1', 'weather']]);
    inRun(run, () => h.send(r1, { run }).pending!.reply([a1], undefined, { id: 'resp_1' }));
    const a2 = assistant('It rains.');
    expect(inRun(run, () => continueFrom(h, 'resp_1', [tool('c1', 'rain')], a2, 'resp_2'))).toBeDefined();
    const a3 = assistant('Dry.');
    expect(inRun(run, () => continueFrom(h, 'resp_2', [user('And tomorrow?')], a3, 'resp_3'))).toBeDefined();
    return [...r1, a1, tool('c1', 'rain'), a2, user('And tomorrow?'), a3];
  }
  const inRun = <T>(run: object, fn: () => T): T => inFrameworkRun(run, fn);

  it('a full re-send of a chain that started here is a continuation, and so is a further turn on it', () => {
    const h = implicitHarness();
    const run = {};
    const history = chain(h, run);
    expect(h.turn([...history, user('Thanks')], assistant('Welcome.'), { run }).violation).toBeUndefined();
    expect(h.send([...history, user('Thanks'), assistant('Welcome.'), user('Bye')], { run }).violation).toBeUndefined();
  });

  it('a re-send that drops or edits what the provider held is caught', () => {
    const run = {};
    const h = implicitHarness();
    const history = chain(h, run);
    const dropped = [...history.slice(0, 4), ...history.slice(5), user('Thanks')]; // a2 left out
    expect(h.send(dropped, { run }).violation).toMatchObject({ kind: 'missing_message', index: 4 });
    const h2 = implicitHarness();
    const history2 = chain(h2, run);
    const edited = [...history2.slice(0, -1), assistant('Dry, and I promise sun.'), user('Thanks')];
    expect(h2.send(edited, { run }).violation).toMatchObject({ kind: 'missing_message', index: 6 });
    const h3 = implicitHarness();
    const history3 = chain(h3, run);
    const userDropped = [...history3.slice(0, 5), ...history3.slice(6), user('Thanks')]; // the user turn the provider held left out
    expect(h3.send(userDropped, { run }).violation).toMatchObject({ kind: 'missing_message', index: 5 });
  });

  it('a continuation from an earlier reply branches there; a chain whose start was never seen is not followed', () => {
    const h = implicitHarness();
    const run = {};
    const history = chain(h, run);
    // Continue from resp_2 again (a second branch of the stored conversation), then re-send that branch in full.
    inRun(run, () => continueFrom(h, 'resp_2', [user('And in Porto?')], assistant('Sunny.'), 'resp_4'));
    const branch = [...history.slice(0, 5), user('And in Porto?'), assistant('Sunny.'), user('Thanks')];
    expect(h.send(branch, { run }).violation).toBeUndefined();
    expect(h.send([...history, user('Thanks')], { run }).violation).toBeUndefined();
    expect(continueFrom(h, 'resp_unknown', [user('hi')])).toBeUndefined();
  });
});

describe('implicit log: bounds', () => {
  it('caps the conversations kept and counts what it evicts', () => {
    const h = implicitHarness({ maxConversations: 3 });
    for (let i = 0; i < 5; i++) h.send([user(`conversation ${i}`)]);
    expect(h.logs.size).toBe(3);
    expect(h.evictions).toEqual(['capacity', 'capacity']);
  });

  it('compares the most recently used conversations that start alike, however many share a start and a clock tick', () => {
    const store = new MemoryConversationStore({ maxConversations: 1000, idleTimeoutMs: 1000 }, () => {});
    const kept = Array.from(
      { length: 500 },
      (_, i) => new Conversation(i, [1, i], [], 1, 0, { run: undefined, length: 2, prefill: false, replyObserved: true }),
    );
    for (const conversation of kept) store.add(conversation);
    store.touch(kept[0]!, 0);
    const found = store.candidates(1, 0, 32);
    expect(found[0]).toBe(kept[0]);
    expect(found.slice(1)).toEqual(kept.slice(-31).reverse());
    expect(store.candidates(2, 0, 32)).toEqual([]);
  });

  it('keeps each bucket in recency order through adds, touches, capacity and idle evictions (against a plain list)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('add', 'touch', 'wait'), fc.integer({ min: 1, max: 3 }), fc.nat()), { maxLength: 60 }),
        (ops) => {
          const store = new MemoryConversationStore({ maxConversations: 8, idleTimeoutMs: 10 }, () => {});
          let model: Conversation[] = []; // least recently used first
          let now = 0;
          for (const [op, key, pick] of ops) {
            if (op === 'add') {
              const c = new Conversation(key, [key], [], key, now, { run: undefined, length: 1, prefill: false, replyObserved: false });
              store.add(c);
              model.push(c);
              if (model.length > 8) model.shift();
            } else if (op === 'touch' && model.length > 0) {
              const c = model[pick % model.length]!;
              store.touch(c, now);
              model = [...model.filter((m) => m !== c), c];
            } else now += pick % 7;
            for (const k of [1, 2, 3]) {
              model = model.filter((m) => now - m.lastUsed <= 10);
              const expected = model.filter((m) => m.key === k).reverse();
              const found = store.candidates(k, now, 4);
              expect(found.length).toBe(Math.min(4, expected.length));
              found.forEach((c, i) => expect(c).toBe(expected[i]));
            }
            expect(store.size).toBe(model.length);
          }
        },
      ),
    );
  });

  it('1,000 interleaved conversations sharing their first two messages: each continued silently, the one faulted reported once', () => {
    const h = implicitHarness({ maxConversations: 2_000, captureContent: false });
    const opening = [sys(), assistant('Hello! How can I help you today?'), user('Hi, I have a question.')];
    const histories = Array.from({ length: 1_000 }, () => opening.slice());
    const faulted = 617;
    const violations: Array<{ conversation: number; kind: string }> = [];
    for (let turn = 0; turn < 4; turn++) {
      for (let c = 0; c < histories.length; c++) {
        const history = histories[c]!;
        let request = history;
        // The faulted conversation drops its first reply at the third turn (a message lost mid-conversation).
        if (c === faulted && turn === 2) request = history.filter((_, i) => i !== 3);
        const reply = assistant(`Answer ${turn} to user ${c}.`);
        const sent = h.send(request);
        sent.pending?.reply([reply]);
        if (sent.violation) violations.push({ conversation: c, kind: sent.violation.kind });
        history.push(reply, user(`Follow-up ${turn} from user ${c}.`));
      }
    }
    expect(violations).toEqual([{ conversation: faulted, kind: 'missing_message' }]);
  });

  it('finds a continuation among conversations that start alike whatever their number, and a lost reply too', () => {
    const h = implicitHarness({ maxConversations: 500 });
    const run = {};
    const opening = [user('Hi')];
    const histories = Array.from({ length: 300 }, (_, c) => [...opening, assistant('Hello!'), user(`I am user ${c}.`)]);
    for (const [c, history] of histories.entries()) h.turn(history, assistant(`Nice to meet you, ${c}.`), { run });
    // The first conversation continued without the reply it got, in the same run: the reply was lost.
    const lost = h.send([...histories[0]!, user('Anyone there?')], { run });
    expect(lost.violation?.kind).toBe('missing_message');
    expect(h.send([...histories[1]!, assistant('Nice to meet you, 1.'), user('Bye')], { run }).violation).toBeUndefined();
  });

  it('drops idle conversations', () => {
    const h = implicitHarness({ idleTimeoutMs: 1000 });
    h.send([user('a')]);
    h.advance(5000);
    h.send([user('b')]);
    expect(h.logs.size).toBe(1);
    expect(h.evictions).toEqual(['idle']);
  });

  it('keeps no message text once the request is gone (content capture off): searched for in a heap snapshot', async () => {
    // The secret is built at run time from a random token, so the only copies are the request's;
    // the test keeps the token alone and looks for it between its known neighbours in the snapshot.
    const token = Math.random().toString(36).slice(2, 12);
    const h = implicitHarness({ captureContent: false });
    (() => {
      const secretUser = ['SECRET', token, 'USER'].join('-');
      const secretReply = ['SECRET', token, 'REPLY'].join('-');
      h.turn([user(secretUser)], assistant(secretReply));
    })();
    expect(h.logs.size).toBe(1);
    const snapshot = await heapSnapshot();
    expect(occurrencesBetween(snapshot, 'SECRET-', token, '-USER')).toBe(0);
    expect(occurrencesBetween(snapshot, 'SECRET-', token, '-REPLY')).toBe(0);
    // The search itself can fail: with content capture on, the sketches keep a preview and it is found.
    const capturing = implicitHarness({ captureContent: true });
    (() => capturing.send([user(['SECRET', token, 'KEPT'].join('-'))]))();
    expect(occurrencesBetween(await heapSnapshot(), 'SECRET-', token, '-KEPT')).toBeGreaterThan(0);
  });

  it('with content capture on, a preview holds its own characters only, not the message it was cut from', () => {
    // 200 conversations of one 128 KB message each: a preview sliced from the message would keep all 25 MB alive.
    const conversations = 200;
    const size = 128 * 1024;
    const fill = (captureContent: boolean) =>
      retainedBytes(() => {
        const h = implicitHarness({ captureContent });
        for (let i = 0; i < conversations; i++) h.send([user(`${i}:${'abcdefgh'.repeat(size / 8)}`)]);
        return h;
      });
    const off = fill(false);
    const on = fill(true);
    expect(on.value.logs.size).toBe(conversations);
    expect(off.value.logs.size).toBe(conversations);
    // 200 previews of 120 characters are some tens of KB; the bound leaves room for the allocator's noise.
    expect(on.bytes - off.bytes).toBeLessThan(2 * 1024 * 1024);
  });
});
