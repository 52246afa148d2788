// Agent loops re-send the same message objects on every request, each time
// with one more turn. Reading a request would otherwise redo, for every
// message, work proportional to its text (conversion, fingerprint); an entry
// seen before and unchanged since (by its reference snapshot) is read once.
// Kept per entry object in a WeakMap: nothing outlives the app's own entries.

import { matchesSnapshot, takeSnapshot, type ReferenceSnapshot } from './reference-snapshot';

interface Remembered<T> {
  snapshot: ReferenceSnapshot;
  value: T;
}

/** The result of reading each provider entry, reused while the entry is unchanged. */
export class EntryMemo<T> {
  readonly #remembered = new WeakMap<object, Remembered<T>>();

  /** Whether a reading of `entry` is remembered (changed or not). */
  knows(entry: object): boolean {
    return this.#remembered.has(entry);
  }

  /**
   * `read(entry)`, or what it returned for this entry before if the entry
   * still holds the same keys and values (by reference). The value returned
   * must not be changed by the caller: it is handed out again.
   */
  get(entry: unknown, read: (entry: unknown) => T): T {
    if (typeof entry !== 'object' || entry === null) return read(entry);
    const known = this.#remembered.get(entry);
    if (known !== undefined && matchesSnapshot(entry, known.snapshot)) return known.value;
    const value = read(entry);
    const snapshot = takeSnapshot(entry);
    if (snapshot === undefined) this.#remembered.delete(entry);
    else this.#remembered.set(entry, { snapshot, value });
    return value;
  }
}
