// Non-destructive compaction: summaries and pruned tool results are appended
// as replacing events; the originals stay in the log (`events()`).

import type { Message } from '../model/messages';
import { eventDataOf } from '../log/message-event';
import { describe, positionOf, type SessionEvent } from '../log/events';
import { EVENT_TYPE_OF_ROLE } from '../log/fold';
import { refuse, type Result } from './errors';
import type { SessionView } from './view';

/**
 * What `replaceRange` returns: the replacing event it appended, or the
 * `SessionError` that refused it (docs/behaviour.md §7.2).
 */
export type ReplaceResult = Result<{ event: SessionEvent }>;

/**
 * Replaces `view.messages[first..last]` (inclusive) with `message`: appends it
 * as a surface event with `replace: { start: position(first), stop:
 * position(last) }`, timed like the first message it replaces.
 */
export function replaceRange(view: SessionView, first: number, last: number, message: Message): ReplaceResult {
  if (!Number.isInteger(first) || !Number.isInteger(last) || first < 0 || last < first) {
    return refuse('invalid_range', `replaceRange needs integers 0 <= first <= last, got ${String(first)} and ${String(last)}`);
  }
  const offset = view.offset;
  const indexed = view.log.deriveIndexed();
  const length = indexed.length + offset;
  if (last >= length) return refuse('out_of_range', `replaceRange(${first}, ${last}) is out of range for ${length} messages`);
  if (first < offset) return refuse('overlay_message', 'index 0 is the overlay, which is not in the log and cannot be replaced');
  const [firstSeq, firstMessage] = indexed[first - offset]!;
  const [lastSeq] = indexed[last - offset]!;
  const replace = { start: positionOf(view.log.eventAt(firstSeq)!), stop: positionOf(view.log.eventAt(lastSeq)!) };
  const type = EVENT_TYPE_OF_ROLE[message.role];
  if (type === undefined) return refuse('invalid_option', `replaceRange: unknown role ${describe(message.role)}`);
  const appended = view.log.append(type, { ...eventDataOf(message), replace }, firstMessage.createdAt);
  return appended.ok ? { ok: true, event: appended.event } : refuse('append_failed', appended.error.message);
}

/** Moves the leading tool messages of `recent` onto the end of `old`, so no range separates a result from its call. */
export function balanceToolCallBoundary(old: readonly Message[], recent: readonly Message[]): { old: Message[]; recent: Message[] } {
  let split = 0;
  while (split < recent.length && recent[split]!.role === 'tool') split++;
  return { old: [...old, ...recent.slice(0, split)], recent: recent.slice(split) };
}

/**
 * Characters `pruneToolResults` keeps from the start of a long tool result.
 * With `PRUNE_TAIL_CHARS` it is also the floor: content of 5,120 characters or
 * fewer has nothing to elide and is left alone (docs/behaviour.md §7.2).
 */
export const PRUNE_HEAD_CHARS = 4_096;
/** Characters `pruneToolResults` keeps from the end of a long tool result, after the elision marker (docs/behaviour.md §7.2). */
export const PRUNE_TAIL_CHARS = 1_024;

/**
 * Replaces, in place, each tool message whose string content is longer than
 * `maxChars` by its first 4,096 and last 1,024 characters around a marker
 * saying how many were elided. Content no longer than those 5,120 characters
 * has nothing to elide and is left alone. Returns the appended events.
 */
