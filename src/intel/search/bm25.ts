/**
 * One BM25 field over the search chunks: an inverted index (term → chunks with their term
 * frequency) that chunks enter and leave one by one, so a changed file costs only its own chunks.
 *
 * Compact on purpose (a large repository has millions of term-chunk pairs): terms are interned to
 * numbers once for all fields, each term's chunks sit in typed arrays in increasing id order (ids
 * only grow), and a chunk that leaves is only marked dead; a term's arrays are compacted when half
 * of their entries are dead.
 */

/** A chunk's text in one field: its term frequencies and its length in terms. */
export interface FieldDocument {
  counts: Map<string, number>;
  length: number;
}

/** Okapi BM25 parameters: term-frequency saturation and length normalization. */
const K1 = 1.2;
const B = 0.75;
const MAX_TERM_FREQUENCY = 0xffff;

/** Terms as small numbers, shared by every field of one search index. */
export class TermDictionary {
  readonly #ids = new Map<string, number>();
  readonly #terms: string[] = [];

  intern(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      id = this.#terms.length;
      this.#terms.push(term);
      this.#ids.set(term, id);
    }
    return id;
  }

  lookup(term: string): number | undefined {
    return this.#ids.get(term);
  }

  term(id: number): string {
    return this.#terms[id]!;
  }
}

/** Which chunk ids are live; an id that dies never lives again. */
export class Liveness {
  #flags = new Uint8Array(1024);

