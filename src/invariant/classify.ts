// Classifying a request that does not reconstruct its log: which messages are
// extra, which are missing, or whether only the order differs.

import { MAX_SKETCHES, type MessageSketch } from './sketch';
import {
  MATCHING_ROLES_AFTER,
  MATCHING_ROLES_BEFORE,
  type FingerprintField,
  type MatchingRoles,
  type ReconstructionViolation,
} from './violation';

/** The two lists being compared, by position: request positions are counted after the overlay slot. */
export interface ComparedLists {
  requestLength: number;
  logLength: number;
  /** Whether request message `i` is log message `j` (exact). */
  matches(i: number, j: number): boolean;
  requestFingerprint(i: number): number;
  logFingerprint(j: number): number;
  requestSketch(i: number): MessageSketch;
  logSketch(j: number): MessageSketch;
  /** The fields in which request message `i` and log message `j` differ. */
  differs(i: number, j: number): FingerprintField[];
  /**
   * How many messages the lists share at their ends, at most `room`: what
   * `matches` walked back from both ends gives, for lists that can tell
   * faster (the implicit log compares arrays of fingerprints).
   */
  commonSuffix?(room: number): number;
}

/**
 * The violation for lists that first differ at `index`, classified over the
 * whole lists as multisets of messages: log messages in surplus are missing,
 * request messages in surplus are extra, neither means the order differs.
 *
 * Messages the lists share at both ends cancel out of those multisets
 * exactly, so only the window between the common prefix and the common
 * suffix is fingerprinted: a single drop, insert, rewrite or swap costs a few
 * messages' worth of hashing, not the whole transcript's. Within the window,
 * messages are grouped by fingerprint and paired only when they really
 * match, so the result is exact.
 */
export function classify(lists: ComparedLists, index: number): ReconstructionViolation {
  const { requestLength, logLength } = lists;
  const room = Math.min(requestLength, logLength) - index;
  let suffix = 0;
  if (lists.commonSuffix !== undefined) suffix = lists.commonSuffix(room);
  else while (suffix < room && lists.matches(requestLength - 1 - suffix, logLength - 1 - suffix)) suffix++;
  const requestEnd = requestLength - suffix;
  const logEnd = logLength - suffix;

  const unpaired = new Map<number, number[]>();
  for (let j = index; j < logEnd; j++) {
    const key = lists.logFingerprint(j);
    const bucket = unpaired.get(key);
    if (bucket) bucket.push(j);
    else unpaired.set(key, [j]);
  }
  const extra: MessageSketch[] = [];
  let extraCount = 0;
  const paired = new Set<number>();
  for (let i = index; i < requestEnd; i++) {
    const bucket = unpaired.get(lists.requestFingerprint(i));
    const at = bucket ? bucket.findIndex((j) => lists.matches(i, j)) : -1;
    if (at >= 0) {
      paired.add(bucket![at]!);
      bucket!.splice(at, 1);
    } else if (extraCount++ < MAX_SKETCHES) {
      extra.push(lists.requestSketch(i));
    }
  }
  const missing: MessageSketch[] = [];
  let missingCount = 0;
  for (let j = index; j < logEnd; j++) {
    if (paired.has(j)) continue;
    if (missingCount++ < MAX_SKETCHES) missing.push(lists.logSketch(j));
  }
  const kind = missingCount > 0 ? 'missing_message' : extraCount > 0 ? 'extra_message' : 'order';
  const violation: ReconstructionViolation = { kind, index, requestLength, logLength, extra, missing, extraCount, missingCount };
  violation.matchingRoles = matchingRoles(lists, index, extraCount, missingCount);
  // One message in place of one other: say what changed (a rewrite, or only the name).
  if (requestEnd - index === 1 && logEnd - index === 1) {
    const differs = lists.differs(index, index);
    if (differs.length > 0) violation.differs = differs;
  }
  return violation;
}

/** The roles of the matching messages beside the difference (violation.ts says which). */
function matchingRoles(lists: ComparedLists, index: number, extraCount: number, missingCount: number): MatchingRoles {
  const roles = (sketchAt: (i: number) => MessageSketch, from: number, to: number): string[] => {
    const found: string[] = [];
    for (let i = Math.max(0, from); i < to; i++) found.push(sketchAt(i).role);
    return found;
  };
  const requestFrom = index + extraCount;
  const logFrom = index + missingCount;
  return {
    before: roles((i) => lists.requestSketch(i), index - MATCHING_ROLES_BEFORE, index),
    requestAfter: roles((i) => lists.requestSketch(i), requestFrom, Math.min(lists.requestLength, requestFrom + MATCHING_ROLES_AFTER)),
    logAfter: roles((j) => lists.logSketch(j), logFrom, Math.min(lists.logLength, logFrom + MATCHING_ROLES_AFTER)),
  };
}
