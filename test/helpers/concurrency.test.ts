import { describe, expect, test } from "bun:test";
import { eachLimited } from "../../src/helpers/concurrency.ts";

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

describe("eachLimited", () => {
  test("visits every item once with its position, never more than the limit at a time", async () => {
    let running = 0;
    let peak = 0;
    const seen: Array<[string, number]> = [];
    await eachLimited(["a", "b", "c", "d", "e"], 2, async (item, position) => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      seen.push([item, position]);
      running--;
    });
    expect(peak).toBe(2);
    expect(seen.sort((x, y) => x[1] - y[1])).toEqual([["a", 0], ["b", 1], ["c", 2], ["d", 3], ["e", 4]]);
  });

  test("an aborted signal stops it from taking more items", async () => {
    const controller = new AbortController();
    const done: number[] = [];
    const run = eachLimited([1, 2, 3, 4], 1, async (item) => {
      done.push(item);
      if (item === 2) controller.abort(new Error("stop"));
      await tick();
    }, controller.signal);
    await expect(run).rejects.toThrow("stop");
    expect(done).toEqual([1, 2]);
  });

  test("a failing item rejects the whole loop", async () => {
    await expect(eachLimited([1, 2], 4, async (item) => {
      if (item === 2) throw new Error("item 2 failed");
    })).rejects.toThrow("item 2 failed");
  });
});
