// The implicit log shared between processes through Redis (docs/shared-store.md,
// docs/behaviour.md §10). A request's candidate conversations (its bucket:
// those that start like it) are loaded into an in-memory store of the
// request's own, the usual rules decide against it, and what changed is
// written back with the reply, in one compare-and-set: a process that loses
// the race reads again and decides again. Nothing here is on the caller's
// path: the read runs while the provider answers, the write after the reply
// (the caller waits for neither). Ordering is kept by the readers: a request
// waits for this process's previous writes on its bucket, and a request that
// carries a reply the store has not got yet reads again before it reports.
// Any failure leaves the call alone: counted, warned about once, and checked
// on the process's own memory until the store answers again.
//
// This module steps each request's exchange with the store; its parts live
// beside it: `shared-exchange.ts` (an exchange's state), `bucket-writes.ts`
// (decide on a bucket, compare-and-set), `store-faults.ts` (what a fault
// costs and how it is made good), `late-report.ts` (where a late report
// lands) and `unref-waits.ts`.

import { trace } from '@opentelemetry/api';
import type { CheckReaction } from '../../reaction/act-on-check';
import type { InvariantInstruments } from '../../telemetry/instruments';
import { warnOnce } from '../../warnings';
import type { PendingReply } from '../reply';
import type { ModelRequest } from '../model-request';
import { currentRun, type RunKey } from '../run';
import type { Fingerprint } from '../../invariant/fingerprint';
import type { ImplicitLogs, ImplicitOutcome, ReadRequest } from './implicit-logs';
import type { RedisBuckets } from './redis-buckets';
import { StoreFailure } from './redis-connection';
import { BucketWrites } from './bucket-writes';
import { atReport, reportWritten } from './late-report';
import { Exchange, replyFingerprints, runName, type GivenReply, type Written } from './shared-exchange';
import { degraded, StoreFaults, surplusIsReplies } from './store-faults';
import { bounded, sleep } from './unref-waits';

/**
 * The longest the caller's read of a reply waits for the check's report, so
 * that a violation lands on the request's own span. The store is never
 * waited for beyond it: a check the store answers later is reported then
 * (on a check span of its own once the request's span has ended).
 */
export const CALLER_WAIT_MS = 25;
/**
 * How long a decision waits for its reply, to go to the store with it in
 * one write (two round trips a request, not three). Written alone past
 * it, or at once when this process sends the bucket's next request: a
 * reply that is never observed must not make the next request look
 * invented (behaviour.md §8.2, rule 3). Shorter than the reader's wait
 * below, so a reader in another process finds it.
 */
export const DECISION_HOLD_MS = 200;
/**
 * A request whose only surplus is assistant messages may carry a reply
 * whose write is still on its way (off its writer's caller's path): the
 * bucket is read again after each of these waits before it is reported.
 */
export const REPLY_WAITS_MS: readonly number[] = [40, 160, 400];
/**
 * The longest a request waits for this process's previous exchange on its
 * bucket, so that the two are decided in order (each of its round trips is
 * bounded itself: a connection's 2 s, a command's 1 s).
 */
const PREDECESSOR_WAIT_MS = 5000;
/**
 * Buckets whose latest exchange this process keeps for the next request on
 * them to wait for, the most recent: an exchange whose reply may still come
 * holds its request's records, so few are kept.
 */
const MAX_LATEST_EXCHANGES = 256;
/** The store was found down before a request's turn came: not a failure of its own. */
const DOWN = new StoreFailure('connection', 'the store is down');

/** Assistant messages of a request asked about at most: were they replies another process observed? */
const MAX_ASKED_REPLIES = 32;

/** The implicit log with its conversations in a shared store; the process's own `ImplicitLogs` is the fallback. */
export class SharedLogs {
  readonly #logs: ImplicitLogs;
  readonly #buckets: RedisBuckets;
  readonly #writes: BucketWrites;
  readonly #faults: StoreFaults;
  readonly #instruments: () => InvariantInstruments;
  /** Each bucket's latest exchange in this process: the next request on it waits for its writes. */
  readonly #latest = new Map<Fingerprint, Exchange>();
  /** Exchanges with a step running or due. */
  readonly #open = new Set<Exchange>();

  constructor(logs: ImplicitLogs, buckets: RedisBuckets, idleTimeoutMs: number, instruments: () => InvariantInstruments) {
    this.#logs = logs;
    this.#buckets = buckets;
    this.#writes = new BucketWrites(logs, buckets, idleTimeoutMs);
    this.#faults = new StoreFaults(buckets, instruments);
    this.#instruments = instruments;
  }

