// A map bounded by insertion: the one policy of the implicit log's caches of
// observed replies, held replies and stored reply items.

/**
 * A map that keeps the entries set most recently, up to `capacity`, dropping
 * the one set longest ago first. Reading does not refresh an entry (it is not
 * an LRU): what these caches hold matters for as long as it is recent as a
 * reply, however often it is looked up. It bounds the implicit log's caches of
 * observed replies and reply items (docs/behaviour.md §8.6). The
 * conversations themselves are kept by conversation-store.ts (least recently
 * used first, and idle ones), and the sketch tables by stored-sketches.ts
 * (cleared whole past a size).
 */
export class LatestSetMap<K, V> {
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
