/** Binary search over an index range, for the ordered lists (statements, line starts) the write path keeps. */

/** The last index in [0, length) where `holds` is true, for a predicate true on a prefix; -1 when none. */
export function lastIndexWhere(length: number, holds: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (holds(middle)) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}
