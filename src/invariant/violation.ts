// What a violation reports, and the error strict mode throws.

import { withoutPreview, type MessageSketch } from './sketch';

/**
 * How a request fails to reconstruct the fold. When both kinds of surplus
 * exist, `missing_message` wins: losing history is the worse half (a swap of
 * one message for another reports as missing).
 */
export type ReconstructionKind = 'extra_message' | 'missing_message' | 'order';

/** The fingerprint fields two messages are compared on. */
export type FingerprintField = 'role' | 'content' | 'toolCalls' | 'toolCallId' | 'name';

/** The request does not reproduce the fold. Index and lengths are measured after the overlay slot. */
export interface ReconstructionViolation {
  kind: ReconstructionKind;
  /** The first position where request and fold differ. */
  index: number;
  requestLength: number;
  logLength: number;
  /** Sketches of request messages no event produced (at most 5). */
  extra: MessageSketch[];
  /** Sketches of fold messages the request dropped (at most 5). */
  missing: MessageSketch[];
  /** How many request messages are in surplus; `extra` sketches the first five. */
  extraCount: number;
  /** How many fold messages are in surplus; `missing` sketches the first five. */
  missingCount: number;
  /**
   * When exactly one request message stands where exactly one log message
   * was (a rewrite): the fields in which they differ. Only `['name']` means
   * the same message under another name, for example a tool result recorded
   * without its tool's name.
   */
  differs?: FingerprintField[];
  /** The roles of the matching messages beside the difference, for a picture of it (no content). */
  matchingRoles?: MatchingRoles;
}

/**
 * The roles of the messages that match on both sides of the difference, as a
 * picture of the two lists draws them: roles only, never content. The one
 * place that decides how many: `MATCHING_ROLES_BEFORE` before `index`, and
 * `MATCHING_ROLES_AFTER` past the surplus on each side (for `order`, from
 * `index` itself, the first message out of place).
 */
export interface MatchingRoles {
  /** The messages just before `index`, oldest first; the same on both sides. */
  before: string[];
  /** The request's messages from `index + extraCount` on. */
  requestAfter: string[];
  /** The log's messages from `index + missingCount` on. */
  logAfter: string[];
}

/** Matching messages before the difference whose roles a violation carries. */
export const MATCHING_ROLES_BEFORE = 2;
/** Messages past the surplus, on each side, whose roles a violation carries. */
export const MATCHING_ROLES_AFTER = 3;

/** A `tool` message whose `toolCallId` no preceding assistant message called: the provider would reject it. */
export interface OrphanedToolResultViolation {
  kind: 'orphaned_tool_result';
  toolCallId: string | null;
}

/** The request could not be read as a message list at all (not an array, unreadable, too long). */
export interface InvalidRequestViolation {
  kind: 'invalid_request';
  reason: string;
}

/**
 * What a failed check reports: a request that does not reconstruct the fold, an
 * orphaned tool result, or a request that could not be read at all.
 * Reconstruction is reported before pairing, since a pairing diagnosis of a
 * list already known to be wrong says nothing (docs/behaviour.md §3.5).
 */
export type ViolationDetails = ReconstructionViolation | OrphanedToolResultViolation | InvalidRequestViolation;

/** The five violation kinds, as recorded in `nous.session.invariant.kind`. */
export type ViolationKind = ViolationDetails['kind'];

/** What `check` returns. */
export type CheckResult = { ok: true } | { ok: false; violation: ViolationDetails };

/**
 * Thrown by `verify` (and the instrumentation) in strict mode, and only in a
 * test environment: a bookkeeping discrepancy must never take down a live,
 * paid-for run, but a test suite that owns every writer may treat one as a bug.
 */
export class SessionInvariantViolation extends Error {
  /** `'SessionInvariantViolation'`, so stack traces and test reporters name the class. */
  override readonly name = 'SessionInvariantViolation';
  /** The violation the check found: what `check` returned as `violation`. */
  readonly details: ViolationDetails;

  /** Its message is `describeViolation(details)`: roles and tool identifiers, never message content. */
  constructor(details: ViolationDetails) {
    super(`session invariant violated: ${describeViolation(details)}`);
    this.details = details;
    // Sending the same request again cannot pass: frameworks that retry failed model calls (LangChain reads this
    // registered symbol) must give up at once instead of retrying a strict violation for minutes.
    Object.defineProperty(this, NOT_RETRYABLE, { value: false, configurable: true });
  }
}

/**
 * `details` with every sketch's preview blanked: what the package may throw
 * or hand on with content capture off. A thrown error's `details` reach
 * `console.error`, `util.inspect` and `JSON.stringify`, and so test logs and
 * CI artefacts (docs/behaviour.md §6.3).
 */
export function withoutPreviews(details: ViolationDetails): ViolationDetails {
  if (!('extra' in details)) return details;
  return { ...details, extra: details.extra.map(withoutPreview), missing: details.missing.map(withoutPreview) };
}

/** The registered symbol LangChain.js reads on an error to decide whether a model call may be retried. */
const NOT_RETRYABLE = Symbol.for('langchain.errors.retryable');

/** One line, no message content: safe for logs. */
export function describeViolation(details: ViolationDetails): string {
  switch (details.kind) {
    case 'orphaned_tool_result':
      return `orphaned_tool_result: tool result ${JSON.stringify(details.toolCallId)} has no preceding tool call`;
    case 'invalid_request':
      return `invalid_request: ${details.reason}`;
    default: {
      const differs =
        details.differs && details.differs.length > 0
          ? `; the message at index ${details.index} differs in: ${details.differs.join(', ')}`
          : '';
      return (
        `${details.kind} at index ${details.index} ` +
        `(request ${details.requestLength} messages, log ${details.logLength}; ` +
        `extra: ${labels(details.extra)}; missing: ${labels(details.missing)}${differs})`
      );
    }
  }
}

function labels(sketches: readonly MessageSketch[]): string {
  return sketches.length === 0 ? 'none' : sketches.map(label).join(', ');
}

/** `tool(call_1, name get_weather)`: the role and tool identifiers, never content or participant names. */
function label(s: MessageSketch): string {
  if (!('preview' in s)) return s.role;
  const toolName = s.role === 'tool' ? (s.name === null ? 'no name' : `name ${s.name}`) : null;
  const ids = [s.toolCallId, toolName, s.toolCalls > 0 ? `${s.toolCalls} tool calls` : null].filter((x) => x !== null);
  return ids.length === 0 ? s.role : `${s.role}(${ids.join(', ')})`;
}
