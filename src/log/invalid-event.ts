// Why the log refuses an event: the error every validation step returns, in a
// module of its own so the event rules and the JSON-safe copy both use it.

import type { Outcome } from '../result';

/**
 * Why an event was refused, one code per rule of docs/behaviour.md §2.3:
 * `unknown_type`, `replace_on_bookkeeping`, `invalid_replace`, `unserializable`
 * (a value JSON cannot carry), `too_large` (more than `MAX_DATA_VALUES` JSON
 * values), `invalid_data`, `invalid_time`, and `invalid_seq` (only from
 * `SessionLog.fromEvents`).
 */
export type InvalidEventCode =
  | 'unknown_type'
  | 'replace_on_bookkeeping'
  | 'invalid_replace'
  | 'unserializable'
  | 'too_large'
  | 'invalid_data'
  | 'invalid_time'
  | 'invalid_seq';

/** Why an event was refused. Returned by `append`, thrown only by `SessionLog.fromEvents`. */
export class InvalidEventError extends Error {
  /** `'InvalidEventError'`, so stack traces and `String(error)` name the class. */
  override readonly name = 'InvalidEventError';
  /** Which rule refused the event; see `InvalidEventCode`. */
  readonly code: InvalidEventCode;
  /** Where in `data` the problem is, e.g. `data.metadata.cb`. */
  readonly path: string | undefined;
  /** The index of the offending event, when restoring with `fromEvents`. */
  readonly index: number | undefined;

  /**
   * Made by the log's validation. `append` returns it; `SessionLog.fromEvents`
   * throws it, with `index` set, because a corrupt store must not be replayed
   * silently (docs/behaviour.md §2.5).
   */
  constructor(code: InvalidEventCode, message: string, options: { path?: string | undefined; index?: number | undefined } = {}) {
    super(message);
    this.code = code;
    this.path = options.path;
    this.index = options.index;
  }
}

/**
 * The result of a validation step: the validated value (for event data, the
 * log's own frozen copy), or the `InvalidEventError` that refused it.
 */
export type Validated<T> = Outcome<{ value: T }, { error: InvalidEventError }>;
