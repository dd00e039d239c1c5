/** 200 rounds of the crash test (`npm run stress`; not part of `npm test`). */
import { expect, test } from "bun:test";
import { runCrashRounds } from "../test/patch/crash-harness.ts";

test("a writer killed at random points (200 rounds) always leaves every file wholly old or wholly new", async () => {
  const stats = await runCrashRounds(200);
  expect(stats.finalVersion).toBeGreaterThanOrEqual(200);
  // Over 200 kills some must land inside a commit; otherwise the test is not testing recovery.
  expect(stats.rolledBack + stats.rolledForward).toBeGreaterThan(0);
}, 900_000);