  /** Conversations this process keeps itself (its fallback). */
  get size(): number {
    return this.#logs.size;
  }

  /** Stateful chains are followed in the process that saw their start (docs/shared-store.md). */
  continueHeld(request: ModelRequest): PendingReply | undefined {
    return this.#logs.continueHeld(request);
  }

  /** Closes the store's connection, once the writes under way are done (bounded). */
  close(): void {
    void this.whenIdle().then(() => this.#buckets.close());
  }

  /**
   * Resolves once every check has been reported and every write it owes has
   * landed or been given up (held decisions are written at their hold's
   * end): for tests, and before the connection closes. Bounded; never rejects.
   */
  whenIdle(): Promise<void> {
    const all = (async () => {
      while (this.#open.size > 0) await Promise.all([...this.#open].map((exchange) => exchange.quiet()));
    })();
    return bounded(all, 3 * PREDECESSOR_WAIT_MS);
  }

  /**
   * Checks `request` on the shared store. Off the caller's path: the read
   * and the decision run while the provider answers, the decision is
   * reported when the store has answered, and it is written with the reply
   * (or alone, see DECISION_HOLD_MS). The caller's read of the reply waits
   * for the report at most CALLER_WAIT_MS (`settled()`), never for a write.
   * Strict mode, and a store known to be down, check on the process's
   * memory at once (strict mode must refuse before the request is sent).
   */
  check(request: ModelRequest, reaction: CheckReaction): ImplicitOutcome {
    const read = this.#logs.read(request, reaction);
    if ('outcome' in read) return read.outcome;
    const run = currentRun();
    if (reaction.mode === 'strict') {
      warnOnce(
        'store:strict',
        "strict mode checks each request in this process's memory, before it is sent: the shared conversation store is not used",
      );
      return this.#logs.checkLocally(read, reaction, run);
    }
    if (!this.#buckets.available(Date.now())) {
      void this.#faults.flush(); // tries the store again once its pause is over, off this request's path
      return this.#locally(read, reaction, run);
    }
    // Reported later: the span the check belongs to is the one active now.
    const bound: CheckReaction = { ...reaction, span: reaction.span ?? trace.getActiveSpan() };
    const exchange = new Exchange(read, runName(run), reaction.captureContent);
    const previous = this.#latest.get(read.key);
    this.#latest.delete(read.key);
    this.#latest.set(read.key, exchange);
    if (this.#latest.size > MAX_LATEST_EXCHANGES) this.#latest.delete(this.#latest.keys().next().value!);
    if (previous !== undefined) {
      previous.succeeded = true;
      previous.release?.();
    }
    let reported!: () => void;
    const report = new Promise<void>((resolve) => (reported = resolve));
    this.#step(exchange, async () => {
      if (previous !== undefined) await bounded(previous.quiet(), PREDECESSOR_WAIT_MS);
      try {
        // Found down while this request waited for its predecessor: checked in memory after it, in order.
        if (!this.#buckets.available(Date.now())) throw DOWN;
        exchange.written = await this.#decide(exchange);
      } catch (error) {
        if (error !== DOWN) this.#faults.failed(error);
        exchange.local = atReport(bound, (late) => this.#locally(read, late, run)).pending ?? null;
        this.#forget(exchange);
        if (exchange.reply !== undefined) this.#replied(exchange, exchange.reply);
        reported();
        return;
      }
      this.#faults.recovered();
      atReport(bound, (late) => reportWritten(exchange.written!.decision, late));
      reported();
      this.#step(exchange, () => this.#holdThenWrite(exchange));
    });
    return {
      pending: {
        reply: (messages, stored, context) => this.#replied(exchange, { messages, stored, context }),
        settled: () => bounded(report, CALLER_WAIT_MS),
      },
    };
  }

  /** Runs `work` as the exchange's next step. */
  #step(exchange: Exchange, work: () => Promise<void>): void {
    this.#open.add(exchange);
    const busy = (exchange.busy = exchange.busy.then(work).catch((error: unknown) => this.#faults.failed(error)));
    void busy.then(() => {
      if (exchange.busy === busy) this.#open.delete(exchange);
    });
  }

  /** The reply came: to the process's memory after a failure, else into the store with the decision or after it. */
  #replied(exchange: Exchange, reply: GivenReply): void {
    if (exchange.local !== undefined) {
      exchange.reply = undefined;
      exchange.local?.reply(reply.messages, reply.stored, reply.context);
      void this.#faults.flush();
      return;
    }
    exchange.reply = reply;
    // Held: written now, with the decision. Still deciding or writing: that step takes it up.
    if (exchange.release !== undefined) exchange.release();
    else if (exchange.wrote) this.#step(exchange, () => this.#writeReply(exchange));
  }

  /** Holds the decision for its reply (DECISION_HOLD_MS), then writes both, or the decision alone. */
  async #holdThenWrite(exchange: Exchange): Promise<void> {
    if (exchange.reply === undefined && !exchange.succeeded) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => exchange.release?.(), DECISION_HOLD_MS);
        timer.unref();
        exchange.release = () => {
          clearTimeout(timer);
          exchange.release = undefined;
          resolve();
        };
      });
    }
    const reply = exchange.reply;
    exchange.reply = undefined;
    try {
      await this.#writes.writeDecision(exchange, reply);
      exchange.wrote = true;
    } catch (error) {
      // The decision (and the reply) did not reach the store: the bucket and the reply are marked once it answers.
      this.#faults.defer(exchange.read.key, reply === undefined ? [] : replyFingerprints(reply.messages));
      this.#faults.failed(error);
      this.#forget(exchange);
      return;
    }
    if (reply !== undefined) this.#forget(exchange);
    if (exchange.reply !== undefined) await this.#writeReply(exchange);
  }

  /** The exchange owes its bucket nothing more: the next request on it need not wait for it. */
  #forget(exchange: Exchange): void {
    if (this.#latest.get(exchange.read.key) === exchange) this.#latest.delete(exchange.read.key);
  }

  /** Writes a reply given after its decision was written. */
  async #writeReply(exchange: Exchange): Promise<void> {
    const reply = exchange.reply;
    if (reply === undefined || exchange.written === undefined) return;
    exchange.reply = undefined;
    try {
      await this.#writes.writeReply(exchange.read, exchange.written, reply);
    } catch (error) {
      // The reply did not reach the store: marked once it answers.
      this.#faults.defer(exchange.read.key, replyFingerprints(reply.messages));
      this.#faults.failed(error);
    }
    this.#forget(exchange);
  }

  /**
   * Checks on the process's memory while the store cannot be used; the
   * bucket and the replies observed are remembered, to be marked once the
   * store answers.
   */
  #locally(read: ReadRequest, reaction: CheckReaction, run: RunKey | undefined): ImplicitOutcome {
    // Other processes may have served this conversation meanwhile: their replies are unseen here, not invented.
    const outcome = this.#logs.checkLocally(read, reaction, run, undefined, (decision) => degraded(decision, true, this.#instruments));
    this.#faults.defer(read.key, []);
    const pending = outcome.pending;
    if (pending === undefined) return outcome;
    return {
      ...outcome,
      pending: {
        ...pending,
        reply: (messages, stored, context) => {
          this.#faults.defer(read.key, replyFingerprints(messages));
          pending.reply(messages, stored, context);
        },
      },
    };
  }

  /**
   * Loads the bucket and decides; the decision is committed to the
   * request's store, not yet written. A request whose only surplus is
   * assistant messages is read again after each of REPLY_WAITS_MS first:
   * the reply it carries may be on its way from another process.
   */
  async #decide(exchange: Exchange): Promise<Written> {
    const read = exchange.read;
    // Assistant messages this process never saw as replies: another process may have (a sub-agent's answer handed on).
    const asked = this.#logs.unseenReplies(read, MAX_ASKED_REPLIES);
    for (let attempt = 0; ; attempt++) {
      const bucket = await this.#buckets.load(read.key, asked);
      this.#logs.noteReplies(bucket.replies);
      const { decision, store, dirty } = this.#writes.decideOn(read, bucket.data, exchange.run, exchange.captureContent);
      const wait = REPLY_WAITS_MS[attempt];
      if (wait !== undefined && !bucket.faulted && surplusIsReplies(decision.violation)) {
        await sleep(wait);
        continue;
      }
      const final = degraded(decision, bucket.faulted, this.#instruments);
      // Recorded at once: a shared store is not used in strict mode, so the decision never refuses the request.
      const pending = final.commit();
      return { decision: final, pending, store, dirty, version: bucket.version };
    }
  }
}
