// The words for a violation: a plain explanation (what, where, against what),
// and the one warning line built around it (who, which trace, the usual fix,
// the docs link). Roles and tool identifiers only; previews only when the
// caller passes them in (content capture on).

import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';
import type { MessageSketch } from '../invariant/sketch';
import type { ViolationDetails } from '../invariant/violation';
import { docsLinkFor } from './docs-link';
import type { LogKind } from './violation-event';
import { bounded, writtenText } from './written-value';

/** What the line says besides the violation itself. */
export interface LineContext {
  log: LogKind;
  agentName?: string | undefined;
  conversationId?: string | undefined;
  /** The span the event went on, for the trace and span ids. */
  spanContext?: SpanContext | undefined;
  /** Previews are written only with this on (and only those the preview policy let through). */
  captureContent: boolean;
  /** The implicit log's surplus is assistant replies this process never saw a model send. */
  unobservedReplies?: boolean | undefined;
}

/** How the explanation says the surplus is replies this process never saw (the viewer reads it back to pick the fix). */
export const UNOBSERVED_REPLIES_WORDS = 'that this process never saw a model send';

const AGAINST: Record<LogKind, string> = { bound: 'the session log', implicit: 'the conversation so far' };

/**
 * What happened, where and against what, in plain words, with no prompt text:
 * `gen_ai.evaluation.explanation` of the log event and the head of the line.
 */
export function explainViolation(violation: ViolationDetails, log: LogKind, unobservedReplies = false): string {
  const against = AGAINST[log];
  switch (violation.kind) {
    case 'orphaned_tool_result':
      return `orphaned_tool_result: the request carries a tool result (call id ${JSON.stringify(writtenText(violation.toolCallId) ?? null)}) that no earlier tool call in it asked for; the provider would reject it`;
    case 'invalid_request':
      return `invalid_request: the request could not be read as a list of messages (${bounded(violation.reason)})`;
    default: {
      const position =
        `at position ${violation.index} (0-based, after any leading system message ${against} lacks; ` +
        `request ${violation.requestLength} messages, ${against} ${violation.logLength})`;
      const differs = violation.differs?.length ? `; the message there differs in: ${violation.differs.join(', ')}` : '';
      if (violation.kind === 'missing_message') {
        const seen = log === 'implicit' ? 'the model had already been sent' : 'the session log holds';
        return `missing_message: the request left out ${what(violation.missing, violation.missingCount)} ${seen}, ${position}${differs}`;
      }
      if (violation.kind === 'extra_message') {
        const unseen =
          log === 'bound'
            ? 'the session log does not hold'
            : unobservedReplies
              ? UNOBSERVED_REPLIES_WORDS
              : 'the model was never sent and never said';
        return `extra_message: the request carries ${what(violation.extra, violation.extraCount)} ${unseen}, ${position}${differs}`;
      }
      return `order: the request has the messages of ${against} in another order, first ${position}${differs}`;
    }
  }
}

/**
 * For replies this process never saw: with the implicit log in memory, each
 * process knows only the turns it served, so a replica's replies look made up.
 */
const UNOBSERVED_REPLIES_FIX =
  'if other processes (replicas, workers) serve this conversation, another process may have served these replies: share the implicit log with NOUS_SESSION_INVARIANT_STORE=redis://host:6379 (docs/shared-store.md); otherwise a message was made up or copied into the history, so send what the model was sent and said';

/** The usual causes and fixes, one short clause per kind. */
const USUAL_FIX: Record<ViolationDetails['kind'], Record<LogKind, string>> = {
  missing_message: {
    bound: 'usually history trimming or a rebuilt message list; keep the message, or record the trim in the log (compaction)',
    implicit: 'usually history trimming or a rebuilt message list; keep the message, or bind a session log that records the trim',
  },
  extra_message: {
    bound: 'usually a message added to the request but never appended to the log; append it to the log before the call',
    implicit: 'usually a message made up or copied into the history; send what the model was sent and said',
  },
  order: {
    bound: 'usually a history re-sorted or re-assembled; keep the messages in the order the log has them',
    implicit: 'usually a history re-sorted or re-assembled; keep the messages in the order they were sent',
  },
  orphaned_tool_result: {
    bound: 'usually the assistant message with the tool call was dropped and its result kept; keep or drop both',
    implicit: 'usually the assistant message with the tool call was dropped and its result kept; keep or drop both',
  },
  invalid_request: {
    bound: 'usually a framework handed over something other than a message list; please report it with the framework and version',
    implicit: 'usually a framework handed over something other than a message list; please report it with the framework and version',
  },
};

