import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SUMMARY_PREFIX } from '../../src/history/compaction';
import { SessionLog, check, type Message } from '../../src/index';
import { SessionView, balanceToolCallBoundary, compact, pruneToolResults, replaceRange } from '../../src/history';
import { balancedLogArb } from '../support/arbitraries';
import { chatLog } from '../support/transcripts';

function sysABC(): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'sys' });
  for (const content of ['a', 'b', 'c']) log.append('user_message', { content });
  return log;
}

describe('replaceRange', () => {
  it('fold [sys, a, b, c], replaceRange(1, 2, summary) gives [sys, summary, c] with 5 events', () => {
    const log = sysABC();
    const result = replaceRange(new SessionView(log), 1, 2, { role: 'system', content: 'summary' });
    expect(result.ok).toBe(true);
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['sys', 'summary', 'c']);
    expect(log.count).toBe(5);
  });

  it('appends a replace over the positions of the first and last message, timed like the first', () => {
    const log = sysABC();
    const first = log.events()[1]!;
    const result = replaceRange(new SessionView(log), 1, 2, { role: 'user', content: 'ab' });
    if (!result.ok) throw result.error;
    expect(result.event.data.replace).toEqual({ start: 1, stop: 2 });
    expect(result.event.time.getTime()).toBe(first.time.getTime());
    expect(result.event.type).toBe('user_message');
  });

  it('uses positions, not seqs, for a message that is itself a replace', () => {
    const log = sysABC();
    const view = new SessionView(log);
    replaceRange(view, 2, 2, { role: 'user', content: 'B' }); // seq 4 at position 2
    const result = replaceRange(view, 1, 2, { role: 'system', content: 'S' });
    if (!result.ok) throw result.error;
    expect(result.event.data.replace).toEqual({ start: 1, stop: 2 });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['sys', 'S', 'c']);
  });

  it('shifts indices by one when the overlay prepended a message', () => {
    const log = chatLog(['user', 'a'], ['user', 'b'], ['user', 'c']);
    const view = new SessionView(log, 'overlay');
    expect(view.messages.map((m) => m.content)).toEqual(['overlay', 'a', 'b', 'c']);
    const result = replaceRange(view, 1, 2, { role: 'system', content: 'S' });
    expect(result.ok).toBe(true);
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['S', 'c']);
  });

  it.each([
    ['first < 0', -1, 0, 'invalid_range'],
    ['last < first', 2, 1, 'invalid_range'],
    ['a fraction', 0.5, 1, 'invalid_range'],
    ['last out of range', 1, 4, 'out_of_range'],
  ])('refuses %s with a typed error and changes nothing', (_, first, last, code) => {
    const log = sysABC();
    const result = replaceRange(new SessionView(log), first, last, { role: 'system', content: 'S' });
    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(log.count).toBe(4);
  });

  it('refuses to replace the overlay itself', () => {
    const log = chatLog(['user', 'a']);
    expect(replaceRange(new SessionView(log, 'o'), 0, 1, { role: 'system', content: 'S' })).toMatchObject({
      ok: false,
      error: { code: 'overlay_message' },
    });
    expect(log.count).toBe(1);
  });
});

describe('balanceToolCallBoundary', () => {
  it('moves the leading tool messages of recent onto the end of old', () => {
    const call: Message = {
      role: 'assistant',
      content: null,
      toolCalls: [
        { id: 'c1', name: 'f' },
        { id: 'c2', name: 'f' },
      ],
    };
    const t1: Message = { role: 'tool', content: '1', toolCallId: 'c1' };
    const t2: Message = { role: 'tool', content: '2', toolCallId: 'c2' };
    const next: Message = { role: 'assistant', content: 'done' };
    expect(balanceToolCallBoundary([call], [t1, t2, next])).toEqual({ old: [call, t1, t2], recent: [next] });
    expect(balanceToolCallBoundary([call], [next])).toEqual({ old: [call], recent: [next] });
  });
});

describe('pruneToolResults', () => {
  it('replaces a long tool result in place with head, marker and tail; the original stays in the log', () => {
    const log = new SessionLog();
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'f' }] });
    const big = `${'H'.repeat(4096)}${'m'.repeat(10_000)}${'T'.repeat(1024)}`;
    log.append('tool_result', { content: big, toolCallId: 'c1', name: 'f' });
    log.append('user_message', { content: 'short' });
    const result = pruneToolResults(new SessionView(log), 8_000);
    if (!result.ok) throw result.error;
    expect(result.events).toHaveLength(1);
    const tool = log.deriveMessages()[1]!;
    expect(tool.content).toBe(`${'H'.repeat(4096)}\n\n[… 10000 characters elided …]\n\n${'T'.repeat(1024)}`);
    expect(tool).toMatchObject({ toolCallId: 'c1', name: 'f' });
    expect(result.events[0]!.data.replace).toEqual({ start: 1, stop: 1 });
    expect(log.events()[1]!.data.content).toBe(big);
    expect(check(log, log.deriveMessages())).toEqual({ ok: true });
  });

  it('leaves results at or under maxChars, and ones with nothing to elide', () => {
    const log = new SessionLog();
    log.append('assistant_message', {
      content: null,
      toolCalls: [
        { id: 'c1', name: 'f' },
        { id: 'c2', name: 'f' },
      ],
    });
    log.append('tool_result', { content: 'x'.repeat(100), toolCallId: 'c1' });
    log.append('tool_result', { content: 'y'.repeat(5000), toolCallId: 'c2' });
    const result = pruneToolResults(new SessionView(log), 50);
    expect(result).toMatchObject({ ok: true, events: [] });
    expect(log.count).toBe(3);
  });
});

