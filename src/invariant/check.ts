// The pure check: is the request the fold, up to the two exemptions (the
// overlay slot and system content)? Then, only if so, is every tool result
// paired with a preceding call? Reconstruction is reported before pairing:
// if the request is not the fold, a pairing diagnosis would be about a list
// already known to be wrong.

import { isStableMessage } from './stable-messages';
import { SessionLog } from '../log/session-log';
import { firstOrphan } from '../log/tool-call-index';
import { fingerprintOf } from './fingerprint';
import { positionalCallIds } from './positional-call-ids';
import { fieldsDiffering, messagesMatch } from './message-equality';
import type { Message } from '../model/messages';
import { sketch, type MessageSketch } from './sketch';
import type { CheckResult, FingerprintField } from './violation';
import {
  PASS,
  failed,
  invalidRequest,
  overlayOffset,
  reconstruct,
  unreadableEntry,
  unreadableRequest,
  type RequestAndLog,
} from './reconstruct';

/**
 * Compares `request` with the fold of `log` and returns `{ ok: true }` or
 * the first violation. Steps 1 to 3 are the reconstruction rule, decided in
 * reconstruct.ts (which the implicit log also follows, on fingerprints):
 *
 * 1. The overlay slot: a request that leads with a system message where the
 *    fold does not is checked without that message. This is the only length
 *    difference tolerated: the system prompt re-derived per run is not in
 *    the log, and it may be prepended.
 * 2. Both lists are then walked in lockstep; two messages match when both
 *    are system messages (system content is not compared) or
 *    `messagesMatch` holds.
 * 3. On the first difference the violation is classified over the whole
 *    lists (`missing_message` over `extra_message` over `order`), with at
 *    most five content-light sketches per side.
 * 4. Only a reconstructable request is checked for tool pairing: a tool
 *    result whose call precedes it nowhere is `orphaned_tool_result`.
 *
 * Pure: reads no configuration, logs nothing. Never throws for any request:
 * one that cannot be read as a message list is `invalid_request`, and values
 * nested at any depth are compared. The one exception is the call stack
 * running out (a caller whose stack was already nearly full): that
 * `RangeError` is re-thrown, since it says nothing about the request. On the passing
 * path it is one pass over the request, allocating only the comparison's
 * handle and what extends the prefix it keeps per log (below).
 *
 * When the log only grew since the last request checked against it, the
 * leading messages that request matched and that cannot have changed since
 * (the log's own messages, and the canonical messages the request path makes
 * and reuses, see stable-messages.ts), re-sent as the same objects
 * at the same positions, are not compared again: only what follows them is
 * (see `matchedPrefix`). The result is the full comparison's, always.
 */
export function check(log: SessionLog, request: readonly Message[]): CheckResult {
  return checkLog(log, request, true);
}

/**
 * `check` for a request whose tool call ids are read by position
 * (positional-call-ids.ts, docs/behaviour.md §4.3 rule 30): the fold is read
 * the same way before it is compared, so an id the log holds and the wire
 * format does not keep is no difference. Every message is compared.
 */
export function checkByPosition(log: SessionLog, request: readonly Message[]): CheckResult {
  return checkLog(log, request, false, positionalCallIds);
}

/** @internal `check` comparing every message, remembering nothing (tests: the fast path must agree with it). */
export function checkFully(log: SessionLog, request: readonly Message[]): CheckResult {
  return checkLog(log, request, false);
}

function checkLog(
  log: SessionLog,
  request: readonly Message[],
  remember: boolean,
  read: (messages: readonly Message[]) => readonly unknown[] = (messages) => messages,
): CheckResult {
  try {
    if (!(log instanceof SessionLog)) return failed(invalidRequest('the log is not a SessionLog'));
    const unreadable = unreadableRequest(request);
    if (unreadable !== undefined) return failed(unreadable);
    return checkAgainstFold(read(log._foldMessages()) as readonly Message[], read(request), remember ? log : undefined);
  } catch (error) {
    return failed(unreadableEntry(error));
  }
}

/** A request and a fold, as the reconstruction rule reads them: messages compared with `messagesMatch`. */
class RequestAndFold implements RequestAndLog {
  readonly request: readonly unknown[];
  readonly fold: readonly Message[];

  constructor(request: readonly unknown[], fold: readonly Message[]) {
    this.request = request;
    this.fold = fold;
  }

  get requestLength(): number {
    return this.request.length;
  }

  get logLength(): number {
    return this.fold.length;
  }

  requestLeadsWithSystem(): boolean {
    const head = this.request[0] as { role?: unknown } | null | undefined;
    return typeof head === 'object' && head !== null && head.role === 'system';
  }

