// The violation path reads a request from where its bytes first differ from
// the conversation's (request-path/implicit/divergence.ts): for random
// conversations and random faults, what it reports is what reading the whole
// request reports, and it does not read the elements before the difference.

import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../src/index';
import { fromOpenAIChat, toOpenAIChat } from '../../src/adapters';
import { ImplicitLogs } from '../../src/request-path/implicit/implicit-logs';
import { loadByteHasher } from '../../src/request-path/implicit/bytes/byte-hash';
import { MARK_EVERY } from '../../src/request-path/implicit/bytes/byte-record';
import { implicitReaction, UNCOUNTED } from '../support/implicit-harness';
import type { SerialisedBody } from '../../src/request-path/model-request';
import type { ViolationDetails } from '../../src/invariant/violation';
import { setLogger } from '../../src/warnings';

beforeAll(async () => {
  await loadByteHasher();
  setLogger({ warn: () => {} });
});

const reaction = implicitReaction(UNCOUNTED);

/** The body the `openai` client sends for `messages`, counting the elements its reader is handed; and the request read whole. */
function serialise(messages: readonly Message[], counted: { elements: number }): { body: SerialisedBody; read: Message[] } {
  const text = JSON.stringify({ model: 'm', messages: toOpenAIChat(messages) });
  const parsed = JSON.parse(text) as { messages: unknown[] };
  const readElements = (entries: readonly unknown[]): Message[] => {
    counted.elements += entries.length;
    return fromOpenAIChat(entries);
  };
  return { body: { text, format: 'openai.chat', readElements }, read: fromOpenAIChat(parsed.messages) };
}

const newLogs = () => new ImplicitLogs({ maxConversations: 100, idleTimeoutMs: 3_600_000 }, () => UNCOUNTED);

/** Two logs fed the same requests: one with the bytes (fast path and violation path first), one reading every request whole. */
function pair() {
  const withBytes = newLogs();
  const whole = newLogs();
  const counted = { elements: 0 };
  return {
    counted,
    /** Sends `messages` to both; the reply (if any) goes back to both. Gives both violations and whether the bytes decided. */
    send(messages: readonly Message[], reply?: Message) {
      const { body, read } = serialise(messages, counted);
      const byBytes = withBytes.checkBytes(body, reaction);
      const bytesDecided = byBytes !== undefined;
      const a = byBytes ?? withBytes.check({ provider: 'test', model: 'm', messages: read, body }, reaction);
      const b = whole.check({ provider: 'test', model: 'm', messages: read }, reaction);
      if (reply !== undefined) {
        a.pending?.reply([reply]);
        b.pending?.reply([reply]);
      }
      return { withBytes: a.violation, whole: b.violation, bytesDecided };
    },
  };
}

const words = fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom('a', 'b', ' ', '"', '\\', 'é', '日') });
/** A conversation's turns: a question, then an answer, or a tool call and its result then an answer. */
const turns = fc.array(fc.record({ question: words, answer: words, tool: fc.boolean(), late: fc.constantFrom(0, 0, 0, 0, 1, 3) }), {
  minLength: 15,
  maxLength: 40,
});
const fault = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('modify' as const), at: fc.nat(), to: words }),
  fc.record({ kind: fc.constant('reorder' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), content: words }),
  fc.record({ kind: fc.constant('tool-result-dropped' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('tool-result-moved' as const), at: fc.nat(), to: fc.nat() }),
);

