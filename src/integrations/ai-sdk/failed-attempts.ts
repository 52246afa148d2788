// The AI SDK retries a failed model call by calling the model again with a new
// params object holding the same prompt, so neither object identity nor the
// middleware's view of one call tells a retry from a new request. A retry here
// is a request with the same prompt as an attempt that failed, against the
// same log at the same length: anything else (an answered call re-sent, a log
// that grew) is a new request and is checked.

import { fingerprintOf, type Fingerprint } from '../../invariant/fingerprint';
import { getActiveSession } from '../../invariant/session-binding';
import type { SessionLog } from '../../log/session-log';
import type { PendingReply } from '../../request-path/reply';
import { fromAiSdkPrompt } from './adapter';

interface FailedAttempt {
  readonly log: SessionLog | undefined;
  readonly logCount: number;
  readonly pending: PendingReply | undefined;
}

/** Failed attempts kept for a retry; beyond this the oldest is forgotten (a retry then is checked again, which is harmless). */
const MAX_FAILED_ATTEMPTS = 32;

/** The prompt's messages, fingerprinted in order. */
function promptKey(prompt: unknown): Fingerprint {
  let key = 0x811c9dc5;
  if (!Array.isArray(prompt)) return key;
  for (const message of fromAiSdkPrompt(prompt)) key = Math.imul(key ^ fingerprintOf(message), 0x01000193) >>> 0;
  return key;
}

/** Failed attempts of one middleware, so that their retries are one checked request. */
export class FailedAttempts {
  private readonly byKey = new Map<Fingerprint, FailedAttempt>();

  /** Remembers that an attempt with this prompt failed, under the session bound now. */
  record(prompt: unknown, pending: PendingReply | undefined): void {
    const key = promptKey(prompt);
    const log = getActiveSession()?.log;
    this.byKey.delete(key);
    this.byKey.set(key, { log, logCount: log?.count ?? 0, pending });
    if (this.byKey.size > MAX_FAILED_ATTEMPTS) this.byKey.delete(this.byKey.keys().next().value!);
  }

  /**
   * If this request retries a failed attempt, forgets the attempt and returns
   * it (with where its reply goes); otherwise undefined. Free while no attempt
   * has failed.
   */
  takeRetry(prompt: unknown): FailedAttempt | undefined {
    if (this.byKey.size === 0) return undefined;
    const key = promptKey(prompt);
    const attempt = this.byKey.get(key);
    if (!attempt) return undefined;
    const log = getActiveSession()?.log;
    if (attempt.log !== log || attempt.logCount !== (log?.count ?? 0)) return undefined;
    this.byKey.delete(key);
    return attempt;
  }
}
