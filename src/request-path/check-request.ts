// The one request-check path. Every seam (the SDK client hooks, the fetch
// seam, the AI SDK middleware and channel, the Agents SDK model call) hands
// this module the request and gets back what to do: nothing, or the reply
// to report when it comes; strict mode's throw is the only thing that
// propagates to the seam.
//
// Settings resolve in one order, everywhere (`contextOf`): the call's own
// option, then the session bound with `withSession`, then the
// instrumentation's config, then the environment (NOUS_SESSION_INVARIANT and
// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT), which the host reads
// once, not per request (host.ts).

import { check, checkByPosition } from '../invariant/check';
import type { Mode } from '../invariant/mode';
import { resolveMode } from '../reaction/resolve-mode';
import { getActiveSession, type SessionBinding } from '../invariant/session-binding';
import { actOnCheck, type CheckReaction } from '../reaction/act-on-check';
import { contentCaptureOption } from '../reaction/content-capture-option';
import { SessionInvariantViolation } from '../invariant/violation';
import type { Message } from '../model/messages';
import { contained } from '../telemetry/internal-error';
import { warnOnce } from '../warnings';
import { conversationIdOf } from '../log/conversation-id';
import { startCheckSpan } from '../telemetry/check-span';
import { currentHost, type HostSettings, type RequestCheckHost } from './host';
import type { CallOptions, ModelRequest, Seam, SerialisedBody, SerialisedHead } from './model-request';
import { implicitLogEnabled, implicitLogs } from './implicit/registry';
import { uncheckedReason } from './log-guards';
import type { SessionLog } from '../log/session-log';
import type { PendingReply } from './reply';

const isStrictViolation = (error: unknown): boolean => error instanceof SessionInvariantViolation;

/**
 * A request about to be checked, with what decided it: the session bound
 * where the caller runs, the settings, the mode and the log it is checked
 * against (undefined: the implicit log).
 */
interface CheckContext {
  host: RequestCheckHost;
  session: SessionBinding | undefined;
  settings: HostSettings;
  mode: Mode;
  log: SessionLog | undefined;
}

/**
 * The one place that resolves a check's settings, in the order of the
 * module's header (the call's option, the bound session, the config, the
 * environment): undefined when the mode in force is off, and the check
 * stops before any work.
 */
function contextOf(host: RequestCheckHost, call: CallOptions): CheckContext | undefined {
  const session = getActiveSession();
  const settings = host.settings();
  const mode = resolveMode(call.mode ?? session?.mode ?? settings.mode);
  if (mode === 'off') return undefined;
  return { host, session, settings, mode, log: call.log ?? session?.log };
}

/**
 * How a model request made now would be checked: not at all (`unchecked`:
 * the mode in force is off, or no log is bound and the implicit log is
 * off), against the log bound where the caller runs (`bound`, with
 * `withSession`), or against the implicit log (`implicit`). The SDK client
 * hook and the fetch seam ask before they read a request, so that a check
 * switched off costs no reading of every request, and the hook checks a
 * bound request where it reads it and leaves the rest for the seam that has
 * the serialised body. Settings and session are read once for both answers.
 * Never throws: when in doubt, the request is read and `checkModelRequest`
 * decides (and reports).
 */
export function checkRoute(): 'unchecked' | 'bound' | 'implicit' {
  try {
    const context = contextOf(currentHost(), {});
    if (context === undefined) return 'unchecked';
    if (context.log !== undefined) return 'bound';
    return implicitLogEnabled(context.settings.implicit) ? 'implicit' : 'unchecked';
  } catch {
    return 'implicit';
  }
}

/** Whether a model request made now would be checked at all (`checkRoute`). Never throws. */
export function checksRequests(): boolean {
  return checkRoute() !== 'unchecked';
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
  return checkContained(seam, (host) => checkInOrder(host, call, seam, request, undefined, () => request));
}

/**
 * Checks a request a seam has as bytes (`head`) before reading it: with no
 * log bound, the implicit log first tries to decide it from the bytes alone
 * (a continuation read only in its new elements); otherwise `read()` reads
 * it whole and it is checked as `checkModelRequest` checks it, its body
 * attached. Throws only strict mode's violation.
 */