export function pruneToolResults(view: SessionView, maxChars: number): Result<{ events: SessionEvent[] }> {
  if (!Number.isInteger(maxChars) || maxChars < 0)
    return refuse('invalid_option', `maxChars must be a non-negative integer, got ${String(maxChars)}`);
  const pruned: SessionEvent[] = [];
  for (const [seq, message] of view.log.deriveIndexed()) {
    const content = message.content;
    if (message.role !== 'tool' || typeof content !== 'string') continue;
    if (content.length <= maxChars || content.length <= PRUNE_HEAD_CHARS + PRUNE_TAIL_CHARS) continue;
    const elided = content.length - PRUNE_HEAD_CHARS - PRUNE_TAIL_CHARS;
    const position = positionOf(view.log.eventAt(seq)!);
    const appended = view.log.append(
      'tool_result',
      {
        ...eventDataOf(message),
        content: `${content.slice(0, PRUNE_HEAD_CHARS)}\n\n[… ${elided} characters elided …]\n\n${content.slice(-PRUNE_TAIL_CHARS)}`,
        metadata: { ...message.metadata, pruned: { originalLength: content.length, elided } },
        replace: { start: position, stop: position },
      },
      message.createdAt,
    );
    if (!appended.ok) return refuse('append_failed', appended.error.message);
    pruned.push(appended.event);
  }
  return { ok: true, events: pruned };
}

/**
 * The first line of every summary `compact` places, before the summarizer's
 * text: it marks the system message as the summary of the messages it
 * replaced (docs/behaviour.md §7.2).
 */
export const SUMMARY_PREFIX = '[Conversation Summary]\n';

/** The options of `compact` (docs/behaviour.md §7.2). */
export interface CompactOptions {
  /** How many of the latest non-system messages stay as they are: a non-negative integer (0 summarizes them all). */
  keepRecent: number;
  /** Writes the summary of the messages it is given; a result that is not a string, or is blank, changes nothing. */
  summarize: (messages: Message[]) => string | Promise<string>;
}

/**
 * What `compact` returns. `event` is the summary event it appended, or
 * `undefined` when there was nothing to summarize or the summary was blank;
 * `summarized` is how many messages the summary replaced (0 when none).
 * Refusals are `invalid_option` and those of `replaceRange` (docs/behaviour.md
 * §7.2).
 */
export type CompactResult = Result<{ event: SessionEvent | undefined; summarized: number }>;

/**
 * Summarizes all but the last `keepRecent` non-system messages (after moving
 * tool results next to their calls) into one system message, placed with
 * `replaceRange`. System messages stay: the summarized range stops short of
 * any system message inside it.
 */
export async function compact(view: SessionView, options: CompactOptions): Promise<CompactResult> {
  const { keepRecent, summarize } = options;
  if (!Number.isInteger(keepRecent) || keepRecent < 0)
    return refuse('invalid_option', `keepRecent must be a non-negative integer, got ${String(keepRecent)}`);
  if (typeof summarize !== 'function') return refuse('invalid_option', 'compact needs a summarize function');

  const offset = view.offset;
  const fold = view.log.deriveMessages();
  const nonSystem = fold.flatMap((m, i) => (m.role === 'system' ? [] : [i]));
  const cut = Math.max(0, nonSystem.length - keepRecent);
  const { old } = balanceToolCallBoundary(
    nonSystem.slice(0, cut).map((i) => fold[i]!),
    nonSystem.slice(cut).map((i) => fold[i]!),
  );
  let indices = nonSystem.slice(0, old.length);
  // Keep the range contiguous and free of system messages: start after the last system inside it.
  const lastSystemInside =
    indices.length === 0
      ? -1
      : fold
          .slice(0, indices[indices.length - 1]! + 1)
          .map((m) => m.role)
          .lastIndexOf('system');
  indices = indices.filter((i) => i > lastSystemInside);
  if (indices.length === 0) return { ok: true, event: undefined, summarized: 0 };

  const text = await summarize(indices.map((i) => fold[i]!));
  if (typeof text !== 'string' || text.trim() === '') return { ok: true, event: undefined, summarized: 0 };
  const replaced = replaceRange(view, indices[0]! + offset, indices[indices.length - 1]! + offset, {
    role: 'system',
    content: `${SUMMARY_PREFIX}${text}`,
  });
  return replaced.ok ? { ok: true, event: replaced.event, summarized: indices.length } : replaced;
}
