// A map that keeps the most recently set entries up to a capacity.

/**
 * A map that keeps the most recently set entries, up to `capacity`, dropping
 * the oldest set first; reading does not refresh an entry. It bounds the
 * implicit log's caches of observed replies and reply items (docs/behaviour.md
 * §8.6).
 */
export class Lru<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #capacity: number;

  /** Keeps at most `capacity` entries. */
  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Sets `key` as the newest entry, dropping the oldest when over capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  /** The value for `key`, if kept. */
  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Whether `key` is kept. */
  has(key: K): boolean {
    return this.#entries.has(key);
  }
}