export function checkSerialisedRequest(head: SerialisedHead, read: () => ModelRequest | undefined, seam: Seam): PendingReply | undefined {
  return checkContained(seam, (host) => checkInOrder(host, {}, seam, head, head.body, read));
}

function checkContained(seam: Seam, run: (host: RequestCheckHost) => PendingReply | undefined): PendingReply | undefined {
  const host = currentHost();
  return contained(seam.name, () => run(host), undefined, {
    instruments: host.instruments,
    passThrough: isStrictViolation,
    consequence: 'the request went ahead; its check did not finish',
  });
}

/**
 * The one order of a check, for a request in hand and one still in bytes
 * alike: the settings (`contextOf`); the guards, which leave a request
 * unchecked or follow it without comparing (a stateful request, a bound
 * log that cannot be checked now); only then the byte fast path, which a
 * guarded request never reaches; then the request read whole and checked.
 * `head` is what is known before reading (the request itself, or a seam's
 * serialised head); `read` gives the request whole.
 */
function checkInOrder(
  host: RequestCheckHost,
  call: CallOptions,
  seam: Seam,
  head: Pick<ModelRequest, 'provider' | 'model' | 'span' | 'stateful'>,
  body: SerialisedBody | undefined,
  read: () => ModelRequest | undefined,
): PendingReply | undefined {
  const context = contextOf(host, call);
  if (context === undefined) return undefined;
  const { log, settings } = context;
  // No guard reads the bytes: a request any guard may stop is read whole first (a bound log never takes the byte path).
  if (body !== undefined && head.stateful === undefined && log === undefined) {
    const outcome = implicitLogs(settings.implicit)?.checkBytes?.(body, reactionOf(context, head, call, seam));
    if (outcome !== undefined) return outcome.pending;
  }
  const request = read();
  if (request === undefined) return undefined;
  if (body !== undefined) request.body ??= body;
  if (guarded(context, request)) {
    // With no bound log, a chain whose start this process saw is followed: what it adds and the reply extend the
    // conversation, so that a later request re-sending the whole history is checked against it.
    const followed =
      log === undefined && request.stateful !== undefined && request.continues !== undefined
        ? implicitLogs(settings.implicit)?.continueHeld(request)
        : undefined;
    if (followed === undefined && request.stateful !== undefined) {
      warnOnce(
        `stateful:${request.provider}:${request.stateful}`,
        `requests that use ${request.stateful} keep the conversation on the provider's side; they are not checked`,
      );
    }
    return followed;
  }
  const reaction = reactionOf(context, request, call, seam);
  if (log !== undefined) {
    const messages = request.messages as readonly Message[];
    actOnCheck(request.callIds === 'positional' ? checkByPosition(log, messages) : check(log, messages), reaction);
    return undefined;
  }
  return implicitLogs(settings.implicit)?.check(request, reaction).pending;
}

/**
 * The guards, in their order: a stateful request (the provider keeps the
 * conversation: nothing to reconstruct), then, with a bound log, a request
 * that refers to stored items, then a log that must not be checked now
 * (log-guards.ts). True when the request is not compared; each says why once.
 */
function guarded(context: CheckContext, request: ModelRequest): boolean {
  if (request.stateful !== undefined) return true;
  const log = context.log;
  if (log === undefined) return false;
  if (request.references !== undefined) {
    warnOnce(
      `references:${request.provider}`,
      `requests that refer to stored items (item_reference) keep part of the conversation on the provider's side; they are not checked against a bound log`,
    );
    return true;
  }
  const unchecked = uncheckedReason(log);
  // An empty reason was already given once, where it arose.
  if (unchecked !== undefined && unchecked !== '') warnOnce(`unchecked:${unchecked}`, unchecked);
  return unchecked !== undefined;
}

/** How a check of this request acts on its result (docs/behaviour.md §5.5): the settings in their order, the spans, the counters. */
function reactionOf(
  { host, session, settings, mode, log }: CheckContext,
  request: Pick<ModelRequest, 'provider' | 'model' | 'span'>,
  call: CallOptions,
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
    // Both hosts resolve content capture once (host.ts): nothing is read from the environment per request.
    captureContent: contentCaptureOption(call) ?? settings.captureContent ?? false,
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
    eventLoggerSource: host,
    mayThrow: seam.mayThrow,
  };
}
