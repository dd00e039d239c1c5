/**
 * A map of at most `capacity` entries that drops the least recently used first: the one mechanism
 * for a memo or cache bounded by its number of entries. A Map keeps insertion order, so a read moves
 * its key to the end and the first key is always the one to drop.
 */
export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.#entries.size;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** The value of `key` (now the most recently used), or undefined. */
  get(key: K): V | undefined {
    if (!this.#entries.has(key)) return undefined;
    const value = this.#entries.get(key)!;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Keeps `value` as the most recently used, dropping the least recently used beyond the capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as K);
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }
}
