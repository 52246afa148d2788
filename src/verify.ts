// `verify`: the check plus its side effects, according to the mode.

import { check } from './check';
import { logWarning, warnOnce } from './logger';
import type { Message } from './messages';
import { isTestEnvironment, resolveMode, type Mode } from './mode';
import type { SessionLog } from './session-log';
import { captureContentFromEnv, recordCheck, recordViolation, type InvariantInstruments } from './telemetry';
import { reportInternalError } from './internal-error';
import { SessionInvariantViolation, describeViolation, type ViolationDetails } from './violation';
import type { Span } from '@opentelemetry/api';

export interface VerifyOptions {
  /** Overrides NOUS_SESSION_INVARIANT; an invalid value falls back to `warn`. */
  mode?: Mode;
  /** Recorded as `gen_ai.agent.name`. */
  agentName?: string;
  /** Recorded as `gen_ai.provider.name` (e.g. `openai`, `anthropic`). */
  provider?: string;
  /** Put message previews on the span event (default: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). */
  captureContent?: boolean;
  /** The span of the model request (default: the active span). */
  span?: Span;
  /** Counters to record on (default: the global meter provider's). */
  instruments?: InvariantInstruments;
}

/**
 * Checks `request` against `log` and acts on the mode. `off` and an absent log
 * return before any work. `warn` records and logs. `strict` records and then
 * throws `SessionInvariantViolation`, but only in a test environment; elsewhere
 * it behaves as `warn`. Apart from that one throw, never throws.
 */
export function verify(log: SessionLog | undefined, request: readonly Message[], options: VerifyOptions = {}): void {
  verifyRequest(log, request, options);
}

/** Where a violation's span event goes when the caller has no span: made on demand, ended after recording. */
export interface ViolationSpanFactory {
  (): { span: Span; end(): void } | undefined;
}

/** @internal `verify`, plus a span made only when there is a violation to record; returns the violation. */
export function verifyRequest(
  log: SessionLog | undefined,
  request: readonly unknown[],
  options: VerifyOptions,
  violationSpan?: ViolationSpanFactory,
): ViolationDetails | undefined {
  let mode: Mode;
  try {
    mode = resolveMode(options.mode);
  } catch {
    mode = 'warn';
  }
  if (mode === 'off' || log === undefined || log === null) return undefined;

  let violation: ViolationDetails | undefined;
  const effectiveMode = mode === 'strict' && !strictAllowedHere() ? 'warn' : mode;
  try {
    const context = { ...options, mode: effectiveMode };
    recordCheck(context);
    const result = check(log, request as readonly Message[]);
    if (result.ok) return undefined;
    violation = result.violation;
    const made = context.span === undefined ? violationSpan?.() : undefined;
    try {
      recordViolation(violation, made ? { ...context, span: made.span } : context);
    } finally {
      made?.end();
    }
    logWarning(violationMessage(violation, options.captureContent ?? captureContentFromEnv(), options.agentName));
  } catch (error) {
    reportInternalError('verify', error, options.instruments);
  }
  if (violation !== undefined && effectiveMode === 'strict') throw new SessionInvariantViolation(violation);
  return violation;
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

function violationMessage(violation: ViolationDetails, captureContent: boolean, agentName: string | undefined): string {
  const agent = agentName ? ` (agent ${agentName})` : '';
  let message = `session invariant violation${agent}: ${describeViolation(violation)}`;
  if (captureContent && 'extra' in violation) {
    message += `; extra previews ${JSON.stringify(violation.extra)}; missing previews ${JSON.stringify(violation.missing)}`;
  }
  return message;
}
