/**
 * Pairs of small non-negative integers grouped by key, each group in the order its pairs were
 * added: one Int32Array for every pair and one number per key. A list per key would cost an object
 * and its spare capacity for each of tens of thousands of keys (call sites and declarations by name
 * on a large tree: docs/decisions/0025-graphs-without-an-object-per-edge.md).
 */
export class PairsByKey<K> {
  /** Key → its group number; group g's pairs are pairs[2 * starts[g]] up to pairs[2 * starts[g + 1]]. */
  readonly #groups: Map<K, number>;
  readonly #starts: Int32Array;
  readonly #pairs: Int32Array;

  private constructor(groups: Map<K, number>, starts: Int32Array, pairs: Int32Array) {
    this.#groups = groups;
    this.#starts = starts;
    this.#pairs = pairs;
  }

  /** Built from `visit`, which is called twice and must add the same pairs both times. */
  static build<K>(visit: (add: (key: K, first: number, second: number) => void) => void): PairsByKey<K> {
    const groups = new Map<K, number>();
    const counts: number[] = [];
    visit((key) => {
      const group = groups.get(key);
      if (group === undefined) {
        groups.set(key, counts.length);
        counts.push(1);
      } else counts[group] = (counts[group] as number) + 1;
    });
    const starts = new Int32Array(counts.length + 1);
    for (let group = 0; group < counts.length; group++) starts[group + 1] = (starts[group] as number) + (counts[group] as number);
    const pairs = new Int32Array(2 * (starts[counts.length] as number));
    const next = starts.slice(0, counts.length);
    visit((key, first, second) => {
      const group = groups.get(key) as number;
      const at = 2 * (next[group] as number);
      next[group] = (next[group] as number) + 1;
      pairs[at] = first;
      pairs[at + 1] = second;
    });
    return new PairsByKey(groups, starts, pairs);
  }

  static empty<K>(): PairsByKey<K> {
    return new PairsByKey(new Map(), new Int32Array(1), new Int32Array(0));
  }

  /** Calls `each` for every pair of `key`, in the order they were added. */
  forEach(key: K, each: (first: number, second: number) => void): void {
    const group = this.#groups.get(key);
    if (group === undefined) return;
    const end = 2 * (this.#starts[group + 1] as number);
    for (let at = 2 * (this.#starts[group] as number); at < end; at += 2) each(this.#pairs[at] as number, this.#pairs[at + 1] as number);
  }
}
