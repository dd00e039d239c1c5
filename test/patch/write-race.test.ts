/**
 * Defect 3 of issue 14: with d/ swapped for a link to a directory outside the root and back by
 * another process, no write, create, mode change, rename, delete or undo may act outside, and
 * every call either commits inside or fails with a ToolError. A seeded, time-boxed slice; the
 * long run is stress/write-race.stress.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { runWriteRace, type RaceOutcome } from "./write-race-harness.ts";

function expectNoEscape(outcome: RaceOutcome): void {
  expect(outcome.unexpected).toEqual([]);
  expect(outcome.outsideChanges).toEqual([]);
  expect(outcome.leftovers).toEqual([]);
  expect(outcome.insideMismatches).toEqual([]);
  // The race was real: the directory was swapped, and calls both landed and were refused.
  expect(outcome.swaps).toBeGreaterThan(0);
  expect(outcome.committed).toBeGreaterThan(0);
}

describe("writes under a directory swapped for a link to outside the root", () => {
  test("the commit layer: writes, exclusive creates, chmod, rename, delete and undo never act outside", async () => {
    expectNoEscape(await runWriteRace({ layer: "commit", maxCalls: 100_000, durationMs: 3_000, untilCommittedMs: 15_000 }));
  }, 45_000);

  test("the tools: file_write, file_patch, creates, file_chattr, file_rename, file_delete and file_undo never act outside", async () => {
    expectNoEscape(await runWriteRace({ layer: "tools", maxCalls: 100_000, durationMs: 3_000, untilCommittedMs: 15_000 }));
  }, 45_000);
});
