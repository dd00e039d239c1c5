import { describe, expect, test } from "bun:test";
import { PairsByKey } from "../../src/helpers/pairs-by-key.ts";

function pairsOf<K>(pairs: PairsByKey<K>, key: K): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  pairs.forEach(key, (first, second) => found.push([first, second]));
  return found;
}

describe("PairsByKey", () => {
  test("gives each key its pairs in the order they were added, however the keys interleave", () => {
    const added: Array<[string, number, number]> = [["b", 0, 1], ["a", 0, 2], ["b", 1, 0], ["c", 2, 5], ["a", 3, 0], ["b", 3, 4]];
    const pairs = PairsByKey.build<string>((add) => {
      for (const [key, first, second] of added) add(key, first, second);
    });
    expect(pairsOf(pairs, "a")).toEqual([[0, 2], [3, 0]]);
    expect(pairsOf(pairs, "b")).toEqual([[0, 1], [1, 0], [3, 4]]);
    expect(pairsOf(pairs, "c")).toEqual([[2, 5]]);
  });

  test("a key never added, and every key of an empty set, has no pairs; names such as __proto__ are keys like any other", () => {
    const pairs = PairsByKey.build<string>((add) => add("__proto__", 7, 8));
    expect(pairsOf(pairs, "constructor")).toEqual([]);
    expect(pairsOf(pairs, "__proto__")).toEqual([[7, 8]]);
    expect(pairsOf(PairsByKey.empty<string>(), "a")).toEqual([]);
  });
});
