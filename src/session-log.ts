// The append-only session log and its memoized fold.

import {
  InvalidEventError,
  describe,
  isSurfaceType,
  positionOf,
  prepareEventData,
  prepareTime,
  type EventData,
  type EventType,
  type SessionEvent,
} from './events';
import { appendMessage } from './append-message';
import { projectEvent, visibleSurface } from './fold';
import { logWarning } from './logger';
import type { Message } from './messages';

export type AppendResult = { ok: true; event: SessionEvent } | { ok: false; error: InvalidEventError };

export type IndexedMessage = readonly [seq: number, message: Message];

interface Fold {
  surface: SessionEvent[];
  indexed: IndexedMessage[];
  messages: Message[];
  /** Highest position in the fold: a plain append at or past it extends the fold in place. */
  maxPosition: number;
  /** Tool call ids of the fold's assistant messages so far, for tool pairing. */
  calledIds: Set<string>;
  /** The fold's first tool message with no preceding call, if any. */
  orphan: Orphan | null;
}

/** A tool result that no preceding assistant message called. */
export interface Orphan {
  toolCallId: string | null;
}

function emptyFold(): Fold {
  return { surface: [], indexed: [], messages: [], maxPosition: -1, calledIds: new Set(), orphan: null };
}

/** Adds one message to the fold, keeping the pairing state current. */
function pushMessage(fold: Fold, event: SessionEvent, message: Message): void {
  fold.surface.push(event);
  fold.indexed.push(Object.freeze([event.seq, message] as const));
  fold.messages.push(message);
  fold.maxPosition = Math.max(fold.maxPosition, positionOf(event));
  if (message.role === 'assistant') {
    for (const call of message.toolCalls ?? []) if (typeof call?.id === 'string') fold.calledIds.add(call.id);
  } else if (message.role === 'tool' && fold.orphan === null) {
    const id = message.toolCallId ?? null;
    if (id === null || !fold.calledIds.has(id)) fold.orphan = Object.freeze({ toolCallId: id });
  }
}

/** Marks a SessionLog across copies of this package loaded side by side. */
const SESSION_LOG_BRAND = Symbol.for('nous-session-invariant.SessionLog');

export class SessionLog {
  /**
   * `instanceof SessionLog` holds for a log made by any copy of this package
   * in the process (two installed versions, a bundled and an unbundled one):
   * its methods are its own class's, so it works wherever it is passed.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SESSION_LOG_BRAND] === true;
  }

  get [SESSION_LOG_BRAND](): true {
    return true;
  }

  #events: SessionEvent[] = [];
  /** Projected message per seq, so a rebuild reuses the messages it already made. */
  #projected: (Message | undefined)[] = [];
  #fold: Fold | null = emptyFold();
  #snapshot: { indexed?: readonly IndexedMessage[]; surface?: readonly SessionEvent[] } = {};
  #rebuilds = 0;

  /** A log with one surface event per message, in order, timed by each message's `createdAt`. */
  static seed(messages: readonly Message[]): SessionLog {
    const log = new SessionLog();
    messages.forEach((message, i) => {
      const appended = appendMessage(log, message);
      if (!appended.ok) logWarning(`seed: skipped message ${i}: ${appended.error.message}`);
    });
    return log;
  }

  /** Restores a log from persisted events (for example `JSON.parse(JSON.stringify(log))`); throws `InvalidEventError`. */
  static fromEvents(events: readonly SessionEvent[]): SessionLog {
    if (!Array.isArray(events)) {
      throw new InvalidEventError('invalid_data', `fromEvents expects an array of events, got ${describe(events)}`);
    }
    const log = new SessionLog();
    events.forEach((event: unknown, index) => {
      const e = (typeof event === 'object' && event !== null ? event : {}) as Partial<Record<keyof SessionEvent, unknown>>;
      if (e.seq !== index) {
        throw new InvalidEventError('invalid_seq', `event ${index} has seq ${describe(e.seq)}; seqs must be 0, 1, 2, …`, {
          index,
        });
      }
      if (e.time === undefined) {
        throw new InvalidEventError('invalid_time', `event ${index} has no time`, { index });
      }
      const appended = log.#appendUnchecked(e.type, e.data, e.time);
      if (!appended.ok) {
        const { code, message, path } = appended.error;
        throw new InvalidEventError(code, `event ${index}: ${message}`, path === undefined ? { index } : { path, index });
      }
    });
    return log;
  }

