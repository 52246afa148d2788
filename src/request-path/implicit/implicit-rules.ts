// The rules of the implicit conversation log (docs/behaviour.md §8.2), as
// free functions over a `ConversationStore`: the one place that decides what
// a request continues, rejoins or loses. Applied in this order: continuation
// by the longest known branch; rejoin = violation; the lost reply within a
// run; otherwise a new branch. Nothing here changes the store or reports:
// `ImplicitLogs` records and reports what the rules decide. How a request
// lines up with a conversation is in prefix-match.ts, the log it is checked
// against in implied-log.ts.

import { SYSTEM_FINGERPRINT, type Fingerprint } from '../../invariant/fingerprint';
import type { ViolationDetails } from '../../invariant/violation';
import type { RunKey } from '../run';
import type { Conversation } from './conversation';
import { eachOf, type ConversationStore } from './conversation-store';
import { concat, reconstructionFailure } from './implied-log';
import { overlayOffset, requestChains, sharedPrefix, SharedPrefixes, type RequestChain } from './prefix-match';
import type { ReadRequest, Seen } from './seen-request';

/** Conversations a request that continues none is compared with, per source: the most recently used that start like it, those whose last request it starts with, those whose last message it carries. */
const MAX_CANDIDATES = 32;

/** The replies some model sent recently, in any conversation: how many times each was observed (0: never). */
export interface KnownReplies {
  times(fingerprint: Fingerprint): number;
}

/**
 * What the rules decided for a request: the violation, the number of the
 * conversation it carries, and whether it extends a known conversation (from
 * the request's position `offset + conversation.length` on) or is recorded
 * as a conversation of its own (a new one, or a branch keeping `number`).
 */
export interface Ruling {
  violation: ViolationDetails | undefined;
  number: number;
  /** The violation's surplus is assistant replies no model was seen sending here (another process may have). */
  unobservedReplies?: boolean;
  extends?: { conversation: Conversation; offset: number } | undefined;
}

/**
 * The rules of docs/behaviour.md §8.2 applied to `read` against `store`,
 * which is only read. `run` is the request's run as the store keeps it;
 * `replies` the replies observed recently; `newNumber` gives the number of a
 * conversation first seen.
 */
export function decide(
  read: ReadRequest,
  store: ConversationStore,
  run: RunKey | undefined,
  now: number,
  replies: KnownReplies,
  captureContent: boolean,
  newNumber: () => number,
): Ruling {
  const { seen, orphan, first, key } = read;
  const recent = store.candidates(key, now, MAX_CANDIDATES);
  const chains = requestChains(seen);
  const continued = continuedConversation(store, seen, chains);
  if (continued !== undefined) {
    const { conversation, offset } = continued;
    const made = invented(conversation, seen, offset, replies);
    if (made.length === 0) return { violation: orphan, number: conversation.number, extends: continued };
    const keep = new Set(made);
    const implied = concat(conversation, seen, offset + conversation.length, (i) => !keep.has(i), captureContent);
    // The branch is still this conversation as the app sees it: it keeps the id.
    const unobservedReplies = made.every((i) => replies.times(seen.fingerprints[i]!) === 0);
    return { violation: reconstructionFailure(implied, seen, captureContent), number: conversation.number, unobservedReplies };
  }
  const candidates = related(store, seen, first, key, chains, recent, run);
  const prefixes = new SharedPrefixes(candidates, seen);
  const found = rejoined(candidates, prefixes, seen, captureContent) ?? lostReply(candidates, seen, run, captureContent);
  // A request that rejoins or loses a reply continues a known conversation and keeps its id; anything else is new.
  return { violation: found?.violation ?? orphan, number: found?.conversation.number ?? newNumber() };
}

/**
 * The longest known conversation the request starts with in full (of
 * equally long ones, the most recently used), found by the chain hash of
 * each of the request's prefixes, longest first, and confirmed on the
 * fingerprints: a few lookups however many conversations start alike.
 */
function continuedConversation(
  store: ConversationStore,
  seen: Seen,
  chains: readonly RequestChain[],
): { conversation: Conversation; offset: number } | undefined {
  let best: Conversation | undefined;
  let bestOffset = 0;
  for (const { offset, chain } of chains) {
    const max = seen.fingerprints.length - offset;
    for (let k = max; k >= 1; k--) {
      // A conversation found under k has k messages, or k + 1 if it ends in an open prefill.
      if (best !== undefined && k + 1 < best.length) break;
      eachOf(store.byEnd(chain[k]!), (c) => {
        if (c.length > max) return;
        if (best !== undefined && (c.length < best.length || (c.length === best.length && c.stamp < best.stamp))) return;
        if (overlayOffset(c, seen) !== offset || sharedPrefix(c, seen, offset) !== c.length) return;
        best = c;
        bestOffset = offset;
      });
    }
  }
  return best === undefined ? undefined : { conversation: best, offset: bestOffset };
}

/**
 * The conversations a request that continues none may rejoin or have lost
 * a reply of: the most recently used that start like it, those whose last
 * request it starts with (found by chain hash), and those whose last
 * message it carries (latest first). Bounded, whatever the number of
 * conversations that start alike.
 */
function related(
  store: ConversationStore,
  seen: Seen,
  first: number,
  key: Fingerprint,
  chains: readonly RequestChain[],
  recent: Conversation[],
  run: RunKey | undefined,
): Conversation[] {
  const found = new Set<Conversation>(recent);
  let extra = 0;
  const take = (c: Conversation): boolean => {
    if (c.key === key && !found.has(c)) {
      found.add(c);
      extra++;
    }
    return extra < MAX_CANDIDATES;
  };
  if (run !== undefined && store.anyLost) {
    for (const { offset, chain } of chains) {
      for (let k = seen.fingerprints.length - offset; k >= 1 && extra < MAX_CANDIDATES; k--) eachOf(store.byLost(chain[k]!), take);
    }
  }
  extra = 0;
  for (let i = seen.fingerprints.length - 1; i > first && extra < MAX_CANDIDATES; i--) {
    const fingerprint = seen.fingerprints[i]!;
    if (fingerprint !== SYSTEM_FINGERPRINT) eachOf(store.byLast(fingerprint), take);
  }
  return [...found];
}

