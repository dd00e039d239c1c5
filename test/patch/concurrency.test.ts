import { afterEach, beforeEach, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { type CommitFixture, makeCommitFixture, runChild } from "./commit-fixture.ts";

let fx: CommitFixture;
beforeEach(async () => {
  fx = await makeCommitFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

test("processes doing compare-and-swap increments on one file lose no update; losers get stale_hash or lock_timeout", async () => {
  const counter = fx.at("counter.txt");
  await writeFile(counter, "0");
  const processes = 4;
  const each = 12;
  const results = await Promise.all(Array.from({ length: processes }, () => runChild("cas-increment.ts", [fx.stateDir, fx.root, counter, String(each)])));
  for (const result of results) {
    // Exit 1 means some refusal other than stale_hash or lock_timeout.
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const counts = JSON.parse(result.stdout) as { ok: number; stale_hash: number; lock_timeout: number };
    expect(counts.ok).toBe(each);
  }
  expect(await fx.text("counter.txt")).toBe(String(processes * each));
}, 60_000);
