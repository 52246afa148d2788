// Keeps a session log in lockstep with the Agents SDK runner. The runner
// reads its Session once before the first turn and writes a run's items in one
// `addItems` after the last turn, so a Session alone lags every request after
// the first. Around each model call (`getResponseWithRetry`, patched by the
// instrumentation) the recorder appends, before the call, what entered the
// conversation since the log was last in step (the user's input, tool
// results) and, after it, the model's output items. `AgentsLogSession.addItems`
// then skips what was recorded here.

import { appendOrWarn } from '../../log/append-message';
import type { SessionLog } from '../../log/session-log';
import { messagesMatch } from '../../invariant/message-equality';
import type { Message } from '../../invariant/messages';
import { getActiveSession } from '../../invariant/session-binding';
import { addLogGuard } from '../../request-path/log-guards';
import { fromAgentItems } from './adapter';
import { AGENTS_CORE_SUPPORTED } from './supported';

/** Messages recorded during a run and not yet confirmed by the runner's `addItems`, per log. */
const pendingByLog = new WeakMap<SessionLog, Message[]>();

/**
 * Logs that back an AgentsLogSession. Only those are written to: a log the
 * app keeps itself is never appended to behind its back.
 */
const agentSessionLogs = new WeakSet<SessionLog>();

/**
 * Marks `log` as backing an `AgentsLogSession`, so the turn recorder may append
 * to it. Only such logs are written to: a log the app keeps itself is never
 * appended to behind its back.
 */
export function recordTurnsInto(log: SessionLog): void {
  agentSessionLogs.add(log);
}

/** Whether a supported Agents SDK is loaded and patched: only then do its logs follow the run. */
let recording = false;

/**
 * Turns the turn recorder on (a supported `@openai/agents-core` was loaded and
 * patched) or off (an unsupported version, or disable). While it is off,
 * requests against a log that backs an `AgentsLogSession` are not checked, with
 * a one-time warning, since that log would lag every request of a run
 * (docs/behaviour.md §5.5).
 */
export function setRecording(on: boolean): void {
  recording = on;
}

// Without the recorder an AgentsLogSession's log lags each request of a run: not checked then.
addLogGuard((log) =>
  agentSessionLogs.has(log) && !recording
    ? `this log backs an AgentsLogSession, but no supported @openai/agents-core (${AGENTS_CORE_SUPPORTED}) is patched, so its turns are not recorded and its requests are not checked`
    : undefined,
);

function recordingLog(): SessionLog | undefined {
  const log = getActiveSession()?.log;
  return recording && log && agentSessionLogs.has(log) ? log : undefined;
}

/**
 * Hands over, and forgets, the messages the turn recorder appended to `log`
 * since the runner's last `addItems`, so `addItems` skips them instead of
 * appending them twice.
 */
export function takePending(log: SessionLog): Message[] {
  const pending = pendingByLog.get(log) ?? [];
  pendingByLog.delete(log);
  return pending;
}

function record(log: SessionLog, message: Message): void {
  if (!appendOrWarn(log, message, 'Agents SDK turn recorder')) return;
  const pending = pendingByLog.get(log) ?? [];
  pending.push(message);
  pendingByLog.set(log, pending);
}

/**
 * Before a model call: of the request's input, the part past the fold's
 * matching prefix that came from outside the model (user messages and tool
 * results) is appended. Anything else past the prefix is left for the check to
 * report: the runner sent history the log does not have.
 */
export function recordTurnInput(input: unknown): void {
  const log = recordingLog();
  if (!log || !Array.isArray(input)) return;
  const request = fromAgentItems(input);
  const fold = log._foldMessages();
  let i = 0;
  while (i < request.length && i < fold.length && messagesMatch(request[i], fold[i]!)) i++;
  if (i < fold.length) return; // the request diverges from the log before its end: nothing to add
  for (const message of request.slice(i)) {
    if (message.role !== 'user' && message.role !== 'tool') return;
    record(log, message);
  }
}

/** After a model call: its output items (assistant text, tool calls) are appended. */
export function recordTurnOutput(output: unknown): void {
  const log = recordingLog();
  if (!log || !Array.isArray(output)) return;
  for (const message of fromAgentItems(output)) record(log, message);
}
