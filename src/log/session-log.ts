// The append-only session log and its memoized fold.

import { MAX_REQUEST_MESSAGES, type Message } from '../model/messages';
import { describeThrown, refusal, type Outcome } from '../result';
import {
  describe,
  isSurfaceType,
  positionOf,
  prepareEventData,
  prepareTime,
  type EventData,
  type EventType,
  type SessionEvent,
} from './events';
import { InvalidEventError } from './invalid-event';
import { messageEvent } from './message-event';
import { logWarning } from '../warnings';
import { projectEvent, visibleSurface } from './fold';
import { defineTimeField } from './frozen-time';

/** What `append` returns: the stored event, or why the event was refused. */
export type AppendResult = Outcome<{ event: SessionEvent }, { error: InvalidEventError }>;

/** A fold message with the seq of the event it came from. */
export type IndexedMessage = readonly [seq: number, message: Message];

interface Fold {
  surface: SessionEvent[];
  indexed: IndexedMessage[];
  messages: Message[];
  /** Highest position in the fold: a plain append at or past it extends the fold in place. */
  maxPosition: number;
}

function emptyFold(): Fold {
  return { surface: [], indexed: [], messages: [], maxPosition: -1 };
}

function pushMessage(fold: Fold, event: SessionEvent, message: Message): void {
  fold.surface.push(event);
  fold.indexed.push(Object.freeze([event.seq, message] as const));
  fold.messages.push(message);
  fold.maxPosition = Math.max(fold.maxPosition, positionOf(event));
}

/** A frozen event whose `time` is a fresh Date on every read, so the stored time cannot be changed. */
function storedEvent(seq: number, type: EventType, ms: number, data: Readonly<EventData>): SessionEvent {
  const event = { seq, type } as { seq: number; type: EventType; time: Date; data: Readonly<EventData> };
  defineTimeField(event, 'time', ms);
  event.data = data;
  return Object.freeze(event);
}

/** Marks a SessionLog across copies of this package loaded side by side. */
const SESSION_LOG_BRAND = Symbol.for('nous-session-invariant.SessionLog');

/**
 * The append-only event log whose fold is the transcript: the source of
 * truth every model request must be reconstructable from.
 *
 * Nothing is ever removed. Compaction appends a surface event that carries
 * `replace: { start, stop }` and so shadows the events at those positions in
 * the fold, while `events()` keeps every original: fork, rewind, replay and
 * audit read the full history. The fold is memoized: a plain append extends
 * it in O(1), a replace invalidates it and the next read rebuilds it once.
 */
export class SessionLog {
  /**
   * `instanceof SessionLog` holds for a log made by any copy of this package
   * in the process (two installed versions, a bundled and an unbundled one):
   * its methods are its own class's, so it works wherever it is passed.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    try {
      return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SESSION_LOG_BRAND] === true;
    } catch {
      return false;
    }
  }

  /**
   * The brand `instanceof SessionLog` tests for: `true` on a log made by any
   * copy of this package, so a log from a second installed copy still passes
   * (see `Symbol.hasInstance` above).
   */
  get [SESSION_LOG_BRAND](): true {
    return true;
  }

  #events: SessionEvent[] = [];
  /** Projected message per seq, so a rebuild reuses the messages it already made. */
  #projected: (Message | undefined)[] = [];
  #fold: Fold | null = emptyFold();
  #snapshot: { indexed?: readonly IndexedMessage[]; surface?: readonly SessionEvent[] } = {};
  #rebuilds = 0;

  /**
   * A log with one surface event per message, in order, each timed by the
   * message's `createdAt`; its fold deep-equals `messages`. Messages that
   * cannot be appended (an unknown role, a hole in a sparse array, a value
   * that throws when read) are skipped, with one warning that counts them.
   * Throws a TypeError for something that is not a readable array, and a
   * RangeError for one longer than MAX_REQUEST_MESSAGES (a sparse
   * `length = 2**32 - 1` is refused, not walked).
   */
  static seed(messages: readonly Message[]): SessionLog {
    let length: number;
    try {
      if (!Array.isArray(messages)) throw new TypeError('not an array');
      length = messages.length;
    } catch {
      throw new TypeError(`SessionLog.seed expects an array of messages, got ${describe(messages)}`);
    }
    if (length > MAX_REQUEST_MESSAGES) {
      throw new RangeError(`SessionLog.seed reads at most ${MAX_REQUEST_MESSAGES} messages; the array has length ${length}`);
    }
    const log = new SessionLog();
    let skipped = 0;
    let first: string | undefined;
    for (let index = 0; index < length; index++) {
      const appended = seedMessage(log, messages, index);
      if (appended.ok) continue;
      skipped++;
      first ??= `message ${index}: ${appended.error.message}`;
    }
    if (skipped > 0) logWarning(`SessionLog.seed skipped ${skipped} message(s) it could not append (first: ${first})`);
    return log;
  }