  /** Appends an event; never throws. Invalid input is refused with a typed error and leaves the log unchanged. */
  append(type: EventType, data?: EventData, time?: Date): AppendResult {
    try {
      return this.#appendUnchecked(type, data, time);
    } catch (error) {
      return {
        ok: false,
        error: new InvalidEventError('invalid_data', `event could not be appended: ${(error as Error)?.message ?? String(error)}`),
      };
    }
  }

  #appendUnchecked(type: unknown, data: unknown, time: unknown): AppendResult {
    const prepared = prepareEventData(type, data);
    if (!prepared.ok) return prepared;
    const stamped = prepareTime(time);
    if (!stamped.ok) return stamped;
    const event: SessionEvent = Object.freeze({
      seq: this.#events.length,
      type: type as EventType,
      time: stamped.value,
      data: prepared.value,
    });
    this.#events.push(event);
    this.#extendFold(event);
    return { ok: true, event };
  }

  /** Keeps the cached fold current: a plain append extends it, a replace invalidates it. */
  #extendFold(event: SessionEvent): void {
    if (!isSurfaceType(event.type)) return;
    const fold = this.#fold;
    if (fold === null) return;
    this.#snapshot = {};
    const position = positionOf(event);
    if (event.data.replace !== undefined || position < fold.maxPosition) {
      this.#fold = null;
      return;
    }
    pushMessage(fold, event, this.#project(event));
  }

  #project(event: SessionEvent): Message {
    return (this.#projected[event.seq] ??= projectEvent(event));
  }

  #currentFold(): Fold {
    if (this.#fold !== null) return this.#fold;
    this.#rebuilds++;
    const fold = emptyFold();
    for (const event of visibleSurface(this.#events)) pushMessage(fold, event, this.#project(event));
    return (this.#fold = fold);
  }

  /** Every event ever appended, oldest first, shadowed ones included. */
  events(): readonly SessionEvent[] {
    return this.#events.slice();
  }

  /** The event with this seq, if any (O(1), unlike `events()`). */
  eventAt(seq: number): SessionEvent | undefined {
    return this.#events[seq];
  }

  get count(): number {
    return this.#events.length;
  }

  /** Surface events no replace shadows, in fold order. */
  surface(): readonly SessionEvent[] {
    return (this.#snapshot.surface ??= Object.freeze(this.#currentFold().surface.slice()));
  }

  /** `[seq, message]` pairs in model order. */
  deriveIndexed(): ReadonlyArray<IndexedMessage> {
    return (this.#snapshot.indexed ??= Object.freeze(this.#currentFold().indexed.slice()));
  }

  /** The transcript the model should be sent (a fresh array of frozen messages). */
  deriveMessages(): Message[] {
    return this.#currentFold().messages.slice();
  }

  /** JSON-safe events; `SessionLog.fromEvents(JSON.parse(JSON.stringify(log)))` folds the same. */
  toJSON(): SessionEvent[] {
    return this.#events.slice();
  }

  /** @internal The cached fold messages, shared, for the check's hot path. Never mutate. */
  _foldMessages(): readonly Message[] {
    return this.#currentFold().messages;
  }

  /**
   * @internal The fold's first orphaned tool result, kept current as the fold
   * grows. Tool pairing of a request that reconstructs the fold is the fold's
   * own pairing: matched messages share role, tool call ids and toolCallId.
   */
  _foldOrphan(): Orphan | null {
    return this.#currentFold().orphan;
  }

  /** @internal How many times the fold was rebuilt from scratch (benchmarks and tests). */
  get _rebuildCount(): number {
    return this.#rebuilds;
  }
}
