import { expect, test } from "bun:test";
import { runReadRace } from "./read-race.ts";

// Defect 4 of issue 14: a directory swapped for a link to outside the root while reads run.
test("reads through a directory swapped for a link never return the outside file, its hash or its name", async () => {
  const report = await runReadRace({ durationMs: 5000 });
  expect(report.swaps).toBeGreaterThan(0);
  expect(report.operations).toBeGreaterThan(100);
  expect(report.unexpected).toEqual([]);
  expect(report.leaks).toEqual([]);
}, 60000);
