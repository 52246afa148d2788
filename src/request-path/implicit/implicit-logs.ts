// The implicit conversation log: with no session bound, the conversation the
// model has already been sent and has already answered is the log, and each
// request must be a view over it. A correct loop only ever extends it:
// request k+1 = request k + the model's reply to k + new messages. This file
// reads and guards a request, records what the rules decide (the rules
// themselves are implicit-rules.ts), follows stateful continuations, takes
// the model's replies in and reports.

import { stableSlot } from '../../invariant/stable-messages';
import { SYSTEM_FINGERPRINT, fingerprintOf, type Fingerprint } from '../../invariant/fingerprint';
import type { Message } from '../../model/messages';
import { actOnCheck, type CheckReaction } from '../../reaction/act-on-check';
import type { ViolationDetails } from '../../invariant/violation';
import { PASS, failed, unreadableEntry, unreadableRequest } from '../../invariant/reconstruct';
import type { InvariantInstruments } from '../../telemetry/instruments';
import { warnOnce } from '../../warnings';
import { ATTR_EVICTION_REASON } from '../../telemetry/semconv';
import type { PendingReply } from '../reply';
import type { ModelRequest, SerialisedBody } from '../model-request';
import { currentRun, type RunKey } from '../run';
import { implicitConversationId, nextConversationNumber } from '../../log/conversation-id';
import type { Conversation } from './conversation';
import { MemoryConversationStore, type ConversationStore, type StoreLimits } from './conversation-store';
import { decide } from './implicit-rules';
import { endsInAssistant, type ReadRequest, type Seen } from './seen-request';
import { orphanedToolResult } from './pairing';
import { mergePrefill } from './prefill';
import { LatestSetMap } from './latest-set';
import { ObservedReplies } from './observed-replies';
import { StoredReplies } from './stored-replies';
import { storedSketch } from './stored-sketches';
import { branchAt, conversationOfRequest, extendWithRequest } from './conversation-writes';
import { byteHasher, type ByteHasher } from './bytes/byte-hash';
import { readFromDivergence, type DivergentReading } from './divergence';
import { ByteConversations } from './bytes/byte-conversations';
import { continuedByTail } from './byte-tail';

export type { ReadRequest } from './seen-request';

/** The implicit log's bounds, and the clock it reads. */
export interface ImplicitLogSettings extends StoreLimits {
  /** A clock in milliseconds (tests inject one). */
  now?: () => number;
}

const FINGERPRINT_OPTIONS = { ignoreToolResultName: true } as const;

/** What the rules decided for a request, not yet reported: the violation, the conversation number it carries, where the reply goes. */
export interface Decision {
  violation: ViolationDetails | undefined;
  number: number;
  /** The surplus is assistant replies this process never saw a model send (set only with the store in memory). */
  unobservedReplies?: boolean | undefined;
  /**
   * Records the request in the store (extending or branching a conversation)
   * and gives where its reply goes. Called after the decision is reported,
   * so a request strict mode refuses is never recorded: the model was not
   * sent it, and a retry of it is checked, and refused, again.
   */
  commit(): PendingReply;
  /** The conversation the request went to, once committed. */
  committed?: Conversation | undefined;
}

/** What a check of the implicit log found, and where the reply goes (absent when the request is not followed). */
export interface ImplicitOutcome {
  violation?: ViolationDetails | undefined;
  pending?: PendingReply | undefined;
}

/**
 * The implicit conversation log (docs/behaviour.md §8): with no log bound, the
 * conversation the model has already been sent and has already answered is the
 * log, and each request must extend it. Keeps the conversations, the
 * fingerprints of replies models sent and reply items by id, and records
 * what the rules of docs/behaviour.md §8.2 (implicit-rules.ts) decide.
 */
export class ImplicitLogs {
  readonly #store: MemoryConversationStore;
  /**
   * Fingerprints of the replies models sent recently, in any conversation: an
   * assistant message one agent hands another (a sub-agent's answer in a
   * supervisor's history) was sent by a model, just not in this conversation.
   * Counted: a model that sends the same reply again sent it twice.
   */
  readonly #replies = new ObservedReplies(10_000);
  /** Reply messages by the ids of the items they were stored as, for requests that refer to them (`item_reference`). */
  readonly #stored = new StoredReplies();
  /**
   * Where the conversation stood once a reply the provider holds was
   * observed, by the reply's id (a Responses `id`, an Anthropic message
   * `id`): the conversation and how many of its messages it then had. A
   * stateful request that continues from that id extends it there. Held
   * weakly: a conversation the store dropped is not kept alive by this.
   */
  readonly #held = new LatestSetMap<string, { conversation: WeakRef<Conversation>; length: number }>(10_000);
  readonly #now: () => number;
  /** What conversations keep of the bytes of their last request, and the lookup by bytes (docs/performance.md). */
  readonly #bytes: ByteConversations<Conversation>;