  set(id: number, alive: boolean): void {
    if (id >= this.#flags.length) {
      const grown = new Uint8Array(Math.max(this.#flags.length * 2, id + 1));
      grown.set(this.#flags);
      this.#flags = grown;
    }
    this.#flags[id] = alive ? 1 : 0;
  }

  has(id: number): boolean {
    return this.#flags[id] === 1;
  }
}

class Posting {
  ids = new Int32Array(4);
  frequencies = new Uint16Array(4);
  size = 0;
  dead = 0;

  push(id: number, frequency: number): void {
    if (this.size === this.ids.length) {
      const ids = new Int32Array(this.size * 2);
      ids.set(this.ids);
      this.ids = ids;
      const frequencies = new Uint16Array(this.size * 2);
      frequencies.set(this.frequencies);
      this.frequencies = frequencies;
    }
    this.ids[this.size] = id;
    this.frequencies[this.size] = Math.min(frequency, MAX_TERM_FREQUENCY);
    this.size++;
  }

  /** Drops dead entries, keeping id order. */
  compact(live: Liveness): void {
    let kept = 0;
    for (let index = 0; index < this.size; index++) {
      const id = this.ids[index]!;
      if (!live.has(id)) continue;
      this.ids[kept] = id;
      this.frequencies[kept] = this.frequencies[index]!;
      kept++;
    }
    this.size = kept;
    this.dead = 0;
    if (this.ids.length > 8 && kept * 4 < this.ids.length) {
      this.ids = this.ids.slice(0, Math.max(4, kept * 2));
      this.frequencies = this.frequencies.slice(0, Math.max(4, kept * 2));
    }
  }

  /** Index of `id` among the entries (ids are in increasing order), or -1. */
  find(id: number): number {
    let low = 0;
    let high = this.size - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      const value = this.ids[middle]!;
      if (value === id) return middle;
      if (value < id) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }
}

export class FieldIndex {
  readonly #postings = new Map<number, Posting>();
  #lengths = new Uint32Array(1024);
  #totalLength = 0;

  constructor(
    private readonly dictionary: TermDictionary,
    private readonly live: Liveness,
  ) {}

  /** Adds a chunk (ids must increase from call to call); appends its distinct term ids to `termIds` (what remove() needs later). */
  add(id: number, document: FieldDocument, termIds: number[]): void {
    for (const [term, count] of document.counts) {
      const termId = this.dictionary.intern(term);
      termIds.push(termId);
      let posting = this.#postings.get(termId);
      if (!posting) {
        posting = new Posting();
        this.#postings.set(termId, posting);
      }
      posting.push(id, count);
    }
    if (id >= this.#lengths.length) {
      const grown = new Uint32Array(Math.max(this.#lengths.length * 2, id + 1));
      grown.set(this.#lengths);
      this.#lengths = grown;
    }
    this.#lengths[id] = document.length;
    this.#totalLength += document.length;
  }

  /** Takes a chunk out; the caller marks its id dead in the shared Liveness first. */
  remove(id: number, termIds: ArrayLike<number>): void {
    for (let index = 0; index < termIds.length; index++) {
      const termId = termIds[index]!;
      const posting = this.#postings.get(termId);
      if (!posting) continue;
      posting.dead++;
      if (posting.dead === posting.size) this.#postings.delete(termId);
      else if (posting.dead * 2 > posting.size) posting.compact(this.live);
    }
    this.#totalLength -= this.#lengths[id] ?? 0;
    if (id < this.#lengths.length) this.#lengths[id] = 0;
  }

  /** Whether a live chunk holds the term. */
  has(term: string, id: number): boolean {
    const termId = this.dictionary.lookup(term);
    const posting = termId === undefined ? undefined : this.#postings.get(termId);
    return posting !== undefined && this.live.has(id) && posting.find(id) >= 0;
  }

  /** Live chunks holding the term. */
  documentFrequency(term: string): number {
    const termId = this.dictionary.lookup(term);
    const posting = termId === undefined ? undefined : this.#postings.get(termId);
    return posting ? posting.size - posting.dead : 0;
  }

  /** Inverse document frequency over `total` chunks (BM25's form, never negative). */
  idf(term: string, total: number): number {
    const frequency = this.documentFrequency(term);
    return Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
  }

  /**
   * BM25 scores of every live chunk holding at least one term, each term weighted (default 1).
   * Chunks `accept` refuses are left out. `total` is the number of chunks in the collection.
   */
  score(terms: ReadonlyArray<{ term: string; weight?: number; binary?: boolean }>, total: number, accept?: (id: number) => boolean): Map<number, number> {
    const scores = new Map<number, number>();
    const averageLength = total > 0 ? Math.max(this.#totalLength / total, 1e-9) : 1;
    const lengthScale = (K1 * B) / averageLength;
    const lengthBase = K1 * (1 - B);
    for (const { term, weight = 1, binary = false } of terms) {
      const termId = this.dictionary.lookup(term);
      const posting = termId === undefined ? undefined : this.#postings.get(termId);
      if (!posting) continue;
      const idf = this.idf(term, total) * weight;
      const { ids, frequencies, size } = posting;
      for (let index = 0; index < size; index++) {
        const id = ids[index]!;
        if (!this.live.has(id) || (accept && !accept(id))) continue;
        const frequency = binary ? 1 : frequencies[index]!;
        const part = (idf * frequency * (K1 + 1)) / (frequency + lengthBase + lengthScale * this.#lengths[id]!);
        scores.set(id, (scores.get(id) ?? 0) + part);
      }
    }
    return scores;
  }
}

export interface RankedList {
  ranked: readonly number[];
  /** Scores of the ranked ids: equal scores share a rank, so ties never favour the older chunk. */
  scores?: ReadonlyMap<number, number>;
  weight?: number;
}

/** Reciprocal rank fusion: each ranked list adds weight / (k + rank), rank starting at 1 (ties: competition ranking). */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): Map<number, number> {
  const fused = new Map<number, number>();
  for (const { ranked, scores, weight = 1 } of lists) {
    let rank = 0;
    let previous: number | undefined;
    ranked.forEach((id, index) => {
      const score = scores?.get(id);
      if (score === undefined || score !== previous) rank = index + 1;
      previous = score;
      fused.set(id, (fused.get(id) ?? 0) + weight / (k + rank));
    });
  }
  return fused;
}

/** Ids of a score map, best first, at most `limit`: a bounded heap, so a common term does not sort every chunk. Ties go to `tieBreak` (default: lower id). */
export function rankScores(scores: ReadonlyMap<number, number>, limit: number, tieBreak: (a: number, b: number) => number = (a, b) => a - b): number[] {
  if (limit <= 0) return [];
  const better = (a: readonly [number, number], b: readonly [number, number]) => a[1] > b[1] || (a[1] === b[1] && tieBreak(a[0], b[0]) < 0);
  // Min-heap (by "better") of the best `limit` entries seen so far.
  const heap: Array<[number, number]> = [];
  const siftDown = (from: number) => {
    let at = from;
    for (;;) {
      const left = 2 * at + 1;
      const right = left + 1;
      let worst = at;
      if (left < heap.length && better(heap[worst]!, heap[left]!)) worst = left;
      if (right < heap.length && better(heap[worst]!, heap[right]!)) worst = right;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  };
  for (const entry of scores) {
    if (heap.length < limit) {
      heap.push(entry);
      let at = heap.length - 1;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!better(heap[parent]!, heap[at]!)) break;
        [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
        at = parent;
      }
    } else if (better(entry, heap[0]!)) {
      heap[0] = entry;
      siftDown(0);
    }
  }
  return heap.sort((a, b) => b[1] - a[1] || tieBreak(a[0], b[0])).map(([id]) => id);
}
