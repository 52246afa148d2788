// The reconstruction rule, written once: the one place that decides whether a
// request lines up with a log (the overlay slot, lockstep, the length test,
// then classification). The bound check compares messages
// (invariant/check.ts), the implicit log compares fingerprints
// (request-path/implicit/implicit-rules.ts); both hand their lists here. Also
// the request guard both apply before reading a request, and the two results
// a check gives.

import { MAX_REQUEST_MESSAGES } from '../model/messages';
import { describeThrown } from '../result';
import { classify, type ComparedLists } from './classify';
import { overlaySlotOf } from './overlay';
import { isStackExhaustion } from './stack-exhaustion';
import type { CheckResult, InvalidRequestViolation, ReconstructionViolation, ViolationDetails } from './violation';

/** The passing result: the one `{ ok: true }` every check returns. */
export const PASS: CheckResult = Object.freeze({ ok: true });

/** A failing result carrying `violation`. */
export function failed(violation: ViolationDetails): CheckResult {
  return { ok: false, violation };
}

/** The violation of a request that cannot be read as a message list. */
export function invalidRequest(reason: string): InvalidRequestViolation {
  return { kind: 'invalid_request', reason };
}

/**
 * The request guard, the one place that decides which requests are read at
 * all: an array of at most `MAX_REQUEST_MESSAGES` entries. Undefined when
 * the request may be read; else why not.
 */
export function unreadableRequest(messages: unknown): InvalidRequestViolation | undefined {
  if (!Array.isArray(messages)) return invalidRequest('the request is not an array of messages');
  if (messages.length > MAX_REQUEST_MESSAGES) {
    return invalidRequest(`the request has ${messages.length} messages, more than the ${MAX_REQUEST_MESSAGES} a check reads`);
  }
  return undefined;
}

/**
 * What reading a request threw, as its violation (a throwing getter, a
 * revoked proxy: reported, never raised). The call stack running out is
 * re-thrown: it is the package's limit, not the request's fault, and the
 * callers count it as an internal error.
 */
export function unreadableEntry(error: unknown): InvalidRequestViolation {
  if (isStackExhaustion(error)) throw error;
  return invalidRequest(`the request could not be read: ${describeThrown(error)}`);
}

/**
 * A request and the log it is compared with, by their own positions (the
 * request's from 0, its overlay slot included; `differs` may answer empty
 * when it cannot tell). The bound check reads messages, the implicit log
 * fingerprints; the rule is the same.
 */
export interface RequestAndLog extends ComparedLists {
  requestLeadsWithSystem(): boolean;
  logLeadsWithSystem(): boolean;
}

/** The overlay slot of this comparison: where the request's positions line up with the log's (overlay.ts decides it). */
export function overlayOffset(lists: RequestAndLog): 0 | 1 {
  return overlaySlotOf(lists.requestLeadsWithSystem(), lists.logLeadsWithSystem());
}

/**
 * The reconstruction rule:
 *
 * 1. The overlay slot (overlay.ts): a request that leads with a system
 *    message where the log does not is compared without it. The only length
 *    difference tolerated.
 * 2. Both lists are walked in lockstep from position `from` (counted
 *    after the slot; the caller knows the positions before it match) while
 *    `matches` holds.
 * 3. If they part, or their lengths differ, the violation is classified
 *    over the whole lists (classify.ts). Positions in it count after the
 *    overlay slot.
 *
 * Returns how far the lockstep got (after the slot) and the violation, if
 * any. The caller checks tool pairing only on a request that reconstructs.
 */
export function reconstruct(
  lists: RequestAndLog,
  offset: 0 | 1 = overlayOffset(lists),
  from = 0,
): { reached: number; violation: ReconstructionViolation | undefined } {
  const requestLength = lists.requestLength - offset;
  const logLength = lists.logLength;
  const shorter = Math.min(requestLength, logLength);
  let index = from;
  while (index < shorter && lists.matches(index + offset, index)) index++;
  if (index === shorter && requestLength === logLength) return { reached: index, violation: undefined };
  const violation = classify(
    {
      requestLength,
      logLength,
      matches: (i, j) => lists.matches(i + offset, j),
      requestFingerprint: (i) => lists.requestFingerprint(i + offset),
      logFingerprint: (j) => lists.logFingerprint(j),
      requestSketch: (i) => lists.requestSketch(i + offset),
      logSketch: (j) => lists.logSketch(j),
      differs: (i, j) => lists.differs(i + offset, j),
      // Counted from the ends, where the overlay slot plays no part.
      commonSuffix: lists.commonSuffix === undefined ? undefined : (room) => lists.commonSuffix!(room),
    },
    index,
  );
  return { reached: index, violation };
}
