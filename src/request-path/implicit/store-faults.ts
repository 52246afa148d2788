// What a fault of the shared store costs, and how it is made good. A failure
// is counted and warned about once, and leaves the store alone for a pause;
// the buckets and replies whose writes it kept out are remembered and marked
// once a probe finds the store answering, so that no process takes those
// replies for invented ones. The one place that decides what a fault costs a
// check (`degraded`).

import type { Fingerprint } from '../../invariant/fingerprint';
import type { ViolationDetails } from '../../invariant/violation';
import type { InvariantInstruments } from '../../telemetry/instruments';
import { reportInternalError, STEP_SKIPPED } from '../../telemetry/internal-error';
import { ATTR_STORE_REASON } from '../../telemetry/semconv';
import { warnOnce } from '../../warnings';
import type { Decision } from './implicit-logs';
import { RETRY_AFTER_MS, type RedisBuckets } from './redis-buckets';
import { StoreFailure, type StoreErrorReason } from './redis-connection';

/** Buckets whose writes a fault kept out, remembered until the store answers (then marked); more are given up, counted. */
const MAX_DEFERRED_BUCKETS = 1000;
/** Replies remembered per such bucket, the latest kept. */
const MAX_DEFERRED_REPLIES = 64;

/** The shared store's failures and what they kept out, until the store answers again. */
export class StoreFaults {
  readonly #buckets: RedisBuckets;
  readonly #instruments: () => InvariantInstruments;
  #down = false;
  /**
   * Writes a fault kept out, by bucket: the replies observed meanwhile. Once
   * the store answers they are marked, with the bucket (mark-fault.ts), so
   * that no process takes them for invented ones.
   */
  readonly #deferred = new Map<Fingerprint, Fingerprint[]>();
  #flushing: Promise<void> | undefined;
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(buckets: RedisBuckets, instruments: () => InvariantInstruments) {
    this.#buckets = buckets;
    this.#instruments = instruments;
  }

  /** Remembers that a write to bucket `key` (with these replies) was kept out, to be marked once the store answers. */
  defer(key: Fingerprint, replies: readonly Fingerprint[]): void {
    const held = this.#deferred.get(key);
    if (held !== undefined) {
      held.push(...replies);
      if (held.length > MAX_DEFERRED_REPLIES) held.splice(0, held.length - MAX_DEFERRED_REPLIES);
    } else {
      this.#deferred.set(key, replies.slice(-MAX_DEFERRED_REPLIES));
      if (this.#deferred.size > MAX_DEFERRED_BUCKETS) {
        this.#deferred.delete(this.#deferred.keys().next().value!);
        this.#instruments().storeDegraded.add(1, { [ATTR_STORE_REASON]: 'write_dropped' });
      }
    }
    // Tried again after the pause, even if no request comes.
    this.#flushLater();
  }

  /**
   * Marks the buckets and replies a fault kept out, once the store answers
   * again (a store known to be down is probed first, once its pause is
   * over: no request waits for that); on a failure, again after the pause.
   * Resolves when this flush is done (never rejects).
   */
  flush(): Promise<void> {
    if (this.#flushing !== undefined) return this.#flushing;
    if (this.#deferred.size === 0 && this.#buckets.available(Date.now())) return Promise.resolve();
    return (this.#flushing = (async () => {
      if (!(await this.#buckets.probe(Date.now()))) {
        this.#flushLater();
        return;
      }
      this.recovered();
      for (const [key, replies] of [...this.#deferred]) {
        await this.#buckets.markFault(key, replies);
        if (this.#deferred.get(key) === replies) this.#deferred.delete(key);
      }
    })()
      .catch((error: unknown) => this.failed(error))
      .finally(() => {
        this.#flushing = undefined;
        if (this.#deferred.size > 0 && this.#buckets.available(Date.now())) void this.flush();
      }));
  }

  /** A step failed: a store failure pauses the store (a lost race does not), is counted and warned about once; anything else is an internal error. */
  failed(error: unknown): void {
    if (!(error instanceof StoreFailure)) {
      reportInternalError('the shared store', error, STEP_SKIPPED, this.#instruments());
      return;
    }
    // A lost race is no fault of the store: it is not left alone for it.
    if (error.reason !== 'conflict') {
      this.#buckets.pause(Date.now());
      this.#flushLater(); // the probe that finds it answering again
    }
    this.#instruments().storeErrors.add(1, { [ATTR_STORE_REASON]: error.reason });
    if (!this.#down) {
      this.#down = true;
      warnOnce(
        `store:down:${error.reason}`,
        `the shared conversation store failed (${reasonText(error.reason)}): conversations are checked in this process's memory until it answers again`,
      );
    }
  }

  /** The store answered: the next failure is warned about again, and what was kept out is marked. */
  recovered(): void {
    this.#down = false;
    void this.flush();
  }

  /** Flushes after the pause; the timer never holds the process. */
  #flushLater(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      void this.flush();
    }, RETRY_AFTER_MS).unref();
  }
}

/**
 * The decision, unreported when the store's fault may be why it fails: in a
 * bucket a fault hid replies of, or checked in the process's memory while
 * the store is down, a request whose only surplus is assistant messages
 * cannot be told from one that carries replies the store never got (counted
 * as an `unseen_reply` check). The one place that decides what a fault
 * costs a check.
 */
export function degraded(decision: Decision, faulted: boolean, instruments: () => InvariantInstruments): Decision {
  if (!faulted || !surplusIsReplies(decision.violation)) return decision;
  instruments().storeDegraded.add(1, { [ATTR_STORE_REASON]: 'unseen_reply' });
  return { ...decision, violation: undefined };
}

/**
 * Whether a violation's only surplus is assistant messages (an
 * `extra_message` with nothing missing): the shape of a request that carries
 * replies the store has not got (yet, or after a fault).
 */
export function surplusIsReplies(violation: ViolationDetails | undefined): boolean {
  if (violation === undefined || violation.kind !== 'extra_message') return false;
  return (
    violation.missingCount === 0 && violation.extraCount === violation.extra.length && violation.extra.every((s) => s.role === 'assistant')
  );
}

function reasonText(reason: StoreErrorReason): string {
  switch (reason) {
    case 'connection':
      return 'cannot connect';
    case 'timeout':
      return 'timed out';
    case 'script':
      return 'Redis answered a command with an error';
    case 'decode':
      return 'a record could not be read';
    case 'conflict':
      return 'too many concurrent updates';
    case 'auth':
      return "the server refused the URL's credentials, or asks for some it has not";
    case 'client':
      return 'the ioredis package is not installed';
  }
}
