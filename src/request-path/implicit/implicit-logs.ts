// The implicit conversation log: with no session bound, the conversation the
// model has already been sent and has already answered is the log, and each
// request must be a view over it. A correct loop only ever extends it:
// request k+1 = request k + the model's reply to k + new messages. The rules
// (docs/behaviour.md §8.2) are applied here in this order:
// continuation by the longest known branch; rejoin = violation; the lost
// reply within a run; otherwise a new branch.

import { stableSlot } from '../../invariant/stable-messages';
import { classify } from '../../invariant/classify';
import { SYSTEM_FINGERPRINT, fingerprintOf, type Fingerprint } from '../../invariant/fingerprint';
import { MAX_REQUEST_MESSAGES, type Message } from '../../model/messages';
import { sketch, type MessageSketch } from '../../invariant/sketch';
import { isStackExhaustion } from '../../invariant/stack-exhaustion';
import { actOnCheck, type CheckReaction } from '../../reaction/act-on-check';
import type { CheckResult, ViolationDetails } from '../../invariant/violation';
import { describeThrown } from '../../result';
import type { InvariantInstruments } from '../../telemetry/instruments';
import { warnOnce } from '../../warnings';
import { ATTR_EVICTION_REASON } from '../../telemetry/semconv';
import type { PendingReply } from '../reply';
import type { ModelRequest } from '../model-request';
import { currentRun, type RunKey } from '../run';
import { implicitConversationId, nextConversationNumber } from '../../log/conversation-id';
import { CHAIN_START, Conversation, chainStep } from './conversation';
import { MemoryConversationStore, eachOf, type ConversationStore, type StoreLimits } from './conversation-store';
import { orphanedToolResult } from './pairing';
import { mergePrefill } from './prefill';
import { Lru } from './lru';
import { StoredReplies } from './stored-replies';
import { overlaySlotOf } from '../../invariant/overlay';

/** The implicit log's bounds, and the clock it reads. */
export interface ImplicitLogSettings extends StoreLimits {
  /** A clock in milliseconds (tests inject one). */
  now?: () => number;
}

/** Conversations a request that continues none is compared with, per source: the most recently used that start like it, those whose last request it starts with, those whose last message it carries. */
const MAX_CANDIDATES = 32;
const FINGERPRINT_OPTIONS = { ignoreToolResultName: true } as const;
const PASS: CheckResult = Object.freeze({ ok: true });

/** A request in the implicit log's terms: its messages and their fingerprints. */
export interface Seen {
  messages: readonly Message[];
  fingerprints: Fingerprint[];
}

/** A log the request is compared with: the conversation, or the conversation it implies. */
interface Implied {
  fingerprints: readonly Fingerprint[];
  sketches: readonly MessageSketch[];
}

/** A request read for the implicit log: its messages and fingerprints, the orphaned tool result it holds, its "starts like" key. */
export interface ReadRequest {
  seen: Seen;
  orphan: ViolationDetails | undefined;
  /** The index of its first non-system message, and that message's fingerprint. */
  first: number;
  key: Fingerprint;
}

/** What the rules decided for a request, not yet reported: the violation, the conversation number it carries, where the reply goes. */
export interface Decision {
  violation: ViolationDetails | undefined;
  number: number;
  /**
   * Records the request in the store (extending or branching a conversation)
   * and gives where its reply goes. Called after the decision is reported,
   * so a request strict mode refuses is never recorded: the model was not
   * sent it, and a retry of it is checked, and refused, again.
   */
  commit(): PendingReply;
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
 * fingerprints of replies models sent and reply items by id, and applies the
 * rules of docs/behaviour.md §8.2 in order.
 */
export class ImplicitLogs {
  readonly #store: MemoryConversationStore;
  /**
   * Fingerprints of the replies models sent recently, in any conversation: an
   * assistant message one agent hands another (a sub-agent's answer in a
   * supervisor's history) was sent by a model, just not in this conversation.
   */
  readonly #replies = new Lru<Fingerprint, true>(10_000);
  /** Reply messages by the ids of the items they were stored as, for requests that refer to them (`item_reference`). */
  readonly #stored = new StoredReplies();
  /**
   * Where the conversation stood once a reply the provider holds was
   * observed, by the reply's id (a Responses `id`, an Anthropic message
   * `id`): the conversation and how many of its messages it then had. A
   * stateful request that continues from that id extends it there. Held
   * weakly: a conversation the store dropped is not kept alive by this.
   */
  readonly #held = new Lru<string, { conversation: WeakRef<Conversation>; length: number }>(10_000);
  readonly #now: () => number;

