import { describe, expect, test } from "bun:test";
import { lastIndexWhere } from "../../src/core/bisect.ts";
import { random as seeded } from "../support/random.ts";

describe("lastIndexWhere", () => {
  test("equals a scan from the start, on every prefix length of random ranges", () => {
    const random = seeded(7);
    for (let round = 0; round < 200; round++) {
      const length = Math.floor(random() * 40);
      const prefix = Math.floor(random() * (length + 1));
      const asked: number[] = [];
      const found = lastIndexWhere(length, (index) => {
        asked.push(index);
        return index < prefix;
      });
      expect(found).toBe(prefix - 1);
      // A search, not a scan: it asks about each index at most once and only inside the range.
      expect(new Set(asked).size).toBe(asked.length);
      expect(asked.every((index) => index >= 0 && index < length)).toBe(true);
      expect(asked.length).toBeLessThanOrEqual(Math.ceil(Math.log2(length + 1)));
    }
  });
});
