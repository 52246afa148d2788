import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionLog, check } from '../../src/index';
import { SessionView, applyOverlay } from '../../src/history';
import { fromAnthropic, fromOpenAIChat, fromOpenAIResponses, toAnthropic, toOpenAIChat, toOpenAIResponses } from '../../src/adapters';
import { balancedLogArb, providerTranscriptArb, withoutUserNames } from '../support/arbitraries';
import { chatLog, exampleLog } from '../support/transcripts';

describe('applyOverlay', () => {
  it('returns the messages unchanged for undefined and null', () => {
    const ms = exampleLog().deriveMessages();
    expect(applyOverlay(ms, undefined)).toBe(ms);
    expect(applyOverlay(ms, null)).toBe(ms);
  });

  it('concatenates onto a leading system message', () => {
    const out = applyOverlay(exampleLog().deriveMessages(), 'Be terse.');
    expect(out[0]!.content).toBe('sys\n\nBe terse.');
    expect(out).toHaveLength(5);
  });

  it('prepends a system message timed like the head when there is no leading system message', () => {
    const ms = chatLog(['user', 'hi']).deriveMessages();
    const out = applyOverlay(ms, 'Be terse.');
    expect(out[0]).toEqual({ role: 'system', content: 'Be terse.', createdAt: ms[0]!.createdAt });
    expect(out.slice(1)).toEqual(ms);
  });

  it('prepends with createdAt now on an empty list', () => {
    const before = Date.now();
    const [only] = applyOverlay([], 'x');
    expect(only!.createdAt!.getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe('SessionView', () => {
  it('setOverlay appends no event, does not compound, survives appends, and null gives back the fold', () => {
    const log = exampleLog();
    const view = new SessionView(log);
    view.setOverlay('A');
    view.setOverlay('B');
    expect(log.count).toBe(8);
    expect(view.messages[0]!.content).toBe('sys\n\nB');
    log.append('user_message', { content: 'more' });
    expect(view.messages[0]!.content).toBe('sys\n\nB');
    expect(view.messages).toHaveLength(6);
    view.setOverlay(null);
    expect(view.messages).toEqual(log.deriveMessages());
  });

  it('the overlay is never persisted', () => {
    const view = new SessionView(exampleLog(), 'secret overlay');
    expect(JSON.stringify(view.log)).not.toContain('secret overlay');
  });

  it('for any balanced log and any overlay, check(log, view.messages) passes', () => {
    fc.assert(
      fc.property(balancedLogArb, fc.option(fc.string(), { nil: null }), (log, overlay) => {
        expect(check(log, new SessionView(log, overlay).messages)).toEqual({ ok: true });
      }),
      { numRuns: 1000 },
    );
  });

  it('requests built from view.messages through every provider adapter pass the check end to end', () => {
    fc.assert(
      fc.property(providerTranscriptArb.map(withoutUserNames), fc.option(fc.string(), { nil: null }), (messages, overlay) => {
        const log = SessionLog.seed(messages);
        const view = new SessionView(log, overlay);
        expect(check(log, fromOpenAIChat(toOpenAIChat(view.messages)))).toEqual({ ok: true });
        expect(check(log, fromOpenAIResponses({ input: toOpenAIResponses(view.messages) }))).toEqual({ ok: true });
        expect(check(log, fromAnthropic(toAnthropic(view.messages)))).toEqual({ ok: true });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('SessionView and the empty log', () => {
  it('an overlay on an empty log passes the check', () => {
    const log = new SessionLog();
    expect(check(log, new SessionView(log, 'x').messages)).toEqual({ ok: true });
  });
});
