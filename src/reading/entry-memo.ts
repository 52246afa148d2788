// Agent loops re-send the same message objects on every request, each time
// with one more turn. Reading a request would otherwise redo, for every
// message, work proportional to its text (conversion, fingerprint); an entry
// seen before and unchanged since (by its snapshot) is read once.
// Kept per entry object in a WeakMap: nothing outlives the app's own entries.

import { matchesSnapshot, takeSnapshot, type ReferenceSnapshot } from './reference-snapshot';

/**
 * How a memo tells that an entry is unchanged: `take` records what the
 * reading depends on (undefined: the entry cannot be remembered), `matches`
 * says whether the entry still holds it. A match must imply the same
 * reading.
 */
export interface EntrySnapshots<S> {
  take(entry: object): S | undefined;
  matches(entry: object, snapshot: S): boolean;
}

/** The generic snapshots: every key and value of the entry, by reference (see reference-snapshot.ts). */
export const referenceSnapshots: EntrySnapshots<ReferenceSnapshot> = { take: takeSnapshot, matches: matchesSnapshot };

interface Remembered<T, S> {
  snapshot: S;
  value: T;
}

/** The result of reading each provider entry, reused while the entry is unchanged. */
export class EntryMemo<T, S = ReferenceSnapshot> {
  readonly #remembered = new WeakMap<object, Remembered<T, S>>();
  readonly #snapshots: EntrySnapshots<S>;

  /** `snapshots` tells an unchanged entry; the generic reference snapshot by default. */
  constructor(snapshots: EntrySnapshots<S> = referenceSnapshots as unknown as EntrySnapshots<S>) {
    this.#snapshots = snapshots;
  }

  /** Whether a reading of `entry` is remembered (changed or not). */
  knows(entry: object): boolean {
    return this.#remembered.has(entry);
  }

  /**
   * `read(entry)`, or what it returned for this entry before if the entry
   * still holds what its snapshot recorded. The value returned must not be
   * changed by the caller: it is handed out again.
   */
  get(entry: unknown, read: (entry: unknown) => T): T {
    if (typeof entry !== 'object' || entry === null) return read(entry);
    const known = this.#remembered.get(entry);
    if (known !== undefined && this.#snapshots.matches(entry, known.snapshot)) return known.value;
    // Taken before the reading: a getter that changes between the two is then seen as a change next time, never missed.
    const snapshot = this.#snapshots.take(entry);
    const value = read(entry);
    if (snapshot === undefined) this.#remembered.delete(entry);
    else this.#remembered.set(entry, { snapshot, value });
    return value;
  }
}