/** The turns as messages; a tool result `late` turns after its call (a result need only follow its call, not at once). */
function transcript(spec: { question: string; answer: string; tool: boolean; late?: number }[], tag: string): Message[] {
  const out: Message[] = [{ role: 'system', content: 'be brief' }];
  const due: { at: number; message: Message }[] = [];
  spec.forEach((t, i) => {
    out.push({ role: 'user', content: i === 0 ? `${tag} ${t.question}` : t.question });
    for (const d of due.filter((d) => d.at === i)) out.push(d.message);
    if (t.tool) {
      const id = `call_${i}`;
      out.push({ role: 'assistant', content: null, toolCalls: [{ id, name: 'look', arguments: `{"q":${i}}` }] });
      const result: Message = { role: 'tool', content: t.answer, toolCallId: id };
      if (t.late) due.push({ at: i + t.late, message: result });
      else out.push(result);
    }
    out.push({ role: 'assistant', content: `${t.answer} (${i})` });
  });
  for (const d of due.filter((d) => d.at >= spec.length)) out.push(d.message);
  return out;
}

/** `messages` with the fault put in, past the leading system message and the first question. */
type Fault = typeof fault extends fc.Arbitrary<infer F> ? F : never;
function withFault(messages: readonly Message[], f: Fault): Message[] {
  const out = [...messages];
  const at = 2 + (f.at % (out.length - 2));
  switch (f.kind) {
    case 'drop':
      out.splice(at, 1);
      break;
    case 'modify':
      out[at] = { ...out[at]!, content: `${String(out[at]!.content)}${f.to}` };
      break;
    case 'reorder':
      if (at + 1 < out.length) [out[at], out[at + 1]] = [out[at + 1]!, out[at]!];
      else [out[at - 1], out[at]] = [out[at]!, out[at - 1]!];
      break;
    case 'insert':
      out.splice(at, 0, { role: 'user', content: f.content });
      break;
    case 'truncate':
      // The request ends where the history is cut, maybe in an assistant message (a prefill): nothing is added after.
      return out.slice(0, at);
    case 'tool-result-dropped': {
      const tools = out.map((m, i) => (m.role === 'tool' ? i : -1)).filter((i) => i >= 0);
      out.splice(tools.length > 0 ? tools[f.at % tools.length]! : at, 1);
      break;
    }
    case 'tool-result-moved': {
      // A tool result taken from after its call to another place, before its call or further on.
      const tools = out.map((m, i) => (m.role === 'tool' ? i : -1)).filter((i) => i >= 0);
      const from = tools.length > 0 ? tools[f.at % tools.length]! : at;
      const [moved] = out.splice(from, 1);
      out.splice(2 + (f.to % (out.length - 1)), 0, moved!);
      break;
    }
  }
  return out;
}

const reported = (v: ViolationDetails | undefined) => (v === undefined ? 'ok' : v);

