import { describe, expect, test } from "bun:test";
import { editDistance } from "../../src/helpers/edit-distance.ts";

/** The textbook quadratic table, to check the banded one against. */
function reference(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = current;
  }
  return previous[b.length]!;
}

describe("editDistance", () => {
  test("counts insertions, deletions and substitutions", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
    expect(editDistance("same", "same")).toBe(0);
    expect(editDistance("format", "fromat")).toBe(2);
  });

  test("with a cap: exact up to the cap, above it once the distance must exceed it", () => {
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
    expect(editDistance("kitten", "sitting", 2)).toBeGreaterThan(2);
    expect(editDistance("a", "abcdef", 2)).toBeGreaterThan(2);
  });

  test("agrees with the full table on random strings, for every cap", () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    const word = () => Array.from({ length: Math.floor(random() * 9) }, () => "abc"[Math.floor(random() * 3)]).join("");
    for (let round = 0; round < 300; round++) {
      const a = word();
      const b = word();
      const exact = reference(a, b);
      expect(editDistance(a, b)).toBe(exact);
      for (let cap = 0; cap <= 4; cap++) {
        const capped = editDistance(a, b, cap);
        if (exact <= cap) expect(capped).toBe(exact);
        else expect(capped).toBeGreaterThan(cap);
      }
    }
  });

  test("charges the cells it computes to a work counter", () => {
    const work = { spent: 0 };
    editDistance("abcdefgh", "abcdefgx", 1, work);
    expect(work.spent).toBeGreaterThan(0);
    expect(work.spent).toBeLessThanOrEqual(8 * 3);
  });
});