  logLeadsWithSystem(): boolean {
    return this.fold.length > 0 && this.fold[0]!.role === 'system';
  }

  matches(i: number, j: number): boolean {
    return messagesMatch(this.request[i], this.fold[j]!);
  }

  requestFingerprint(i: number): number {
    return fingerprintOf(this.request[i]);
  }

  logFingerprint(j: number): number {
    return fingerprintOf(this.fold[j]);
  }

  requestSketch(i: number): MessageSketch {
    return sketch(this.request[i]);
  }

  logSketch(j: number): MessageSketch {
    return sketch(this.fold[j]);
  }

  differs(i: number, j: number): FingerprintField[] {
    return fieldsDiffering(this.request[i], this.fold[j]!);
  }
}

function checkAgainstFold(fold: readonly Message[], request: readonly unknown[], log: SessionLog | undefined): CheckResult {
  const lists = new RequestAndFold(request, fold);
  const offset = overlayOffset(lists);
  const known = log === undefined ? undefined : matchedPrefix(log, fold);
  const skipped = known === undefined ? 0 : sameEntries(known.entries, request, offset, Math.min(request.length - offset, fold.length));
  const { reached, violation } = reconstruct(lists, offset, skipped);
  if (known !== undefined) remember(known, request, offset, fold, skipped, reached);
  if (violation !== undefined) return failed(violation);
  // The request reconstructs the fold, so its tool pairing is the fold's
  // (matched messages share role, tool call ids and toolCallId), which the
  // fold's index keeps current as the log grows: no second pass needed.
  const orphan = firstOrphan(fold);
  return orphan === null ? PASS : failed({ kind: 'orphaned_tool_result', toolCallId: orphan.toolCallId });
}

/**
 * What the last request checked against a log matched: its entries (after
 * the overlay slot) that matched the fold's first messages and that cannot
 * change (see `unchanging`), in order.
 *
 * Why skipping them is exact: the fold array is the same object only while
 * plain appends extend it (SessionLog._foldMessages), so its first messages
 * are the same frozen objects as then; an entry kept here never changes, so
 * the same object facing the same fold message (whatever the overlay slot
 * shifts it by) reads as it did; and `messagesMatch` depends on the two
 * messages alone. Each
 * skipped position would compare equal again, and the first difference, the
 * only thing the comparison reports, is found at the same index.
 */
interface MatchedPrefix {
  fold: readonly Message[];
  /** `entries[i]` matched `fold[i]`. */
  entries: unknown[];
}

const matchedPrefixes = new WeakMap<SessionLog, MatchedPrefix>();

/** The log's matched prefix when it still applies to `fold`; else a fresh, empty one in its place. */
function matchedPrefix(log: SessionLog, fold: readonly Message[]): MatchedPrefix {
  const known = matchedPrefixes.get(log);
  if (known !== undefined && known.fold === fold) return known;
  const fresh: MatchedPrefix = { fold, entries: [] };
  matchedPrefixes.set(log, fresh);
  return fresh;
}

/** How many of the remembered entries the request re-sends as the same objects, in order, from its start. */
function sameEntries(entries: readonly unknown[], request: readonly unknown[], offset: number, shorter: number): number {
  const n = Math.min(entries.length, shorter);
  let i = 0;
  while (i < n && request[i + offset] === entries[i]) i++;
  return i;
}

/**
 * Keeps the prefix this request matched, as far as its entries cannot
 * change: the first `skipped` are the remembered ones, then those compared
 * equal up to `index`, until one that might change.
 */
function remember(
  known: MatchedPrefix,
  request: readonly unknown[],
  offset: number,
  fold: readonly Message[],
  skipped: number,
  index: number,
): void {
  const entries = known.entries;
  if (entries.length > skipped) entries.length = skipped;
  try {
    for (let i = skipped; i < index; i++) {
      const entry = request[i + offset];
      if (!unchanging(entry, fold[i]!)) return;
      entries.push(entry);
    }
  } catch {
    // An entry that throws when read again (a proxy): it is simply not remembered; the result stands.
  }
}

/**
 * Whether `entry` is sure to read the same whenever it is seen again: the
 * fold's own (frozen) message, or a canonical message the request path made
 * and reuses, which it hands out again only while the provider entry it was
 * read from is unchanged (reading/entry-memo.ts). An app's own object can be
 * changed in place, so it is always compared.
 */
function unchanging(entry: unknown, folded: Message): boolean {
  return entry === folded || isStableMessage(entry);
}
