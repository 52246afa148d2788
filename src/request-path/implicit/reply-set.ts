// Fingerprints of the replies models sent recently, in any conversation: an
// assistant message one agent hands another (a sub-agent's answer in a
// supervisor's history) was sent by a model, just not in this conversation.

import type { Fingerprint } from '../../invariant/fingerprint';

export class RecentReplies {
  readonly #seen = new Set<Fingerprint>();
  readonly #capacity: number;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  add(fingerprint: Fingerprint): void {
    this.#seen.delete(fingerprint);
    this.#seen.add(fingerprint);
    if (this.#seen.size > this.#capacity) this.#seen.delete(this.#seen.values().next().value as Fingerprint);
  }

  has(fingerprint: Fingerprint): boolean {
    return this.#seen.has(fingerprint);
  }
}
