// The pure check: is the request the fold, up to the two exemptions (the
// overlay slot and system content)? Then, only if so, is every tool result
// paired with a preceding call? Reconstruction is reported before pairing:
// if the request is not the fold, a pairing diagnosis would be about a list
// already known to be wrong.

import { SessionLog } from '../log/session-log';
import { firstOrphan } from '../log/tool-call-index';
import { describeThrown } from '../result';
import { classify } from './classify';
import { fingerprintOf } from './fingerprint';
import { fieldsDiffering, messagesMatch } from './message-equality';
import { MAX_REQUEST_MESSAGES, type Message } from './messages';
import { sketch } from './sketch';
import { isStackExhaustion } from './stack-exhaustion';
import type { CheckResult, ViolationDetails } from './violation';

export { MAX_REQUEST_MESSAGES };

const PASS: CheckResult = Object.freeze({ ok: true });

/**
 * Compares `request` with the fold of `log` and returns `{ ok: true }` or
 * the first violation:
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
 * path it is one pass over the request and allocates nothing.
 */
export function check(log: SessionLog, request: readonly Message[]): CheckResult {
  try {
    if (!(log instanceof SessionLog)) return invalid('the log is not a SessionLog');
    if (!Array.isArray(request)) return invalid('the request is not an array of messages');
    if (request.length > MAX_REQUEST_MESSAGES) {
      return invalid(`the request has ${request.length} messages, more than the ${MAX_REQUEST_MESSAGES} a check reads`);
    }
    return checkAgainstFold(log._foldMessages(), request);
  } catch (error) {
    // The stack running out is the package's limit, not the request's fault: `verify` and the request path count it.
    if (isStackExhaustion(error)) throw error;
    // A throwing getter or a revoked proxy in the request: reported, never raised.
    return invalid(`the request could not be read: ${describeThrown(error)}`);
  }
}

function checkAgainstFold(fold: readonly Message[], request: readonly unknown[]): CheckResult {
  const offset = overlaySlot(fold, request);
  const requestLength = request.length - offset;
  const logLength = fold.length;
  const shorter = Math.min(requestLength, logLength);
  let index = 0;
  while (index < shorter && messagesMatch(request[index + offset], fold[index]!)) index++;
  if (index < shorter || requestLength !== logLength) {
    return {
      ok: false,
      violation: classify(
        {
          requestLength,
          logLength,
          matches: (i, j) => messagesMatch(request[i + offset], fold[j]!),
          requestFingerprint: (i) => fingerprintOf(request[i + offset]),
          logFingerprint: (j) => fingerprintOf(fold[j]),
          requestSketch: (i) => sketch(request[i + offset]),
          logSketch: (j) => sketch(fold[j]),
          differs: (i, j) => fieldsDiffering(request[i + offset], fold[j]!),
        },
        index,
      ),
    };
  }
  // The request reconstructs the fold, so its tool pairing is the fold's
  // (matched messages share role, tool call ids and toolCallId), which the
  // fold's index keeps current as the log grows: no second pass needed.
  const orphan = firstOrphan(fold);
  return orphan === null ? PASS : { ok: false, violation: { kind: 'orphaned_tool_result', toolCallId: orphan.toolCallId } };
}

/** 1 when the request leads with a system message the fold has no counterpart for. */
export function overlaySlot(fold: readonly { role: unknown }[], request: readonly unknown[]): number {
  const head = request[0] as { role?: unknown } | null | undefined;
  const requestLeadsWithSystem = typeof head === 'object' && head !== null && head.role === 'system';
  const foldLeadsWithSystem = fold.length > 0 && fold[0]!.role === 'system';
  return requestLeadsWithSystem && !foldLeadsWithSystem ? 1 : 0;
}

function invalid(reason: string): { ok: false; violation: ViolationDetails } {
  return { ok: false, violation: { kind: 'invalid_request', reason } };
}
