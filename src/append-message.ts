// A message into the log as the surface event that folds back to it.

import { InvalidEventError, describe, type EventData } from './events';
import { EVENT_TYPE_OF_ROLE } from './fold';
import { isRole, type Message } from './messages';
import type { AppendResult, SessionLog } from './session-log';

/**
 * Appends `message` as a `system_message`, `user_message`, `assistant_message`
 * or `tool_result` event, timed by its `createdAt` (now when absent). Never
 * throws: an unknown role is refused like any invalid event.
 */
export function appendMessage(log: SessionLog, message: Message): AppendResult {
  const role: unknown = (message as { role?: unknown } | null)?.role;
  if (!isRole(role)) {
    return { ok: false, error: new InvalidEventError('invalid_data', `unknown role ${describe(role)}`) };
  }
  return log.append(EVENT_TYPE_OF_ROLE[role], eventDataOf(message), message.createdAt);
}

export function eventDataOf(message: Message): EventData {
  const data: EventData = { content: message.content };
  if (message.toolCalls !== undefined) data.toolCalls = message.toolCalls;
  if (message.toolCallId !== undefined) data.toolCallId = message.toolCallId;
  if (message.name !== undefined) data.name = message.name;
  if (message.reasoningContent !== undefined) data.reasoningContent = message.reasoningContent;
  if (message.metadata !== undefined) data.metadata = message.metadata;
  return data;
}
