/**
 * The one edit distance (Levenshtein: insertions, deletions and substitutions of UTF-16 code
 * units). With a cap it works in a band of width 2·cap + 1 and stops as soon as the distance must
 * exceed the cap, so asking "within 2?" of two long strings costs O(length), not O(length²).
 */

/**
 * The edit distance of `a` and `b` when it is at most `cap`; some value above `cap` otherwise.
 * `work`, when given, is charged one unit per cell computed (callers with a budget watch it).
 */
export function editDistance(a: string, b: string, cap: number = Math.max(a.length, b.length), work?: { spent: number }): number {
  if (a === b) return 0;
  if (cap < 0) return 1;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const over = cap + 1;
  const width = b.length;
  let previous = new Int32Array(width + 1);
  let current = new Int32Array(width + 1);
  for (let column = 0; column <= width; column++) previous[column] = column <= cap ? column : over;
  for (let row = 1; row <= a.length; row++) {
    const low = Math.max(1, row - cap);
    const high = Math.min(width, row + cap);
    current[0] = row <= cap ? row : over;
    if (low > 1) current[low - 1] = over;
    let rowMinimum = low === 1 ? current[0]! : over;
    const charA = a.charCodeAt(row - 1);
    for (let column = low; column <= high; column++) {
      const substitute = previous[column - 1]! + (charA === b.charCodeAt(column - 1) ? 0 : 1);
      const value = Math.min(substitute, previous[column]! + 1, current[column - 1]! + 1, over);
      current[column] = value;
      if (value < rowMinimum) rowMinimum = value;
    }
    if (high < width) current[high + 1] = over;
    if (work) work.spent += high - low + 1;
    if (rowMinimum > cap) return over;
    [previous, current] = [current, previous];
  }
  return previous[width]!;
}
