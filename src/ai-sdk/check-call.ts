// One AI SDK model call checked against the session: shared by the middleware
// and the diagnostics-channel subscriber.

import { trace } from '@opentelemetry/api';
import { fromAiSdkPrompt } from '../adapters/ai-sdk';
import { reportInternalError } from '../internal-error';
import { resolveMode, type Mode } from '../mode';
import { getActiveSession } from '../session-context';
import type { SessionLog } from '../session-log';
import { startModelRequestSpan } from '../telemetry';
import { verifyRequest } from '../verify';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version';
import { SessionInvariantViolation, type ViolationDetails } from '../violation';

export interface AiSdkCheckOptions {
  /** The log to check against; defaults to the session bound with `withSession`. */
  log?: SessionLog | undefined;
  /** Defaults to the bound session's mode, then NOUS_SESSION_INVARIANT. */
  mode?: Mode | undefined;
  agentName?: string | undefined;
  captureContent?: boolean | undefined;
}

export interface AiSdkCall {
  /** The prompt as the model gets it (LanguageModelV4Prompt), or the call's ModelMessages. */
  prompt: readonly unknown[];
  /** `openai.chat`, `anthropic.messages`, ...: the part before the first dot is the provider. */
  provider: string | undefined;
  modelId: string | undefined;
}

export interface AiSdkCheck {
  mode: Mode;
  violation: ViolationDetails | undefined;
}

/**
 * Checks one call and records a violation per the mode. With `mayThrow`
 * false (a diagnostics-channel subscriber cannot throw into the call), strict
 * is recorded as warn. Returns what happened, or undefined when nothing was
 * checked (no session, or mode off). Throws only SessionInvariantViolation.
 */
export function checkAiSdkCall(call: AiSdkCall, options: AiSdkCheckOptions, mayThrow: boolean): AiSdkCheck | undefined {
  try {
    const session = getActiveSession();
    const log = options.log ?? session?.log;
    const mode = resolveMode(options.mode ?? session?.mode);
    if (log === undefined || mode === 'off') return undefined;
    const recordedMode = mayThrow || mode !== 'strict' ? mode : 'warn';
    const span = trace.getActiveSpan();
    const provider = call.provider?.split('.')[0] || undefined;
    const violation = verifyRequest(
      log,
      fromAiSdkPrompt(call.prompt),
      { mode: recordedMode, agentName: options.agentName ?? session?.agentName, provider, captureContent: options.captureContent, ...(span ? { span } : {}) },
      () => startModelRequestSpan(trace.getTracer(PACKAGE_NAME, PACKAGE_VERSION), { provider, model: call.modelId }),
    );
    return { mode, violation };
  } catch (error) {
    if (error instanceof SessionInvariantViolation) throw error;
    reportInternalError('AI SDK check', error);
    return undefined;
  }
}