  /**
   * `settings` bounds the conversation store. `instruments` is read at each
   * eviction, so evictions are counted on the instrumentation in force then.
   */
  constructor(settings: ImplicitLogSettings, instruments: () => InvariantInstruments) {
    this.#now = settings.now ?? Date.now;
    this.#store = new MemoryConversationStore(settings, (reason) => instruments().evictions.add(1, { [ATTR_EVICTION_REASON]: reason }));
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
    return this.checkLocally(read, reaction, currentRun());
  }

  /** A request read by `read`, decided against this process's own conversations and reported. */
  checkLocally(read: ReadRequest, reaction: CheckReaction, run: RunKey | undefined): ImplicitOutcome {
    const decision = this.decide(read, this.#store, run, reaction.captureContent);
    const violation = reportDecision(decision, reaction);
    return { violation, pending: decision.commit() };
  }

  /**
   * The first half of a check: the request read and fingerprinted, with no
   * store consulted (a shared store is loaded by the key it gives), or the
   * outcome when there is nothing to follow (an unreadable request is
   * reported here).
   */
  read(request: ModelRequest, reaction: CheckReaction): ReadRequest | { outcome: ImplicitOutcome } {
    const messages = request.messages;
    if (!Array.isArray(messages)) return { outcome: { violation: report(invalid('the request is not an array of messages'), reaction) } };
    if (messages.length > MAX_REQUEST_MESSAGES) {
      return {
        outcome: {
          violation: report(
            invalid(`the request has ${messages.length} messages, more than the ${MAX_REQUEST_MESSAGES} a check reads`),
            reaction,
          ),
        },
      };
    }
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
      // The stack running out is the package's limit, not a violation: the request path counts it as an internal error.
      if (isStackExhaustion(error)) throw error;
      return { outcome: { violation: report(invalid(`the request could not be read: ${describeThrown(error)}`), reaction) } };
    }
    const first = seen.fingerprints.findIndex((fp) => fp !== SYSTEM_FINGERPRINT);
    if (first < 0) return { outcome: {} }; // only system messages: no conversation to follow
    return { seen, orphan, first, key: seen.fingerprints[first]! };
  }

  /**
   * The second half of a check: the rules of docs/behaviour.md §8.2 applied
   * against `store`, every change made through it, nothing reported (the
   * caller reports the decision it keeps: a shared store may decide again
   * after losing a race). `run` is the request's run as the store keeps it.
   */
  decide(read: ReadRequest, store: ConversationStore, run: RunKey | undefined, captureContent: boolean): Decision {
    const { seen, orphan, first, key } = read;
    const now = this.#now();
    const recent = store.candidates(key, now, MAX_CANDIDATES);
    const chains = requestChains(seen);
    const continued = this.#continued(store, seen, chains);
    if (continued !== undefined) {
      const { conversation, offset } = continued;
      const invented = this.#invented(conversation, seen, offset);
      if (invented.length > 0) {
        const keep = new Set(invented);
        const implied = concat(conversation, seen, offset + conversation.length, (i) => !keep.has(i), captureContent);
        const violation = reconstructionFailure(implied, seen, captureContent);
        // The branch is still this conversation as the app sees it: it keeps the id.
        return {
          violation,
          number: conversation.number,
          commit: () => this.#branch(store, seen, first, run, now, captureContent, conversation.number),
        };
      }
      return {
        violation: orphan,
        number: conversation.number,
        commit: () => {
          this.#extend(store, conversation, seen, offset, run, now, captureContent);
          return this.#pending(store, conversation, seen);
        },
      };
    }

    const candidates = this.#related(store, seen, first, key, chains, recent, run);
    const prefixes = new SharedPrefixes(candidates, seen);
    const found = rejoined(candidates, prefixes, seen, captureContent) ?? lostReply(candidates, seen, run, captureContent);
    // A request that rejoins or loses a reply continues a known conversation and keeps its id; anything else is new.
    const number = found?.conversation.number ?? nextConversationNumber();
    return {
      violation: found?.violation ?? orphan,
      number,
      commit: () => this.#branch(store, seen, first, run, now, captureContent, number),
    };
  }

