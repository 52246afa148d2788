// `verify`: the check plus its side effects, according to the mode.

import { trace, type Span } from '@opentelemetry/api';
import type { SessionLog } from '../log/session-log';
import { reportInternalError } from '../telemetry/internal-error';
import type { InvariantInstruments } from '../telemetry/instruments';
import { logWarning, warnOnce } from '../telemetry/logger';
import type { OwnedSpan } from '../telemetry/model-request-span';
import { CAPTURE_CONTENT_ENV_VAR } from '../telemetry/semconv';
import { recordCheck, recordViolation, type LogKind } from '../telemetry/violation-event';
import { check } from './check';
import type { Message } from './messages';
import { isTestEnvironment, readEnvFlag, resolveMode, type Mode } from './mode';
import { SessionInvariantViolation, describeViolation, withoutPreviews, type CheckResult, type ViolationDetails } from './violation';

/**
 * Options of `verify`. Unlike the request path, `verify` consults neither a
 * bound session nor an instrumentation config: its settings are these, then the
 * environment (docs/behaviour.md §5.4).
 */
export interface VerifyOptions {
  /** Overrides NOUS_SESSION_INVARIANT; a value that is not a mode falls back to `warn`. */
  mode?: Mode;
  /** Recorded as `gen_ai.agent.name`. */
  agentName?: string;
  /** Recorded as `gen_ai.provider.name` (`openai`, `anthropic`, ...). */
  provider?: string;
  /** Message previews on the span event (default: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true). */
  captureContent?: boolean;
  /** The span of the model request (default: the active span). */
  span?: Span;
}

/**
 * Checks `request` against `log` and acts on the mode: `off`, and a request
 * with no log (`undefined`: no session in scope), return before any work;
 * `warn` records the violation (span event and counter) and logs one line;
 * `strict` does the same and then throws `SessionInvariantViolation`, but
 * only in a test environment: elsewhere it behaves as `warn` and says once
 * why. Apart from that one throw, never throws.
 */
export function verify(log: SessionLog | undefined, request: readonly Message[], options: VerifyOptions = {}): void {
  const mode = resolveMode(options.mode);
  if (mode === 'off' || log === undefined || log === null) return;
  let result: CheckResult;
  try {
    result = check(log, request);
  } catch (error) {
    reportInternalError('verify', error);
    return;
  }
  actOnCheck(result, {
    mode,
    log: 'bound',
    agentName: options.agentName,
    provider: options.provider,
    captureContent: options.captureContent ?? captureContentFromEnv(),
    span: options.span,
    mayThrow: true,
  });
}

/** Everything needed to act on a check: settled by whoever ran it (`verify`, or the request path). */
export interface CheckReaction {
  /** The mode in force (never `off`: that returned before the check). */
  mode: Mode;
  log: LogKind;
  agentName: string | undefined;
  provider: string | undefined;
  captureContent: boolean;
  /** The request's span, when the seam knows it (else the active span, else `spanForViolation`). */
  span?: Span | undefined;
  /** A span to carry the event when there is neither: made only on a violation, ended after it is recorded. */
  spanForViolation?: (() => OwnedSpan | undefined) | undefined;
  instruments?: InvariantInstruments | undefined;
  /** False where a throw cannot reach the caller (a diagnostics-channel subscriber): strict is recorded as warn. */
  mayThrow: boolean;
}

/**
 * Records a check and, for a violation, the span event, the counter and one
 * warning; throws `SessionInvariantViolation` in strict mode in a test
 * environment. Its own failures are reported as internal errors, never thrown.
 */
export function actOnCheck(result: CheckResult, reaction: CheckReaction): ViolationDetails | undefined {
  const throws = reaction.mode === 'strict' && reaction.mayThrow && strictAllowedHere();
  const recordedMode: Mode = reaction.mode === 'strict' && !throws ? 'warn' : reaction.mode;
  const violation = result.ok ? undefined : result.violation;
  try {
    const context = { ...reaction, mode: recordedMode };
    recordCheck(context);
    if (violation !== undefined) {
      const span = reaction.span ?? trace.getActiveSpan();
      const owned = span === undefined ? reaction.spanForViolation?.() : undefined;
      try {
        recordViolation(violation, { ...context, span: owned?.span ?? span });
      } finally {
        owned?.end();
      }
      logWarning(violationMessage(violation, reaction));
    }
  } catch (error) {
    reportInternalError('recording a check', error, reaction.instruments);
  }
  // The error reaches the app's logs: it carries previews only where telemetry would.
  if (violation !== undefined && throws)
    throw new SessionInvariantViolation(reaction.captureContent ? violation : withoutPreviews(violation));
  return violation;
}

/** `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` switches message previews on. */
export function captureContentFromEnv(): boolean {
  return readEnvFlag(CAPTURE_CONTENT_ENV_VAR) === true;
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

function violationMessage(violation: ViolationDetails, reaction: CheckReaction): string {
  const agent = reaction.agentName ? ` (agent ${reaction.agentName})` : '';
  const log = reaction.log === 'implicit' ? ' against the conversation so far' : '';
  let message = `session invariant violation${agent}${log}: ${describeViolation(violation)}`;
  if (reaction.captureContent && 'extra' in violation) {
    message += `; extra previews ${JSON.stringify(violation.extra)}; missing previews ${JSON.stringify(violation.missing)}`;
  }
  return message;
}