describe('compact', () => {
  function toolTranscript(): SessionLog {
    const log = new SessionLog();
    log.append('system_message', { content: 'sys' });
    log.append('user_message', { content: 'q1' });
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'c1', name: 'f' }] });
    log.append('tool_result', { content: 'r1', toolCallId: 'c1', name: 'f' });
    log.append('assistant_message', { content: 'a1' });
    log.append('user_message', { content: 'q2' });
    log.append('assistant_message', { content: 'a2' });
    return log;
  }

  it('summarizes all but the last keepRecent non-system messages into one system message; system messages stay', async () => {
    const log = toolTranscript();
    const seen: Message[][] = [];
    const result = await compact(new SessionView(log), {
      keepRecent: 2,
      summarize: (ms) => {
        seen.push(ms);
        return 'they asked q1';
      },
    });
    expect(result).toMatchObject({ ok: true, summarized: 4 });
    expect(seen[0]!.map((m) => m.content)).toEqual(['q1', null, 'r1', 'a1']);
    expect(log.deriveMessages().map((m) => [m.role, m.content])).toEqual([
      ['system', 'sys'],
      ['system', `${SUMMARY_PREFIX}they asked q1`],
      ['user', 'q2'],
      ['assistant', 'a2'],
    ]);
    expect(log.events()).toHaveLength(8);
  });

  it('balances the boundary: a tool result never stays behind without its call', async () => {
    const log = toolTranscript();
    // keepRecent 4 would start the recent part at the tool result r1.
    await compact(new SessionView(log), { keepRecent: 4, summarize: () => 'S' });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['sys', `${SUMMARY_PREFIX}S`, 'a1', 'q2', 'a2']);
    expect(check(log, log.deriveMessages())).toEqual({ ok: true });
  });

  it('accepts an async summarizer', async () => {
    const log = toolTranscript();
    const result = await compact(new SessionView(log), { keepRecent: 1, summarize: async () => 'later' });
    expect(result).toMatchObject({ ok: true });
    expect(log.deriveMessages().at(-2)!.content).toBe(`${SUMMARY_PREFIX}later`);
  });

  it('an empty summary changes nothing', async () => {
    const log = toolTranscript();
    const result = await compact(new SessionView(log), { keepRecent: 1, summarize: () => '' });
    expect(result).toMatchObject({ ok: true, event: undefined });
    expect(log.count).toBe(7);
  });

  it('a second compaction supersedes nothing it should not and keeps passing the check', async () => {
    const log = toolTranscript();
    const view = new SessionView(log);
    await compact(view, { keepRecent: 2, summarize: () => 'one' });
    log.append('user_message', { content: 'q3' });
    log.append('assistant_message', { content: 'a3' });
    await compact(view, { keepRecent: 1, summarize: () => 'two' });
    expect(log.deriveMessages().map((m) => m.content)).toEqual(['sys', `${SUMMARY_PREFIX}one`, `${SUMMARY_PREFIX}two`, 'a3']);
    expect(check(log, log.deriveMessages())).toEqual({ ok: true });
  });

  it('refuses a bad keepRecent with a typed error', async () => {
    expect(await compact(new SessionView(toolTranscript()), { keepRecent: -1, summarize: () => 'x' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_option' },
    });
  });

  it('for random tool-calling transcripts and every keepRecent, the compacted fold passes check and every event is kept', async () => {
    await fc.assert(
      fc.asyncProperty(balancedLogArb, async (original) => {
        const length = original.deriveMessages().filter((m) => m.role !== 'system').length;
        for (let keepRecent = 1; keepRecent <= Math.max(1, length); keepRecent++) {
          const log = SessionLog.fromEvents(original.events());
          const before = log.events();
          await compact(new SessionView(log), { keepRecent, summarize: (ms) => `${ms.length} messages` });
          expect(check(log, log.deriveMessages())).toEqual({ ok: true });
          expect(log.events().slice(0, before.length)).toEqual(before);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
