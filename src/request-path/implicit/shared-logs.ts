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

import { context, trace } from '@opentelemetry/api';
import type { CheckReaction } from '../../reaction/act-on-check';
import type { InvariantInstruments } from '../../telemetry/instruments';
import { reportInternalError, STEP_SKIPPED } from '../../telemetry/internal-error';
import { warnOnce } from '../../warnings';
import { ATTR_STORE_REASON } from '../../telemetry/semconv';
import type { PendingReply, ReplyContext, StoredReplyMessage } from '../reply';
import type { ModelRequest } from '../model-request';
import { currentRun, type RunKey } from '../run';
import type { Fingerprint } from '../../invariant/fingerprint';
import type { Message } from '../../model/messages';
import type { Conversation } from './conversation';
import type { ViolationDetails } from '../../invariant/violation';
import { decodeBucket, encodeBucket, recordMeta } from './conversation-codec';
import { MemoryConversationStore, type RecordedReply } from './conversation-store';
import { reportDecision, type Decision, type ImplicitLogs, type ImplicitOutcome, type ReadRequest } from './implicit-logs';
import type { RedisBuckets } from './redis-buckets';
import { fingerprintOf } from '../../invariant/fingerprint';
import { StoreFailure, type StoreErrorReason } from './redis-connection';
import { RETRY_AFTER_MS } from './redis-buckets';

/** Records kept per bucket (the conversations and branches that start alike), the most recently used first. */
export const MAX_RECORDS_PER_BUCKET = 64;
/**
 * Tries of a compare-and-set before the write is given up (counted as a
 * `conflict`): enough for a handful of processes extending one bucket at
 * once, each retry after a short random wait so they do not collide again.
 */
const TRIES = 10;
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
/** Buckets whose writes a fault kept out, remembered until the store answers (then marked); more are given up, counted. */
const MAX_DEFERRED_BUCKETS = 1000;
/** Replies remembered per such bucket, the latest kept. */
const MAX_DEFERRED_REPLIES = 64;

/** A request's own in-memory store, which also keeps the fingerprints of the replies recorded in it (for other processes). */
class RequestStore extends MemoryConversationStore {
  readonly replies: Fingerprint[] = [];

  override recordReply(conversation: Conversation, reply: RecordedReply): void {
    this.replies.push(...reply.fingerprints);
    super.recordReply(conversation, reply);
  }
}

/** A request decided on the shared store: what its writes need. */
interface Written {
  decision: Decision;
  /** Where the reply goes, in the request's store. */
  pending: PendingReply;
  store: RequestStore;
  /** The records changed since the last write. */
  dirty: Set<Conversation>;
  version: string;
}

/** A reply as the seam hands it over. */
interface GivenReply {
  messages: readonly Message[];
  stored: readonly StoredReplyMessage[] | undefined;
  context: ReplyContext | undefined;
}

/**
 * One request's exchange with the store, from its read to its last write.
 * Its steps run one after another (`busy`), none on the caller's path.
 */
class Exchange {
  readonly read: ReadRequest;
  readonly run: string | undefined;
  readonly captureContent: boolean;
  /** The last step started; never rejects. */
  busy: Promise<void> = Promise.resolve();
  /** Decided on the store. */
  written: Written | undefined;
  /** The decision is in the store. */
  wrote = false;
  /** Checked in the process's memory after a failure: where the reply goes there (null: not followed). */
  local: PendingReply | null | undefined;
  /** The reply, given and not yet written. */
  reply: GivenReply | undefined;
  /** Ends the decision's hold (present while it is held). */
  release: (() => void) | undefined;
  /** This process has sent the bucket's next request: nothing is held any longer. */
  succeeded = false;

  constructor(read: ReadRequest, run: string | undefined, captureContent: boolean) {
    this.read = read;
    this.run = run;
    this.captureContent = captureContent;
  }

  /** Resolves once no step is running or due (a step may start another). */
  async quiet(): Promise<void> {
    for (let busy = this.busy; ; busy = this.busy) {
      await busy;
      if (this.busy === busy) return;
    }
  }
}

