// A Session for the OpenAI Agents SDK whose history is a SessionLog.

import { appendOrWarn } from '../../log/append-message';
import { SessionLog } from '../../log/session-log';
import { messagesMatch } from '../../invariant/message-equality';
import { newSessionId } from '../../history/fork';
import { fromAgentItems, toAgentItems, type AgentsItem } from './adapter';
import { recordTurnsInto, startRun, takePending, warnSkippedOutOfOrder } from './turn-recorder';

/**
 * An OpenAI Agents SDK `Session` whose history is a `SessionLog`: the runner
 * reads the log's fold (`getItems`) and writes into the log (`addItems`).
 * Append-only, like the log: `popItem` and `clearSession` are refused (use
 * `fork` or `rewind` for an earlier state). While the instrumentation is
 * enabled, its turn recorder keeps the log in step with the run turn by turn
 * (see docs/frameworks.md).
 */
export class AgentsLogSession {
  /** The log behind the session: the runner reads its fold and writes into it. */
  readonly log: SessionLog;
  readonly #id: string;

  /**
   * A session over `log` (a new, empty log by default). The log is registered
   * with the turn recorder, which may then append to it during runs.
   * `sessionId` defaults to a fresh 32-hex-character id.
   */
  constructor(log: SessionLog = new SessionLog(), options: { sessionId?: string } = {}) {
    this.log = log;
    this.#id = options.sessionId ?? newSessionId();
    recordTurnsInto(log);
  }

  /** The session id, given or generated (the Agents SDK `Session` interface). */
  async getSessionId(): Promise<string> {
    return this.#id;
  }

  /** The fold as Agents SDK items; the last `limit` when given. */
  async getItems(limit?: number): Promise<AgentsItem[]> {
    startRun(this.log);
    const items = toAgentItems(this.log.deriveMessages());
    return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
  }

  /**
   * Appends the run's items that the turn recorder did not already append.
   * Those it did are matched in order; an item the recorder has no match for
   * is appended only if it comes after everything matched (the run's last
   * tool results, say). One that stands before a matched item is left out,
   * with one warning: appending it now would record an order the run did not
   * have. The runner saves the filtered input when a `callModelInputFilter`
   * rewrote it, while the recorder has the run's own.
   */
  async addItems(items: unknown[]): Promise<void> {
    const pending = takePending(this.log);
    const messages = fromAgentItems(items);
    const matched: boolean[] = [];
    let next = 0;
    let last = -1;
    for (const [i, message] of messages.entries()) {
      let j = next;
      while (j < pending.length && !messagesMatch(message, pending[j]!)) j++;
      matched.push(j < pending.length);
      if (j < pending.length) {
        next = j + 1;
        last = i;
      }
    }
    let skipped = 0;
    for (const [i, message] of messages.entries()) {
      if (matched[i]) continue;
      if (i < last) skipped++;
      else appendOrWarn(this.log, message, 'AgentsLogSession.addItems');
    }
    if (skipped > 0) warnSkippedOutOfOrder(skipped);
  }

  /** The log is append-only: use `fork`/`rewind` for an earlier state. */
  async popItem(): Promise<undefined> {
    throw new Error('AgentsLogSession is append-only; use fork() or rewind() on the log for an earlier state');
  }

  /** Refused: the log is append-only, so its history cannot be cleared. Start a new `AgentsLogSession` for a fresh history. */
  async clearSession(): Promise<void> {
    throw new Error('AgentsLogSession is append-only; start a new AgentsLogSession for a fresh history');
  }
}
