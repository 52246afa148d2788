// Sessions: a log with an id and, for a fork, where it came from. Fork,
// rewind and replay all rebuild a log from persisted events.

import { randomBytes } from 'node:crypto';
import { describe } from '../log/events';
import { SessionLog } from '../log/session-log';
import { refuse, type Result } from './errors';

/**
 * Where a forked session came from: the parent's id and how much of its history
 * the fork inherited. Kept so a branch can always be traced to the history it
 * shares (docs/behaviour.md §7.3).
 */
export interface SessionParent {
  /** The parent session's `id`. */
  sessionId: string;
  /** How many events of the parent the fork inherited (its seqs 0..seedLength-1). */
  seedLength: number;
}

/**
 * A log with an identity: `{ id, log, parent }`. A fork knows its parent and
 * how many of the parent's events it inherited, so a branch can always be
 * traced back to the history it shares.
 */
export class Session {
  /** The session's id: as given, else 32 lowercase hex characters from `crypto.randomBytes`. */
  readonly id: string;
  /**
   * The session's own log. A fork's log is a restored copy of the parent's
   * prefix, so appending to either never changes the other.
   */
  readonly log: SessionLog;
  /** Where a fork came from; `null` for a session that is not a fork. */
  readonly parent: SessionParent | null;

  /** A session over `log` (a new, empty log by default), with the given `id` or a fresh one and, for a fork, its `parent`. */
  constructor(log: SessionLog = new SessionLog(), options: { id?: string; parent?: SessionParent | null } = {}) {
    this.id = options.id ?? newSessionId();
    this.log = log;
    this.parent = options.parent ?? null;
  }
}

/** 32 lowercase hex characters. */
export function newSessionId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * What `fork` and `rewind` return: the new session, or the `SessionError` that
 * refused it (`invalid_boundary`, `out_of_range` or `open_turn`;
 * docs/behaviour.md §7.3).
 */
export type ForkResult = Result<{ session: Session }>;

/**
 * A new session inheriting the parent's events 0..boundary (inclusive) with
 * their seq, type, time and data. `'last'` inherits everything. Refused: a
 * boundary that is not a non-negative integer or 'last'; one out of range; a
 * prefix that ends inside an open turn (naming its innermost `turn_start`).
 */
export function fork(session: Session, boundary: number | 'last' = 'last'): ForkResult {
  const events = session.log.events();
  if (boundary !== 'last' && !(typeof boundary === 'number' && Number.isInteger(boundary) && boundary >= 0)) {
    return refuse('invalid_boundary', `boundary must be a non-negative integer or 'last', got ${describe(boundary)}`);
  }
  const last = boundary === 'last' ? events.length - 1 : boundary;
  if (boundary !== 'last' && last >= events.length) {
    return refuse('out_of_range', `boundary ${last} is out of range for a log of ${events.length} events`);
  }
  const prefix = events.slice(0, last + 1);
  const open = innermostOpenTurn(prefix);
  if (open !== undefined) {
    return refuse('open_turn', `the prefix ends inside the turn started at seq ${open}`, { turnStartSeq: open });
  }
  const log = SessionLog.fromEvents(prefix);
  return { ok: true, session: new Session(log, { parent: { sessionId: session.id, seedLength: prefix.length } }) };
}

/** Rewind is a fork at an earlier boundary: the original stays as it is. */
export function rewind(session: Session, boundary: number): ForkResult {
  return fork(session, boundary);
}

function innermostOpenTurn(events: ReturnType<SessionLog['events']>): number | undefined {
  const open: number[] = [];
  for (const event of events) {
    if (event.type === 'turn_start') open.push(event.seq);
    else if (event.type === 'turn_end') open.pop();
  }
  return open.at(-1);
}