  /**
   * `settings` bounds the conversation store. `instruments` is read at each
   * eviction, so evictions are counted on the instrumentation in force then.
   */
  constructor(settings: ImplicitLogSettings, instruments: () => InvariantInstruments) {
    this.#now = settings.now ?? Date.now;
    this.#store = new MemoryConversationStore(settings, (reason) => instruments().evictions.add(1, { [ATTR_EVICTION_REASON]: reason }));
    this.#bytes = new ByteConversations((conversation) => this.#store.has(conversation), 8 * settings.maxConversations);
  }

  /** How many conversations are kept (tests and benchmarks). */
  get size(): number {
    return this.#store.size;
  }

  /**
   * Checks `request` against the conversation it continues, acts on the
   * result as `verify` does, and returns the violation (if any) and where the
   * model's reply goes. Throws only strict mode's violation.
   */
  check(request: ModelRequest, reaction: CheckReaction): ImplicitOutcome {
    const read = this.read(request, reaction);
    if ('outcome' in read) return read.outcome;
    return this.checkLocally(read, reaction, currentRun(), request.references === undefined ? request.body : undefined);
  }

  /**
   * A request read by `read`, decided against this process's own
   * conversations and reported; `vet` may withhold a violation first (the
   * shared store's fallback does, shared-logs.ts).
   */
  checkLocally(
    read: ReadRequest,
    reaction: CheckReaction,
    run: RunKey | undefined,
    body?: SerialisedBody,
    vet?: (decision: Decision) => Decision,
  ): ImplicitOutcome {
    const decided = this.decide(read, this.#store, run, reaction.captureContent);
    const decision = vet === undefined ? decided : vet(decided);
    const violation = reportDecision(decision, reaction);
    const pending = decision.commit();
    // A request the rules passed, sent as bytes: the next one that extends them is read only in its new elements.
    const hasher = body === undefined ? undefined : byteHasher();
    if (hasher !== undefined && violation === undefined && decision.committed !== undefined) {
      this.#bytes.remember(hasher, decision.committed, body!, decision.committed.length, decision.committed.lastRequest);
    }
    return { violation, pending };
  }

  /**
   * The byte fast path, in front of the rules: a request whose serialised
   * body carries, byte for byte, the last request of a kept conversation
   * (and nothing changed that conversation since but its observed reply) is
   * read only in its new elements. When those are the reply as observed
   * followed by new user messages and tool results answering calls among
   * them, it is a continuation the rules would pass (§8.2 rule 3): it is
   * counted as a passing check and the conversation extended. Any other
   * request that starts like a kept conversation's bytes goes to the rules
   * read from its last equal mark on (`readDivergent`), which decide on it
   * as on the request read whole; anything else gives undefined, and the
   * caller reads the whole request for the rules. A byte difference is
   * never a violation by itself.
   */
  checkBytes(body: SerialisedBody, reaction: CheckReaction): ImplicitOutcome | undefined {
    const hasher = byteHasher();
    if (hasher === undefined) return undefined;
    const now = this.#now();
    this.#store.evict(now);
    const continued = this.#bytes.continuation(hasher, body);
    if (continued !== undefined) {
      const conversation = continued.conversation;
      const added =
        continued.since !== conversation.lastRequest || conversation.lastRequest.prefill
          ? undefined
          : continuedByTail(body, continued.tail, conversation.fingerprints, continued.messagesAt, FINGERPRINT_OPTIONS);
      if (added !== undefined) {
        report(undefined, reaction);
        this.#store.extend(
          conversation,
          added.fingerprints,
          added.messages.map((m) => storedSketch(m, reaction.captureContent)),
          { run: currentRun(), length: conversation.length + added.messages.length, prefill: false, replyObserved: false },
          now,
        );
        continued.commit(conversation.length, conversation.lastRequest);
        return { pending: this.#pending(this.#store, conversation, added) };
      }
    }
    const diverged = this.readDivergent(hasher, body, reaction.captureContent);
    return diverged === undefined ? undefined : this.checkLocally(diverged.read, reaction, currentRun(), body);
  }

  /**
   * The violation path's reading (divergence.ts): a request that does not
   * extend a kept conversation's bytes but starts like them, read from its
   * last equal mark on, the elements before taken from the conversation;
   * undefined when it must be read whole. Not with content capture on: the
   * sketches a conversation keeps may then lack the previews a report of
   * the request would carry.
   */
  readDivergent(hasher: ByteHasher, body: SerialisedBody, captureContent: boolean): DivergentReading | undefined {
    if (captureContent) return undefined;
    const divergence = this.#bytes.divergence(hasher, body);
    return divergence === undefined ? undefined : readFromDivergence(body, divergence, (m) => this.#fingerprint(m));
  }

  /**
   * The first half of a check: the request read and fingerprinted, with no
   * store consulted (a shared store is loaded by the key it gives), or the
   * outcome when there is nothing to follow (an unreadable request is
   * reported here).
   */
  read(request: ModelRequest, reaction: CheckReaction): ReadRequest | { outcome: ImplicitOutcome } {
    const messages = request.messages;
    const unreadable = unreadableRequest(messages);
    if (unreadable !== undefined) return { outcome: { violation: report(unreadable, reaction) } };
    let seen: Seen;
    let orphan: ViolationDetails | undefined;
    try {
      const read = this.#stored.read(messages as readonly Message[], (m) => this.#fingerprint(m), request.references);
      if (read === undefined) {
        warnOnce(
          'unresolved-reference',
          'a request refers to stored items (item_reference) this process never saw as replies; it is not checked',
        );
        return { outcome: {} };
      }
      seen = read;
      // Inside the guard with the reading: an entry that throws when read is reported here, not half-way through the rules.
      orphan = orphanedToolResult(seen.messages);
    } catch (error) {
      return { outcome: { violation: report(unreadableEntry(error), reaction) } };
    }
    const first = seen.fingerprints.findIndex((fp) => fp !== SYSTEM_FINGERPRINT);
    if (first < 0) return { outcome: {} }; // only system messages: no conversation to follow
    return { seen, orphan, first, key: seen.fingerprints[first]! };
  }

  /**
   * The second half of a check: the rules of docs/behaviour.md §8.2
   * (implicit-rules.ts) applied against `store`, every change made through
   * it, nothing reported (the caller reports the decision it keeps: a shared
   * store may decide again after losing a race). `run` is the request's run
   * as the store keeps it.
   */
  decide(read: ReadRequest, store: ConversationStore, run: RunKey | undefined, captureContent: boolean): Decision {
    const now = this.#now();
    const ruling = decide(read, store, run, now, this.#replies, captureContent, nextConversationNumber);
    const { seen, first } = read;
    const continued = ruling.extends;
    const decision: Decision = {
      violation: ruling.violation,
      number: ruling.number,
      unobservedReplies: ruling.unobservedReplies,
      commit: () => {
        const write = { store, run, now, captureContent };
        const conversation =
          continued === undefined
            ? conversationOfRequest(write, seen, first, ruling.number)
            : extendWithRequest(write, continued.conversation, seen, continued.offset);
        decision.committed = conversation;
        return this.#pending(store, conversation, seen);
      },
    };
    return decision;
  }

  /**
   * A stateful request that continues from a reply the provider holds
   * (`request.continues`): when that reply was observed here and its
   * conversation is still kept, what the request adds is appended where the
   * reply left the conversation (a branch, if something extended it since),
   * and the reply to it goes there too. There is nothing to reconstruct (the
   * provider holds the rest), so nothing is compared and nothing counted as a
   * check; the point is that a later request re-sending the whole history
   * (the id lost, a thread forked or replayed) is a continuation. Undefined
   * when the chain's start was never seen here: the request stays unchecked.
   */
  continueHeld(request: ModelRequest): PendingReply | undefined {
    const now = this.#now();
    this.#store.evict(now);
    const held = request.continues === undefined ? undefined : this.#held.get(request.continues);
    const conversation = held?.conversation.deref();
    if (held === undefined || conversation === undefined || !this.#store.has(conversation)) return undefined;
    const messages = request.messages;
    if (unreadableRequest(messages) !== undefined) return undefined;
    let added: Seen | undefined;
    try {
      added = this.#stored.read(messages as readonly Message[], (m) => this.#fingerprint(m), request.references);
    } catch (error) {
      unreadableEntry(error); // re-throws the stack running out; anything else leaves the request unchecked
      return undefined;
    }
    if (added === undefined) return undefined;
    const run = currentRun();
    const lastRequest = { run, length: held.length + added.messages.length, prefill: endsInAssistant(added), replyObserved: false };
    let target = conversation;
    if (conversation.length === held.length) {
      this.#store.extend(
        conversation,
        added.fingerprints,
        added.messages.map((m) => storedSketch(m, false)),
        lastRequest,
        now,
      );
    } else {
      const sketches = added.messages.map((m) => storedSketch(m, false));
      target = branchAt(this.#store, conversation, held.length, { fingerprints: added.fingerprints, sketches }, lastRequest, now);
    }
    return this.#pending(this.#store, target, added);
  }

  /**
   * The fingerprints of the request's non-trailing assistant messages that are
   * not among the replies this process observed (at most `limit`, the latest
   * first): what a shared store is asked about, replies other processes saw.
   */
  unseenReplies(read: ReadRequest, limit: number): Fingerprint[] {
    const unseen: Fingerprint[] = [];
    const { messages, fingerprints } = read.seen;
    for (let i = messages.length - 2; i >= 0 && unseen.length < limit; i--) {
      if (messages[i]?.role === 'assistant' && this.#replies.times(fingerprints[i]!) === 0) unseen.push(fingerprints[i]!);
    }
    return unseen;
  }

  /** Replies another process observed (a shared store says so): they count as replies some model sent. */
  noteReplies(fingerprints: Iterable<Fingerprint>): void {
    for (const fingerprint of fingerprints) this.#replies.seenElsewhere(fingerprint);
  }

  /** A request message's fingerprint (references are resolved before, by the stored replies). */
  #fingerprint(entry: unknown): Fingerprint {
    const slot = stableSlot(entry);
    // A message the seam reuses from request to request (it never changes): fingerprinted once.
    if (slot !== undefined) return (slot.fingerprint ??= fingerprintOf(entry, FINGERPRINT_OPTIONS));
    return fingerprintOf(entry, FINGERPRINT_OPTIONS);
  }

  /**
   * Where the model's reply to this request goes: onto the conversation, if
   * nothing extended it meanwhile. The other choices of a request with `n` >
   * 1 were sent by the model too: each becomes a sibling branch (the request,
   * then that choice), so the app may continue with any one of them.
   */
  #pending(store: ConversationStore, conversation: Conversation, seen: Seen): PendingReply {
    const expected = conversation.length;
    const prefill = endsInAssistant(seen) ? seen.messages[seen.messages.length - 1] : undefined;
    const joined = (messages: readonly Message[]): readonly Message[] =>
      prefill === undefined ? messages : [mergePrefill(prefill, messages[0]!), ...messages.slice(1)];
    return {
      reply: (messages, stored, context) => {
        if (conversation.length !== expected || conversation.lastRequest.replyObserved || messages.length === 0) return;
        const base = prefill === undefined ? expected : expected - 1;
        for (const sibling of context?.siblings ?? []) if (sibling.length > 0) this.#sibling(store, conversation, base, joined(sibling));
        const replied = joined(messages);
        const fingerprints = replied.map((message) => fingerprintOf(message, FINGERPRINT_OPTIONS));
        store.recordReply(conversation, {
          dropPrefill: prefill !== undefined,
          fingerprints,
          sketches: replied.map((message) => storedSketch(message, false)),
        });
        for (const fingerprint of fingerprints) this.#replies.observe(fingerprint);
        if (stored !== undefined) this.#stored.record(stored);
        if (context?.id !== undefined) this.#held.set(context.id, { conversation: new WeakRef(conversation), length: conversation.length });
      },
    };
  }

  /** A branch of `conversation`: its first `base` messages, then `reply`, another choice the model sent for the same request. */
  #sibling(store: ConversationStore, conversation: Conversation, base: number, reply: readonly Message[]): void {
    const fingerprints = reply.map((message) => fingerprintOf(message, FINGERPRINT_OPTIONS));
    for (const fingerprint of fingerprints) this.#replies.observe(fingerprint);
    const sketches = reply.map((message) => storedSketch(message, false));
    branchAt(store, conversation, base, { fingerprints, sketches }, { ...conversation.lastRequest, replyObserved: true }, this.#now());
  }
}

/** Acts on a decision as `verify` acts on a check (a violation carries its conversation's id). */
export function reportDecision(decision: Decision, reaction: CheckReaction): ViolationDetails | undefined {
  return report(decision.violation, decision.unobservedReplies ? { ...reaction, unobservedReplies: true } : reaction, decision.number);
}

/** Acts on the check; `conversation` (a number) names the conversation's id, spelt only for a violation to carry it. */
function report(violation: ViolationDetails | undefined, reaction: CheckReaction, conversation?: number): ViolationDetails | undefined {
  if (violation === undefined) actOnCheck(PASS, reaction);
  else
    actOnCheck(
      failed(violation),
      conversation === undefined ? reaction : { ...reaction, conversationId: implicitConversationId(conversation) },
    );
  return violation;
}
