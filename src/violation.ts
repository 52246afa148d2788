// What a violation reports, and the error strict mode throws.

import type { MessageSketch } from './sketch';

export type ReconstructionKind = 'extra_message' | 'missing_message' | 'order';

/** The request does not reproduce the fold. Index and lengths are measured after the overlay slot. */
export interface ReconstructionViolation {
  kind: ReconstructionKind;
  /** First diverging position. */
  index: number;
  requestLength: number;
  logLength: number;
  /** Sketches of request messages no event produced (at most 5). */
  extra: MessageSketch[];
  /** Sketches of fold messages the request dropped (at most 5). */
  missing: MessageSketch[];
}

/** A `tool` message whose `toolCallId` no preceding assistant message called. */
export interface OrphanedToolResultViolation {
  kind: 'orphaned_tool_result';
  toolCallId: string | null;
}

/** The request could not be read as a message list at all (not an array, say). */
export interface InvalidRequestViolation {
  kind: 'invalid_request';
  reason: string;
}

export type ViolationDetails = ReconstructionViolation | OrphanedToolResultViolation | InvalidRequestViolation;

export type ViolationKind = ViolationDetails['kind'];

export type CheckResult = { ok: true } | { ok: false; violation: ViolationDetails };

/** Thrown by `verify` in strict mode, in a test environment only. */
export class SessionInvariantViolation extends Error {
  override readonly name = 'SessionInvariantViolation';
  readonly details: ViolationDetails;

  constructor(details: ViolationDetails) {
    super(`session invariant violated: ${describeViolation(details)}`);
    this.details = details;
  }
}

/** One line, no message content: safe for logs. */
export function describeViolation(details: ViolationDetails): string {
  switch (details.kind) {
    case 'orphaned_tool_result':
      return `orphaned_tool_result: tool result ${JSON.stringify(details.toolCallId)} has no preceding tool call`;
    case 'invalid_request':
      return `invalid_request: ${details.reason}`;
    default:
      return (
        `${details.kind} at index ${details.index} ` +
        `(request ${details.requestLength} messages, log ${details.logLength}; ` +
        `extra: ${roles(details.extra)}; missing: ${roles(details.missing)})`
      );
  }
}

function roles(sketches: readonly MessageSketch[]): string {
  return sketches.length === 0 ? 'none' : sketches.map((s) => s.role).join(', ');
}
