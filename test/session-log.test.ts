import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidEventError, SessionLog, check, setLogger, type EventData, type EventType, type Message } from '../src/index';
import { exampleLog } from './support/transcripts';

afterEach(() => setLogger(null));

describe('SessionLog: events', () => {
  it('assigns seq from 0, contiguous, equal to the index', () => {
    const log = new SessionLog();
    const seqs = ['user_message', 'turn_start', 'assistant_message'].map((type) => {
      const result = log.append(type as EventType, { content: 'x' });
      if (!result.ok) throw result.error;
      return result.event.seq;
    });
    expect(seqs).toEqual([0, 1, 2]);
    expect(log.events().map((e, i) => e.seq - i)).toEqual([0, 0, 0]);
    expect(log.count).toBe(3);
  });

  it('stamps now by default and keeps an explicit time exactly', () => {
    const log = new SessionLog();
    const before = Date.now();
    const stamped = log.append('user_message', { content: 'a' });
    const explicit = new Date('2020-01-02T03:04:05.678Z');
    const kept = log.append('user_message', { content: 'b' }, explicit);
    if (!stamped.ok || !kept.ok) throw new Error('append failed');
    expect(stamped.event.time.getTime()).toBeGreaterThanOrEqual(before);
    expect(stamped.event.time.getTime()).toBeLessThanOrEqual(Date.now());
    expect(kept.event.time.toISOString()).toBe('2020-01-02T03:04:05.678Z');
  });

  it('owns its data: changing the caller object afterwards changes nothing', () => {
    const log = new SessionLog();
    const data = { content: 'a', metadata: { tags: ['x'] } };
    log.append('user_message', data);
    data.content = 'changed';
    data.metadata.tags.push('y');
    expect(log.deriveMessages()[0]).toMatchObject({ content: 'a', metadata: { tags: ['x'] } });
  });

  it('events() holds every event, shadowed ones included', () => {
    const log = exampleLog();
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 5 } });
    expect(log.events()).toHaveLength(9);
    expect(log.events().map((e) => e.type)).toContain('tool_result');
  });
});

