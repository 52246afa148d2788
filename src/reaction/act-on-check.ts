// The reaction to a check, according to the mode: record it (span event,
// counters, the evaluation log event), warn, and in strict mode in a test
// environment throw. The check itself (invariant/) stays pure; this is where
// its result meets telemetry.

import { trace, type Span } from '@opentelemetry/api';
import type { Mode } from '../invariant/mode';
import { isTestEnvironment } from '../environment';
import { SessionInvariantViolation, withoutPreviews, type CheckResult, type ViolationDetails } from '../invariant/violation';
import type { OwnedSpan } from '../telemetry/check-span';
import { apiEventLogger, emitEvaluationEvent, type EventLogger } from '../telemetry/evaluation-event';
import type { InvariantInstruments } from '../telemetry/instruments';
import { reportInternalError } from '../telemetry/internal-error';
import { applyPreviewPolicy, type PreviewPolicy } from '../telemetry/previews';
import { redactSecretsFromEnv } from '../telemetry/secret-shapes';
import { tracingSuppressed } from '../telemetry/suppressed';
import { recordCheck, recordViolation, type LogKind } from '../telemetry/violation-event';
import { violationLine } from '../telemetry/violation-line';
import { MAX_WRITTEN_LENGTH, writtenText } from '../telemetry/written-value';
import { logWarning, warnOnce } from '../warnings';

/** Everything needed to act on a check: settled by whoever ran it (`verify`, or the request path). */
export interface CheckReaction {
  /** The mode in force (never `off`: that returned before the check). */
  mode: Mode;
  log: LogKind;
  agentName: string | undefined;
  provider: string | undefined;
  /** `gen_ai.conversation.id`: the bound session's, or the implicit conversation's (set by the implicit log). */
  conversationId?: string | undefined;
  captureContent: boolean;
  /** The app's redact hook and preview length; previews pass through them before anything records them. */
  previews?: PreviewPolicy | undefined;
  /** The request's span, when the seam knows it (else the active span, else `spanForViolation`). */
  span?: Span | undefined;
  /** A span to carry the event when there is neither: made only on a violation, ended after it is recorded. */
  spanForViolation?: ((reaction: CheckReaction) => OwnedSpan | undefined) | undefined;
  instruments?: InvariantInstruments | undefined;
  /** Where the `gen_ai.evaluation.result` log event goes (default: `eventLoggerSource`'s, else the global logger provider's). */
  eventLogger?: EventLogger | undefined;
  /**
   * Where the event logger is looked up when `eventLogger` is not given
   * (the request path's host), only when a violation is recorded: the
   * passing path needs no logger. An object, not a getter on the reaction,
   * which would make every request's reaction a slow object to build.
   */
  eventLoggerSource?: { readonly eventLogger: EventLogger | undefined } | undefined;
  /** False where a throw cannot reach the caller (a diagnostics-channel subscriber): strict is recorded as warn. */
  mayThrow: boolean;
  /** The implicit log's surplus is assistant replies this process never saw a model send (its store is in memory). */
  unobservedReplies?: boolean | undefined;
}

/**
 * Records a check and, for a violation, the span event, the counter and one
 * warning; throws `SessionInvariantViolation` in strict mode in a test
 * environment. Its own failures are reported as internal errors, never thrown.
 * Inside `suppressTracing` it records, warns and throws nothing, on every
 * channel alike, as contrib's instrumentations do (docs/behaviour.md §6.7);
 * the caller has already let the implicit log follow the request.
 */
export function actOnCheck(result: CheckResult, reaction: CheckReaction): ViolationDetails | undefined {
  if (tracingSuppressed()) return undefined;
  const throws = reaction.mode === 'strict' && reaction.mayThrow && strictAllowedHere();
  const recordedMode: Mode = reaction.mode === 'strict' && !throws ? 'warn' : reaction.mode;
  const violation = result.ok ? undefined : result.violation;
  // What may leave the process: previews only with content capture on, and then through the app's policy.
  let shown = violation === undefined ? undefined : withoutPreviews(violation);
  // What has been recorded so far, so a failure's line says what actually happened.
  let done: Recorded = 'nothing';
  try {
    // A reaction carries everything a record needs: copied only when strict is recorded as warn or a value needs bounding.
    const context = writable(recordedMode === reaction.mode ? reaction : { ...reaction, mode: recordedMode });
    recordCheck(context);
    done = 'the check';
    if (violation !== undefined && shown !== undefined) {
      if (context.captureContent)
        shown = applyPreviewPolicy(violation, previewPolicy(context.previews), (error) =>
          reportInternalError('the redact hook', error, 'that preview was dropped; the violation was recorded', context.instruments),
        );
      const span = context.span ?? trace.getActiveSpan();
      const owned = span === undefined ? context.spanForViolation?.(context) : undefined;
      const target = owned?.span ?? span;
      try {
        recordViolation(shown, { ...context, span: target });
        done = 'the violation';
        emitEvaluationEvent(context.eventLogger ?? context.eventLoggerSource?.eventLogger ?? apiEventLogger(), shown, context, target);
        done = 'the violation and its log event';
      } finally {
        owned?.end();
      }
      logWarning(violationLine(shown, { ...context, spanContext: target?.spanContext() }));
    }
  } catch (error) {
    reportInternalError('recording a check', error, RECORDED[done], reaction.instruments);
  }
  // The error reaches the app's logs: it carries previews only where telemetry would.
  if (shown !== undefined && throws) throw new SessionInvariantViolation(shown);
  return violation;
}

type Recorded = 'nothing' | 'the check' | 'the violation' | 'the violation and its log event';

/** What a failure part-way through recording cost, by what was recorded before it. */
const RECORDED: Record<Recorded, string> = {
  nothing: 'nothing about this check was recorded',
  'the check': 'the check was counted; the violation it found was not recorded',
  'the violation': 'the violation was recorded (span event, counter), without its log event and warning line',
  'the violation and its log event': 'the violation was recorded (span event, counter, log event), without its warning line',
};

/**
 * `reaction` with its caller-supplied values (agent name, conversation id)
 * read once, safely, and bounded (docs/behaviour.md §6.6). The same object
 * when they already are plain strings within the bound, as nearly always.
 */
function writable(reaction: CheckReaction): CheckReaction {
  const { agentName, conversationId } = reaction;
  if (isPlain(agentName) && isPlain(conversationId)) return reaction;
  return { ...reaction, agentName: writtenText(agentName), conversationId: writtenText(conversationId) };
}

function isPlain(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && value.length <= MAX_WRITTEN_LENGTH);
}

/** The app's policy, with secret redaction on unless the policy or NOUS_SESSION_INVARIANT_REDACT_SECRETS turns it off. */
function previewPolicy(policy: PreviewPolicy | undefined): PreviewPolicy {
  return { ...policy, redactSecrets: policy?.redactSecrets ?? redactSecretsFromEnv() };
}

function strictAllowedHere(): boolean {
  if (isTestEnvironment()) return true;
  warnOnce(
    'strict-outside-tests',
    'mode "strict" only throws in a test environment (NODE_ENV=test, VITEST, NODE_TEST_CONTEXT or JEST_WORKER_ID); ' +
      'here it behaves as "warn", so a bookkeeping discrepancy cannot take down a live run',
  );
  return false;
}
