/**
 * Similarity of a search text to windows of whole lines, for the fuzzy stage and the nearest-text
 * report of the Aider engine: bounded edit distances, pruned by character histograms.
 */
import { editDistance } from "../helpers/edit-distance.ts";

/** A fuzzy window whose similarity is within this of the best one makes the match ambiguous. */
export const FUZZY_AMBIGUITY_MARGIN = 0.02;
/** Character comparisons one block's similarity scan may spend (fuzzy match and nearest-text report). */
const FUZZY_MAX_WORK = 20_000_000;

interface WindowScore {
  first: number;
  count: number;
  similarity: number;
}

export interface SimilarityScan {
  best: WindowScore | undefined;
  /** Other windows within the ambiguity margin of the best. */
  rivals: WindowScore[];
  /** The work budget ran out before every window that could matter was scored. */
  exhausted: boolean;
  /** When exhausted: the highest similarity an unscored window could still have. */
  stoppedAtBound: number | undefined;
}

/**
 * Scores windows of whole lines (as many as the search has) by 1 − Σ edit distance / Σ longer length
 * over aligned line pairs, best first: every window gets a cheap upper bound from sliding character
 * histograms, windows are scored in descending bound order, and the scan ends once no remaining
 * window can come within the ambiguity margin of the best. Each scored window is abandoned as soon
 * as its lower bounds or partial distance rule it out, so only near candidates cost full comparisons.
 */
export function scanSimilarity(fileLines: string[], searchLines: string[]): SimilarityScan {
  const margin = FUZZY_AMBIGUITY_MARGIN;
  const count = Math.min(searchLines.length, fileLines.length);
  const scan: SimilarityScan = { best: undefined, rivals: [], exhausted: false, stoppedAtBound: undefined };
  if (count === 0) return scan;
  const work = { spent: 0, limit: FUZZY_MAX_WORK };
  const fileHistograms = histograms(fileLines);
  const searchHistograms = histograms(searchLines);
  const bounds = windowUpperBounds(fileLines, fileHistograms, searchLines, searchHistograms, count, work);
  const order = Array.from(bounds.keys()).sort((left, right) => bounds[right]! - bounds[left]! || left - right);
  const near: WindowScore[] = [];
  for (const first of order) {
    const upper = bounds[first]!;
    if (scan.best && upper < scan.best.similarity - margin - 1e-9) break;
    if (work.spent > work.limit) {
      scan.exhausted = true;
      scan.stoppedAtBound = upper;
      break;
    }
    work.spent += searchLines.length;
    let denominator = 0;
    let lengthBound = 0;
    for (let offset = 0; offset < searchLines.length; offset++) {
      const a = fileLines[first + offset]?.length ?? 0;
      const b = searchLines[offset]!.length;
      denominator += Math.max(a, b);
      lengthBound += Math.abs(a - b);
    }
    const floor = scan.best ? Math.max(0, scan.best.similarity - margin) : 0;
    const budget = Math.floor((1 - floor) * denominator + 1e-9);
    if (lengthBound > budget) continue;
    const pairBounds: number[] = [];
    let histogramBound = 0;
    for (let offset = 0; offset < searchLines.length && histogramBound <= budget; offset++) {
      const bound = first + offset < fileLines.length ? histogramDistance(fileHistograms, first + offset, searchHistograms, offset) : searchLines[offset]!.length;
      pairBounds.push(bound);
      histogramBound += bound;
    }
    work.spent += pairBounds.length * 8;
    if (histogramBound > budget) continue;
    // Invariant: distance so far + lower bounds of the pairs still to come <= budget.
    let distance = 0;
    let over = false;
    for (let offset = 0; offset < searchLines.length; offset++) {
      const later = histogramBound - pairBounds[offset]!;
      const cap = budget - distance - later;
      const pairDistance = deepeningLevenshtein(fileLines[first + offset] ?? "", searchLines[offset]!, pairBounds[offset]!, cap, work);
      if (pairDistance > cap) {
        over = true;
        break;
      }
      distance += pairDistance;
      histogramBound = later;
    }
    if (over) continue;
    const window = { first, count, similarity: denominator === 0 ? 1 : 1 - distance / denominator };
    if (!scan.best || window.similarity > scan.best.similarity || (window.similarity === scan.best.similarity && first < scan.best.first)) scan.best = window;
    near.push(window);
  }
  const best = scan.best;
  if (best) scan.rivals = near.filter((window) => window !== best && window.similarity >= best.similarity - margin - 1e-9);
  return scan;
}