describe('the violation path reads from the first difference', () => {
  it('reports, for any conversation and fault, what reading the whole request reports', () => {
    let decidedByBytes = 0;
    let skippedAfter = 0;
    fc.assert(
      fc.property(turns, fault, fault, fc.option(fault), fc.nat({ max: 3 }), fc.boolean(), (spec, f, then, also, extended, observed) => {
        const logs = pair();
        let history: Message[] = [...transcript(spec, `c${Math.random()}`), { role: 'user', content: 'go on' }];
        logs.send(history, { role: 'assistant', content: 'first reply' });
        history = [...history, { role: 'assistant', content: 'first reply' }];
        // A few correct turns, taken by the fast path, so that marks are also recorded from continuations.
        for (let i = 0; i < extended; i++) {
          history = [...history, { role: 'user', content: `more ${i}` }];
          const reply: Message = { role: 'assistant', content: `reply ${i}` };
          const sent = logs.send(history, observed ? reply : undefined);
          expect(reported(sent.withBytes)).toEqual(reported(sent.whole));
          history = [...history, reply];
        }
        // One fault, or two (a second difference after the first: the elements between are read).
        const faults = also === null || also.kind === 'truncate' ? [f] : [f, also];
        const broken = faults.reduce(withFault, history);
        const faulty = f.kind === 'truncate' ? broken : [...broken, { role: 'user' as const, content: 'and now?' }];
        logs.counted.elements = 0;
        const sent = logs.send(faulty, { role: 'assistant', content: 'after the fault' });
        expect(reported(sent.withBytes)).toEqual(reported(sent.whole));
        if (sent.bytesDecided) decidedByBytes++;
        // Fewer elements read than follow the fault's place: a run after the difference was taken from the conversation.
        if (sent.bytesDecided && logs.counted.elements + MARK_EVERY < faulty.length - (2 + (f.at % (history.length - 2)))) skippedAfter++;
        // What each recorded (the sketches of the messages not read included): the next request, correct or with
        // a fault of its own, is reported alike too.
        const next: Message[] = [...faulty, { role: 'assistant', content: 'after the fault' }, { role: 'user', content: 'next' }];
        const correct = logs.send(next, { role: 'assistant', content: 'after next' });
        expect(reported(correct.withBytes)).toEqual(reported(correct.whole));
        const again = logs.send([
          ...withFault(next, then),
          { role: 'assistant', content: 'after next' },
          { role: 'user', content: 'again' },
        ]);
        expect(reported(again.withBytes)).toEqual(reported(again.whole));
      }),
      { numRuns: Number(process.env.RUNS ?? 300) },
    );
    // Most faults fall after the first mark: the property must have exercised the violation path, not only the fallback.
    // A request with an orphaned tool result the parts read cannot pair is read whole.
    expect(decidedByBytes).toBeGreaterThan(60);
    expect(skippedAfter).toBeGreaterThan(5);
  });

  it('a request cut at a mark in an assistant message (a prefill) is reported and continued as when read whole', () => {
    const logs = pair();
    const spec = Array.from({ length: 30 }, (_, i) => ({ question: `q${i}`, answer: `a${i}`, tool: i % 3 === 0 }));
    const history: Message[] = [
      ...transcript(spec, 'cut'),
      { role: 'user', content: 'go on' },
      { role: 'assistant', content: 'first reply' },
    ];
    logs.send(history.slice(0, -1), history[history.length - 1]);
    // The system message, then a multiple of MARK_EVERY elements ending in an assistant message.
    const cut = [MARK_EVERY, 2 * MARK_EVERY, 3 * MARK_EVERY].find((k) => history[k]?.role === 'assistant' && history[k]?.content !== null)!;
    expect(cut).toBeDefined();
    const prefill = history.slice(0, cut + 1);
    const first = logs.send(prefill, { role: 'assistant', content: ' and more' });
    expect(reported(first.withBytes)).toEqual(reported(first.whole));
    const merged: Message = { role: 'assistant', content: `${String(history[cut]!.content)} and more` };
    const next = logs.send([...prefill.slice(0, -1), merged, { role: 'user', content: 'next' }]);
    expect(reported(next.withBytes)).toEqual(reported(next.whole));
  });

  it('a drop in the middle of 1,000 messages reads the elements around it, not the whole request', () => {
    const logs = pair();
    const spec = Array.from({ length: 340 }, (_, i) => ({ question: `q${i}`, answer: `a${i}`, tool: i % 2 === 0 }));
    const history: Message[] = [
      ...transcript(spec, 'long'),
      { role: 'user', content: 'go on' },
      { role: 'assistant', content: 'first reply' },
    ];
    expect(history.length).toBeGreaterThan(1_000);
    logs.send(history.slice(0, -1), history[history.length - 1]);
    const middle = history.findIndex((m, i) => i >= history.length / 2 && m.role === 'user');
    const dropped = [...history.slice(0, middle), ...history.slice(middle + 1), { role: 'user' as const, content: 'and now?' }];
    logs.counted.elements = 0;
    const sent = logs.send(dropped);
    expect(sent.bytesDecided).toBe(true);
    expect(sent.withBytes?.kind).toBe('missing_message');
    expect(sent.withBytes).toEqual(sent.whole);
    // The system element, the elements from a mark before the drop to the next block found equal after it, and the
    // last block's elements after that: a few blocks of the thousand.
    const read = logs.counted.elements;
    expect(read).toBeLessThanOrEqual(1 + 5 * MARK_EVERY);
  });
});
