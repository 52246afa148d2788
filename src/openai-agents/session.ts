// A Session for the OpenAI Agents SDK whose history is a SessionLog: the
// runner reads the log's fold and writes into the log.

import { fromAgentItems, toAgentItems, type AgentsItem } from '../adapters/openai-agents';
import { appendMessage } from '../append-message';
import { messagesMatch } from '../message-equality';
import { SessionLog } from '../session-log';
import { newSessionId } from '../session/session';
import { recordTurnsInto, takePending } from './turn-recorder';

export class SessionLogSession {
  readonly log: SessionLog;
  readonly #id: string;

  constructor(log: SessionLog = new SessionLog(), options: { sessionId?: string } = {}) {
    this.log = log;
    this.#id = options.sessionId ?? newSessionId();
    recordTurnsInto(log);
  }

  async getSessionId(): Promise<string> {
    return this.#id;
  }

  /** The fold as Agents SDK items; the last `limit` when given. */
  async getItems(limit?: number): Promise<AgentsItem[]> {
    const items = toAgentItems(this.log.deriveMessages());
    return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
  }

  /** Appends the run's items, skipping those the turn recorder already appended in order. */
  async addItems(items: unknown[]): Promise<void> {
    const pending = takePending(this.log);
    let next = 0;
    for (const message of fromAgentItems(items)) {
      if (next < pending.length && messagesMatch(message, pending[next]!)) {
        next++;
        continue;
      }
      appendMessage(this.log, message);
    }
  }

  /** The log is append-only: use `fork`/`rewind` for an earlier state. */
  async popItem(): Promise<undefined> {
    throw new Error('SessionLogSession is append-only; use fork() or rewind() on the log for an earlier state');
  }

  async clearSession(): Promise<void> {
    throw new Error('SessionLogSession is append-only; start a new SessionLogSession for a fresh history');
  }
}