  /**
   * The longest known conversation the request starts with in full (of
   * equally long ones, the most recently used), found by the chain hash of
   * each of the request's prefixes, longest first, and confirmed on the
   * fingerprints: a few lookups however many conversations start alike.
   */
  #continued(
    store: ConversationStore,
    seen: Seen,
    chains: readonly RequestChain[],
  ): { conversation: Conversation; offset: number } | undefined {
    let best: Conversation | undefined;
    let bestOffset = 0;
    for (const { offset, chain } of chains) {
      const max = seen.fingerprints.length - offset;
      for (let k = max; k >= 1; k--) {
        // A conversation found under k has k messages, or k + 1 if it ends in an open prefill.
        if (best !== undefined && k + 1 < best.length) break;
        eachOf(store.byEnd(chain[k]!), (c) => {
          if (c.length > max) return;
          if (best !== undefined && (c.length < best.length || (c.length === best.length && c.stamp < best.stamp))) return;
          if (overlayOffset(c, seen) !== offset || sharedPrefix(c, seen, offset) !== c.length) return;
          best = c;
          bestOffset = offset;
        });
      }
    }
    return best === undefined ? undefined : { conversation: best, offset: bestOffset };
  }

  /**
   * The conversations a request that continues none may rejoin or have lost
   * a reply of: the most recently used that start like it, those whose last
   * request it starts with (found by chain hash), and those whose last
   * message it carries (latest first). Bounded, whatever the number of
   * conversations that start alike.
   */
  #related(
    store: ConversationStore,
    seen: Seen,
    first: number,
    key: Fingerprint,
    chains: readonly RequestChain[],
    recent: Conversation[],
    run: RunKey | undefined,
  ): Conversation[] {
    const found = new Set<Conversation>(recent);
    let extra = 0;
    const take = (c: Conversation): boolean => {
      if (c.key === key && !found.has(c)) {
        found.add(c);
        extra++;
      }
      return extra < MAX_CANDIDATES;
    };
    if (run !== undefined && store.anyLost) {
      for (const { offset, chain } of chains) {
        for (let k = seen.fingerprints.length - offset; k >= 1 && extra < MAX_CANDIDATES; k--) eachOf(store.byLost(chain[k]!), take);
      }
    }
    extra = 0;
    for (let i = seen.fingerprints.length - 1; i > first && extra < MAX_CANDIDATES; i--) {
      const fingerprint = seen.fingerprints[i]!;
      if (fingerprint !== SYSTEM_FINGERPRINT) eachOf(store.byLast(fingerprint), take);
    }
    return [...found];
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
    if (!Array.isArray(messages) || messages.length > MAX_REQUEST_MESSAGES) return undefined;
    let added: Seen | undefined;
    try {
      added = this.#stored.read(messages as readonly Message[], (m) => this.#fingerprint(m), request.references);
    } catch (error) {
      if (isStackExhaustion(error)) throw error;
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
      const fingerprints = [...conversation.fingerprints.slice(0, held.length), ...added.fingerprints];
      const sketches = conversation.sketches(held.length).concat(added.messages.map((m) => storedSketch(m, false)));
      target = new Conversation(conversation.number, fingerprints, sketches, conversation.key, now, lastRequest);
      this.#store.branch(target);
    }
    return this.#pending(this.#store, target, added);
  }

  /**
   * Non-trailing assistant messages of the new part that no model sent, when
   * the last reply was observed: not a reply seen recently (a sub-agent's
   * answer handed on is one), or one this conversation already has (a copy).
   */
  #invented(conversation: Conversation, seen: Seen, offset: number): number[] {
    if (!conversation.lastRequest.replyObserved) return [];
    const invented: number[] = [];
    const last = seen.messages.length - 1;
    let own: Set<Fingerprint> | undefined;
    for (let i = offset + conversation.length; i < last; i++) {
      if (seen.messages[i]?.role !== 'assistant') continue;
      const fingerprint = seen.fingerprints[i]!;
      own ??= new Set(conversation.fingerprints);
      if (!this.#replies.has(fingerprint) || own.has(fingerprint)) invented.push(i);
    }
    return invented;
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
      if (messages[i]?.role === 'assistant' && !this.#replies.has(fingerprints[i]!)) unseen.push(fingerprints[i]!);
    }
    return unseen;
  }

  /** Replies another process observed (a shared store says so): they count as replies some model sent. */
  noteReplies(fingerprints: Iterable<Fingerprint>): void {
    for (const fingerprint of fingerprints) this.#replies.set(fingerprint, true);
  }

  /** A request message's fingerprint (references are resolved before, by the stored replies). */
  #fingerprint(entry: unknown): Fingerprint {
    const slot = stableSlot(entry);
    // A message the seam reuses from request to request (it never changes): fingerprinted once.
    if (slot !== undefined) return (slot.fingerprint ??= fingerprintOf(entry, FINGERPRINT_OPTIONS));
    return fingerprintOf(entry, FINGERPRINT_OPTIONS);
  }

  #extend(
    store: ConversationStore,
    conversation: Conversation,
    seen: Seen,
    offset: number,
    run: RunKey | undefined,
    now: number,
    captureContent: boolean,
  ): void {
    const from = offset + conversation.length;
    store.extend(
      conversation,
      seen.fingerprints.slice(from),
      seen.messages.slice(from).map((m) => storedSketch(m, captureContent)),
      { run, length: seen.fingerprints.length - offset, prefill: endsInAssistant(seen), replyObserved: false },
      now,
    );
  }

  /** The request as it was sent becomes a conversation of its own: a new conversation, or a branch of a known one. */
  #branch(
    store: ConversationStore,
    seen: Seen,
    first: number,
    run: RunKey | undefined,
    now: number,
    captureContent: boolean,
    number: number,
  ): PendingReply {
    const conversation = new Conversation(
      number,
      seen.fingerprints,
      seen.messages.map((m) => storedSketch(m, captureContent)),
      seen.fingerprints[first]!,
      now,
      { run, length: seen.messages.length, prefill: endsInAssistant(seen), replyObserved: false },
    );
    store.branch(conversation);
    return this.#pending(store, conversation, seen);
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
        for (const fingerprint of fingerprints) this.#replies.set(fingerprint, true);
        if (stored !== undefined) this.#stored.record(stored);
        if (context?.id !== undefined) this.#held.set(context.id, { conversation: new WeakRef(conversation), length: conversation.length });
      },
    };
  }

  /** A branch of `conversation`: its first `base` messages, then `reply`, another choice the model sent for the same request. */
  #sibling(store: ConversationStore, conversation: Conversation, base: number, reply: readonly Message[]): void {
    const added = reply.map((message) => fingerprintOf(message, FINGERPRINT_OPTIONS));
    for (const fingerprint of added) this.#replies.set(fingerprint, true);
    const fingerprints = [...conversation.fingerprints.slice(0, base), ...added];
    const sketches = conversation.sketches(base).concat(reply.map((message) => storedSketch(message, false)));
    const last = conversation.lastRequest;
    store.branch(
      new Conversation(conversation.number, fingerprints, sketches, conversation.key, this.#now(), { ...last, replyObserved: true }),
    );
  }
}

