// Typed refusals of the history operations: returned, never thrown.

import { refusal, type Outcome } from '../result';

/**
 * Why a history operation was refused (docs/behaviour.md §7.2, §7.3):
 *
 * - `invalid_range`, `out_of_range`, `overlay_message`: `replaceRange` indices
 *   that are not `0 <= first <= last`, past the view, or on the overlay's own
 *   message;
 * - `invalid_boundary`, `out_of_range`, `open_turn`: a `fork` or `rewind`
 *   boundary that is not an index or `'last'`, past the log, or inside an open
 *   turn;
 * - `invalid_option`: a bad option or an unknown message role;
 * - `append_failed`: the log refused the event.
 */
export type SessionErrorCode =
  'invalid_range' | 'out_of_range' | 'overlay_message' | 'invalid_boundary' | 'open_turn' | 'invalid_option' | 'append_failed';

/** Why a history operation (compaction, fork, rewind) was refused. */
export class SessionError extends Error {
  /** `'SessionError'`, so stack traces and `String(error)` name the class. */
  override readonly name = 'SessionError';
  /** Which rule refused the operation; see `SessionErrorCode`. */
  readonly code: SessionErrorCode;
  /** For `open_turn`: the seq of the innermost open `turn_start`. */
  readonly turnStartSeq: number | undefined;

  /**
   * Made by the history operations, which return it in `{ ok: false, error }`
   * and never throw it. `turnStartSeq` is set only for `open_turn`.
   */
  constructor(code: SessionErrorCode, message: string, options: { turnStartSeq?: number } = {}) {
    super(message);
    this.code = code;
    this.turnStartSeq = options.turnStartSeq;
  }
}

/** A history operation's result: its value, or the SessionError that refused it. */
export type Result<T extends object> = Outcome<T, { error: SessionError }>;

/**
 * A refusal `{ ok: false, error }` carrying a new `SessionError`. History
 * operations return their refusals instead of throwing them, so a bad range or
 * boundary in an agent loop is a value to handle, not a crash
 * (docs/behaviour.md §7).
 */
export function refuse(code: SessionErrorCode, message: string, options?: { turnStartSeq?: number }): { ok: false; error: SessionError } {
  return refusal(new SessionError(code, message, options));
}
