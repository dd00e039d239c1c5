/**
 * One BM25 field over the search chunks: an inverted index (term → chunks with their term
 * frequency) that chunks enter and leave one by one, so a changed file costs only its own chunks.
 *
 * Compact on purpose (a large repository has millions of term-chunk pairs), with no object per term:
 * - the main part is one sorted run per term in shared typed arrays (offsets by term id, chunk ids,
 *   one byte of frequency each, the rare larger frequencies on the side), with room to grow;
 * - chunks added since the last merge sit in a tail: an append-only log linked per term;
 * - a chunk that leaves is only marked dead (the index's liveness flags);
 * - the owner merges tail and main (dropping dead chunks and renumbering the live ones) from time
 *   to time, in one pass over the arrays; with no chunk gone the runs move up in place, so a large
 *   build does not leave a discarded copy of the main part behind at every merge (the allocator
 *   kept that memory).
 */
import { lastIndexWhere } from "../../core/bisect.ts";
import { grown, withSlack, worthTrimming } from "./arrays.ts";
import { type ScoreBoard, topOf } from "./ranking.ts";
import type { TermCounter } from "./tokenize.ts";

/** Okapi BM25 parameters: term-frequency saturation and length normalization (the cold scan, cold.ts, uses them too). */
export const K1 = 1.2;
export const B = 0.75;
const MAX_TERM_FREQUENCY = 0xffff;
/** Frequencies from this up live in the main part's overflow map. */
const BYTE_OVERFLOW = 0xff;

/** Which chunk ids are live (1) or not (0); replaced when it grows or ids are renumbered. */
export class Liveness {
  flags = new Uint8Array(1024);

  set(id: number, alive: boolean): void {
    this.flags = grown(this.flags, id + 1);
    this.flags[id] = alive ? 1 : 0;
  }

  has(id: number): boolean {
    return this.flags[id] === 1;
  }
}

/** One field as persist.ts writes it (see FieldIndex.persisted). */
export interface PersistedField {
  offsets: Int32Array<ArrayBuffer>;
  ids: Int32Array<ArrayBuffer>;
  frequencies: Uint8Array<ArrayBuffer>;
  entries: Int32Array<ArrayBuffer>;
  lengths: Uint32Array<ArrayBuffer>;
  /** Frequencies over a byte: (key, frequency) pairs. */
  overflow: Float64Array<ArrayBuffer>;
  totalLength: number;
}

/**
 * Why a persisted field cannot be restored where chunk ids run below `nextId`, or undefined: its
 * runs must tile the postings from the first to the last (each as long as its term's entry count),
 * hold increasing chunk ids that have a length, and its frequencies must be numbers. What is checked
 * is what the field reads by position (a run past its arrays would be read for billions of steps, an
 * entry count is what a merge allocates); what the numbers mean is the file's.
 */
export function persistedFieldProblem(field: PersistedField, nextId: number): string | undefined {
  const { offsets, ids, frequencies, entries, lengths, overflow, totalLength } = field;
  if (offsets.length === 0 || offsets[0] !== 0 || offsets[offsets.length - 1] !== ids.length || frequencies.length !== ids.length) return "its postings do not tile";
  if (lengths.length > nextId || !Number.isFinite(totalLength) || totalLength < 0) return "its chunk lengths";
  if (overflow.length % 2 !== 0) return "its large frequencies";
  for (let at = 1; at < overflow.length; at += 2) {
    const frequency = overflow[at]!;
    if (!Number.isInteger(frequency) || frequency < BYTE_OVERFLOW || frequency > MAX_TERM_FREQUENCY) return "its large frequencies";
  }
  const runs = offsets.length - 1;
  for (let term = 0, terms = Math.max(runs, entries.length); term < terms; term++) {
    const from = term < runs ? offsets[term]! : ids.length;
    const to = term < runs ? offsets[term + 1]! : ids.length;
    if (to < from || (entries[term] ?? 0) !== to - from) return "its postings do not tile";
    for (let at = from, previous = 0; at < to; at++) {
      const id = ids[at]!;
      if (id <= previous || id >= lengths.length) return "a posting names no chunk";
      previous = id;
    }
  }
  return undefined;
}

