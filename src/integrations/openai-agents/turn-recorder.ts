// Keeps a session log in lockstep with the Agents SDK runner. The runner
// reads its Session once before the first turn and writes a run's items in one
// `addItems` after the last turn, so a Session alone lags every request after
// the first. Around each model call (`getResponseWithRetry`, patched by the
// instrumentation) the recorder appends, before the call, what entered the
// conversation since the log was last in step (the user's input, tool
// results) and, after it, the model's output items. `AgentsLogSession.addItems`
// then skips what was recorded here.
//
// The log holds the run's own history. A `callModelInputFilter` or a handoff
// input filter changes what the model is sent, not what the run had: the
// recorder reads the history before the filter, and keeps the filtered
// history as the run's current view of the log (docs/behaviour.md §5.5). What
// the model is sent is checked against the log; only with trusted input
// filters is a model call whose input is such a view checked against the
// view, once its source has lined up with the log.

import { context, createContextKey } from '@opentelemetry/api';
import { appendOrWarn } from '../../log/append-message';
import { SessionLog } from '../../log/session-log';
import { messagesMatch } from '../../invariant/message-equality';
import type { Message } from '../../model/messages';
import { getActiveSession } from '../../invariant/session-binding';
import { addLogGuard } from '../../request-path/log-guards';
import { warnOnce } from '../../warnings';
import { fromAgentItems } from './adapter';
import { AGENTS_CORE_SUPPORTED } from './supported';

/** Messages recorded during a run and not yet confirmed by the runner's `addItems`, per log. */
const pendingByLog = new WeakMap<SessionLog, Message[]>();

/**
 * The runner's history as the recorder last saw it in step with the log, per
 * log: `messages` is what the runner would hand the model next (before any
 * `callModelInputFilter`), `filtered` whether a handoff input filter made it
 * a view that differs from the fold. `'diverged'` once the runner's history
 * failed to line up with the log: the recorder then appends nothing more in
 * that run, so `addItems` appends the rest in the run's own order (and the
 * check reports the divergence). Forgotten at the start and the end of a run
 * (`getItems`, `addItems`).
 */
interface RunHistory {
  messages: Message[];
  filtered: boolean;
}
const historyByLog = new WeakMap<SessionLog, RunHistory | 'diverged'>();

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

/** Whether a supported Agents SDK is loaded and patched. */
let patched = false;
/** Whether an Agents SDK outside the supported range was loaded (and warned about, once, by version). */
let unsupportedLoaded = false;

/**
 * Says whether a supported `@openai/agents-core` is patched (`on`), or that
 * one outside the range was loaded (`on` false and `unsupported` true). The
 * turn recorder follows only the model calls of a patched runner. Once a
 * version outside the range is loaded, only those calls are checked against
 * a log that backs an `AgentsLogSession`, since that log lags every request
 * of the other runner (docs/behaviour.md §5.5).
 */
export function setRecording(on: boolean, unsupported = false): void {
  if (on) patched = true;
  else if (unsupported) unsupportedLoaded = true;
  else patched = false;
}

// Set around a patched runner's model call: its requests are the ones the recorder follows.
const MODEL_CALL_KEY = createContextKey('nous-session-invariant.agents-model-call');

/** Runs `fn` as part of a patched runner's model call (see `setRecording`). */
export function inRecordedModelCall<T>(fn: () => T): T {
  return context.with(context.active().setValue(MODEL_CALL_KEY, true), fn);
}

// An AgentsLogSession's log follows only a patched runner's model calls. Once a runner outside the range is loaded,
// a request made elsewhere may be one of its calls, whose log lags: not checked then.
addLogGuard((log) => {
  if (!agentSessionLogs.has(log) || context.active().getValue(MODEL_CALL_KEY) === true) return undefined;
  // A version outside the range was reported once, when it was loaded: its requests are skipped silently.
  if (unsupportedLoaded) return '';
  return patched
    ? undefined
    : `this log backs an AgentsLogSession, but no supported @openai/agents-core (${AGENTS_CORE_SUPPORTED}) is patched, so its turns are not recorded and its requests are not checked`;
});

function recordingLog(): SessionLog | undefined {
  const log = getActiveSession()?.log;
  return patched && log && agentSessionLogs.has(log) ? log : undefined;
}

/**
 * Hands over, and forgets, the messages the turn recorder appended to `log`
 * since the runner's last `addItems`, so `addItems` skips them instead of
 * appending them twice. The run is over: its history is forgotten too.
 */
export function takePending(log: SessionLog): Message[] {
  const pending = pendingByLog.get(log) ?? [];
  pendingByLog.delete(log);
  historyByLog.delete(log);
  return pending;
}

/** A run starts (the runner reads its session): nothing of an earlier run's history carries over. */
export function startRun(log: SessionLog): void {
  historyByLog.delete(log);
}

function record(log: SessionLog, message: Message): void {
  if (!appendOrWarn(log, message, 'Agents SDK turn recorder')) return;
  const pending = pendingByLog.get(log) ?? [];
  pending.push(message);
  pendingByLog.set(log, pending);
}

function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  if (prefix.length > messages.length) return false;
  for (let i = 0; i < prefix.length; i++) if (!messagesMatch(messages[i]!, prefix[i]!)) return false;
  return true;
}

/**
 * Lines up the runner's history `messages` with the log: it must extend the
 * run's history as last seen, or, at a run's first turn, the fold. What lies
 * past that and came from outside the model (user messages, tool results) is
 * appended. Anything else past it is left for the check to report: the
 * runner sent history the log does not have. Returns whether the history
 * lined up and was recorded whole.
 */
