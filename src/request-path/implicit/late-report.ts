// Reporting a check the shared store decided after the caller moved on: on
// the request's span while it is open, else on a check span of its own, a
// child of the request's. The one place that decides where a late report
// lands.

import { context, trace } from '@opentelemetry/api';
import type { CheckReaction } from '../../reaction/act-on-check';
import { reportInternalError, STEP_SKIPPED } from '../../telemetry/internal-error';
import { reportDecision, type Decision } from './implicit-logs';

/** Reports a decision made on the store, never throwing (its own failure is counted). */
export function reportWritten(decision: Decision, reaction: CheckReaction): void {
  try {
    // Replies other processes observed are known here: what is left unobserved was not served by a replica.
    reportDecision({ ...decision, unobservedReplies: false }, reaction);
  } catch (error) {
    reportInternalError('the shared store', error, STEP_SKIPPED, reaction.instruments);
  }
}

/**
 * Runs a report with `reaction` as it stands now: on the request's span
 * while it is open; once it has ended (the caller had its reply before the
 * store answered), on a check span of its own, a child of the request's.
 */
export function atReport<T>(reaction: CheckReaction, act: (reaction: CheckReaction) => T): T {
  const span = reaction.span;
  if (span === undefined || span.isRecording()) return act(reaction);
  const parent = trace.setSpan(context.active(), span);
  const make = reaction.spanForViolation;
  const late: CheckReaction = {
    ...reaction,
    span: undefined,
    spanForViolation: make && ((r) => context.with(parent, () => make(r))),
  };
  return context.with(trace.deleteSpan(context.active()), () => act(late));
}
