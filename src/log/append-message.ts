// A message into the log as the surface event that folds back to it.

import { isRole, type Message } from '../invariant/messages';
import { logWarning } from '../telemetry/logger';
import { describeThrown, refusal } from '../result';
import { InvalidEventError, describe, type EventData } from './events';
import { EVENT_TYPE_OF_ROLE } from './fold';
import type { AppendResult, SessionLog } from './session-log';
import { nameOfCall } from './tool-call-index';

/**
 * Appends `message` as the `system_message`, `user_message`,
 * `assistant_message` or `tool_result` event that folds back to it, timed by
 * its `createdAt` (now when absent). Never throws: an unknown role or an
 * unreadable message is refused like any invalid event.
 *
 * A tool message without a `name` is named after the call it answers, taken
 * from the log's fold: providers send no name with a tool result, so a log
 * mirrored from provider messages would otherwise differ from requests whose
 * tool results the adapters name the same way.
 */
export function appendMessage(log: SessionLog, message: Message): AppendResult {
  return appendAs(log, message, true);
}

/** `appendMessage` storing the message exactly as given: a tool result without a name stays unnamed. */
export function appendMessageExactly(log: SessionLog, message: Message): AppendResult {
  return appendAs(log, message, false);
}

function appendAs(log: SessionLog, message: Message, nameToolResults: boolean): AppendResult {
  let role: unknown;
  let data: EventData;
  let createdAt: Date | undefined;
  try {
    role = (message as { role?: unknown } | null)?.role;
    if (!isRole(role)) return refusal(new InvalidEventError('invalid_data', `unknown role ${describe(role)}`));
    data = eventDataOf(message);
    createdAt = message.createdAt;
  } catch (error) {
    return refusal(new InvalidEventError('invalid_data', `the message cannot be read: ${describeThrown(error)}`));
  }
  if (nameToolResults && role === 'tool' && data.name === undefined && typeof data.toolCallId === 'string') {
    const name = nameOfCall(log._foldMessages(), data.toolCallId);
    if (typeof name === 'string') data.name = name;
  }
  return log.append(EVENT_TYPE_OF_ROLE[role], data, createdAt);
}

/**
 * `appendMessage`, for the package's own writers (the framework recorders): a
 * refused message is never dropped silently, it is reported with a warning
 * naming `where`. Returns whether it was appended.
 */
export function appendOrWarn(log: SessionLog, message: Message, where: string): boolean {
  const appended = appendAs(log, message, true);
  if (!appended.ok) logWarning(`${where}: a message was not appended to the log: ${appended.error.message}`);
  return appended.ok;
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