describe('SessionLog: append validation', () => {
  const refusals: Array<[string, EventType | string, unknown, string]> = [
    ['an unknown type', 'chat_message', { content: 'x' }, 'unknown_type'],
    ['replace on a bookkeeping event', 'step_start', { replace: { start: 0, stop: 0 } }, 'replace_on_bookkeeping'],
    ['a negative replace start', 'user_message', { replace: { start: -1, stop: 0 } }, 'invalid_replace'],
    ['a fractional replace stop', 'user_message', { replace: { start: 0, stop: 1.5 } }, 'invalid_replace'],
    ['stop before start', 'user_message', { replace: { start: 3, stop: 2 } }, 'invalid_replace'],
    ['replace without stop', 'user_message', { replace: { start: 3 } }, 'invalid_replace'],
    ['replace that is not an object', 'user_message', { replace: 'all' }, 'invalid_replace'],
    ['replace set to null', 'user_message', { replace: null }, 'invalid_replace'],
    ['a function', 'user_message', { content: 'x', metadata: { cb: () => 1 } }, 'unserializable'],
    ['a symbol', 'user_message', { content: Symbol('x') }, 'unserializable'],
    ['a bigint', 'user_message', { metadata: { n: 1n } }, 'unserializable'],
    ['a class instance', 'user_message', { metadata: { m: new Map() } }, 'unserializable'],
    ['a non-finite number', 'user_message', { metadata: { n: Number.NaN } }, 'unserializable'],
    ['data that is not an object', 'user_message', 'hello', 'invalid_data'],
    ['toolCalls that is not an array', 'assistant_message', { toolCalls: { id: 'c1' } }, 'invalid_data'],
  ];

  it.each(refusals)('refuses %s with a typed error and leaves the log unchanged', (_, type, data, code) => {
    const log = exampleLog();
    const before = log.deriveMessages();
    const result = log.append(type as EventType, data as EventData);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(InvalidEventError);
    expect(result.error.code).toBe(code);
    expect(log.count).toBe(8);
    expect(log.deriveMessages()).toEqual(before);
  });

  it('refuses cycles and names where they are', () => {
    const metadata: Record<string, unknown> = {};
    metadata.self = metadata;
    const result = new SessionLog().append('user_message', { content: 'x', metadata });
    expect(result).toMatchObject({ ok: false, error: { code: 'unserializable', path: 'data.metadata.self' } });
  });

  it('refuses an invalid Date as time', () => {
    const result = new SessionLog().append('user_message', { content: 'x' }, new Date('nope'));
    expect(result).toMatchObject({ ok: false, error: { code: 'invalid_time' } });
  });

  it('never throws, even for data whose getters throw', () => {
    const log = new SessionLog();
    const hostile = Object.defineProperty({}, 'content', {
      get() {
        throw new Error('boom');
      },
      enumerable: true,
    });
    expect(() => log.append('user_message', hostile)).not.toThrow();
    expect(log.append('user_message', hostile).ok).toBe(false);
    expect(log.count).toBe(0);
  });

  it('accepts Dates (kept as their ISO string, as JSON has them) and nested plain data, and drops keys holding undefined', () => {
    const log = new SessionLog();
    const at = new Date(5);
    const result = log.append('user_message', { content: 'x', metadata: { at, list: [1, 'a', null], gone: undefined } });
    expect(result.ok).toBe(true);
    expect(log.events()[0]!.data.metadata).toEqual({ at: '1970-01-01T00:00:00.005Z', list: [1, 'a', null] });
    expect('gone' in (log.events()[0]!.data.metadata as object)).toBe(false);
  });

  it('keeps an own "__proto__" key as data', () => {
    const data = JSON.parse('{"content":"x","metadata":{"__proto__":{"polluted":true}}}') as EventData;
    const log = new SessionLog();
    expect(log.append('user_message', data).ok).toBe(true);
    const metadata = log.events()[0]!.data.metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.keys(metadata)).toEqual(['__proto__']);
  });
});

