// Event types of the session log and the validation every append goes through.

import { cloneJsonSafe } from './json-safe';

export const SURFACE_EVENT_TYPES = Object.freeze([
  'system_message',
  'user_message',
  'assistant_message',
  'tool_result',
] as const);

export const BOOKKEEPING_EVENT_TYPES = Object.freeze([
  'tool_call',
  'turn_start',
  'turn_end',
  'step_start',
  'step_end',
  'request_header',
] as const);

export type SurfaceEventType = (typeof SURFACE_EVENT_TYPES)[number];
export type BookkeepingEventType = (typeof BOOKKEEPING_EVENT_TYPES)[number];
export type EventType = SurfaceEventType | BookkeepingEventType;

export const EVENT_TYPES: readonly EventType[] = Object.freeze([...SURFACE_EVENT_TYPES, ...BOOKKEEPING_EVENT_TYPES]);

/** Inclusive seq positions a surface event stands in for. */
export interface ReplaceRange {
  start: number;
  stop: number;
}

export interface EventData {
  content?: unknown;
  toolCalls?: unknown[];
  toolCallId?: string | null;
  name?: string | null;
  reasoningContent?: string | null;
  metadata?: Record<string, unknown>;
  replace?: ReplaceRange;
  [key: string]: unknown;
}

export interface SessionEvent {
  readonly seq: number;
  readonly type: EventType;
  readonly time: Date;
  readonly data: Readonly<EventData>;
}

export type InvalidEventCode =
  | 'unknown_type'
  | 'replace_on_bookkeeping'
  | 'invalid_replace'
  | 'unserializable'
  | 'invalid_data'
  | 'invalid_time'
  | 'invalid_seq';

/** Why an event was refused. Returned by `append`, thrown only by `fromEvents`. */
export class InvalidEventError extends Error {
  override readonly name = 'InvalidEventError';
  readonly code: InvalidEventCode;
  /** Where in `data` the problem is, e.g. `data.metadata.cb`. */
  readonly path: string | undefined;
  /** The index of the offending event, when restoring with `fromEvents`. */
  readonly index: number | undefined;

  constructor(code: InvalidEventCode, message: string, options: { path?: string; index?: number } = {}) {
    super(message);
    this.code = code;
    this.path = options.path;
    this.index = options.index;
  }
}

const SURFACE_SET: ReadonlySet<string> = new Set(SURFACE_EVENT_TYPES);
const ALL_SET: ReadonlySet<string> = new Set(EVENT_TYPES);

function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && ALL_SET.has(value);
}

export function isSurfaceType(type: EventType): type is SurfaceEventType {
  return SURFACE_SET.has(type);
}

/** A surface event's place in the fold: its `replace.start` when it replaces, else its seq. */
export function positionOf(event: SessionEvent): number {
  const replace = event.data.replace;
  return replace === undefined ? event.seq : replace.start;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; error: InvalidEventError };

/** Validates and deep-copies (and freezes) an event's data, so the log owns what it stores. */
export function prepareEventData(type: unknown, data: unknown): Validated<Readonly<EventData>> {
  if (!isEventType(type)) {
    return refuse('unknown_type', `unknown event type ${describe(type)}; expected one of ${EVENT_TYPES.join(', ')}`);
  }
  const input: unknown = data ?? {};
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !isPlainObject(input)) {
    return refuse('invalid_data', `event data must be a plain object, got ${describe(input)}`);
  }
  const cloned = cloneJsonSafe(input, 'data');
  if (!cloned.ok) return refuse('unserializable', cloned.message, cloned.path);
  const copy = cloned.value as EventData;

  if (copy.replace !== undefined) {
    if (!isSurfaceType(type)) {
      return refuse('replace_on_bookkeeping', `only a surface event may carry replace; ${type} is bookkeeping`, 'data.replace');
    }
    const problem = replaceProblem(copy.replace);
    if (problem) return refuse('invalid_replace', problem, 'data.replace');
  }
  if (copy.toolCalls !== undefined && !Array.isArray(copy.toolCalls)) {
    return refuse('invalid_data', `toolCalls must be an array, got ${describe(copy.toolCalls)}`, 'data.toolCalls');
  }
  return { ok: true, value: deepFreeze(copy) };
}

export function prepareTime(time: unknown): Validated<Date> {
  if (time === undefined) return { ok: true, value: new Date() };
  const date =
    time instanceof Date ? new Date(time.getTime()) : typeof time === 'string' || typeof time === 'number' ? new Date(time) : null;
  if (date === null || Number.isNaN(date.getTime())) {
    return refuse('invalid_time', `event time must be a valid Date, got ${describe(time)}`);
  }
  return { ok: true, value: date };
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

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof Date) && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

function refuse(code: InvalidEventCode, message: string, path?: string): { ok: false; error: InvalidEventError } {
  return { ok: false, error: new InvalidEventError(code, message, path === undefined ? {} : { path }) };
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'undefined') return String(value);
  if (typeof value === 'object') {
    const ctor = (value as { constructor?: { name?: unknown } }).constructor;
    return typeof ctor?.name === 'string' && ctor.name !== 'Object' ? `a ${ctor.name}` : 'an object';
  }
  return `a ${typeof value}`;
}
