// The fold: which surface events the model sees, in what order, as messages.

import type { Message, Role } from '../model/messages';
import { isSurfaceType, positionOf, type SessionEvent, type SurfaceEventType } from './events';
import { defineTimeField } from './frozen-time';
import { IntervalSet } from './interval-set';

const ROLE_OF: Readonly<Record<SurfaceEventType, Role>> = {
  system_message: 'system',
  user_message: 'user',
  assistant_message: 'assistant',
  tool_result: 'tool',
};

/** The surface event type that folds to a message of each role. */
export const EVENT_TYPE_OF_ROLE: Readonly<Record<Role, SurfaceEventType>> = {
  system: 'system_message',
  user: 'user_message',
  assistant: 'assistant_message',
  tool: 'tool_result',
};

const NO_TOOL_CALLS: never[] = Object.freeze([]) as unknown as never[];
const NO_METADATA: Record<string, unknown> = Object.freeze({});

/**
 * Projects a surface event to the frozen message the model sees. Every field
 * is reproduced from the event as stored; nothing is filtered (an assistant
 * event with empty content and no tool calls still projects). `createdAt` is
 * the event's time, a fresh Date on every read.
 */
export function projectEvent(event: SessionEvent): Message {
  const data = event.data;
  const message: Message = {
    role: ROLE_OF[event.type as SurfaceEventType],
    content: (data.content ?? null) as Message['content'],
    toolCalls: (data.toolCalls ?? NO_TOOL_CALLS) as Message['toolCalls'],
  };
  if ('toolCallId' in data) message.toolCallId = data.toolCallId ?? null;
  if ('name' in data) message.name = data.name ?? null;
  if ('reasoningContent' in data) message.reasoningContent = data.reasoningContent ?? null;
  message.metadata = data.metadata ?? NO_METADATA;
  defineTimeField(message, 'createdAt', event.time.getTime());
  return Object.freeze(message);
}

/**
 * The surface events no replace shadows, in position order (stable by seq).
 * A replace R shadows E when E.seq < R.seq and R.start <= position(E) <= R.stop:
 * a replace never shadows what was appended after it, a later summary swallows
 * an earlier in-place replace inside its range, and a second summary
 * supersedes the first. Walking from the newest event back, E is shadowed
 * exactly when its position lies in the union of the ranges already passed.
 */
export function visibleSurface(events: readonly SessionEvent[]): SessionEvent[] {
  const visible: SessionEvent[] = [];
  const shadowed = new IntervalSet();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (!isSurfaceType(event.type)) continue;
    if (!shadowed.contains(positionOf(event))) visible.push(event);
    const replace = event.data.replace;
    if (replace !== undefined) shadowed.add(replace.start, replace.stop);
  }
  visible.reverse();
  visible.sort((a, b) => positionOf(a) - positionOf(b) || a.seq - b.seq);
  return visible;
}
