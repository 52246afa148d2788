// Event types of the session log and the validation every append goes through.

import { refusal } from '../result';
import { InvalidEventError, type InvalidEventCode, type Validated } from './invalid-event';
import { copyJsonSafe } from './json-safe';

/** Event types the model sees: each projects to one message of the fold. */
export const SURFACE_EVENT_TYPES = Object.freeze(['system_message', 'user_message', 'assistant_message', 'tool_result'] as const);

/**
 * Event types the model never sees. They record what the agent loop did
 * (a tool dispatched, a turn or step opened and closed, a request sent), which
 * recovery reads to decide whether an interrupted tool may have run.
 */
export const BOOKKEEPING_EVENT_TYPES = Object.freeze([
  'tool_call',
  'turn_start',
  'turn_end',
  'step_start',
  'step_end',
  'request_header',
] as const);

/** A surface event type: what the model sees. Each surface event projects to one message of the fold (docs/behaviour.md §2.1). */
export type SurfaceEventType = (typeof SURFACE_EVENT_TYPES)[number];
/**
 * A bookkeeping event type: what the agent loop did, never model-visible.
 * Recovery reads these to judge whether an interrupted tool may have run
 * (docs/behaviour.md §2.1, §7.4).
 */
export type BookkeepingEventType = (typeof BOOKKEEPING_EVENT_TYPES)[number];
/** One of the ten event types; `append` refuses any other with `unknown_type`. */
export type EventType = SurfaceEventType | BookkeepingEventType;

/** Every event type, surface first. */
export const EVENT_TYPES: readonly EventType[] = Object.freeze([...SURFACE_EVENT_TYPES, ...BOOKKEEPING_EVENT_TYPES]);

/**
 * Inclusive seq positions a surface event stands in for. Ranges are forward
 * only (`stop >= start`): a replace names the positions it covers, it never
 * reaches past itself into events appended after it.
 */
export interface ReplaceRange {
  start: number;
  stop: number;
}

/**
 * What an event carries. The named fields are the message a surface event
 * projects to; any other JSON-safe field is kept as is (bookkeeping events
 * carry their own, such as `id` on `tool_call`).
 */
export interface EventData {
  content?: unknown;
  toolCalls?: unknown[];
  toolCallId?: string | null;
  name?: string | null;
  /** Never compared by the check: providers may or may not echo reasoning back. */
  reasoningContent?: string | null;
  /** Never compared by the check: it is not part of what the model is sent. */
  metadata?: Record<string, unknown>;
  /** Makes this surface event stand in for the events at these positions (non-destructive compaction). */
  replace?: ReplaceRange;
  [key: string]: unknown;
}

/**
 * One entry of the log. `seq` is its index (0, 1, 2, ... assigned by the
 * log); `time` is when it happened (a fresh copy on every read, so the stored
 * time cannot be changed from outside); `data` is a frozen deep copy.
 */
export interface SessionEvent {
  readonly seq: number;
  readonly type: EventType;
  readonly time: Date;
  readonly data: Readonly<EventData>;
}

const SURFACE_SET: ReadonlySet<string> = new Set(SURFACE_EVENT_TYPES);
const ALL_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && ALL_SET.has(value);
}

/** Whether `type` is a surface event type: only those project to messages and may carry `replace`. */
export function isSurfaceType(type: EventType): type is SurfaceEventType {
  return SURFACE_SET.has(type);
}

/**
 * A surface event's place in the fold: its `replace.start` when it replaces,
 * else its seq. Shadowing is decided by position, not seq, so a summary
 * placed at position 0 folds in front of everything it did not replace.
 */
export function positionOf(event: SessionEvent): number {
  const replace = event.data.replace;
  return replace === undefined ? event.seq : replace.start;
}

/** Validates `data` for an event of `type` and returns the log's own frozen deep copy of it. */
export function prepareEventData(type: unknown, data: unknown): Validated<Readonly<EventData>> {
  if (!isEventType(type)) {
    return refuse('unknown_type', `unknown event type ${describe(type)}; expected one of ${EVENT_TYPES.join(', ')}`);
  }
  const copied = copyJsonSafe(data ?? {}, 'data');
  if (!copied.ok) return copied;
  const copy = copied.value;
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
    return refuse('invalid_data', `event data must be a plain object, got ${describe(data)}`);
  }
  const record = copy as EventData;
  if (record.replace !== undefined) {
    if (!isSurfaceType(type)) {
      return refuse('replace_on_bookkeeping', `only a surface event may carry replace; ${type} is bookkeeping`, 'data.replace');
    }
    const problem = replaceProblem(record.replace);
    if (problem) return refuse('invalid_replace', problem, 'data.replace');
  }
  if (record.toolCalls !== undefined && !Array.isArray(record.toolCalls)) {
    return refuse('invalid_data', `toolCalls must be an array, got ${describe(record.toolCalls)}`, 'data.toolCalls');
  }
  return { ok: true, value: deepFreeze(record) };
}

/** The event time as epoch milliseconds: an explicit time is kept exactly, none means now. */
export function prepareTime(time: unknown): Validated<number> {
  if (time === undefined) return { ok: true, value: Date.now() };
  let ms = Number.NaN;
  try {
    if (time instanceof Date) ms = time.getTime();
    else if (typeof time === 'string' || typeof time === 'number') ms = new Date(time).getTime();
  } catch {
    // a Date subclass or proxy that throws: refused below
  }
  if (Number.isNaN(ms)) return refuse('invalid_time', `event time must be a valid Date, got ${describe(time)}`);
  return { ok: true, value: ms };
}

function replaceProblem(replace: unknown): string | undefined {
  if (typeof replace !== 'object' || replace === null || Array.isArray(replace)) {
    return `replace must be { start, stop }, got ${describe(replace)}`;
  }
  const { start, stop } = replace as Record<string, unknown>;
  if (!isPosition(start) || !isPosition(stop)) {
    return `replace.start and replace.stop must be non-negative integers, got ${describe(start)} and ${describe(stop)}`;
  }
  if (stop < start) return `replace.stop (${stop}) must be >= replace.start (${start})`;
  return undefined;
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function refuse(code: InvalidEventCode, message: string, path?: string): { ok: false; error: InvalidEventError } {
  return refusal(new InvalidEventError(code, message, { path }));
}

/** A short description of any value for an error message; never throws, never quotes more than 40 characters. */
export function describe(value: unknown): string {
  try {
    if (value === null) return 'null';
    if (Array.isArray(value)) return 'an array';
    if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'undefined') return String(value);
    if (typeof value === 'object') {
      const ctor = (value as { constructor?: { name?: unknown } }).constructor;
      return typeof ctor?.name === 'string' && ctor.name !== 'Object' ? `a ${ctor.name}` : 'an object';
    }
    return `a ${typeof value}`;
  } catch {
    return 'a value that cannot be read';
  }
}