/** The fingerprint a reply message is marked under: as the implicit log fingerprints a request's messages. */
function replyFingerprints(messages: readonly Message[]): Fingerprint[] {
  return messages.map((message) => fingerprintOf(message, { ignoreToolResultName: true }));
}

/** The implicit log with its conversations in a shared store; the process's own `ImplicitLogs` is the fallback. */
export class SharedLogs {
  readonly #logs: ImplicitLogs;
  readonly #buckets: RedisBuckets;
  readonly #idleTimeoutMs: number;
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
  /** Each bucket's latest exchange in this process: the next request on it waits for its writes. */
  readonly #latest = new Map<Fingerprint, Exchange>();
  /** Exchanges with a step running or due. */
  readonly #open = new Set<Exchange>();

  constructor(logs: ImplicitLogs, buckets: RedisBuckets, idleTimeoutMs: number, instruments: () => InvariantInstruments) {
    this.#logs = logs;
    this.#buckets = buckets;
    this.#idleTimeoutMs = idleTimeoutMs;
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
      void this.#flush(); // tries the store again once its pause is over, off this request's path
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
        if (error !== DOWN) this.#failed(error);
        exchange.local = atReport(bound, (late) => this.#locally(read, late, run)).pending ?? null;
        this.#forget(exchange);
        if (exchange.reply !== undefined) this.#replied(exchange, exchange.reply);
        reported();
        return;
      }
      this.#recovered();
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
    const busy = (exchange.busy = exchange.busy.then(work).catch((error: unknown) => this.#failed(error)));
    void busy.then(() => {
      if (exchange.busy === busy) this.#open.delete(exchange);
    });
  }

  /** The reply came: to the process's memory after a failure, else into the store with the decision or after it. */
  #replied(exchange: Exchange, reply: GivenReply): void {
    if (exchange.local !== undefined) {
      exchange.reply = undefined;
      exchange.local?.reply(reply.messages, reply.stored, reply.context);
      void this.#flush();
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
      await this.#writeDecision(exchange, reply);
      exchange.wrote = true;
    } catch (error) {
      // The decision (and the reply) did not reach the store: the bucket and the reply are marked once it answers.
      this.#defer(exchange.read.key, reply === undefined ? [] : replyFingerprints(reply.messages));
      this.#failed(error);
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
      await this.#reply(exchange.read, exchange.written, reply.messages, reply.stored, reply.context);
    } catch (error) {
      // The reply did not reach the store: marked once it answers.
      this.#defer(exchange.read.key, replyFingerprints(reply.messages));
      this.#failed(error);
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
    this.#defer(read.key, []);
    const pending = outcome.pending;
    if (pending === undefined) return outcome;
    return {
      ...outcome,
      pending: {
        ...pending,
        reply: (messages, stored, context) => {
          this.#defer(read.key, replyFingerprints(messages));
          pending.reply(messages, stored, context);
        },
      },
    };
  }

  #defer(key: Fingerprint, replies: readonly Fingerprint[]): void {
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

  /** Flushes after the pause; the timer never holds the process. */
  #flushLater(): void {
    if (this.#flushTimer !== undefined) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = undefined;
      void this.#flush();
    }, RETRY_AFTER_MS).unref();
  }

