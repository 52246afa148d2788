// The implicit log shared between processes through Redis (docs/shared-store.md,
// docs/behaviour.md §10). A request's candidate conversations (its bucket:
// those that start like it) are loaded into an in-memory store of the
// request's own, the usual rules decide against it, and what changed is
// written back with a compare-and-set: a process that loses the race reads
// again and decides again. The round trip runs while the provider answers;
// the reply's write-back is settled before the caller gets the body, so the
// next request, whichever process it lands on, sees it. Any failure leaves
// the call alone: counted, warned about once, and checked on the process's
// own memory until the store answers again.

import { trace } from '@opentelemetry/api';
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
/** The longest the caller's read of a reply waits for the store (the round trips are bounded themselves). */
const SETTLE_LIMIT_MS = 1000;

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

/** A request decided on the shared store and written back: what its reply's write-back needs. */
interface Written {
  decision: Decision;
  /** Where the reply goes, in the request's store. */
  pending: PendingReply;
  store: RequestStore;
  /** The records changed since the last write. */
  dirty: Set<Conversation>;
  version: string;
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

  /** Closes the store's connection. */
  close(): void {
    this.#buckets.close();
  }

  /**
   * Checks `request` on the shared store. The violation is reported when the
   * store has answered, on the request's span; the returned pending reply's
   * `settled()` resolves after the decision and the reply's write-back.
   * Strict mode, and
   * a store in its pause after a failure, check on the process's memory at
   * once (strict mode must refuse before the request is sent).
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
    if (!this.#buckets.available(Date.now())) return this.#locally(read, reaction, run);
    // Reported later: the span the check belongs to is the one active now.
    const bound: CheckReaction = { ...reaction, span: reaction.span ?? trace.getActiveSpan() };
    const decided = this.#decide(read, runName(run), reaction.captureContent).then(
      (written) => {
        this.#recovered();
        report(written.decision, bound);
        return (messages: readonly Message[], stored?: readonly StoredReplyMessage[], context?: ReplyContext) =>
          this.#reply(read, written, messages, stored, context);
      },
      (error: unknown) => {
        this.#failed(error);
        const pending = this.#locally(read, bound, run).pending;
        // After a lost race the store answers: the reply's mark is written before the caller reads it (bounded).
        return (messages: readonly Message[], stored?: readonly StoredReplyMessage[], context?: ReplyContext): Promise<void> => {
          pending?.reply(messages, stored, context);
          return this.#flush();
        };
      },
    );
    let recorded: Promise<void> | undefined;
    return {
      pending: {
        reply: (messages, stored, context) => {
          recorded = bounded(
            decided
              .then((reply) => reply(messages, stored, context))
              .catch((error: unknown) => {
                // The reply did not reach the store: marked once it answers.
                this.#defer(read.key, replyFingerprints(messages));
                this.#failed(error);
              }),
          );
        },
        settled: () => recorded ?? bounded(decided),
      },
    };
  }

  /**
   * Checks on the process's memory while the store cannot be used; the
   * bucket and the replies observed are remembered, to be marked once the
   * store answers.
   */
  #locally(read: ReadRequest, reaction: CheckReaction, run: RunKey | undefined): ImplicitOutcome {
    const outcome = this.#logs.checkLocally(read, reaction, run);
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
   * Marks the buckets and replies a fault kept out, once the store may be
   * tried; on a failure, again after the pause. Resolves when this flush
   * is done (never rejects).
   */
  #flush(): Promise<void> {
    if (this.#flushing !== undefined) return this.#flushing;
    if (this.#deferred.size === 0) return Promise.resolve();
    if (!this.#buckets.available(Date.now())) {
      this.#flushLater();
      return Promise.resolve();
    }
    return (this.#flushing = (async () => {
      for (const [key, replies] of [...this.#deferred]) {
        await this.#buckets.markFault(key, replies);
        if (this.#deferred.get(key) === replies) this.#deferred.delete(key);
      }
    })()
      .catch((error: unknown) => this.#failed(error))
      .finally(() => {
        this.#flushing = undefined;
        if (this.#deferred.size > 0) void this.#flush();
      }));
  }

  /** Loads the bucket, decides, writes back; on a lost race, again (the winner's change is then part of the decision). */
  async #decide(read: ReadRequest, run: string | undefined, captureContent: boolean): Promise<Written> {
    // Assistant messages this process never saw as replies: another process may have (a sub-agent's answer handed on).
    const asked = this.#logs.unseenReplies(read, MAX_ASKED_REPLIES);
    for (let attempt = 0; attempt < TRIES; attempt++) {
      const bucket = await this.#buckets.load(read.key, asked);
      this.#logs.noteReplies(bucket.replies);
      const store = this.#requestStore(bucket.data);
      const dirty = new Set<Conversation>();
      store.onChange((c) => dirty.add(c));
      const decision = degraded(this.#logs.decide(read, store, run, captureContent), bucket.faulted, this.#instruments);
      // Recorded at once: a shared store is not used in strict mode, so the decision never refuses the request.
      const pending = decision.commit();
      const data = encodeBucket(store.newestFirst(), dirty, MAX_RECORDS_PER_BUCKET);
      const version = await this.#buckets.write(read.key, bucket.version, data);
      if (version !== undefined) {
        dirty.clear();
        return { decision, pending, store, dirty, version };
      }
      await backOff(attempt);
    }
    throw new StoreFailure('conflict', `lost the compare-and-set ${TRIES} times`);
  }

  /**
   * Records the reply in the request's store and writes back what it
   * changed. On a lost race only the records this request changed are put
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
      if (next !== undefined) return;
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
    if (error.reason !== 'conflict') this.#buckets.pause(Date.now());
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
 * bucket a fault hid replies of, a request whose only surplus is assistant
 * messages cannot be told from one that carries replies the store never got
 * (counted as an `unseen_reply` check). The one place that decides what a
 * fault costs a check.
 */
function degraded(decision: Decision, faulted: boolean, instruments: () => InvariantInstruments): Decision {
  const violation = decision.violation;
  if (!faulted || violation === undefined || violation.kind !== 'extra_message') return decision;
  if (violation.missingCount > 0 || violation.extraCount > violation.extra.length || violation.extra.some((s) => s.role !== 'assistant')) {
    return decision;
  }
  instruments().storeDegraded.add(1, { [ATTR_STORE_REASON]: 'unseen_reply' });
  return { ...decision, violation: undefined };
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

function report(decision: Decision, reaction: CheckReaction): void {
  try {
    // Replies other processes observed are known here: what is left unobserved was not served by a replica.
    reportDecision({ ...decision, unobservedReplies: false }, reaction);
  } catch (error) {
    reportInternalError('the shared store', error, STEP_SKIPPED, reaction.instruments);
  }
}

/** A short random wait after the `attempt`th lost compare-and-set (a few milliseconds), so racing processes spread out. */
function backOff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * 2 * (attempt + 1)).unref());
}

/** Waits for `work`, at most `SETTLE_LIMIT_MS`; never rejects, and the timer never holds the process. */
function bounded(work: Promise<unknown>): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, SETTLE_LIMIT_MS);
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
