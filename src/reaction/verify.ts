// `verify`: the check plus its reaction, according to the mode, for callers
// that hold a log and a request of their own.

import type { Span } from '@opentelemetry/api';
import { check } from '../invariant/check';
import type { Mode } from '../invariant/mode';
import { resolveMode } from './resolve-mode';
import type { CheckResult } from '../invariant/violation';
import { conversationIdOf } from '../log/conversation-id';
import type { SessionLog } from '../log/session-log';
import type { Message } from '../model/messages';
import { reportInternalError } from '../telemetry/internal-error';
import { actOnCheck } from './act-on-check';
import { captureContentFromEnv, contentCaptureOption, type ContentCaptureOption } from './content-capture-option';

/**
 * Options of `verify`. Unlike the request path, `verify` consults neither a
 * bound session nor an instrumentation config: its settings are these, then the
 * environment (docs/behaviour.md §5.4).
 */
export interface VerifyOptions extends ContentCaptureOption {
  /** Overrides NOUS_SESSION_INVARIANT; a value that is not a mode falls back to `warn`. */
  mode?: Mode;
  /** Recorded as `gen_ai.agent.name`. */
  agentName?: string;
  /** Recorded as `gen_ai.provider.name` (`openai`, `anthropic`, ...). */
  provider?: string;
  /** The span of the model request (default: the active span). */
  span?: Span;
  /** Recorded as `gen_ai.conversation.id` on the span event and the log event (never on the counters); default: the log's own random id. */
  conversationId?: string;
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
    reportInternalError('verify', error, 'the request was not checked');
    return;
  }
  actOnCheck(result, {
    mode,
    log: 'bound',
    agentName: options.agentName,
    provider: options.provider,
    conversationId: options.conversationId ?? conversationIdOf(log),
    captureContent: contentCaptureOption(options) ?? captureContentFromEnv(),
    span: options.span,
    mayThrow: true,
  });
}
