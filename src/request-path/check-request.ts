// The one request-check path. Every seam (the SDK client hooks, the fetch
// seam, the AI SDK middleware and channel, the Agents SDK model call) hands
// this module the request and gets back what to do: nothing, or the reply
// to report when it comes; strict mode's throw is the only thing that
// propagates to the seam.
//
// Settings resolve in one order, everywhere: the call's own option, then the
// session bound with `withSession`, then the instrumentation's config, then
// the environment (NOUS_SESSION_INVARIANT and
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT).

import { check } from '../invariant/check';
import type { Mode } from '../invariant/mode';
import { resolveMode } from '../reaction/resolve-mode';
import { getActiveSession, type SessionBinding } from '../invariant/session-binding';
import { actOnCheck, captureContentFromEnv, type CheckReaction } from '../reaction/act-on-check';
import { contentCaptureOption } from '../reaction/content-capture-option';
import { SessionInvariantViolation } from '../invariant/violation';
import type { Message } from '../model/messages';
import { contained } from '../telemetry/internal-error';
import { warnOnce } from '../warnings';
import { conversationIdOf } from '../log/conversation-id';
import { startCheckSpan } from '../telemetry/check-span';
import { currentHost, type HostSettings, type RequestCheckHost } from './host';
import type { CallOptions, ModelRequest, Seam, SerialisedHead } from './model-request';
import { implicitLogEnabled, implicitLogs } from './implicit/registry';
import { uncheckedReason } from './log-guards';
import type { SessionLog } from '../log/session-log';
import type { PendingReply } from './reply';

const isStrictViolation = (error: unknown): boolean => error instanceof SessionInvariantViolation;

/**
 * Whether a model request made now would be checked at all: not when the
 * mode in force is off, nor when no log is bound and the implicit log is
 * off. The SDK client hook and the fetch seam ask before they read a
 * request, so that a check switched off costs no reading of every request.
 * Never throws: when in doubt, the request is read and `checkModelRequest`
 * decides (and reports).
 */
export function checksRequests(): boolean {
  try {
    const session = getActiveSession();
    const settings = currentHost().settings();
    if (modeInForce({}, session, settings) === 'off') return false;
    return session?.log !== undefined || implicitLogEnabled(settings.implicit);
  } catch {
    return true;
  }
}

/**
 * Whether a log is bound where the caller runs now (`withSession`): then a
 * request is checked against it, else against the implicit log. The SDK
 * client hook asks, to check a bound request where it is read and leave
 * the rest for the seam that has the serialised body. Never throws.
 */
export function boundLogInForce(): boolean {
  try {
    return getActiveSession()?.log !== undefined;
  } catch {
    return false;
  }
}

/** The mode a request is checked in: the call's own option, then the bound session's, then the config's, then the environment. */
function modeInForce(call: CallOptions, session: SessionBinding | undefined, settings: HostSettings): Mode {
  return resolveMode(call.mode ?? session?.mode ?? settings.mode);
}

/**
 * Checks one model request. With a log (the call's, else the bound
 * session's) it is `check` against that log; with none, against the
 * implicit conversation it continues (unless that is switched off). Returns
 * where to report the model's reply, when the check wants it. Throws only
 * `SessionInvariantViolation` (strict mode, a test environment, a seam that
 * may throw); every other failure is contained and counted.
 */
export function checkModelRequest(request: ModelRequest, call: CallOptions, seam: Seam): PendingReply | undefined {
  const host = currentHost();
  return contained(seam.name, () => checkWith(host, request, call, seam), undefined, {
    instruments: host.instruments,
    passThrough: isStrictViolation,
    consequence: 'the request went ahead; its check did not finish',
  });
}

/**
 * Checks a request a seam has as bytes (`head`) before reading it: with no
 * log bound, the implicit log first tries to decide it from the bytes alone
 * (a continuation read only in its new elements); otherwise `read()` reads
 * it whole and it is checked as `checkModelRequest` checks it, its body
 * attached. Throws only strict mode's violation.
 */