/** The chain hashes of a request's prefixes from `offset` on: `chain[k]`, of its `k` messages after `offset`. */
interface RequestChain {
  offset: number;
  chain: Int32Array;
}

/** The request's prefix chains: from its start, and after a leading system message (the overlay slot) when it has one. */
function requestChains(seen: Seen): RequestChain[] {
  const fingerprints = seen.fingerprints;
  const chains: RequestChain[] = [];
  for (let offset = 0; offset <= (fingerprints[0] === SYSTEM_FINGERPRINT ? 1 : 0); offset++) {
    const chain = new Int32Array(fingerprints.length - offset + 1);
    let h = (chain[0] = CHAIN_START);
    for (let k = 1; k < chain.length; k++) chain[k] = h = chainStep(h, fingerprints[offset + k - 1]!);
    chains.push({ offset, chain });
  }
  return chains;
}

/** 1 when the request leads with a system message the conversation has no counterpart for (the overlay slot). */
function overlayOffset(conversation: Conversation, seen: Seen): number {
  return overlaySlotOf(seen.fingerprints[0] === SYSTEM_FINGERPRINT, conversation.fingerprints[0] === SYSTEM_FINGERPRINT);
}

/**
 * How many of the conversation's messages the request carries in order from
 * its start. The last message of a conversation whose request ended in a
 * prefill, with no reply observed, matches any assistant message: the app
 * sends prefill and reply back as one.
 */
