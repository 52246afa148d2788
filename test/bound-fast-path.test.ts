// The bound check's fast path (src/invariant/check.ts, `matchedPrefix`): when
// the log only grew since the last request checked against it, the leading
// messages that request matched are not compared again. It must agree with
// the full comparison for every sequence of requests: grown logs, entries
// edited in place or replaced, dropped, reordered, a system overlay coming
// and going, the fold rebuilt by a replace.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLog, check, type Message } from '../src/index';
import { checkFully } from '../src/invariant/check';
import { fromOpenAIChat, fromOpenAIChatReusing, toOpenAIChat } from '../src/integrations/openai/chat-adapter';

type Entry = Record<string, unknown>;

type Op =
  | { kind: 'turn'; text: string; withTool: boolean }
  | { kind: 'logOnly'; text: string }
  | { kind: 'requestOnly'; text: string }
  | { kind: 'editInPlace'; at: number; text: string }
  | { kind: 'replaceEntry'; at: number; text: string }
  | { kind: 'drop'; at: number }
  | { kind: 'swap'; at: number; with: number }
  | { kind: 'overlay'; on: boolean }
  | { kind: 'replaceInLog'; at: number }
  | { kind: 'source'; from: Source };

/** Where the request's messages come from: the request path's reading (memo), the fold's own objects, or the app's own canonical objects, which it edits in place. */
type Source = 'memo' | 'fold' | 'own';

const text = fc.constantFrom('a', 'b', 'hello', 'weather?', '');
const at = fc.nat({ max: 40 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('turn' as const), text, withTool: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('logOnly' as const), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('requestOnly' as const), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('editInPlace' as const), at, text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replaceEntry' as const), at, text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('swap' as const), at, with: at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('overlay' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('replaceInLog' as const), at }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('source' as const), from: fc.constantFrom<Source>('memo', 'fold', 'own') }) },
);

/** An app keeping its Chat history and a log beside it, and the requests it would send. */
class App {
  readonly log = new SessionLog();
  history: Entry[] = [];
  overlay = false;
  source: Source = 'memo';
  #calls = 0;
  /** The app's own canonical message per entry, made once and edited in place along with the entry. */
  readonly #own = new WeakMap<Entry, Message>();

  constructor() {
    this.log.append('user_message', { content: 'start' });
    this.history.push({ role: 'user', content: 'start' });
  }

  apply(op: Op): void {
    const n = this.history.length;
    switch (op.kind) {
      case 'turn':
        if (op.withTool) {
          const id = `call_${this.#calls++}`;
          this.log.append('assistant_message', { content: null, toolCalls: [{ id, name: 'f', arguments: '{}' }] });
          this.log.append('tool_result', { content: op.text, toolCallId: id, name: 'f' });
          this.history.push(
            { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'f', arguments: '{}' } }] },
            { role: 'tool', tool_call_id: id, content: op.text },
          );
        }
        this.log.append('assistant_message', { content: op.text });
        this.log.append('user_message', { content: `${op.text}?` });
        this.history.push({ role: 'assistant', content: op.text }, { role: 'user', content: `${op.text}?` });
        return;
      case 'logOnly':
        this.log.append('user_message', { content: op.text });
        return;
      case 'requestOnly':
        this.history.push({ role: 'user', content: op.text });
        return;
      case 'editInPlace':
        if (n > 0) {
          const entry = this.history[op.at % n]!;
          entry.content = op.text;
          const own = this.#own.get(entry);
          if (own !== undefined) own.content = op.text;
        }
        return;
      case 'replaceEntry':
        if (n > 0) this.history[op.at % n] = { ...this.history[op.at % n]!, content: op.text };
        return;
      case 'drop':
        if (n > 0) this.history.splice(op.at % n, 1);
        return;
      case 'swap':
        if (n > 1) {
          const [i, j] = [op.at % n, op.with % n];
          [this.history[i], this.history[j]] = [this.history[j]!, this.history[i]!];
        }
        return;
      case 'overlay':
        this.overlay = op.on;
        return;
      case 'replaceInLog': {
        // A summary replacing one message: the fold is rebuilt (a new array), the app's history left as it was.
        const length = this.log.deriveMessages().length;
        const start = op.at % Math.max(length, 1);
        this.log.append('user_message', { content: '[summary]', replace: { start, stop: start } });
        return;
      }
      case 'source':
        this.source = op.from;
        return;
    }
  }

  /** The request as the request path hands it to the check: the entries read through the memo, or the fold's own objects. */
  request(): Message[] {
    const messages =
      this.source === 'fold'
        ? this.log.deriveMessages()
        : this.source === 'memo'
          ? fromOpenAIChatReusing(this.history)
          : this.#ownMessages();
    return this.overlay ? [{ role: 'system', content: 'You are terse.' }, ...messages] : messages;
  }

  #ownMessages(): Message[] {
    const read = fromOpenAIChat(this.history);
    return this.history.map((entry, i) => {
      let own = this.#own.get(entry);
      if (own === undefined) this.#own.set(entry, (own = { ...read[i]! }));
      return own;
    });
  }
}

describe('bound check fast path', () => {
  it('agrees with the full comparison for any sequence of requests against a growing log', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        const app = new App();
        for (const op of ops) {
          app.apply(op);
          const request = app.request();
          expect(check(app.log, request)).toEqual(checkFully(app.log, request));
          // Checked again as it is: everything it matched is now remembered.
          expect(check(app.log, request)).toEqual(checkFully(app.log, request));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('agrees when the history is re-read from the log between requests (fresh entries every time)', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 30 }), (ops) => {
        const app = new App();
        for (const op of ops) {
          app.apply(op);
          app.history = toOpenAIChat(app.log.deriveMessages());
          const request = app.request();
          expect(check(app.log, request)).toEqual(checkFully(app.log, request));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('skips what a grown request re-sends and still finds a message edited in place or dropped', () => {
    const app = new App();
    for (let i = 0; i < 50; i++) app.apply({ kind: 'turn', text: `t${i}`, withTool: i % 3 === 0 });
    expect(check(app.log, app.request())).toEqual({ ok: true });
    app.apply({ kind: 'turn', text: 'next', withTool: true });
    expect(check(app.log, app.request())).toEqual({ ok: true });
    app.history[7]!.content = 'edited';
    const edited = check(app.log, app.request());
    expect(edited).toEqual(checkFully(app.log, app.request()));
    expect(edited.ok).toBe(false);
    app.history[7]!.content = app.log.deriveMessages()[7]!.content;
    expect(check(app.log, app.request())).toEqual({ ok: true });
    app.history.splice(20, 1);
    const dropped = check(app.log, app.request());
    expect(dropped.ok ? undefined : dropped.violation.kind).toBe('missing_message');
    expect(dropped).toEqual(checkFully(app.log, app.request()));
  });
});