/**
 * The one place that words the usual cause and fix of a violation of `kind`
 * against a `log`: the warning line's "Fix:" and the viewer's. Undefined for
 * a kind this version does not know (the viewer may hear from a newer one).
 */
export function usualFix(kind: string, log: string | undefined, unobservedReplies = false): string | undefined {
  if (!Object.hasOwn(USUAL_FIX, kind)) return undefined;
  if (unobservedReplies && kind === 'extra_message') return UNOBSERVED_REPLIES_FIX;
  return USUAL_FIX[kind as ViolationDetails['kind']][log === 'bound' ? 'bound' : 'implicit'];
}

/**
 * The warning line for one violation (the logger adds the `[nous-session-invariant]`
 * prefix and escapes control characters). Every caller-supplied value in it is
 * read safely and bounded (`writtenText`).
 */
export function violationLine(violation: ViolationDetails, context: LineContext): string {
  const agent = writtenText(context.agentName);
  const conversation = writtenText(context.conversationId);
  const who = [agent ? `agent ${agent}` : undefined, conversation ? `conversation ${conversation}` : undefined].filter(
    (x) => x !== undefined,
  );
  const span = context.spanContext;
  const where = span && isSpanContextValid(span) ? `; trace ${span.traceId} span ${span.spanId}` : '';
  let line = `session invariant violation: ${explainViolation(violation, context.log, context.unobservedReplies)}`;
  if (who.length > 0) line += `; ${who.join(', ')}`;
  line += `${where}. Fix: ${usualFix(violation.kind, context.log, context.unobservedReplies)}. See ${docsLinkFor(violation.kind)}`;
  if (context.captureContent && 'extra' in violation) {
    line += ` (previews: extra ${JSON.stringify(violation.extra.map(previewOf))}, missing ${JSON.stringify(violation.missing.map(previewOf))})`;
  }
  return line;
}

/** `a tool result (call id call_1, name get_weather)`, or `3 messages, the first tool(call id call_1, ...)`. */
function what(sketches: readonly MessageSketch[], count: number): string {
  const first = sketches[0];
  if (first === undefined) return count === 1 ? 'a message' : `${count} messages`;
  if (count > 1) return `${count} messages, the first ${label(first)},`;
  const noun = Object.hasOwn(NOUN, first.role) ? NOUN[first.role] : undefined;
  if (noun === undefined) return `a message (${label(first)})`;
  const ids = identifiers(first);
  return ids === '' ? noun : `${noun} (${ids})`;
}

const NOUN: Readonly<Record<string, string>> = { tool: 'a tool result', assistant: 'a model reply', user: 'a user message' };

/** `tool(call id call_1, name get_weather)`: the role and tool identifiers, never content or participant names. */
function label(s: MessageSketch): string {
  const ids = identifiers(s);
  const role = writtenText(s.role) ?? 'invalid';
  return ids === '' ? role : `${role}(${ids})`;
}

/** `call id call_1, name get_weather`, `2 tool calls`, or `''`. */
function identifiers(s: MessageSketch): string {
  if (!('preview' in s)) return '';
  const toolName = s.role === 'tool' ? (s.name === null ? 'no name' : `name ${writtenText(s.name) ?? ''}`) : null;
  const ids = [
    s.toolCallId === null ? null : `call id ${writtenText(s.toolCallId) ?? ''}`,
    toolName,
    s.toolCalls > 0 ? `${s.toolCalls} tool calls` : null,
  ];
  return ids.filter((x) => x !== null).join(', ');
}

function previewOf(sketch: MessageSketch): string | null {
  return 'preview' in sketch ? sketch.preview : null;
}
