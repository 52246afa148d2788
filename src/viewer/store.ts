// The violations the viewer holds: the last `capacity` only, so memory stays
// bounded however long it runs. A violation's span event and its log record
// arrive separately (traces and logs are exported apart) and merge into one.

import { docsLinkFor } from '../telemetry/docs-link';
import { UNOBSERVED_REPLIES_WORDS, usualFix } from '../telemetry/violation-line';
import { boundViolation } from './bounded-violation';
import { layoutOf, type Layout } from './layout';
import { mergeViolation, violationKey, type ViewerViolation } from './violation';

/** What the page receives for each violation: the violation, its picture, its usual fix and docs, and an id to update it by. */
export interface StoredViolation extends ViewerViolation {
  id: number;
  receivedMs: number;
  layout: Layout | null;
  /** The usual cause and fix, as the warning line words it; undefined for a kind this version does not know. */
  fix: string | undefined;
  /** The docs section for the kind, undefined for a kind this version does not know. */
  docs: string | undefined;
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
        stored = { ...v, id: this.#nextId++, receivedMs: Date.now(), layout: null, fix: undefined, docs: undefined };
        this.#byKey.set(key, stored);
        this.#evict();
      }
      stored.layout = layoutOf(stored.kind, stored.log, stored.attributes);
      stored.fix = usualFix(stored.kind, stored.log, stored.explanation?.includes(UNOBSERVED_REPLIES_WORDS));
      stored.docs = stored.fix === undefined ? undefined : docsLinkFor(stored.kind);
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