  /**
   * Restores a log from persisted events, such as
   * `JSON.parse(JSON.stringify(log))`, keeping each event's seq, type, time
   * and data. Throws `InvalidEventError` (with the offending `index`) for
   * anything that is not a valid event, including values that throw when read.
   */
  static fromEvents(events: readonly SessionEvent[]): SessionLog {
    let length: number;
    try {
      if (!Array.isArray(events)) throw new TypeError('not an array');
      length = events.length;
    } catch {
      throw new InvalidEventError('invalid_data', `fromEvents expects an array of events, got ${describe(events)}`);
    }
    const log = new SessionLog();
    for (let index = 0; index < length; index++) {
      let read: { seq: unknown; type: unknown; time: unknown; data: unknown };
      try {
        const event: unknown = events[index];
        const e = (typeof event === 'object' && event !== null ? event : {}) as Record<string, unknown>;
        read = { seq: e.seq, type: e.type, time: e.time, data: e.data };
      } catch (error) {
        throw new InvalidEventError('invalid_data', `event ${index} cannot be read: ${describeThrown(error)}`, { index });
      }
      if (read.seq !== index) {
        throw new InvalidEventError('invalid_seq', `event ${index} has seq ${describe(read.seq)}; seqs must be 0, 1, 2, …`, { index });
      }
      if (read.time === undefined) throw new InvalidEventError('invalid_time', `event ${index} has no time`, { index });
      const appended = log.#appendUnchecked(read.type, read.data, read.time);
      if (!appended.ok) {
        const { code, message, path } = appended.error;
        throw new InvalidEventError(code, `event ${index}: ${message}`, { path, index });
      }
    }
    return log;
  }

  /**
   * Appends an event and returns it, or refuses it with a typed error and
   * leaves the log unchanged: an unknown type, `replace` on a bookkeeping
   * event or out of shape, data that does not survive JSON, an invalid time.
   * Never throws, whatever it is given.
   */
  append(type: EventType, data?: EventData, time?: Date): AppendResult {
    try {
      return this.#appendUnchecked(type, data, time);
    } catch (error) {
      return refusal(new InvalidEventError('invalid_data', `event could not be appended: ${describeThrown(error)}`));
    }
  }

  #appendUnchecked(type: unknown, data: unknown, time: unknown): AppendResult {
    const prepared = prepareEventData(type, data);
    if (!prepared.ok) return prepared;
    const stamped = prepareTime(time);
    if (!stamped.ok) return stamped;
    const event = storedEvent(this.#events.length, type as EventType, stamped.value, prepared.value);
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
    if (event.data.replace !== undefined || positionOf(event) < fold.maxPosition) {
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

  /** How many events were ever appended. */
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

  /** The transcript the model should be sent: a fresh array of frozen messages. */
  deriveMessages(): Message[] {
    return this.#currentFold().messages.slice();
  }

  /** The events, JSON-safe: `SessionLog.fromEvents(JSON.parse(JSON.stringify(log)))` folds the same. */
  toJSON(): SessionEvent[] {
    return this.#events.slice();
  }

  /**
   * @internal The cached fold, shared, for the check's hot path. The array
   * object stays the same while plain appends extend it and is replaced on a
   * rebuild, which is what the tool-call index keys its cache on. Never mutate.
   */
  _foldMessages(): readonly Message[] {
    return this.#currentFold().messages;
  }

  /** @internal How many times the fold was rebuilt from scratch (benchmarks and tests). */
  get _rebuildCount(): number {
    return this.#rebuilds;
  }
}

function seedMessage(log: SessionLog, messages: readonly Message[], index: number): AppendResult {
  let message: Message;
  try {
    message = messages[index]!;
  } catch (error) {
    return refusal(new InvalidEventError('invalid_data', `the message cannot be read: ${describeThrown(error)}`));
  }
  // Exactly as given: seeding reproduces its input, unnamed tool results included.
  const read = messageEvent(message);
  return read.ok ? log.append(read.type, read.data, read.createdAt) : read;
}
