// The pure check: is the request the fold, up to the two exemptions (the
// overlay slot and system content)? Then, only if so, is every tool result
// paired with a preceding call? (Reconstruction is reported before pairing.)

import { fingerprintKey } from './fingerprint';
import { messagesMatch } from './message-equality';
import type { Message } from './messages';
import { SessionLog } from './session-log';
import { MAX_SKETCHES, sketch, type MessageSketch } from './sketch';
import type { CheckResult, ReconstructionViolation, ViolationDetails } from './violation';

const PASS: CheckResult = Object.freeze({ ok: true });

/** Compares `request` with `log`'s fold. Pure: reads no configuration, logs nothing, never throws. */
export function check(log: SessionLog, request: readonly Message[]): CheckResult {
  try {
    if (!(log instanceof SessionLog)) return invalid('the log is not a SessionLog');
    if (!Array.isArray(request)) return invalid('the request is not an array of messages');
    return checkMessages(log, request);
  } catch (error) {
    // A throwing getter or proxy in the request: report, never raise.
    return invalid(`the request could not be read: ${(error as Error)?.message ?? String(error)}`);
  }
}

function checkMessages(log: SessionLog, request: readonly unknown[]): CheckResult {
  const fold = log._foldMessages();
  const offset = overlaySlot(fold, request);
  const requestLength = request.length - offset;
  const logLength = fold.length;
  const shorter = Math.min(requestLength, logLength);
  let index = 0;
  while (index < shorter && messagesMatch(request[index + offset], fold[index]!)) index++;
  if (index < shorter || requestLength !== logLength) {
    return { ok: false, violation: classify(fold, request, offset, index) };
  }
  // Reconstruction passed, so the request's tool pairing is the fold's, which
  // the log keeps current as it grows: no second pass over the request.
  const orphan = log._foldOrphan();
  return orphan === null ? PASS : { ok: false, violation: { kind: 'orphaned_tool_result', toolCallId: orphan.toolCallId } };
}

/** 1 when the request leads with a system message the fold has no counterpart for. */
function overlaySlot(fold: readonly Message[], request: readonly unknown[]): number {
  const head = request[0] as { role?: unknown } | null | undefined;
  const requestLeadsWithSystem = typeof head === 'object' && head !== null && head.role === 'system';
  const foldLeadsWithSystem = fold.length > 0 && fold[0]!.role === 'system';
  return requestLeadsWithSystem && !foldLeadsWithSystem ? 1 : 0;
}

/** Multiset difference of fingerprints over the whole lists: missing beats extra beats order. */
function classify(fold: readonly Message[], request: readonly unknown[], offset: number, index: number): ReconstructionViolation {
  const foldKeys = fold.map(fingerprintKey);
  const surplus = new Map<string, number>();
  for (const key of foldKeys) bump(surplus, key, 1);
  const extra: MessageSketch[] = [];
  let extraCount = 0;
  for (let i = offset; i < request.length; i++) {
    const key = fingerprintKey(request[i]);
    if ((surplus.get(key) ?? 0) > 0) {
      bump(surplus, key, -1);
    } else if (extraCount++ < MAX_SKETCHES) {
      extra.push(sketch(request[i]));
    }
  }
  const missing: MessageSketch[] = [];
  let missingCount = 0;
  foldKeys.forEach((key, i) => {
    if ((surplus.get(key) ?? 0) > 0) {
      bump(surplus, key, -1);
      if (missingCount++ < MAX_SKETCHES) missing.push(sketch(fold[i]));
    }
  });
  const kind = missingCount > 0 ? 'missing_message' : extraCount > 0 ? 'extra_message' : 'order';
  return { kind, index, requestLength: request.length - offset, logLength: fold.length, extra, missing };
}

function bump(counts: Map<string, number>, key: string, by: number): void {
  counts.set(key, (counts.get(key) ?? 0) + by);
}

function invalid(reason: string): { ok: false; violation: ViolationDetails } {
  return { ok: false, violation: { kind: 'invalid_request', reason } };
}