/**
 * An upper bound of every window's similarity: the character histogram of the whole window against
 * the search's bounds the summed edit distance from below, and Σ lengths bounds the denominator from
 * above. Both slide along the file, so all windows cost O(file lines × buckets).
 */
function windowUpperBounds(
  fileLines: string[],
  fileHistograms: Uint16Array,
  searchLines: string[],
  searchHistograms: Uint16Array,
  count: number,
  work: { spent: number },
): Float64Array {
  const difference = new Int32Array(HISTOGRAM_BUCKETS);
  let searchChars = 0;
  searchLines.forEach((line, index) => {
    searchChars += line.length;
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) difference[bucket]! -= searchHistograms[index * HISTOGRAM_BUCKETS + bucket]!;
  });
  const shift = (lineIndex: number, sign: 1 | -1) => {
    const base = lineIndex * HISTOGRAM_BUCKETS;
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) difference[bucket]! += sign * fileHistograms[base + bucket]!;
  };
  let windowChars = 0;
  for (let index = 0; index < count; index++) {
    shift(index, 1);
    windowChars += fileLines[index]!.length;
  }
  const windowCount = fileLines.length - count + 1;
  const bounds = new Float64Array(windowCount);
  for (let first = 0; first < windowCount; first++) {
    if (first > 0) {
      shift(first - 1, -1);
      shift(first + count - 1, 1);
      windowChars += fileLines[first + count - 1]!.length - fileLines[first - 1]!.length;
    }
    let surplus = 0;
    let deficit = 0;
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) {
      const value = difference[bucket]!;
      if (value > 0) surplus += value;
      else deficit -= value;
    }
    const total = windowChars + searchChars;
    bounds[first] = total === 0 ? 1 : 1 - Math.max(surplus, deficit) / total;
  }
  work.spent += windowCount * 4;
  return bounds;
}

const HISTOGRAM_BUCKETS = 64;

/** Per-line character counts folded into 64 buckets (folding keeps the bound below a lower bound). */
function histograms(lines: string[]): Uint16Array {
  const table = new Uint16Array(lines.length * HISTOGRAM_BUCKETS);
  lines.forEach((line, index) => {
    const base = index * HISTOGRAM_BUCKETS;
    for (let position = 0; position < line.length; position++) {
      const slot = base + (line.charCodeAt(position) & (HISTOGRAM_BUCKETS - 1));
      if (table[slot]! < 0xffff) table[slot]!++;
    }
  });
  return table;
}

/** A lower bound of the edit distance: one edit changes each side's surplus characters by at most one. */
function histogramDistance(left: Uint16Array, leftIndex: number, right: Uint16Array, rightIndex: number): number {
  let surplus = 0;
  let deficit = 0;
  const leftBase = leftIndex * HISTOGRAM_BUCKETS;
  const rightBase = rightIndex * HISTOGRAM_BUCKETS;
  for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) {
    const difference = left[leftBase + bucket]! - right[rightBase + bucket]!;
    if (difference > 0) surplus += difference;
    else deficit -= difference;
  }
  return Math.max(surplus, deficit);
}

/**
 * Edit distance with a band that doubles from the known lower bound up to `cap`, so a near pair costs
 * O(length × distance) rather than O(length × cap). Returns a value above `cap` when it exceeds it.
 */
function deepeningLevenshtein(a: string, b: string, lowerBound: number, cap: number, work: { spent: number }): number {
  if (a === b) return 0;
  if (lowerBound > cap) return cap + 1;
  let band = Math.max(1, lowerBound);
  for (;;) {
    const limit = Math.min(band, cap);
    const distance = editDistance(a, b, limit, work);
    if (distance <= limit || limit >= cap) return distance;
    band *= 2;
  }
}

/** Three decimals, rounded down so a near-identical window never shows as 1. */
export function round(value: number): number {
  return Math.floor(value * 1000) / 1000;
}
