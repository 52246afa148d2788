// Typed refusals of the session operations: returned, never thrown.

export type SessionErrorCode =
  | 'invalid_range'
  | 'out_of_range'
  | 'overlay_message'
  | 'invalid_boundary'
  | 'open_turn'
  | 'invalid_option'
  | 'append_failed';

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

export type Result<T> = ({ ok: true } & T) | { ok: false; error: SessionError };

export function refuse(code: SessionErrorCode, message: string, options?: { turnStartSeq?: number }): { ok: false; error: SessionError } {
  return { ok: false, error: new SessionError(code, message, options) };
}
