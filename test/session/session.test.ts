import { describe, expect, it } from 'vitest';
import { Session, fork, rewind } from '../../src/history';
import { SessionLog } from '../../src/index';
import { newSessionId } from '../../src/history/fork';
import { exampleLog } from '../support/transcripts';

function turnLog(): SessionLog {
  const log = new SessionLog();
  log.append('system_message', { content: 'sys' }); // 0
  log.append('turn_start', {}); // 1
  log.append('user_message', { content: 'q1' }); // 2
  log.append('assistant_message', { content: 'a1' }); // 3
  log.append('turn_end', {}); // 4
  log.append('turn_start', {}); // 5
  log.append('user_message', { content: 'q2' }); // 6
  log.append('turn_start', {}); // 7 (nested)
  log.append('assistant_message', { content: 'a2' }); // 8
  log.append('turn_end', {}); // 9
  log.append('turn_end', {}); // 10
  return log;
}

describe('Session', () => {
  it('a new id is 32 lowercase hex characters, and ids differ', () => {
    expect(newSessionId()).toMatch(/^[0-9a-f]{32}$/);
    expect(new Session().id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Session().id).not.toBe(new Session().id);
    expect(new Session().parent).toBeNull();
  });
});

describe('fork', () => {
  it('inherits the first seedLength events with seq, type, time and data; the next append gets seq === seedLength', () => {
    const parent = new Session(turnLog());
    const result = fork(parent, 4);
    if (!result.ok) throw result.error;
    const child = result.session;
    expect(child.id).not.toBe(parent.id);
    expect(child.id).toMatch(/^[0-9a-f]{32}$/);
    expect(child.parent).toEqual({ sessionId: parent.id, seedLength: 5 });
    expect(child.log.events()).toEqual(parent.log.events().slice(0, 5));
    const next = child.log.append('user_message', { content: 'other branch' });
    expect(next.ok && next.event.seq).toBe(5);
    expect(parent.log.count).toBe(11);
  });

  it("forks everything at 'last' (the default)", () => {
    const parent = new Session(turnLog());
    const result = fork(parent);
    expect(result.ok && result.session.parent).toEqual({ sessionId: parent.id, seedLength: 11 });
  });

  it('keeps replaces inside the prefix working', () => {
    const log = exampleLog();
    log.append('system_message', { content: '[summary]', replace: { start: 0, stop: 5 } });
    const result = fork(new Session(log));
    if (!result.ok) throw result.error;
    expect(result.session.log.deriveMessages()).toEqual(log.deriveMessages());
  });

  it("forks an empty log at 'last' with seedLength 0", () => {
    const result = fork(new Session());
    expect(result.ok && result.session.parent?.seedLength).toBe(0);
  });

  it.each([
    ['a negative number', -1],
    ['a fraction', 1.5],
    ['a string', 'first'],
    ['NaN', Number.NaN],
  ])('refuses %s as boundary with invalid_boundary', (_, boundary) => {
    expect(fork(new Session(turnLog()), boundary as never)).toMatchObject({ ok: false, error: { code: 'invalid_boundary' } });
  });

  it('refuses a boundary out of range, and any number on an empty log', () => {
    expect(fork(new Session(turnLog()), 11)).toMatchObject({ ok: false, error: { code: 'out_of_range' } });
    expect(fork(new Session(), 0)).toMatchObject({ ok: false, error: { code: 'out_of_range' } });
  });

  it('refuses a prefix that ends inside an open turn, naming the innermost open turn_start', () => {
    expect(fork(new Session(turnLog()), 2)).toMatchObject({ ok: false, error: { code: 'open_turn', turnStartSeq: 1 } });
    expect(fork(new Session(turnLog()), 8)).toMatchObject({ ok: false, error: { code: 'open_turn', turnStartSeq: 7 } });
    expect(fork(new Session(turnLog()), 9)).toMatchObject({ ok: false, error: { code: 'open_turn', turnStartSeq: 5 } });
  });

  it('checks the boundary type before the range, and the range before open turns', () => {
    expect(fork(new Session(), -1)).toMatchObject({ error: { code: 'invalid_boundary' } });
    expect(fork(new Session(turnLog()), 100)).toMatchObject({ error: { code: 'out_of_range' } });
  });
});

describe('rewind and replay', () => {
  it('rewind is a fork at an earlier boundary and leaves the original as it was', () => {
    const session = new Session(turnLog());
    const result = rewind(session, 4);
    if (!result.ok) throw result.error;
    expect(result.session.log.deriveMessages().map((m) => m.content)).toEqual(['sys', 'q1', 'a1']);
    expect(session.log.count).toBe(11);
  });

  it('replay: rebuilding from persisted events after a JSON round trip folds the same', () => {
    const log = turnLog();
    const replayed = SessionLog.fromEvents(JSON.parse(JSON.stringify(log)));
    expect(replayed.deriveIndexed()).toEqual(log.deriveIndexed());
  });
});
