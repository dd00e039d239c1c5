import { expect, test } from "bun:test";
import { runCrashRounds } from "./crash-harness.ts";

test("a writer killed at random points (25 rounds) always leaves every file wholly old or wholly new", async () => {
  const stats = await runCrashRounds(25);
  expect(stats.finalVersion).toBeGreaterThanOrEqual(25);
}, 60_000);
