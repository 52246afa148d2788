// How a request lines up with a known conversation: the chain hashes of its
// prefixes (one per overlay slot it may take), the overlay slot against a
// conversation (asked of invariant/overlay.ts, which alone decides it) and
// how many of a conversation's messages it carries from its start. The
// continuation and rejoin rules (implicit-rules.ts) read these.

import { SYSTEM_FINGERPRINT } from '../../invariant/fingerprint';
import { overlaySlotOf } from '../../invariant/overlay';
import { CHAIN_START, chainStep, type Conversation } from './conversation';
import type { Seen } from './seen-request';

/** The chain hashes of a request's prefixes from `offset` on: `chain[k]`, of its `k` messages after `offset`. */
export interface RequestChain {
  offset: number;
  chain: Int32Array;
}

/** The request's prefix chains, one per overlay slot it may take: 0, and 1 when it leads with a system message. */
export function requestChains(seen: Seen): RequestChain[] {
  const fingerprints = seen.fingerprints;
  const chains: RequestChain[] = [];
  // The largest slot is the one against a log that does not lead with a system message.
  const slots = overlaySlotOf(fingerprints[0] === SYSTEM_FINGERPRINT, false);
  for (let offset = 0; offset <= slots; offset++) {
    const chain = new Int32Array(fingerprints.length - offset + 1);
    let h = (chain[0] = CHAIN_START);
    for (let k = 1; k < chain.length; k++) chain[k] = h = chainStep(h, fingerprints[offset + k - 1]!);
    chains.push({ offset, chain });
  }
  return chains;
}

/** The overlay slot of the request against the conversation (overlay.ts decides it). */
export function overlayOffset(conversation: Conversation, seen: Seen): number {
  return overlaySlotOf(seen.fingerprints[0] === SYSTEM_FINGERPRINT, conversation.fingerprints[0] === SYSTEM_FINGERPRINT);
}

/**
 * How many of the conversation's messages the request carries in order from
 * its start. The last message of a conversation whose request ended in a
 * prefill, with no reply observed, matches any assistant message: the app
 * sends prefill and reply back as one.
 */
export function sharedPrefix(conversation: Conversation, seen: Seen, offset: number): number {
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
export class SharedPrefixes {
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

  /** How many of candidate `k`'s messages the request carries from its start (see `sharedPrefix`). */
  shared(k: number): number {
    if (this.#known[k]! < 0) this.#known[k] = sharedPrefix(this.#candidates[k]!, this.#seen, this.offset(k));
    return this.#known[k]!;
  }
}