function sharedPrefix(conversation: Conversation, seen: Seen, offset: number): number {
  const known = conversation.fingerprints;
  const sent = seen.fingerprints;
  const limit = Math.min(known.length, sent.length - offset);
  let i = 0;
  while (i < limit && known[i] === sent[offset + i]) i++;
  const open = conversation.lastRequest.prefill && !conversation.lastRequest.replyObserved;
  if (open && i === conversation.length - 1 && i < limit && seen.messages[offset + i]?.role === 'assistant') i++;
  return i;
}

/** `sharedPrefix` of each candidate, computed once: the continuation and rejoin rules both read it. */
class SharedPrefixes {
  readonly #candidates: readonly Conversation[];
  readonly #seen: Seen;
  readonly #known: number[];

  constructor(candidates: readonly Conversation[], seen: Seen) {
    this.#candidates = candidates;
    this.#seen = seen;
    this.#known = new Array<number>(candidates.length).fill(-1);
  }

  /** The overlay offset of candidate `k` (see `overlayOffset`). */
  offset(k: number): number {
    return overlayOffset(this.#candidates[k]!, this.#seen);
  }

  /** How many of the request's messages could stand for candidate `k`'s (those after its overlay slot). */
  requestLength(k: number): number {
    return this.#seen.fingerprints.length - this.offset(k);
  }

  /** How many of candidate `k`'s messages the request carries from its start (see `sharedPrefix`). */
  shared(k: number): number {
    if (this.#known[k]! < 0) this.#known[k] = sharedPrefix(this.#candidates[k]!, this.#seen, this.offset(k));
    return this.#known[k]!;
  }
}

/**
 * Rejoin: the request starts like a known conversation, diverges from it and
 * later carries that conversation's messages again, so something in between
 * was dropped, duplicated, rewritten or moved. Checked against the
 * conversation followed by the request's messages after the last one the
 * conversation had: the conversation that shares the longest start with the
 * request, and of those the one whose later messages it carries most of. System messages never count as carried: their content
 * is not compared, so they say nothing about where a request rejoins.
 */
function rejoined(candidates: readonly Conversation[], prefixes: SharedPrefixes, seen: Seen, captureContent: boolean): Found | undefined {
  let best: { conversation: Conversation; shared: number; last: number; carried: number } | undefined;
  for (let k = 0; k < candidates.length; k++) {
    const conversation = candidates[k]!;
    const offset = prefixes.offset(k);
    const shared = prefixes.shared(k);
    // A conversation that starts with the whole request explains it: a regenerate from a point it passed, not a rejoin.
    if (offset + shared >= seen.fingerprints.length) return undefined;
    if (best !== undefined && shared < best.shared) continue;
    const later = new Set<Fingerprint>();
    for (let j = shared; j < conversation.length; j++)
      if (conversation.fingerprints[j] !== SYSTEM_FINGERPRINT) later.add(conversation.fingerprints[j]!);
    let last = -1;
    let carried = 0;
    for (let i = offset + shared; i < seen.fingerprints.length; i++) {
      if (!later.has(seen.fingerprints[i]!)) continue;
      last = i;
      carried++;
    }
    if (last < 0) continue;
    // Of branches that share as much, the one whose later messages the request carries most of explains it best (a
    // sibling choice or a regenerate the app did not continue with shares the start, not what follows).
    if (best === undefined || shared > best.shared || carried > best.carried || (carried === best.carried && last > best.last))
      best = { conversation, shared, last, carried };
  }
  if (best === undefined) return undefined;
  const violation = reconstructionFailure(
    concat(best.conversation, seen, best.last + 1, () => true, captureContent),
    seen,
    captureContent,
  );
  return violation === undefined ? undefined : { violation, conversation: best.conversation };
}

/** A violation found against a known conversation, and that conversation. */
interface Found {
  violation: ViolationDetails;
  conversation: Conversation;
}

/**
 * The lost reply, within one run: the request starts with the previous
 * request of the conversation in the same run and continues without the
 * model's reply to it. Across runs that is a regenerate (a branch); the reply
 * to a prefill never counts.
 */
function lostReply(candidates: readonly Conversation[], seen: Seen, run: RunKey | undefined, captureContent: boolean): Found | undefined {
  if (run === undefined) return undefined;
  for (const conversation of candidates) {
    const last = conversation.lastRequest;
    if (last.run !== run || !last.replyObserved || last.prefill || conversation.length <= last.length) continue;
    const offset = overlayOffset(conversation, seen);
    if (seen.fingerprints.length - offset <= last.length || sharedPrefix(conversation, seen, offset) !== last.length) continue;
    const violation = reconstructionFailure(
      concat(conversation, seen, offset + last.length, () => true, captureContent),
      seen,
      captureContent,
    );
    return violation === undefined ? undefined : { violation, conversation };
  }
  return undefined;
}

/** The conversation followed by the request's messages from `from` on (those `keep` accepts). */
function concat(conversation: Conversation, seen: Seen, from: number, keep: (i: number) => boolean, captureContent: boolean): Implied {
  const fingerprints = Array.from(conversation.fingerprints);
  const sketches = conversation.sketches();
  for (let i = from; i < seen.messages.length; i++) {
    if (!keep(i)) continue;
    fingerprints.push(seen.fingerprints[i]!);
    sketches.push(storedSketch(seen.messages[i], captureContent));
  }
  return { fingerprints, sketches };
}

/** The check's reconstruction rule, on fingerprints: the overlay slot, then lockstep, then classification. */
function reconstructionFailure(implied: Implied, seen: Seen, captureContent: boolean): ViolationDetails | undefined {
  const offset = seen.fingerprints[0] === SYSTEM_FINGERPRINT && implied.fingerprints[0] !== SYSTEM_FINGERPRINT ? 1 : 0;
  const requestLength = seen.fingerprints.length - offset;
  const logLength = implied.fingerprints.length;
  const shorter = Math.min(requestLength, logLength);
  let index = 0;
  while (index < shorter && seen.fingerprints[index + offset] === implied.fingerprints[index]) index++;
  if (index === shorter && requestLength === logLength) return undefined;
  return classify(
    {
      requestLength,
      logLength,
      matches: (i, j) => seen.fingerprints[i + offset] === implied.fingerprints[j],
      requestFingerprint: (i) => seen.fingerprints[i + offset]!,
      logFingerprint: (j) => implied.fingerprints[j]!,
      requestSketch: (i) => visibleSketch(seen.messages[i + offset], captureContent),
      logSketch: (j) => implied.sketches[j]!,
      differs: () => [],
    },
    index,
  );
}

function endsInAssistant(seen: Seen): boolean {
  return seen.messages[seen.messages.length - 1]?.role === 'assistant';
}

/** A request message's sketch: its preview is only kept while the request is checked, unless content capture is on. */
function visibleSketch(message: unknown, captureContent: boolean): MessageSketch {
  const s = sketch(message);
  return captureContent || !('preview' in s) ? s : { ...s, preview: null };
}

const interned = new Map<string, MessageSketch>();
/** Sketches of unnamed user and assistant messages, by tool-call count (below `USUAL_CALLS`). */
const USUAL_ROLES: Readonly<Record<string, MessageSketch[] | undefined>> = Object.assign(Object.create(null) as object, {
  user: [],
  assistant: [],
});
const USUAL_CALLS = 16;

/**
 * A sketch to keep: no text (unless content capture is on), and one shared
 * object per distinct shape. Built field by field when content is not kept:
 * a branch keeps a sketch of every message, and the preview would only be
 * computed to be dropped.
 */
function storedSketch(message: unknown, captureContent: boolean): MessageSketch {
  if (captureContent) return sketch(message);
  // A message the seam reuses from request to request (it never changes): sketched once.
  const slot = stableSlot(message);
  if (slot !== undefined) return (slot.sketch ??= contentFreeSketch(message));
  return contentFreeSketch(message);
}

function contentFreeSketch(message: unknown): MessageSketch {
  const m = typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : {};
  const role = typeof m.role === 'string' ? m.role : 'invalid';
  if (role === 'system') return SYSTEM_SKETCH;
  const toolCalls = Array.isArray(m.toolCalls) ? m.toolCalls.length : 0;
  const toolCallId = typeof m.toolCallId === 'string' ? m.toolCallId : null;
  const name = typeof m.name === 'string' ? m.name : null;
  // A tool call id is unique: its sketch is shared by nothing, so it is not worth a table entry. Its name (a tool's
  // name, one of a few) is kept as one string per distinct name, not one per message.
  if (toolCallId !== null) return { role, preview: null, toolCalls, toolCallId, name: name === null ? null : internedName(name) };
  // The usual shapes (a user message, an assistant message with a few calls) skip building a key.
  const usual = name === null && toolCalls < USUAL_CALLS ? USUAL_ROLES[role] : undefined;
  if (usual !== undefined) return (usual[toolCalls] ??= Object.freeze({ role, preview: null, toolCalls, toolCallId, name }));
  const key = `${role}\u0000${toolCalls}\u0000${name}`;
  let shared = interned.get(key);
  if (shared === undefined) {
    if (interned.size > 10_000) interned.clear();
    interned.set(key, (shared = Object.freeze({ role, preview: null, toolCalls, toolCallId, name })));
  }
  return shared;
}

const names = new Map<string, string>();
/** One copy of each tool name the sketches keep (cleared past 10,000 names, as the sketch table is). */
function internedName(name: string): string {
  const kept = names.get(name);
  if (kept !== undefined) return kept;
  if (names.size > 10_000) names.clear();
  names.set(name, name);
  return name;
}

const SYSTEM_SKETCH: MessageSketch = Object.freeze({ role: 'system' });

function invalid(reason: string): ViolationDetails {
  return { kind: 'invalid_request', reason };
}

/** Acts on a decision as `verify` acts on a check (a violation carries its conversation's id). */
export function reportDecision(decision: Decision, reaction: CheckReaction): ViolationDetails | undefined {
  return report(decision.violation, reaction, decision.number);
}

/** Acts on the check; `conversation` (a number) names the conversation's id, spelt only for a violation to carry it. */
function report(violation: ViolationDetails | undefined, reaction: CheckReaction, conversation?: number): ViolationDetails | undefined {
  if (violation === undefined) actOnCheck(PASS, reaction);
  else
    actOnCheck(
      { ok: false, violation },
      conversation === undefined ? reaction : { ...reaction, conversationId: implicitConversationId(conversation) },
    );
  return violation;
}
