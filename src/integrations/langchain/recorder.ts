// Keeping a SessionLog in step with a LangChain agent's message state: what
// enters the state (the user's input, tool results) is appended before each
// model call, and what the model node adds after it. The log remembers each
// message's LangChain id in its metadata, which is how the recorder knows
// what it already holds (LangGraph's message reducer gives every message an
// id, and merges a message sent again under a known id into the old one).

import { appendMessage, appendOrWarn } from '../../log/append-message';
import type { AppendResult, SessionLog } from '../../log/session-log';
import { messagesMatch } from '../../invariant/message-equality';
import type { Message } from '../../model/messages';
import { LANGCHAIN_ID_KEY, fromLangChainMessages, langChainIdOf } from './adapter';

interface Recorded {
  /** Events read so far for ids. */
  scanned: number;
  /** The LangChain ids of the messages the log holds. */
  readonly ids: Set<string>;
  /** The id of the last state message before the model call in progress. */
  marker: string | undefined;
}

const recorded = new WeakMap<SessionLog, Recorded>();

/** The ids the log holds, brought up to date with what anyone appended since. */
function recordedIn(log: SessionLog): Recorded {
  let state = recorded.get(log);
  if (!state) recorded.set(log, (state = { scanned: 0, ids: new Set(), marker: undefined }));
  for (; state.scanned < log.count; state.scanned++) {
    const id = log.eventAt(state.scanned)?.data.metadata?.[LANGCHAIN_ID_KEY];
    if (typeof id === 'string') state.ids.add(id);
  }
  return state;
}

function append(log: SessionLog, state: Recorded, message: Message, where: string): boolean {
  const appended = appendOrWarn(log, message, where);
  const id = message.metadata?.[LANGCHAIN_ID_KEY];
  if (appended && typeof id === 'string') state.ids.add(id);
  return appended;
}

/**
 * Before a model call: appends the messages of the agent's state that came
 * after the last one the log holds (by LangChain id), except assistant
 * messages, which are only ever recorded from what the model node added.
 * So an app or a middleware that drops, rewrites, invents or reorders history
 * leaves the log as it was, and the request the model is then sent is
 * reported. With no known id in the state (a log kept without LangChain ids),
 * the state is lined up with the fold from the start instead.
 */
export function recordBeforeModel(log: SessionLog, messages: unknown, where: string): void {
  if (!Array.isArray(messages)) return;
  const state = recordedIn(log);
  const canonical = fromLangChainMessages(messages);
  let start = lastKnown(messages, state.ids) + 1;
  if (start === 0) start = inStepWithFold(canonical, log.deriveMessages());
  for (let i = start; i < canonical.length; i++) {
    const message = canonical[i]!;
    const id = langChainIdOf(messages[i]);
    if (message.role === 'assistant' || (id !== undefined && state.ids.has(id))) continue;
    append(log, state, message, where);
  }
  state.marker = langChainIdOf(messages.at(-1));
}

/**
 * After a model call: appends what the model node added to the state (the
 * model's reply; with a structured-output tool, the tool message that
 * answers it), found after the last message the state had before the call.
 */
export function recordAfterModel(log: SessionLog, messages: unknown, where: string): void {
  if (!Array.isArray(messages) || messages.length === 0) return;
  const state = recordedIn(log);
  const marker = state.marker;
  state.marker = undefined;
  let from = marker === undefined ? -1 : lastIndexOf(messages, marker);
  const found = from >= 0;
  // The call's starting point is not in the state: take its last message, if the model wrote it.
  if (!found) from = messages.length - 2;
  const added = messages.slice(from + 1);
  const canonical = fromLangChainMessages(added);
  if (!found && canonical[0]?.role !== 'assistant') return;
  for (let i = 0; i < canonical.length; i++) {
    const id = langChainIdOf(added[i]);
    if (id !== undefined && state.ids.has(id)) continue;
    append(log, state, canonical[i]!, where);
  }
}

/**
 * Appends LangChain messages to `log` as canonical messages, each with its
 * LangChain id in `metadata`, skipping those the log already holds under
 * that id. For a hand-written loop: record the user's message, the model's
 * reply and the tool results as the app adds them to its history. Returns
 * `appendMessage`'s result for each message appended; never throws.
 */
export function appendLangChainMessages(log: SessionLog, messages: readonly unknown[]): AppendResult[] {
  const state = recordedIn(log);
  const canonical = fromLangChainMessages(messages);
  const results: AppendResult[] = [];
  for (let i = 0; i < canonical.length; i++) {
    const id = langChainIdOf(messages[i]);
    if (id !== undefined && state.ids.has(id)) continue;
    const message = canonical[i]!;
    const result = appendMessage(log, message);
    const recordedId = message.metadata?.[LANGCHAIN_ID_KEY];
    if (result.ok && typeof recordedId === 'string') state.ids.add(recordedId);
    results.push(result);
  }
  return results;
}

function lastIndexOf(messages: readonly unknown[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (langChainIdOf(messages[i]) === id) return i;
  return -1;
}

function lastKnown(messages: readonly unknown[], ids: ReadonlySet<string>): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const id = langChainIdOf(messages[i]);
    if (id !== undefined && ids.has(id)) return i;
  }
  return -1;
}

/** How many leading state messages are the fold's (a leading system message the fold lacks is the overlay). */
function inStepWithFold(state: readonly Message[], fold: readonly Message[]): number {
  let i = state[0]?.role === 'system' && fold[0]?.role !== 'system' && fold.length > 0 ? 1 : 0;
  let j = 0;
  while (i < state.length && j < fold.length && messagesMatch(state[i]!, fold[j]!)) {
    i++;
    j++;
  }
  return i;
}
