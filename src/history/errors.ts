// Typed refusals of the history operations: returned, never thrown.

import { refusal, type Outcome } from '../result';

export type SessionErrorCode =
  'invalid_range' | 'out_of_range' | 'overlay_message' | 'invalid_boundary' | 'open_turn' | 'invalid_option' | 'append_failed';

/** Why a history operation (compaction, fork, rewind) was refused. */
export class SessionError extends Error {
  override readonly name = 'SessionError';
  readonly code: SessionErrorCode;
  /** For `open_turn`: the seq of the innermost open `turn_start`. */
  readonly turnStartSeq: number | undefined;

  constructor(code: SessionErrorCode, message: string, options: { turnStartSeq?: number } = {}) {
    super(message);
    this.code = code;
    this.turnStartSeq = options.turnStartSeq;
  }
}

/** A history operation's result: its value, or the SessionError that refused it. */
export type Result<T extends object> = Outcome<T, { error: SessionError }>;

export function refuse(code: SessionErrorCode, message: string, options?: { turnStartSeq?: number }): { ok: false; error: SessionError } {
  return refusal(new SessionError(code, message, options));
}
