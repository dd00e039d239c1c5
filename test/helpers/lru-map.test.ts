import { describe, expect, test } from "bun:test";
import { LruMap } from "../../src/helpers/lru-map.ts";

describe("LruMap", () => {
  test("keeps at most its capacity, dropping the least recently used first", () => {
    const map = new LruMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    // Reading a makes b the least recently used.
    expect(map.get("a")).toBe(1);
    map.set("c", 3);
    expect(map.size).toBe(2);
    expect(map.has("b")).toBe(false);
    expect([map.get("a"), map.get("c")]).toEqual([1, 3]);
  });

  test("setting a kept key replaces its value and makes it the most recently used", () => {
    const map = new LruMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 10);
    map.set("c", 3);
    expect([map.get("a"), map.has("b"), map.get("c")]).toEqual([10, false, 3]);
    expect(map.delete("a")).toBe(true);
    expect(map.get("a")).toBeUndefined();
  });
});