  /**
   * Marks the buckets and replies a fault kept out, once the store answers
   * again (a store known to be down is probed first, once its pause is
   * over: no request waits for that); on a failure, again after the pause.
   * Resolves when this flush is done (never rejects).
   */
  #flush(): Promise<void> {
    if (this.#flushing !== undefined) return this.#flushing;
    if (this.#deferred.size === 0 && this.#buckets.available(Date.now())) return Promise.resolve();
    return (this.#flushing = (async () => {
      if (!(await this.#buckets.probe(Date.now()))) {
        this.#flushLater();
        return;
      }
      this.#recovered();
      for (const [key, replies] of [...this.#deferred]) {
        await this.#buckets.markFault(key, replies);
        if (this.#deferred.get(key) === replies) this.#deferred.delete(key);
      }
    })()
      .catch((error: unknown) => this.#failed(error))
      .finally(() => {
        this.#flushing = undefined;
        if (this.#deferred.size > 0 && this.#buckets.available(Date.now())) void this.#flush();
      }));
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
      const store = this.#requestStore(bucket.data);
      const dirty = new Set<Conversation>();
      store.onChange((c) => dirty.add(c));
      const decision = this.#logs.decide(read, store, exchange.run, exchange.captureContent);
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

  /**
   * Writes the decision, and `reply` with it, with a compare-and-set. On a
   * lost race the bucket is read again and the request decided again on it
   * (the winner's change is then part of the decision), not reported again.
   */
  async #writeDecision(exchange: Exchange, reply: GivenReply | undefined): Promise<void> {
    const { read } = exchange;
    const written = exchange.written!;
    for (let attempt = 0; attempt < TRIES; attempt++) {
      if (attempt > 0) {
        await backOff(attempt - 1);
        const bucket = await this.#buckets.load(read.key);
        const store = this.#requestStore(bucket.data);
        const dirty = new Set<Conversation>();
        store.onChange((c) => dirty.add(c));
        const decision = this.#logs.decide(read, store, exchange.run, exchange.captureContent);
        Object.assign(written, { pending: decision.commit(), store, dirty, version: bucket.version });
      }
      if (reply !== undefined) written.pending.reply(reply.messages, reply.stored, reply.context);
      const data = encodeBucket(written.store.newestFirst(), written.dirty, MAX_RECORDS_PER_BUCKET);
      const version = await this.#buckets.write(read.key, written.version, data, reply === undefined ? [] : written.store.replies);
      if (version !== undefined) {
        written.dirty.clear();
        written.version = version;
        return;
      }
    }
    throw new StoreFailure('conflict', `lost the compare-and-set ${TRIES} times`);
  }

  /**
   * Records a reply given after its decision was written, and writes back
   * what it changed. On a lost race only the records this request changed are put
   * back, each only if no other process changed it since (a reply goes onto
   * its conversation only if nothing extended it meanwhile, as in memory).
   */
  async #reply(
    read: ReadRequest,
    written: Written,
    messages: readonly Message[],
    stored: readonly StoredReplyMessage[] | undefined,
    context: ReplyContext | undefined,
  ): Promise<void> {
    const base = new Map<Conversation, number | undefined>();
    for (const c of written.store.newestFirst()) base.set(c, recordMeta(c)?.rev);
    written.pending.reply(messages, stored, context);
    if (written.dirty.size === 0) return;
    const dirty = [...written.dirty];
    let version = written.version;
    let records = written.store.newestFirst();
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const changed = new Set(dirty.filter((c) => records.includes(c)));
      if (changed.size === 0) return;
      const data = encodeBucket(records, changed, MAX_RECORDS_PER_BUCKET);
      const next = await this.#buckets.write(read.key, version, data, written.store.replies);
      if (next !== undefined) {
        written.dirty.clear();
        written.version = next;
        return;
      }
      await backOff(attempt);
      const bucket = await this.#buckets.load(read.key);
      version = bucket.version;
      records = mergeChanges(decoded(bucket.data), dirty, base);
    }
    throw new StoreFailure('conflict', `lost the compare-and-set ${TRIES} times`);
  }

  /** An in-memory store of the request's own, holding the bucket's records in their recency order. */
  #requestStore(data: string | null): RequestStore {
    const records = decoded(data);
    const store = new RequestStore({ maxConversations: 2 * MAX_RECORDS_PER_BUCKET + 16, idleTimeoutMs: this.#idleTimeoutMs }, () => {});
    for (let i = records.length - 1; i >= 0; i--) store.add(records[i]!);
    return store;
  }

  #failed(error: unknown): void {
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

  #recovered(): void {
    this.#down = false;
    void this.#flush();
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
function degraded(decision: Decision, faulted: boolean, instruments: () => InvariantInstruments): Decision {
  if (!faulted || !surplusIsReplies(decision.violation)) return decision;
  instruments().storeDegraded.add(1, { [ATTR_STORE_REASON]: 'unseen_reply' });
  return { ...decision, violation: undefined };
}

/**
 * Whether a violation's only surplus is assistant messages (an
 * `extra_message` with nothing missing): the shape of a request that carries
 * replies the store has not got (yet, or after a fault).
 */
function surplusIsReplies(violation: ViolationDetails | undefined): boolean {
  if (violation === undefined || violation.kind !== 'extra_message') return false;
  return (
    violation.missingCount === 0 && violation.extraCount === violation.extra.length && violation.extra.every((s) => s.role === 'assistant')
  );
}

/** A bucket's records; one that cannot be read is a `decode` failure. */
function decoded(data: string | null): Conversation[] {
  try {
    return decodeBucket(data);
  } catch (error) {
    throw new StoreFailure('decode', error instanceof Error ? error.message : String(error));
  }
}

/**
 * The fresh bucket with this request's changes put back: a record it
 * changed replaces the stored one only if that one is still at the
 * revision this request read; a record it made is added first.
 */
function mergeChanges(
  fresh: Conversation[],
  dirty: readonly Conversation[],
  base: ReadonlyMap<Conversation, number | undefined>,
): Conversation[] {
  const merged = fresh.slice();
  for (const mine of dirty) {
    const id = recordMeta(mine)?.id;
    const at = id === undefined ? -1 : merged.findIndex((c) => recordMeta(c)?.id === id);
    if (at >= 0) {
      if (recordMeta(merged[at]!)?.rev === base.get(mine)) merged[at] = mine;
    } else if (!base.has(mine)) merged.unshift(mine);
  }
  return merged;
}

function reportWritten(decision: Decision, reaction: CheckReaction): void {
  try {
    // Replies other processes observed are known here: what is left unobserved was not served by a replica.
    reportDecision({ ...decision, unobservedReplies: false }, reaction);
  } catch (error) {
    reportInternalError('the shared store', error, STEP_SKIPPED, reaction.instruments);
  }
}

/**
 * Runs a report with `reaction` as it stands now: on the request's span
 * while it is open; once it has ended (the caller had its reply before the
 * store answered), on a check span of its own, a child of the request's.
 */
function atReport<T>(reaction: CheckReaction, act: (reaction: CheckReaction) => T): T {
  const span = reaction.span;
  if (span === undefined || span.isRecording()) return act(reaction);
  const parent = trace.setSpan(context.active(), span);
  const make = reaction.spanForViolation;
  const late: CheckReaction = {
    ...reaction,
    span: undefined,
    spanForViolation: make && ((r) => context.with(parent, () => make(r))),
  };
  return context.with(trace.deleteSpan(context.active()), () => act(late));
}

/** A short random wait after the `attempt`th lost compare-and-set (a few milliseconds), so racing processes spread out. */
function backOff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * (attempt + 1)).unref());
}

/** Waits for `work`, at most `ms`; never rejects, and the timer never holds the process. */
function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    work.then(
      () => {
        clearTimeout(timer);
        resolve();
      },
      () => {
        clearTimeout(timer);
        resolve();
      },
    );
  });
}

/** A wait whose timer never holds the process. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const runNames = new WeakMap<object, string>();
let runCounter = 0;
const PROCESS = `${process.pid.toString(36)}.${Math.random().toString(36).slice(2, 8)}`;

/** A run as a shared record keeps it: a trace id as it is, a framework call (an object) by a name unique to this process. */
function runName(run: RunKey | undefined): string | undefined {
  if (run === undefined || typeof run === 'string') return run;
  let name = runNames.get(run);
  if (name === undefined) runNames.set(run, (name = `run:${PROCESS}:${(++runCounter).toString(36)}`));
  return name;
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
