// A message into the log as the surface event that folds back to it.

import type { Message } from '../model/messages';
import { logWarning } from '../warnings';
import { messageEvent } from './message-event';
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
  const read = messageEvent(message);
  if (!read.ok) return read;
  const { type, data } = read;
  if (type === 'tool_result' && data.name === undefined && typeof data.toolCallId === 'string') {
    const name = nameOfCall(log._foldMessages(), data.toolCallId);
    if (typeof name === 'string') data.name = name;
  }
  return log.append(type, data, read.createdAt);
}

/**
 * `appendMessage`, for the package's own writers (the framework recorders): a
 * refused message is never dropped silently, it is reported with a warning
 * naming `where`. Returns whether it was appended.
 */
export function appendOrWarn(log: SessionLog, message: Message, where: string): boolean {
  const appended = appendMessage(log, message);
  if (!appended.ok) logWarning(`${where}: a message was not appended to the log: ${appended.error.message}`);
  return appended.ok;
}