describe('SessionLog: the fold', () => {
  it('folds the worked example, and a summary replace shadows events 0..5', () => {
    const log = exampleLog();
    expect(log.deriveMessages().map((m) => [m.role, m.content])).toEqual([
      ['system', 'sys'],
      ['user', 'u1'],
      ['assistant', ''],
      ['tool', 'res'],
      ['assistant', 'final'],
    ]);
    expect(log.deriveIndexed().map(([seq]) => seq)).toEqual([0, 1, 3, 5, 6]);
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 5 } });
    expect(log.deriveMessages().map((m) => [m.role, m.content])).toEqual([
      ['system', '[summary]'],
      ['assistant', 'final'],
    ]);
    expect(log.count).toBe(9);
  });

  it('projects tool_result to a tool message with toolCallId and name, and every field as stored', () => {
    const log = exampleLog();
    const [seq, tool] = log.deriveIndexed()[3]!;
    const event = log.events()[seq]!;
    expect(tool).toEqual({
      role: 'tool',
      content: 'res',
      toolCalls: [],
      toolCallId: 'c1',
      name: 'lookup',
      metadata: {},
      createdAt: event.time,
    });
  });

  it('reproduces reasoningContent and metadata, and filters nothing', () => {
    const log = new SessionLog();
    log.append('assistant_message', { content: '', reasoningContent: 'hmm', metadata: { model: 'm' } });
    expect(log.deriveMessages()).toEqual([
      expect.objectContaining({ role: 'assistant', content: '', toolCalls: [], reasoningContent: 'hmm', metadata: { model: 'm' } }),
    ]);
  });

  it('projects nothing for bookkeeping events', () => {
    const log = new SessionLog();
    for (const type of ['tool_call', 'turn_start', 'turn_end', 'step_start', 'step_end', 'request_header'] as const) {
      log.append(type, { note: type });
    }
    expect(log.deriveMessages()).toEqual([]);
    expect(log.surface()).toEqual([]);
  });

  it('orders by position: a replace stands at its start', () => {
    const log = new SessionLog();
    ['a', 'b', 'c', 'd'].forEach((content) => log.append('user_message', { content }));
    log.append('user_message', { content: 'B', replace: { start: 1, stop: 1 } });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['a', 'B', 'c', 'd']);
    expect(log.surface().map((e) => e.seq)).toEqual([0, 4, 2, 3]);
  });

  it('ties on position keep append order', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'a' });
    log.append('user_message', { content: 'b' });
    log.append('user_message', { content: 'r1', replace: { start: 5, stop: 6 } });
    log.append('user_message', { content: 'r2', replace: { start: 5, stop: 5 } });
    // r2 shadows r1 (position 5, lower seq); the survivors sort by position.
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['a', 'b', 'r2']);
    // A replace at position 3 appended at seq 1, then seq 3 itself (appended
    // later, so not shadowed): both stand at position 3, the earlier append first.
    const tie = new SessionLog();
    tie.append('user_message', { content: 'x0' });
    tie.append('user_message', { content: 'r', replace: { start: 3, stop: 3 } });
    tie.append('user_message', { content: 'x2' });
    tie.append('user_message', { content: 'x3' });
    expect(tie.deriveMessages().map((m) => m.content)).toEqual(['x0', 'x2', 'r', 'x3']);
  });

  it('a replace never shadows events appended after it', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'a' });
    log.append('system_message', { content: 'S', replace: { start: 0, stop: 10 } });
    log.append('user_message', { content: 'later' });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['S', 'later']);
  });

  it('a later summary swallows an earlier in-place replace inside its range', () => {
    const log = new SessionLog();
    ['a', 'b', 'c', 'd'].forEach((content) => log.append('user_message', { content }));
    log.append('tool_result', { content: 'pruned', toolCallId: 'x', replace: { start: 2, stop: 2 } });
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 2 } });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['[summary]', 'd']);
  });

  it('a second summary supersedes the first', () => {
    const log = new SessionLog();
    ['a', 'b', 'c', 'd', 'e'].forEach((content) => log.append('user_message', { content }));
    log.append('system_message', { content: 'S1', replace: { start: 0, stop: 2 } });
    log.append('system_message', { content: 'S2', replace: { start: 0, stop: 3 } });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['S2', 'e']);
  });

  it('folding twice gives deep-equal results', () => {
    const log = exampleLog();
    expect(log.deriveIndexed()).toEqual(log.deriveIndexed());
    expect(log.deriveMessages()).toEqual(log.deriveMessages());
  });

  it('returns fresh arrays: a caller pushing onto its copy changes nothing', () => {
    const log = exampleLog();
    const mine = log.deriveMessages();
    mine.push({ role: 'user', content: 'mine' });
    expect(log.deriveMessages()).toHaveLength(5);
    expect(Object.isFrozen(log.deriveMessages()[0])).toBe(true);
  });
});

describe('SessionLog: memoized fold', () => {
  it('a plain append extends the cached fold without a rebuild', () => {
    const log = new SessionLog();
    for (let i = 0; i < 100; i++) {
      log.append('user_message', { content: `m${i}` });
      log.deriveIndexed();
    }
    expect(log._rebuildCount).toBe(0);
    expect(log.deriveMessages()).toHaveLength(100);
  });

  it('a replace invalidates it and the next read rebuilds once', () => {
    const log = exampleLog();
    log.deriveMessages();
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 5 } });
    expect(log._rebuildCount).toBe(0);
    log.deriveMessages();
    log.deriveIndexed();
    log.surface();
    expect(log._rebuildCount).toBe(1);
    log.append('user_message', { content: 'next' });
    log.deriveMessages();
    expect(log._rebuildCount).toBe(1);
  });

  it('a plain append positioned before a replace rebuilds instead of extending', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'far', replace: { start: 50, stop: 50 } });
    log.append('user_message', { content: 'near' });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['near', 'far']);
  });
});