function lineUp(log: SessionLog, messages: Message[]): boolean {
  const history = historyByLog.get(log);
  if (history === 'diverged') return false;
  let start: number;
  let filtered = false;
  if (history && startsWith(messages, history.messages)) {
    start = history.messages.length;
    filtered = history.filtered;
  } else {
    const fold = log._foldMessages();
    let i = 0;
    while (i < messages.length && i < fold.length && messagesMatch(messages[i]!, fold[i]!)) i++;
    if (i < fold.length) {
      historyByLog.set(log, 'diverged');
      return false; // the history diverges from the log before its end: nothing to add
    }
    start = i;
  }
  for (const message of messages.slice(start)) {
    if (message.role !== 'user' && message.role !== 'tool') {
      historyByLog.set(log, 'diverged');
      return false;
    }
    record(log, message);
  }
  historyByLog.set(log, { messages, filtered });
  return true;
}

/**
 * Before a model call (or before a `callModelInputFilter`): the runner's turn
 * input is lined up with the log and what it adds is appended. Returns the
 * view the model call is to be checked against, when the log alone is not it
 * (the run's history is a handoff filter's view); `undefined` when the log is
 * (or nothing is recorded).
 */
export function recordTurnInput(input: unknown): { aligned: boolean; view?: Message[] | undefined } {
  const log = recordingLog();
  if (!log || !Array.isArray(input)) return { aligned: false };
  const messages = fromAgentItems(input);
  if (!lineUp(log, messages)) return { aligned: false };
  const history = historyByLog.get(log);
  return { aligned: true, view: history !== 'diverged' && history?.filtered ? messages : undefined };
}

/** After a model call: its output items (assistant text, tool calls) are appended, and extend the run's history. */
export function recordTurnOutput(output: unknown): void {
  const log = recordingLog();
  if (!log || !Array.isArray(output)) return;
  const history = historyByLog.get(log);
  if (history === 'diverged') return;
  const messages = fromAgentItems(output);
  for (const message of messages) record(log, message);
  history?.messages.push(...messages);
}

type RunItem = { type?: unknown; rawItem?: unknown };

function rawItems(items: unknown): unknown[] {
  if (!Array.isArray(items)) return [];
  return (items as RunItem[]).filter((item) => item?.type !== 'tool_approval_item').map((item) => item?.rawItem ?? item);
}

function inputList(input: unknown): unknown[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : [];
}

/**
 * After a handoff: the run's history before the handoff input filter (the
 * input, the items before this step and this step's items, the handoff's
 * result included) is recorded, and the filtered history becomes the run's
 * view for the turns that follow. Without a filter the two are the same.
 * Returns both histories, recorded or not.
 */
export function recordHandoff(
  originalInput: unknown,
  preStepItems: unknown,
  unfilteredStepItems: unknown,
  filtered: { originalInput?: unknown; preStepItems?: unknown; newStepItems?: unknown },
): { before: Message[]; after: Message[] } {
  const before = fromAgentItems([...inputList(originalInput), ...rawItems(preStepItems), ...rawItems(unfilteredStepItems)]);
  const after = fromAgentItems([
    ...inputList(filtered.originalInput),
    ...rawItems(filtered.preStepItems),
    ...rawItems(filtered.newStepItems),
  ]);
  const log = recordingLog();
  if (!log || !lineUp(log, before)) return { before, after };
  const same = after.length === before.length && startsWith(after, before);
  historyByLog.set(log, { messages: same ? before : after, filtered: !same });
  return { before, after };
}

/**
 * What a model call that is sent `view` should be checked against: the view
 * as a log of its own, each tool result named after its call in the view
 * (as the request adapters name it), bound with the current session's
 * settings. `undefined` when the view cannot be built.
 */
export function viewBinding(view: readonly Message[]): SessionLog | undefined {
  const names = new Map<string, string>();
  const messages = view.map((message) => {
    if (message.role === 'assistant') for (const call of message.toolCalls ?? []) names.set(call.id, call.name);
    if (message.role !== 'tool') return message;
    const { name: _name, ...rest } = message;
    const name = typeof message.toolCallId === 'string' ? names.get(message.toolCallId) : undefined;
    return name === undefined ? rest : { ...rest, name };
  });
  try {
    return SessionLog.seed(messages);
  } catch {
    return undefined;
  }
}

/**
 * Logs bound around a model call whose request was already checked another
 * way (its unfiltered input, against the implicit log): the request itself
 * is skipped, silently.
 */
const uncheckedViews = new WeakSet<SessionLog>();

/** A log to bind around a model call so that its request is not checked again (see `uncheckedViews`). */
export function uncheckedView(): SessionLog {
  const log = new SessionLog();
  uncheckedViews.add(log);
  return log;
}

addLogGuard((log) => (uncheckedViews.has(log) ? '' : undefined));

/**
 * Messages the runner handed `addItems` that the recorder did not append and
 * that stand before something it did: appending them now would record an
 * order the run did not have, so they are left out, with one warning.
 */
export function warnSkippedOutOfOrder(count: number): void {
  warnOnce(
    'agents:out-of-order',
    `Agents SDK: ${count} item(s) the runner saved to an AgentsLogSession were not appended, because the turn recorder had already recorded later ones (a callModelInputFilter or a handoff input filter rewrote them); the log keeps the run's own history`,
  );
}
