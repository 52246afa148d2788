// The replies models were seen sending, by fingerprint, with how many times
// each was seen: what the continuation rule (implicit-rules.ts `invented`)
// reads to tell a reply the model sent again from a copy of one it sent once.

import type { Fingerprint } from '../../invariant/fingerprint';
import type { KnownReplies } from './implicit-rules';
import { LatestSetMap } from './latest-set';

/** The replies seen recently (at most `capacity` fingerprints, the ones seen longest ago dropped first) and their counts. */
export class ObservedReplies implements KnownReplies {
  readonly #counts: LatestSetMap<Fingerprint, number>;

  constructor(capacity: number) {
    this.#counts = new LatestSetMap(capacity);
  }

  /** A model sent this reply here, once more. */
  observe(fingerprint: Fingerprint): void {
    this.#counts.set(fingerprint, (this.#counts.get(fingerprint) ?? 0) + 1);
  }

  /**
   * Another process saw a model send this reply (a shared store says so, not
   * how often): it counts as sent at least once.
   */
  seenElsewhere(fingerprint: Fingerprint): void {
    if (!this.#counts.has(fingerprint)) this.#counts.set(fingerprint, 1);
  }

  times(fingerprint: Fingerprint): number {
    return this.#counts.get(fingerprint) ?? 0;
  }
}