export interface QueryTerm {
  id: number;
  weight?: number;
  /** Counts once per chunk, whatever its frequency. */
  binary?: boolean;
}

export class FieldIndex {
  // Main part: chunk ids of term t at [offsets[t], offsets[t + 1]) in increasing order.
  #offsets = new Int32Array(1);
  #ids = new Int32Array(0);
  #frequencies = new Uint8Array(0);
  /** Pairs in the main part: ids and frequencies hold room for more. */
  #mainSize = 0;
  #overflow = new Map<number, number>();
  // Tail: pairs in the order they were added; #tailHead[t] is the last pair of term t, #tailNext the one before.
  #tailIds = new Int32Array(1024);
  #tailTerms = new Int32Array(1024);
  #tailNext = new Int32Array(1024);
  #tailFrequencies = new Uint16Array(1024);
  #tailSize = 0;
  #tailHead = new Int32Array(1024).fill(-1);
  /** Entries per term, main and tail, dead or alive. */
  #entries = new Int32Array(1024);
  /** Live chunks per term, counted when asked while some chunk has left (-1: not counted yet). */
  #frequencyCache = new Int32Array(0);
  #frequencyCacheValid = false;
  #removed = 0;
  #lengths = new Uint32Array(1024);
  #totalLength = 0;

  /**
   * `growth`: how much the main arrays grow when a merge outgrows them mid-build (the last merge of a
   * refresh sizes them to fit instead).
   */
  constructor(
    private readonly live: Liveness,
    private readonly growth = 1.5,
  ) {}

  /** Term-chunk pairs in the tail (added since the last merge). */
  get tailSize(): number {
    return this.#tailSize;
  }

  /** Pairs the main arrays have room for. */
  get mainCapacity(): number {
    return this.#ids.length;
  }

  /** Term-chunk pairs held, dead ones included. */
  get pairs(): number {
    return this.#mainSize + this.#tailSize;
  }