export function checkSerialisedRequest(head: SerialisedHead, read: () => ModelRequest | undefined, seam: Seam): PendingReply | undefined {
  const host = currentHost();
  return contained(
    seam.name,
    () => {
      const session = getActiveSession();
      const settings = host.settings();
      const mode = modeInForce({}, session, settings);
      if (mode === 'off') return undefined;
      if (session?.log === undefined) {
        const logs = implicitLogs(settings.implicit);
        const outcome = logs?.checkBytes?.(head.body, reactionOf(host, head, {}, session, settings, mode, undefined, seam));
        if (outcome !== undefined) return outcome.pending;
      }
      const request = read();
      if (request === undefined) return undefined;
      request.body ??= head.body;
      return checkWith(host, request, {}, seam);
    },
    undefined,
    { instruments: host.instruments, passThrough: isStrictViolation },
  );
}

/** `checkModelRequest` inside its containment: what it does with the request, in the order of the module's header. */
function checkWith(host: RequestCheckHost, request: ModelRequest, call: CallOptions, seam: Seam): PendingReply | undefined {
  const session = getActiveSession();
  const settings = host.settings();
  const mode = modeInForce(call, session, settings);
  if (mode === 'off') return undefined;
  const log = call.log ?? session?.log;
  if (request.stateful !== undefined) {
    // With no bound log, a chain whose start this process saw is followed: what it adds and the reply extend the
    // conversation, so that a later request re-sending the whole history is checked against it.
    const followed =
      log === undefined && request.continues !== undefined ? implicitLogs(settings.implicit)?.continueHeld(request) : undefined;
    if (followed === undefined) {
      warnOnce(
        `stateful:${request.provider}:${request.stateful}`,
        `requests that use ${request.stateful} keep the conversation on the provider's side; they are not checked`,
      );
    }
    return followed;
  }
  if (log !== undefined && request.references !== undefined) {
    warnOnce(
      `references:${request.provider}`,
      `requests that refer to stored items (item_reference) keep part of the conversation on the provider's side; they are not checked against a bound log`,
    );
    return undefined;
  }
  if (log !== undefined) {
    const unchecked = uncheckedReason(log);
    if (unchecked !== undefined) {
      // An empty reason was already given once, where it arose.
      if (unchecked !== '') warnOnce(`unchecked:${unchecked}`, unchecked);
      return undefined;
    }
  }
  const reaction = reactionOf(host, request, call, session, settings, mode, log, seam);
  if (log !== undefined) {
    actOnCheck(check(log, request.messages as readonly Message[]), reaction);
    return undefined;
  }
  return implicitLogs(settings.implicit)?.check(request, reaction).pending;
}

/** How a check of this request acts on its result (docs/behaviour.md §5.5): the settings in their order, the spans, the counters. */
function reactionOf(
  host: RequestCheckHost,
  request: Pick<ModelRequest, 'provider' | 'model' | 'span'>,
  call: CallOptions,
  session: SessionBinding | undefined,
  settings: HostSettings,
  mode: Mode,
  log: SessionLog | undefined,
  seam: Seam,
): CheckReaction {
  return {
    mode,
    log: log === undefined ? 'implicit' : (call.logKind ?? 'bound'),
    agentName: call.agentName ?? session?.agentName ?? settings.agentName,
    provider: request.provider,
    // The bound session's id; the implicit log sets its conversation's own.
    conversationId:
      log === undefined ? undefined : call.log === undefined ? (session?.conversationId ?? conversationIdOf(log)) : conversationIdOf(log),
    captureContent: contentCaptureOption(call) ?? settings.captureContent ?? captureContentFromEnv(),
    previews: settings.previews,
    span: request.span,
    spanForViolation: (r) =>
      startCheckSpan(host.tracer, {
        provider: request.provider,
        model: request.model,
        agentName: r.agentName,
        conversationId: r.conversationId,
      }),
    instruments: host.instruments,
    // Looked up only when a violation is recorded: the passing path needs no logger.
    get eventLogger() {
      return host.eventLogger;
    },
    mayThrow: seam.mayThrow,
  };
}
