// The violations the viewer holds: the last `capacity` only, so memory stays
// bounded however long it runs. A violation's span event and its log record
// arrive separately (traces and logs are exported apart) and merge into one.

import { boundViolation } from './bounded-violation';
import { layoutOf, type Layout } from './layout';
import { mergeViolation, violationKey, type ViewerViolation } from './violation';

/** What the page receives for each violation: the violation, its picture, and an id to update it by. */
export interface StoredViolation extends ViewerViolation {
  id: number;
  receivedMs: number;
  layout: Layout | null;
}

/** How many violations are kept by default; `--max-violations` changes it. */
export const DEFAULT_CAPACITY = 1_000;

export class ViolationStore {
  readonly #capacity: number;
  /** Oldest first; Map insertion order is arrival order. */
  readonly #byKey = new Map<string, StoredViolation>();
  readonly #listeners = new Set<(v: StoredViolation) => void>();
  #nextId = 1;

  constructor(capacity = DEFAULT_CAPACITY) {
    this.#capacity = Math.max(1, Math.floor(capacity));
  }

  /** Adds violations (each bounded first), or completes one already held from the other record of it; tells listeners of each. */
  add(violations: readonly ViewerViolation[]): void {
    for (const received of violations) {
      // Bounded before anything is kept, the map's key included.
      const v = boundViolation(received);
      const key = violationKey(v);
      let stored = this.#byKey.get(key);
      if (stored) {
        mergeViolation(stored, v);
        boundViolation(stored);
      } else {
        stored = { ...v, id: this.#nextId++, receivedMs: Date.now(), layout: null };
        this.#byKey.set(key, stored);
        this.#evict();
      }
      stored.layout = layoutOf(stored.kind, stored.log, stored.attributes);
      for (const listener of this.#listeners) listener(stored);
    }
  }

  list(): StoredViolation[] {
    return [...this.#byKey.values()];
  }

  get size(): number {
    return this.#byKey.size;
  }

  /** How many listeners are subscribed (page streams, mostly). */
  get subscribers(): number {
    return this.#listeners.size;
  }

  /** Calls `listener` with each violation added or updated; returns the unsubscribe. */
  subscribe(listener: (v: StoredViolation) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #evict(): void {
    for (const key of this.#byKey.keys()) {
      if (this.#byKey.size <= this.#capacity) return;
      this.#byKey.delete(key);
    }
  }
}