  /** Adds a chunk (ids must increase from call to call) with its counted terms. */
  add(id: number, document: TermCounter): void {
    const { ids, counts, distinct, length } = document;
    for (let index = 0; index < distinct; index++) {
      const term = ids[index]!;
      if (term >= this.#tailHead.length) {
        this.#tailHead = grown(this.#tailHead, term + 1, -1);
        this.#entries = grown(this.#entries, term + 1);
      }
      const at = this.#tailSize++;
      if (at === this.#tailIds.length) {
        this.#tailIds = grown(this.#tailIds, at + 1);
        this.#tailTerms = grown(this.#tailTerms, at + 1);
        this.#tailNext = grown(this.#tailNext, at + 1);
        const frequencies = new Uint16Array(this.#tailIds.length);
        frequencies.set(this.#tailFrequencies);
        this.#tailFrequencies = frequencies;
      }
      this.#tailIds[at] = id;
      this.#tailTerms[at] = term;
      this.#tailFrequencies[at] = Math.min(counts[term]!, MAX_TERM_FREQUENCY);
      this.#tailNext[at] = this.#tailHead[term]!;
      this.#tailHead[term] = at;
      this.#entries[term]!++;
    }
    this.#lengths = grown(this.#lengths, id + 1);
    this.#lengths[id] = length;
    this.#totalLength += length;
    this.#frequencyCacheValid = false;
  }

  /** Gives back room grown for chunks and terms to come: chunk ids below `chunks` and term ids below `terms` stay. */
  trim(chunks: number, terms: number): void {
    if (worthTrimming(this.#lengths.length, chunks)) this.#lengths = this.#lengths.slice(0, chunks);
    if (worthTrimming(this.#entries.length, terms)) {
      this.#entries = this.#entries.slice(0, terms);
      this.#tailHead = this.#tailHead.slice(0, terms);
    }
    if (this.#tailIds.length > withSlack(this.#tailSize) && this.#tailIds.length > 1024) {
      const size = Math.max(1024, withSlack(this.#tailSize));
      this.#tailIds = this.#tailIds.slice(0, size);
      this.#tailTerms = this.#tailTerms.slice(0, size);
      this.#tailNext = this.#tailNext.slice(0, size);
      this.#tailFrequencies = this.#tailFrequencies.slice(0, size);
    }
    // Terms past the dictionary have no entries: their (empty) runs go too.
    if (worthTrimming(this.#offsets.length, terms + 1)) this.#offsets = this.#offsets.slice(0, terms + 1);
    // An eighth stays, so the merges of later edits move runs in place.
    if (worthTrimming(this.#ids.length, this.#mainSize)) {
      const main = withSlack(this.#mainSize);
      this.#ids = this.#ids.slice(0, main);
      this.#frequencies = this.#frequencies.slice(0, main);
    }
  }

  /**
   * The field as plain arrays, for the persisted index (persist.ts): only when merged (no tail, no
   * chunk left since), so the main part is the whole field. Views, not copies: written before the
   * next change.
   */
  persisted(chunkCount: number): PersistedField {
    if (this.#tailSize > 0 || this.#removed > 0) throw new Error("a field is persisted only right after a merge");
    const overflow = new Float64Array(this.#overflow.size * 2);
    let at = 0;
    for (const [key, frequency] of this.#overflow) {
      overflow[at++] = key;
      overflow[at++] = frequency;
    }
    return {
      offsets: this.#offsets,
      ids: this.#ids.subarray(0, this.#mainSize),
      frequencies: this.#frequencies.subarray(0, this.#mainSize),
      entries: this.#entries,
      lengths: this.#lengths.subarray(0, Math.min(this.#lengths.length, chunkCount + 1)),
      overflow,
      totalLength: this.#totalLength,
    };
  }

  /** Takes the state persisted() gave (of an empty field: nothing added yet). */
  restore(state: PersistedField): void {
    this.#offsets = state.offsets;
    this.#ids = state.ids;
    this.#frequencies = state.frequencies;
    this.#mainSize = state.ids.length;
    this.#entries = state.entries;
    this.#lengths = grown(state.lengths, 1024);
    this.#totalLength = state.totalLength;
    this.#overflow = new Map();
    for (let at = 0; at + 1 < state.overflow.length; at += 2) this.#overflow.set(state.overflow[at]!, state.overflow[at + 1]!);
    this.#removed = 0;
    this.#frequencyCache = new Int32Array(0);
    this.#frequencyCacheValid = false;
    this.#tailSize = 0;
    // Grown together with the entries (add() checks one for both).
    this.#tailHead = new Int32Array(state.entries.length).fill(-1);
  }

  /** Takes a chunk out; the caller marks its id dead in the shared Liveness. */
  remove(id: number): void {
    if (id >= this.#lengths.length) return;
    this.#totalLength -= this.#lengths[id]!;
    this.#lengths[id] = 0;
    this.#removed++;
    this.#frequencyCacheValid = false;
  }

  /** Whether a live chunk holds the term. */
  has(term: number, id: number): boolean {
    if (!this.live.has(id)) return false;
    if (term + 1 < this.#offsets.length && findIn(this.#ids, this.#offsets[term]!, this.#offsets[term + 1]!, id)) return true;
    for (let at = term < this.#tailHead.length ? this.#tailHead[term]! : -1; at >= 0; at = this.#tailNext[at]!) {
      const value = this.#tailIds[at]!;
      if (value === id) return true;
      if (value < id) break;
    }
    return false;
  }

  /**
   * Adds the term's frequency in each live chunk `accept` keeps to `frequencies[group[chunk]]`, and
   * lists each group first met in `touched` (from 0); returns how many were listed. Groups must start
   * at frequency 0. (Whole-file scores: the group of a chunk is its file.)
   */
  frequenciesByGroup(term: number, group: Int32Array, frequencies: Float64Array, touched: Int32Array, accept?: (id: number) => boolean): number {
    if (term < 0 || term >= this.#entries.length || this.#entries[term] === 0) return 0;
    const live = this.live.flags;
    let count = 0;
    if (term + 1 < this.#offsets.length) {
      const ids = this.#ids;
      const stored = this.#frequencies;
      for (let at = this.#offsets[term]!, end = this.#offsets[term + 1]!; at < end; at++) {
        const id = ids[at]!;
        if (live[id] !== 1 || (accept !== undefined && !accept(id))) continue;
        let frequency = stored[at]!;
        if (frequency === BYTE_OVERFLOW) frequency = this.#overflow.get(overflowKey(term, id)) ?? BYTE_OVERFLOW;
        const slot = group[id]!;
        if (frequencies[slot] === 0) touched[count++] = slot;
        frequencies[slot]! += frequency;
      }
    }
    for (let at = this.#tailHead[term]!; at >= 0; at = this.#tailNext[at]!) {
      const id = this.#tailIds[at]!;
      if (live[id] !== 1 || (accept !== undefined && !accept(id))) continue;
      const slot = group[id]!;
      if (frequencies[slot] === 0) touched[count++] = slot;
      frequencies[slot]! += this.#tailFrequencies[at]!;
    }
    return count;
  }

  /** A chunk's length in terms. */
  lengthOf(id: number): number {
    return this.#lengths[id] ?? 0;
  }

  /** The live chunks' lengths added up. */
  get totalLength(): number {
    return this.#totalLength;
  }

  /** Live chunks holding the term. */
  documentFrequency(term: number): number {
    if (term >= this.#entries.length) return 0;
    if (this.#removed === 0) return this.#entries[term]!;
    if (!this.#frequencyCacheValid) {
      if (this.#frequencyCache.length < this.#entries.length) this.#frequencyCache = new Int32Array(this.#entries.length);
      this.#frequencyCache.fill(-1);
      this.#frequencyCacheValid = true;
    }
    const known = this.#frequencyCache[term]!;
    if (known >= 0) return known;
    const live = this.live.flags;
    let count = 0;
    if (term + 1 < this.#offsets.length) {
      const ids = this.#ids;
      for (let at = this.#offsets[term]!, end = this.#offsets[term + 1]!; at < end; at++) count += live[ids[at]!]!;
    }
    for (let at = this.#tailHead[term]!; at >= 0; at = this.#tailNext[at]!) count += live[this.#tailIds[at]!]!;
    this.#frequencyCache[term] = count;
    return count;
  }

  /** Inverse document frequency over `total` chunks (BM25's form, never negative). */
  idf(term: number, total: number): number {
    const frequency = this.documentFrequency(term);
    return Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
  }

  /**
   * Adds the BM25 score of every live chunk holding at least one term (each term weighted, default
   * 1) into `board`; chunks `accept` refuses are left out. `total` is the number of live chunks.
   */
  score(terms: readonly QueryTerm[], total: number, board: ScoreBoard, accept?: (id: number) => boolean): void {
    const averageLength = total > 0 ? Math.max(this.#totalLength / total, 1e-9) : 1;
    const lengthScale = (K1 * B) / averageLength;
    const lengthBase = K1 * (1 - B);
    const live = this.live.flags;
    const lengths = this.#lengths;
    // The board's arrays, held locally: this loop runs once per posting.
    const { scores, stamps, round } = board;
    let touched = board.touched;
    let size = board.size;
    for (const { id: term, weight = 1, binary = false } of terms) {
      if (term < 0 || term >= this.#entries.length || this.#entries[term] === 0) continue;
      const idf = this.idf(term, total) * weight;
      if (term + 1 < this.#offsets.length) {
        const ids = this.#ids;
        const frequencies = this.#frequencies;
        for (let at = this.#offsets[term]!, end = this.#offsets[term + 1]!; at < end; at++) {
          const id = ids[at]!;
          if (live[id] !== 1 || (accept !== undefined && !accept(id))) continue;
          let frequency = binary ? 1 : frequencies[at]!;
          if (frequency === BYTE_OVERFLOW) frequency = this.#overflow.get(overflowKey(term, id)) ?? BYTE_OVERFLOW;
          const part = (idf * frequency * (K1 + 1)) / (frequency + lengthBase + lengthScale * lengths[id]!);
          if (stamps[id] === round) scores[id]! += part;
          else {
            stamps[id] = round;
            scores[id] = part;
            if (size === touched.length) touched = grown(touched, size + 1);
            touched[size++] = id;
          }
        }
      }
      const tailIds = this.#tailIds;
      const tailNext = this.#tailNext;
      const tailFrequencies = this.#tailFrequencies;
      for (let at = this.#tailHead[term]!; at >= 0; at = tailNext[at]!) {
        const id = tailIds[at]!;
        if (live[id] !== 1 || (accept !== undefined && !accept(id))) continue;
        const frequency = binary ? 1 : tailFrequencies[at]!;
        const part = (idf * frequency * (K1 + 1)) / (frequency + lengthBase + lengthScale * lengths[id]!);
        if (stamps[id] === round) scores[id]! += part;
        else {
          stamps[id] = round;
          scores[id] = part;
          if (size === touched.length) touched = grown(touched, size + 1);
          touched[size++] = id;
        }
      }
    }
    board.touched = touched;
    board.size = size;
  }

  /**
   * The `limit` best live chunks that `accept` keeps, by the scores score() gives binary terms (each
   * term held counts once), best first (ties to `tieBreak`). Terms are taken in the order given,
   * best rarest first: once the terms left could not lift a chunk not seen yet into the answer, only
   * the chunks that still could are followed (looked up in the rest of the postings rather than
   * scanning them), so common terms at the end cost little. Scores land in `board`.
   */
  topBinary(terms: readonly number[], total: number, board: ScoreBoard, limit: number, accept?: (id: number) => boolean, tieBreak?: (a: number, b: number) => number): number[] {
    board.begin(this.live.flags.length);
    if (limit <= 0) return [];
    const averageLength = total > 0 ? Math.max(this.#totalLength / total, 1e-9) : 1;
    const lengthScale = (K1 * B) / averageLength;
    const lengthBase = K1 * (1 - B);
    const idfs = terms.map((term) => (term >= 0 && term < this.#entries.length ? this.idf(term, total) : 0));
    // The idf of terms j.. together: a chunk of length n gains at most that times
    // (K1 + 1) / (1 + lengthBase + lengthScale * n) from them (with room for rounding).
    const left = new Float64Array(terms.length + 1);
    for (let index = terms.length - 1; index >= 0; index--) left[index] = left[index + 1]! + idfs[index]!;
    const room = 1 + 1e-9;
    const gain = (length: number) => ((K1 + 1) / (1 + lengthBase + lengthScale * length)) * room;
    const live = this.live.flags;
    const lengths = this.#lengths;
    let candidates: Int32Array | undefined;
    let candidateCount = 0;
    for (let index = 0; index < terms.length; index++) {
      const term = terms[index]!;
      if (term < 0 || term >= this.#entries.length || this.#entries[term] === 0) continue;
      const idf = idfs[index]!;
      const part = (id: number) => (idf * 1 * (K1 + 1)) / (1 + lengthBase + lengthScale * lengths[id]!);
      if (candidates === undefined && board.size >= limit && this.#entries[term]! > board.size >> 2) {
        // Could a chunk not seen yet still make the answer? Not when the terms left add less than the limit-th best has.
        const threshold = board.scores[topOf(board.touched, board.size, board.scores, limit).at(-1)!]!;
        if (left[index]! * gain(0) < threshold) {
          candidates = new Int32Array(board.size);
          for (let at = 0; at < board.size; at++) {
            const id = board.touched[at]!;
            if (board.scores[id]! + left[index]! * gain(lengths[id]!) >= threshold) candidates[candidateCount++] = id;
          }
        }
      }
      if (candidates === undefined) {
        this.score([{ id: term, binary: true }], total, board, accept);
        continue;
      }
      const runStart = term + 1 < this.#offsets.length ? this.#offsets[term]! : 0;
      const runEnd = term + 1 < this.#offsets.length ? this.#offsets[term + 1]! : 0;
      const { scores, stamps, round } = board;
      const ids = this.#ids;
      // Chunks seen before are the only ones that count now (the rest only lose): each is looked up
      // in the term's run, or the run is scanned, whichever reads less.
      if (candidateCount * Math.log2(runEnd - runStart + 2) < runEnd - runStart) {
        for (let at = 0; at < candidateCount; at++) {
          const id = candidates[at]!;
          if (live[id] === 1 && findIn(ids, runStart, runEnd, id)) scores[id]! += part(id);
        }
      } else {
        for (let at = runStart; at < runEnd; at++) {
          const id = ids[at]!;
          if (stamps[id] === round && live[id] === 1) scores[id]! += part(id);
        }
      }
      for (let at = this.#tailHead[term]!; at >= 0; at = this.#tailNext[at]!) {
        const id = this.#tailIds[at]!;
        if (stamps[id] === round && live[id] === 1) scores[id]! += part(id);
      }
    }
    return candidates === undefined ? board.top(limit, tieBreak) : topOf(candidates, candidateCount, board.scores, limit, tieBreak);
  }

  /**
   * Folds the tail into the main part. With `renumber` (old id → new id, 0 for dead; increasing
   * over live ids, so runs stay sorted) dead chunks are dropped and the live ones renumbered;
   * without it no chunk has left since the last merge and ids stay as they are. `last`: no pairs
   * follow soon (the end of a refresh), so outgrown arrays get little room to grow. True when the
   * main arrays were replaced (the old ones are garbage now).
   */
  merge(renumber: Int32Array | undefined, chunkCount: number, last = false): boolean {
    if (renumber === undefined) return this.#mergeInPlace(last);
    const terms = this.#entries.length;
    const mainTerms = Math.min(this.#offsets.length - 1, terms);
    const oldOffsets = this.#offsets;
    const oldIds = this.#ids;
    const oldFrequencies = this.#frequencies;
    const tailIds = this.#tailIds;
    const tailTerms = this.#tailTerms;
    const tailFrequencies = this.#tailFrequencies;
    const tailSize = this.#tailSize;
    const counts = new Int32Array(terms);
    for (let term = 0; term < mainTerms; term++) {
      let count = 0;
      for (let at = oldOffsets[term]!, end = oldOffsets[term + 1]!; at < end; at++) if (renumber[oldIds[at]!] !== 0) count++;
      counts[term] = count;
    }
    for (let at = 0; at < tailSize; at++) if (renumber[tailIds[at]!] !== 0) counts[tailTerms[at]!]!++;
    const offsets = new Int32Array(terms + 1);
    for (let term = 0; term < terms; term++) offsets[term + 1] = offsets[term]! + counts[term]!;
    const total = offsets[terms]!;
    const ids = new Int32Array(total);
    const frequencies = new Uint8Array(total);
    const cursor = offsets.slice(0, terms);
    const overflow = new Map<number, number>();
    for (let term = 0; term < mainTerms; term++) {
      let to = cursor[term]!;
      for (let at = oldOffsets[term]!, end = oldOffsets[term + 1]!; at < end; at++) {
        const id = renumber[oldIds[at]!]!;
        if (id === 0) continue;
        ids[to] = id;
        const frequency = oldFrequencies[at]!;
        frequencies[to] = frequency;
        if (frequency === BYTE_OVERFLOW) overflow.set(overflowKey(term, id), this.#overflow.get(overflowKey(term, oldIds[at]!)) ?? BYTE_OVERFLOW);
        to++;
      }
      cursor[term] = to;
    }
    for (let at = 0; at < tailSize; at++) {
      const id = renumber[tailIds[at]!]!;
      if (id === 0) continue;
      const term = tailTerms[at]!;
      const to = cursor[term]!;
      cursor[term] = to + 1;
      ids[to] = id;
      storeFrequency(frequencies, to, overflow, term, id, tailFrequencies[at]!);
    }
    this.#overflow = overflow;
    const lengths = new Uint32Array(Math.max(1024, chunkCount + 1));
    for (let old = 0; old < renumber.length && old < this.#lengths.length; old++) {
      const id = renumber[old]!;
      if (id > 0) lengths[id] = this.#lengths[old]!;
    }
    this.#lengths = lengths;
    this.#removed = 0;
    this.#offsets = offsets;
    this.#ids = ids;
    this.#frequencies = frequencies;
    this.#mainSize = total;
    this.#entries = counts;
    this.#frequencyCacheValid = false;
    this.#frequencyCache = new Int32Array(0);
    // The tail's arrays stay for the pairs to come (a large refresh merges many times); trim() gives them back.
    this.#tailSize = 0;
    this.#tailHead = new Int32Array(terms).fill(-1);
    return true;
  }

  /**
   * merge() when no chunk has left: every tail id is above every main id, so each term's run grows
   * at its end. Runs move up in place from the last term down (a run never lands below where it
   * was), and each term's tail pairs, linked newest first, fill its new run from the end.
   */
  #mergeInPlace(last: boolean): boolean {
    const terms = this.#entries.length;
    const counts = this.#entries;
    const oldOffsets = this.#offsets;
    const mainTerms = Math.min(oldOffsets.length - 1, terms);
    const offsets = new Int32Array(terms + 1);
    for (let term = 0; term < terms; term++) offsets[term + 1] = offsets[term]! + counts[term]!;
    const total = offsets[terms]!;
    let ids = this.#ids;
    let frequencies = this.#frequencies;
    const grows = total > ids.length;
    if (grows) {
      // Grown to fit at the end of a refresh, so trim() need not copy them again.
      const capacity = last ? withSlack(total) : Math.max(total, Math.floor(ids.length * this.growth));
      const size = this.#mainSize;
      ids = new Int32Array(capacity);
      ids.set(this.#ids.subarray(0, size));
      frequencies = new Uint8Array(capacity);
      frequencies.set(this.#frequencies.subarray(0, size));
      // The old arrays go before the runs move, so only one copy of the main part is live.
      this.#ids = ids;
      this.#frequencies = frequencies;
    }
    const tailHead = this.#tailHead;
    const tailIds = this.#tailIds;
    const tailNext = this.#tailNext;
    const tailFrequencies = this.#tailFrequencies;
    for (let term = terms - 1; term >= 0; term--) {
      const start = offsets[term]!;
      let to = offsets[term + 1]!;
      for (let at = term < tailHead.length ? tailHead[term]! : -1; at >= 0; at = tailNext[at]!) {
        to--;
        const id = tailIds[at]!;
        ids[to] = id;
        storeFrequency(frequencies, to, this.#overflow, term, id, tailFrequencies[at]!);
      }
      if (term < mainTerms) {
        const from = oldOffsets[term]!;
        const end = oldOffsets[term + 1]!;
        if (from !== start && end > from) {
          ids.copyWithin(start, from, end);
          frequencies.copyWithin(start, from, end);
        }
      }
    }
    this.#offsets = offsets;
    this.#mainSize = total;
    this.#frequencyCacheValid = false;
    this.#frequencyCache = new Int32Array(0);
    this.#tailSize = 0;
    tailHead.fill(-1);
    return grows;
  }
}

/** Whether the sorted ids[from, to) hold `id`. */
function findIn(ids: Int32Array, from: number, to: number, id: number): boolean {
  const at = lastIndexWhere(to - from, (index) => ids[from + index]! <= id);
  return at >= 0 && ids[from + at] === id;
}

/** Writes a tail pair's frequency into the main part: one byte, the rare larger frequencies in the overflow map. */
function storeFrequency(frequencies: Uint8Array, at: number, overflow: Map<number, number>, term: number, id: number, frequency: number): void {
  frequencies[at] = Math.min(frequency, BYTE_OVERFLOW);
  if (frequency >= BYTE_OVERFLOW) overflow.set(overflowKey(term, id), frequency);
}

/** Key of a (term, chunk) pair in the overflow map (both stay far below 2^26). */
function overflowKey(term: number, id: number): number {
  return term * 0x4000000 + id;
}