/**
 * Non-trailing assistant messages of the new part that no model sent, when
 * the last reply was observed: not a reply seen recently (a sub-agent's
 * answer handed on is one), or a copy: a message the history already holds
 * as many times as models were seen sending it. A model that says the same
 * thing again (the same call, the same words) sent it again: its reply to a
 * request on another branch (a request that left a message out) brought back
 * into the full history is a reply the model sent, not a copy.
 */
function invented(conversation: Conversation, seen: Seen, offset: number, replies: KnownReplies): number[] {
  if (!conversation.lastRequest.replyObserved) return [];
  const found: number[] = [];
  const last = seen.messages.length - 1;
  let held: Map<Fingerprint, number> | undefined;
  for (let i = offset + conversation.length; i < last; i++) {
    if (seen.messages[i]?.role !== 'assistant') continue;
    const fingerprint = seen.fingerprints[i]!;
    held ??= countOf(conversation.fingerprints);
    const before = held.get(fingerprint) ?? 0;
    if (replies.times(fingerprint) <= before) found.push(i);
    else held.set(fingerprint, before + 1);
  }
  return found;
}

/** How many times each fingerprint occurs. */
function countOf(fingerprints: Iterable<Fingerprint>): Map<Fingerprint, number> {
  const counts = new Map<Fingerprint, number>();
  for (const fingerprint of fingerprints) counts.set(fingerprint, (counts.get(fingerprint) ?? 0) + 1);
  return counts;
}

/**
 * Rejoin: the request starts like a known conversation, diverges from it and
 * later carries that conversation's messages again, so something in between
 * was dropped, duplicated, rewritten or moved. Checked against the
 * conversation followed by the request's messages after the last one the
 * conversation had: the conversation that shares the longest start with the
 * request, and of those the one whose later messages it carries most of. System messages never count as carried: their content
 * is not compared, so they say nothing about where a request rejoins.
 */
function rejoined(candidates: readonly Conversation[], prefixes: SharedPrefixes, seen: Seen, captureContent: boolean): Found | undefined {
  let best: { conversation: Conversation; shared: number; last: number; carried: number; reaches: boolean } | undefined;
  for (let k = 0; k < candidates.length; k++) {
    const conversation = candidates[k]!;
    const offset = prefixes.offset(k);
    const shared = prefixes.shared(k);
    // A conversation that starts with the whole request explains it: a regenerate from a point it passed, not a rejoin.
    if (offset + shared >= seen.fingerprints.length) return undefined;
    if (best !== undefined && shared < best.shared) continue;
    const later = new Set<Fingerprint>();
    for (let j = shared; j < conversation.length; j++)
      if (conversation.fingerprints[j] !== SYSTEM_FINGERPRINT) later.add(conversation.fingerprints[j]!);
    const end = conversation.fingerprints[conversation.length - 1];
    let last = -1;
    let carried = 0;
    let reaches = false;
    for (let i = offset + shared; i < seen.fingerprints.length; i++) {
      if (!later.has(seen.fingerprints[i]!)) continue;
      last = i;
      carried++;
      if (seen.fingerprints[i] === end) reaches = true;
    }
    if (last < 0) continue;
    // Of branches that share as much, one the request carries up to its last message is the one it continues: an
    // alike conversation that went further (the run before a rerun) was passed, not continued. Then the one whose later
    // messages the request carries most of explains it best (a sibling choice or a regenerate the app did not continue
    // with shares the start, not what follows).
    const better =
      best === undefined ||
      shared > best.shared ||
      (reaches !== best.reaches ? reaches : carried > best.carried || (carried === best.carried && last > best.last));
    if (better) best = { conversation, shared, last, carried, reaches };
  }
  if (best === undefined) return undefined;
  // The implied log starts with the conversation, whose first `shared` messages the request carries (sharedPrefix).
  const violation = reconstructionFailure(
    concat(best.conversation, seen, best.last + 1, () => true, captureContent),
    seen,
    captureContent,
    best.shared,
  );
  return violation === undefined ? undefined : { violation, conversation: best.conversation };
}

/** A violation found against a known conversation, and that conversation. */
interface Found {
  violation: ViolationDetails;
  conversation: Conversation;
}

/**
 * The lost reply, within one run: the request starts with the previous
 * request of the conversation in the same run and continues without the
 * model's reply to it. Across runs that is a regenerate (a branch); the reply
 * to a prefill never counts.
 */
function lostReply(candidates: readonly Conversation[], seen: Seen, run: RunKey | undefined, captureContent: boolean): Found | undefined {
  if (run === undefined) return undefined;
  for (const conversation of candidates) {
    const last = conversation.lastRequest;
    if (last.run !== run || !last.replyObserved || last.prefill || conversation.length <= last.length) continue;
    const offset = overlayOffset(conversation, seen);
    if (seen.fingerprints.length - offset <= last.length || sharedPrefix(conversation, seen, offset) !== last.length) continue;
    const violation = reconstructionFailure(
      concat(conversation, seen, offset + last.length, () => true, captureContent),
      seen,
      captureContent,
      last.length,
    );
    return violation === undefined ? undefined : { violation, conversation };
  }
  return undefined;
}
