/**
 * Ranking over chunk ids: per-query scores (ScoreBoard), the best few of them by a bounded heap
 * (topOf), and reciprocal rank fusion of several ranked lists.
 */
import { grown } from "./arrays.ts";

/**
 * Per-query scores by chunk id, reused from query to query: a stamp marks the chunks touched in the
 * current round, so nothing is cleared between rounds.
 */
export class ScoreBoard {
  scores = new Float64Array(1024);
  stamps = new Int32Array(1024);
  touched = new Int32Array(1024);
  size = 0;
  round = 1;

  /** Starts a round over chunk ids below `capacity`. */
  begin(capacity: number): void {
    if (capacity > this.scores.length) {
      const length = Math.max(capacity, this.scores.length * 2);
      this.scores = new Float64Array(length);
      this.stamps = new Int32Array(length);
      this.round = 0;
    }
    this.size = 0;
    this.round++;
    if (this.round === 0x7fffffff) {
      this.stamps.fill(0);
      this.round = 1;
    }
  }

  add(id: number, value: number): void {
    if (this.stamps[id] === this.round) {
      this.scores[id]! += value;
      return;
    }
    this.stamps[id] = this.round;
    this.scores[id] = value;
    if (this.size === this.touched.length) this.touched = grown(this.touched, this.size + 1);
    this.touched[this.size++] = id;
  }

  /**
   * The touched ids, best first, at most `limit`: a bounded heap, so a common term does not sort
   * every chunk. Ties go to `tieBreak` (default: lower id).
   */
  top(limit: number, tieBreak?: (a: number, b: number) => number): number[] {
    return topOf(this.touched, this.size, this.scores, limit, tieBreak);
  }
}

/**
 * The `limit` best of ids[0, count) by scores[id], best first; ties go to `tieBreak` (default: lower
 * id). A min-heap of the best so far (root: the worst of them) holds their ids and scores side by
 * side; the default order is written out inline, since this runs once per scored chunk.
 */
export function topOf(ids: Int32Array, count: number, scores: Float64Array, limit: number, tieBreak?: (a: number, b: number) => number): number[] {
  if (limit <= 0 || count === 0) return [];
  const size = Math.min(limit, count);
  const heapIds = new Int32Array(size);
  const heapScores = new Float64Array(size);
  let heapSize = 0;
  if (tieBreak === undefined) {
    for (let index = 0; index < count; index++) {
      const id = ids[index]!;
      const score = scores[id]!;
      let at: number;
      if (heapSize < size) {
        // Sift up from the end.
        at = heapSize++;
        while (at > 0) {
          const parent = (at - 1) >> 1;
          const parentScore = heapScores[parent]!;
          if (!(score < parentScore || (score === parentScore && id > heapIds[parent]!))) break;
          heapIds[at] = heapIds[parent]!;
          heapScores[at] = parentScore;
          at = parent;
        }
      } else {
        const worst = heapScores[0]!;
        if (score < worst || (score === worst && id > heapIds[0]!)) continue;
        // Replace the root and sift down.
        at = 0;
        for (;;) {
          const left = 2 * at + 1;
          if (left >= heapSize) break;
          const right = left + 1;
          let child = left;
          if (right < heapSize && (heapScores[right]! < heapScores[left]! || (heapScores[right] === heapScores[left] && heapIds[right]! > heapIds[left]!))) child = right;
          const childScore = heapScores[child]!;
          if (!(childScore < score || (childScore === score && heapIds[child]! > id))) break;
          heapIds[at] = heapIds[child]!;
          heapScores[at] = childScore;
          at = child;
        }
      }
      heapIds[at] = id;
      heapScores[at] = score;
    }
    return drain(heapIds, heapScores, heapSize, (aScore, aId, bScore, bId) => aScore < bScore || (aScore === bScore && aId > bId));
  }
  // Whether entry (aScore, aId) ranks below (bScore, bId).
  const below = (aScore: number, aId: number, bScore: number, bId: number) => aScore < bScore || (aScore === bScore && tieBreak(aId, bId) > 0);
  for (let index = 0; index < count; index++) {
    const id = ids[index]!;
    const score = scores[id]!;
    if (heapSize < size) {
      let at = heapSize++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (!below(score, id, heapScores[parent]!, heapIds[parent]!)) break;
        heapIds[at] = heapIds[parent]!;
        heapScores[at] = heapScores[parent]!;
        at = parent;
      }
      heapIds[at] = id;
      heapScores[at] = score;
    } else if (below(heapScores[0]!, heapIds[0]!, score, id)) {
      siftDown(heapIds, heapScores, heapSize, id, score, below);
    }
  }
  return drain(heapIds, heapScores, heapSize, below);
}

/** Puts (id, score) at the root of the heap and moves it down to its place. */
function siftDown(
  heapIds: Int32Array,
  heapScores: Float64Array,
  heapSize: number,
  id: number,
  score: number,
  below: (aScore: number, aId: number, bScore: number, bId: number) => boolean,
): void {
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= heapSize) break;
    const right = left + 1;
    let child = left;
    if (right < heapSize && below(heapScores[right]!, heapIds[right]!, heapScores[left]!, heapIds[left]!)) child = right;
    if (!below(heapScores[child]!, heapIds[child]!, score, id)) break;
    heapIds[at] = heapIds[child]!;
    heapScores[at] = heapScores[child]!;
    at = child;
  }
  heapIds[at] = id;
  heapScores[at] = score;
}

/** The heap's ids best first: taking the root (the worst) again and again lists them from the end. */
function drain(heapIds: Int32Array, heapScores: Float64Array, size: number, below: (aScore: number, aId: number, bScore: number, bId: number) => boolean): number[] {
  const out = new Array<number>(size);
  for (let remaining = size; remaining > 0; remaining--) {
    out[remaining - 1] = heapIds[0]!;
    if (remaining > 1) siftDown(heapIds, heapScores, remaining - 1, heapIds[remaining - 1]!, heapScores[remaining - 1]!, below);
  }
  return out;
}

export interface RankedList {
  ranked: readonly number[];
  /** Scores of the ranked ids, position by position: equal scores share a rank, so ties never favour the older chunk. */
  scores?: ArrayLike<number>;
  weight?: number;
}

/** Reciprocal rank fusion: each ranked list adds weight / (k + rank), rank starting at 1 (ties: competition ranking). */
export function reciprocalRankFusion(lists: readonly RankedList[], k: number): Map<number, number> {
  const fused = new Map<number, number>();
  for (const { ranked, scores, weight = 1 } of lists) {
    let rank = 0;
    let previous: number | undefined;
    ranked.forEach((id, index) => {
      const score = scores?.[index];
      if (score === undefined || score !== previous) rank = index + 1;
      previous = score;
      fused.set(id, (fused.get(id) ?? 0) + weight / (k + rank));
    });
  }
  return fused;
}
