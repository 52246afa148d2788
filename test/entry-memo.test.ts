// The reuse of a provider entry's reading between requests: any change made
// to the entry, in place or not, must be seen, or a rewrite would go unchecked.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromOpenAIChat, fromOpenAIChatReusing } from '../src/integrations/openai/chat-adapter';
import { EntryMemo } from '../src/reading/entry-memo';
import { matchesSnapshot, takeSnapshot } from '../src/reading/reference-snapshot';
import { heapSnapshot, occurrencesBetween } from './support/heap';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A path to somewhere inside a JSON value: the containers on the way down. */
function containers(value: Json, out: Array<Json[] | { [key: string]: Json }> = []): Array<Json[] | { [key: string]: Json }> {
  if (typeof value !== 'object' || value === null) return out;
  out.push(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) containers(child, out);
  return out;
}

/** Changes `target` in place in one of several ways; returns false when it could not (nothing to change). */
function changeInPlace(target: Json[] | { [key: string]: Json }, how: number, fresh: Json): boolean {
  if (Array.isArray(target)) {
    if (how % 3 === 0 || target.length === 0) target.push(fresh);
    else if (how % 3 === 1) target.pop();
    else target[how % target.length] = target[how % target.length] === fresh ? [fresh] : fresh;
    return true;
  }
  const keys = Object.keys(target);
  if (how % 3 === 0 || keys.length === 0) {
    const key = `k${how}`;
    if (key in target) target[key] = [target[key]!];
    else target[key] = fresh;
  } else if (how % 3 === 1) delete target[keys[how % keys.length]!];
  else {
    const key = keys[how % keys.length]!;
    target[key] = target[key] === fresh ? [fresh] : fresh;
  }
  return true;
}

describe('reference snapshots', () => {
  it('an unchanged entry matches its snapshot; one changed in place anywhere does not', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue() as fc.Arbitrary<Json>),
        fc.nat(),
        fc.nat(),
        fc.string(),
        (entry, where, how, text) => {
          const snapshot = takeSnapshot(entry);
          expect(snapshot).toBeDefined();
          expect(matchesSnapshot(entry, snapshot!)).toBe(true);
          const all = containers(entry);
          changeInPlace(all[where % all.length]!, how, `changed:${text}`);
          expect(matchesSnapshot(entry, snapshot!)).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a string with the same text but a new reference still matches (strings are values)', () => {
    const entry = { role: 'user', content: 'abc' };
    const snapshot = takeSnapshot(entry)!;
    entry.content = ['a', 'b', 'c'].join('');
    expect(matchesSnapshot(entry, snapshot)).toBe(true);
  });

  it('key order counts, and so does a key holding undefined', () => {
    const entry: Record<string, unknown> = { role: 'user', content: 'x' };
    const snapshot = takeSnapshot(entry)!;
    expect(matchesSnapshot({ content: 'x', role: 'user' }, snapshot)).toBe(false);
    expect(matchesSnapshot({ role: 'user', content: 'x', name: undefined }, snapshot)).toBe(false);
  });

  it('is not taken for what it cannot compare by reference: Dates, class instances, cycles, huge entries, throwing getters', () => {
    const cyclic: Record<string, unknown> = { role: 'user' };
    cyclic.self = cyclic;
    const throwing = Object.defineProperty({}, 'content', {
      enumerable: true,
      get: () => {
        throw new Error('no');
      },
    });
    for (const entry of [{ at: new Date(0) }, { part: new (class Part {})() }, cyclic, { content: Array(3_000).fill('x') }, throwing]) {
      expect(takeSnapshot(entry)).toBeUndefined();
    }
  });
});

describe('EntryMemo', () => {
  it('reads an entry once while it is unchanged, and again after any change', () => {
    const memo = new EntryMemo<string>();
    let reads = 0;
    const read = (entry: unknown) => {
      reads++;
      return JSON.stringify(entry);
    };
    const entry = { role: 'tool', content: [{ type: 'text', text: 'long result' }] };
    expect(memo.get(entry, read)).toBe(JSON.stringify(entry));
    expect(memo.get(entry, read)).toBe(JSON.stringify(entry));
    expect(reads).toBe(1);
    entry.content[0]!.text = 'long'; // truncated in place, deep inside
    expect(memo.get(entry, read)).toBe(JSON.stringify(entry));
    expect(reads).toBe(2);
    expect(memo.get({ ...entry }, read)).toBe(JSON.stringify(entry)); // a copy is a new entry
    expect(reads).toBe(3);
  });

  it('never remembers what it cannot snapshot', () => {
    const memo = new EntryMemo<number>();
    let reads = 0;
    const entry = { at: new Date(0) };
    memo.get(entry, () => ++reads);
    memo.get(entry, () => ++reads);
    expect(reads).toBe(2);
  });
});