describe('SessionLog.seed', () => {
  it('folds back to its input, names and metadata included', () => {
    const messages: Message[] = [
      { role: 'system', content: 'sys', toolCalls: [], metadata: {}, createdAt: new Date(1) },
      { role: 'user', content: 'hi', name: 'ann', toolCalls: [], metadata: { ui: true }, createdAt: new Date(2) },
      {
        role: 'assistant',
        content: null,
        toolCalls: [{ id: 'c1', name: 'f', arguments: '{"a":1}' }],
        reasoningContent: 'why',
        metadata: {},
        createdAt: new Date(3),
      },
      { role: 'tool', content: 'r', toolCallId: 'c1', name: 'f', toolCalls: [], metadata: {}, createdAt: new Date(4) },
    ];
    const log = SessionLog.seed(messages);
    expect(log.deriveMessages()).toEqual(messages);
    expect(log.events().map((e) => e.time.getTime())).toEqual([1, 2, 3, 4]);
    expect(log.events().map((e) => e.type)).toEqual(['system_message', 'user_message', 'assistant_message', 'tool_result']);
  });

  it('skips a message with an unknown role, with a warning', () => {
    const warn = vi.fn();
    setLogger({ warn });
    const log = SessionLog.seed([
      { role: 'user', content: 'a' },
      { role: 'developer', content: 'b' } as unknown as Message,
      { role: 'user', content: 'c' },
    ]);
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['a', 'c']);
    expect(log.events().map((e) => e.seq)).toEqual([0, 1]);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('unknown role "developer"'));
  });
});

describe('SessionLog.fromEvents and toJSON', () => {
  it('a JSON round trip folds identically and keeps seq, type, time and data', () => {
    const log = exampleLog();
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 3 }, metadata: { by: 'compactor' } });
    const restored = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)));
    expect(restored.deriveIndexed()).toEqual(log.deriveIndexed());
    expect(restored.events()).toEqual(log.events());
    expect(restored.count).toBe(log.count);
  });

  it('continues seq after the restored events', () => {
    const restored = SessionLog.fromEvents(exampleLog().toJSON());
    const next = restored.append('user_message', { content: 'more' });
    expect(next.ok && next.event.seq).toBe(8);
  });

  it('refuses events out of seq order with a typed error naming the index', () => {
    const events = JSON.parse(JSON.stringify(exampleLog())) as Array<Record<string, unknown>>;
    events[3]!.seq = 7;
    expect(() => SessionLog.fromEvents(events as never)).toThrow(InvalidEventError);
    try {
      SessionLog.fromEvents(events as never);
    } catch (error) {
      expect(error).toMatchObject({ code: 'invalid_seq', index: 3 });
    }
  });

  it('validates restored events like appends', () => {
    const bad = [{ seq: 0, type: 'step_start', time: new Date().toISOString(), data: { replace: { start: 0, stop: 0 } } }];
    expect(() => SessionLog.fromEvents(bad as never)).toThrow(/replace/);
    expect(() => SessionLog.fromEvents([{ seq: 0, type: 'user_message', data: {} }] as never)).toThrow(/time/);
    expect(() => SessionLog.fromEvents('nope' as never)).toThrow(InvalidEventError);
  });
});

describe('SessionLog across copies of the package', () => {
  it('instanceof holds for a log made by another copy (the build), and check accepts it', () => {
    const other = createRequire(__filename)(join(__dirname, '../dist/index.js')) as typeof import('../src/index');
    expect(other.SessionLog).not.toBe(SessionLog);
    const foreign = other.SessionLog.seed([{ role: 'user', content: 'hi' }]);
    expect(foreign instanceof SessionLog).toBe(true);
    expect(check(foreign, foreign.deriveMessages())).toEqual({ ok: true });
    expect({} instanceof SessionLog).toBe(false);
  });
});
