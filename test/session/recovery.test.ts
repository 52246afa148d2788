import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionLog, check, setLogger } from '../../src/index';
import { openTurns, plan, recover } from '../../src/history';
import { resetWarnings } from '../../src/warnings';

afterEach(() => setLogger(null));

/** A turn that crashed after the assistant asked for two tools. */
function crashed(options: { dispatched?: string[]; stepEnded?: boolean } = {}): SessionLog {
  const log = new SessionLog();
  log.append('turn_start', {});
  log.append('user_message', { content: 'book it' });
  log.append('step_start', {});
  log.append('assistant_message', {
    content: null,
    toolCalls: [
      { id: 'c1', name: 'charge_card', arguments: '{}' },
      { id: 'c2', name: 'send_email', arguments: '{}' },
    ],
  });
  if (options.stepEnded) log.append('step_end', {});
  for (const id of options.dispatched ?? []) log.append('tool_call', { id });
  return log;
}

describe('openTurns', () => {
  it('no turn events: never interrupted', () => {
    const log = new SessionLog();
    log.append('user_message', { content: 'hi' });
    expect(openTurns(log)).toEqual([]);
  });

  it('lists turn_start events without a turn_end, innermost first', () => {
    const log = new SessionLog();
    log.append('turn_start', {}); // 0
    log.append('turn_start', {}); // 1
    log.append('turn_end', {}); // closes 1
    log.append('turn_start', {}); // 3
    expect(openTurns(log).map((e) => e.seq)).toEqual([3, 0]);
  });

  it('ignores a turn_end that closes nothing, with a warning', () => {
    resetWarnings();
    const warn = vi.fn();
    setLogger({ warn });
    const log = new SessionLog();
    log.append('turn_end', {});
    log.append('turn_start', {});
    expect(openTurns(log).map((e) => e.seq)).toEqual([1]);
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/closes no turn/));
  });
});

describe('risk', () => {
  const risks = (log: SessionLog) =>
    Object.fromEntries(
      plan(log)
        .filter((e) => e.type === 'tool_result')
        .map((e) => [e.data.toolCallId, (e.data.metadata as { risk: string }).risk]),
    );

  it('a tool_call event for the id: outcome unknown; the turn logged tool_call for other ids: not started', () => {
    expect(risks(crashed({ dispatched: ['c1'] }))).toEqual({ c1: 'outcome_unknown', c2: 'not_started' });
  });

  it("the call's step has its step_end: not started", () => {
    expect(risks(crashed({ stepEnded: true }))).toEqual({ c1: 'not_started', c2: 'not_started' });
  });

  it('otherwise: outcome unknown', () => {
    expect(risks(crashed())).toEqual({ c1: 'outcome_unknown', c2: 'outcome_unknown' });
  });

  it('a call answered anywhere in the log is not repaired', () => {
    const log = crashed({ dispatched: ['c1'] });
    log.append('tool_result', { content: 'ok', toolCallId: 'c1', name: 'charge_card' });
    expect(Object.keys(risks(log))).toEqual(['c2']);
  });

  it('only calls of open turns are repaired', () => {
    const log = new SessionLog();
    log.append('turn_start', {});
    log.append('assistant_message', { content: null, toolCalls: [{ id: 'old', name: 'f' }] });
    log.append('turn_end', {});
    log.append('turn_start', {});
    expect(plan(log).filter((e) => e.type === 'tool_result')).toEqual([]);
  });
});

describe('recover', () => {
  it('appends a synthetic result per owed call, then a turn_end with reason interrupted and the step count', () => {
    const log = crashed({ dispatched: ['c1'] });
    const before = log.count;
    const appended = recover(log);
    expect(appended.map((e) => e.type)).toEqual(['tool_result', 'tool_result', 'turn_end']);
    expect(appended[0]!.data).toMatchObject({
      toolCallId: 'c1',
      name: 'charge_card',
      metadata: { synthetic: true, risk: 'outcome_unknown' },
    });
    expect(String(appended[0]!.data.content)).toMatch(/may or may not have run/);
    expect(String(appended[1]!.data.content)).toMatch(/did not run/);
    expect(appended[2]!.data).toMatchObject({ reason: 'interrupted', steps: 1 });
    expect(log.count).toBe(before + 3);
    expect(openTurns(log)).toEqual([]);
    expect(check(log, log.deriveMessages())).toEqual({ ok: true });
  });

  it('plan returns what recover would append, without appending', () => {
    const log = crashed();
    const planned = plan(log);
    expect(log.count).toBe(4);
    expect(recover(log).map((e) => ({ type: e.type, data: e.data }))).toEqual(
      planned.map((p) => ({ type: p.type, data: JSON.parse(JSON.stringify(p.data)) as unknown })),
    );
  });

  it('is idempotent, also after a JSON round trip', () => {
    const log = crashed({ dispatched: ['c2'] });
    recover(log);
    expect(recover(log)).toEqual([]);
    const restored = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)));
    expect(plan(restored)).toEqual([]);
  });

  it('property: recovery is idempotent for any crash point of a tool-calling turn', () => {
    fc.assert(
      fc.property(fc.nat({ max: 12 }), fc.boolean(), (cut, roundTrip) => {
        const full = [
          ['turn_start', {}],
          ['user_message', { content: 'q' }],
          ['step_start', {}],
          [
            'assistant_message',
            {
              content: null,
              toolCalls: [
                { id: 'a', name: 'f' },
                { id: 'b', name: 'g' },
              ],
            },
          ],
          ['tool_call', { id: 'a' }],
          ['tool_result', { content: 'ra', toolCallId: 'a', name: 'f' }],
          ['tool_call', { id: 'b' }],
          ['tool_result', { content: 'rb', toolCallId: 'b', name: 'g' }],
          ['step_end', {}],
          ['assistant_message', { content: 'done' }],
          ['turn_end', {}],
        ] as const;
        let log = new SessionLog();
        for (const [type, data] of full.slice(0, cut)) log.append(type, data as never);
        recover(log);
        if (roundTrip) log = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)));
        const count = log.count;
        expect(plan(log)).toEqual([]);
        expect(recover(log)).toEqual([]);
        expect(log.count).toBe(count);
        expect(openTurns(log)).toEqual([]);
        expect(check(log, log.deriveMessages())).toEqual({ ok: true });
      }),
      { numRuns: 1000 },
    );
  });
});