describe('the Chat Completions reading the openai hook reuses', () => {
  // Entries drawn from a small pool the app keeps and re-sends in any order, some changed in place between
  // requests: the reused reading must equal a fresh one of each request, tool-result names included (a result
  // is named only by a call before it in the same request, never by one an earlier request carried).
  const callId = fc.constantFrom('a', 'b');
  const rawEntry = fc.oneof(
    fc.record({ role: fc.constant('user'), content: fc.constantFrom('hi', 'again') }),
    fc.record({
      role: fc.constant('assistant'),
      content: fc.constantFrom(null, 'ok'),
      tool_calls: fc.array(
        fc.record({
          id: callId,
          type: fc.constant('function'),
          function: fc.record({ name: fc.constantFrom('f', 'g'), arguments: fc.constant('{}') }),
        }),
        { maxLength: 2 },
      ),
    }),
    fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: fc.constantFrom('r', 's') }),
    fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: fc.constant('r'), name: fc.constant('named') }),
    // Calls where the reading does not take them from: an unknown role's entry is copied whole, a tool result's calls are not read.
    fc.record({ role: fc.constantFrom('custom', 'tool', 'user'), tool_call_id: callId, toolCalls: fc.constant([{ id: 'a', name: 'h' }]) }),
    fc.record({
      role: fc.constantFrom('custom', 'tool', 'user'),
      content: fc.constant('c'),
      tool_calls: fc.constant([{ id: 'b', function: { name: 'k', arguments: '{}' } }]),
    }),
  );
  const poolEntry = fc.oneof({ weight: 8, arbitrary: rawEntry }, { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 7, 'text') });
  const step = fc.record({
    pick: fc.array(fc.nat(), { maxLength: 6 }),
    change: fc.option(fc.tuple(fc.nat(), rawEntry), { nil: undefined }),
  });

  it('reads every request as fromOpenAIChat does, whatever entries earlier requests carried', () => {
    fc.assert(
      fc.property(fc.array(poolEntry, { minLength: 1, maxLength: 6 }), fc.array(step, { minLength: 1, maxLength: 8 }), (pool, steps) => {
        for (const { pick, change } of steps) {
          const target = change ? pool[change[0] % pool.length] : undefined;
          if (typeof target === 'object' && target !== null) Object.assign(target, change![1]); // changed in place
          const request = pick.map((i) => pool[i % pool.length]!);
          expect(fromOpenAIChatReusing(request)).toEqual(fromOpenAIChat(request));
        }
      }),
      { numRuns: 500 },
    );
  });

  // Entries as apps build them (tool calls with JSON or parsed arguments, content parts, unknown roles), changed in
  // place anywhere inside between two requests: the reused reading of the second must equal a fresh one.
  const jsonLeaf = fc.oneof(fc.constantFrom('a', 'b', ''), fc.integer({ min: 0, max: 3 }), fc.constant(null));
  const richEntry: fc.Arbitrary<Json> = fc.oneof(
    fc.record({
      role: fc.constantFrom('user', 'system', 'developer', 'assistant'),
      content: fc.oneof(jsonLeaf, fc.array(fc.record({ type: fc.constant('text'), text: fc.constantFrom('x', 'y') }), { maxLength: 2 })),
    }),
    fc.record({
      role: fc.constant('assistant'),
      content: jsonLeaf,
      tool_calls: fc.array(
        fc.record({
          id: callId,
          type: fc.constant('function'),
          function: fc.record({
            name: fc.constantFrom('f', 'g'),
            arguments: fc.oneof(fc.constantFrom('{}', '{"a":1}'), fc.dictionary(fc.constantFrom('a', 'b'), jsonLeaf)),
          }),
        }),
        { maxLength: 2 },
      ),
    }),
    fc.record({ role: fc.constant('tool'), tool_call_id: callId, content: jsonLeaf }),
    fc.record({ role: fc.constant('custom'), note: jsonLeaf, items: fc.array(jsonLeaf, { maxLength: 2 }) }),
  );

  it('sees a change made in place anywhere inside an entry, and reads it as fromOpenAIChat does', () => {
    fc.assert(
      fc.property(
        fc.array(richEntry, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        jsonLeaf,
        (history, which, where, how, fresh) => {
          fromOpenAIChatReusing(history);
          fromOpenAIChatReusing(history); // re-sent: remembered
          const all = containers(history[which % history.length]!);
          changeInPlace(all[where % all.length]!, how, fresh);
          expect(fromOpenAIChatReusing(history)).toEqual(fromOpenAIChat(history));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  /** The naming rule as stated: a tool result without a name of its own takes the name of the latest call with its id made before it by a system, user or assistant entry. */
  function namesByTheRule(entries: readonly unknown[]): unknown[] {
    const names = new Map<unknown, unknown>();
    return entries.map((entry) => {
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return undefined;
      const e = entry as Record<string, unknown>;
      const role = e.role === 'developer' ? 'system' : e.role;
      if (role === 'tool')
        return typeof e.name === 'string' ? e.name : typeof e.tool_call_id === 'string' ? names.get(e.tool_call_id) : undefined;
      if ((role === 'system' || role === 'user' || role === 'assistant') && Array.isArray(e.tool_calls)) {
        for (const call of e.tool_calls as Array<Record<string, Record<string, unknown> | undefined> | null>) {
          const name = call?.function?.name ?? call?.custom?.name;
          if (typeof call?.id === 'string' && typeof name === 'string') names.set(call.id, name);
        }
      }
      return undefined;
    });
  }

  it('names each tool result after the latest earlier call with its id, however far back', () => {
    // Gaps of filler around the reading's look-back (8 messages), so that calls fall on both sides of it.
    const gap = fc.integer({ min: 5, max: 10 }).map((length) => ({ gap: length }));
    fc.assert(
      fc.property(fc.array(fc.oneof(poolEntry, gap), { maxLength: 30 }), (items) => {
        const entries = items.flatMap((e) =>
          typeof e === 'object' && e !== null && 'gap' in e
            ? Array.from({ length: e.gap as number }, () => ({ role: 'user', content: 'g' }))
            : [e],
        );
        const read = fromOpenAIChat(entries).map((m) => (m !== null && typeof m === 'object' && m.role === 'tool' ? m.name : undefined));
        expect(read).toEqual(namesByTheRule(entries));
      }),
      { numRuns: 1_000 },
    );
  });

  it('does not name a tool result after a call of an earlier request', () => {
    const call = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const result = { role: 'tool', tool_call_id: 'a', content: 'r' };
    fromOpenAIChatReusing([call, result]);
    expect(fromOpenAIChatReusing([call, result])[1]).toMatchObject({ name: 'f' });
    expect(fromOpenAIChatReusing([result])[0]!.name).toBeUndefined();
  });

  it('keeps no message text once the app has dropped its messages: searched for in a heap snapshot', async () => {
    const token = Math.random().toString(36).slice(2, 12);
    let kept: unknown[] | undefined;
    (() => {
      const history = [
        { role: 'system', content: 'sys' },
        { role: 'user', content: ['SECRET', token, 'MEMO'].join('-') },
      ];
      fromOpenAIChatReusing(history);
      const again = fromOpenAIChatReusing([...history, { role: 'assistant', content: 'ok' }]); // re-sent: remembered
      expect(again[1]!.content).toContain(token);
      kept = [again.length];
    })();
    expect(kept).toEqual([3]);
    expect(occurrencesBetween(await heapSnapshot(), 'SECRET-', token, '-MEMO')).toBe(0);
    // The search itself can fail: while the app holds its messages, the text is found.
    const held = [{ role: 'user', content: ['SECRET', token, 'HELD'].join('-') }];
    fromOpenAIChatReusing(held);
    expect(occurrencesBetween(await heapSnapshot(), 'SECRET-', token, '-HELD')).toBeGreaterThan(0);
    expect(held).toHaveLength(1);
  });
});
