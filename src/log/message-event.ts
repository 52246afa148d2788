// A canonical message read as the surface event that folds back to it: the
// one reading both the log's seeding and `appendMessage` use.

import { isRole, type Message } from '../model/messages';
import { describeThrown, refusal, type Outcome } from '../result';
import { describe, type EventData, type SurfaceEventType } from './events';
import { EVENT_TYPE_OF_ROLE } from './fold';
import { InvalidEventError } from './invalid-event';

/** The event a message is stored as, or why it cannot be. */
export type MessageEvent = Outcome<{ type: SurfaceEventType; data: EventData; createdAt: Date | undefined }, { error: InvalidEventError }>;

/**
 * Reads `message` as an event: its role's event type, its data (fields it
 * does not have stay absent) and its `createdAt`. Never throws: an unknown
 * role or an unreadable message is refused like any invalid event.
 */
export function messageEvent(message: Message): MessageEvent {
  try {
    const role: unknown = (message as { role?: unknown } | null)?.role;
    if (!isRole(role)) return refusal(new InvalidEventError('invalid_data', `unknown role ${describe(role)}`));
    return { ok: true, type: EVENT_TYPE_OF_ROLE[role], data: eventDataOf(message), createdAt: message.createdAt };
  } catch (error) {
    return refusal(new InvalidEventError('invalid_data', `the message cannot be read: ${describeThrown(error)}`));
  }
}

/** The event data a message is stored as (fields it does not have stay absent). */
export function eventDataOf(message: Message): EventData {
  const data: EventData = { content: message.content };
  if (message.toolCalls !== undefined) data.toolCalls = message.toolCalls;
  if (message.toolCallId !== undefined) data.toolCallId = message.toolCallId;
  if (message.name !== undefined) data.name = message.name;
  if (message.reasoningContent !== undefined) data.reasoningContent = message.reasoningContent;
  if (message.metadata !== undefined) data.metadata = message.metadata;
  return data;
}
