import { afterEach, beforeEach, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { CHILDREN, type CommitFixture, exited, makeCommitFixture, runChild } from "./commit-fixture.ts";

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

/** Runs a child with its own state directory, as servers of different users or sandboxes have. */
async function runWithOwnStateDir(script: string, args: string[], stateDir: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(CHILDREN, script), ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, AST_MCP_STATE_DIR: stateDir } });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const { code } = await exited(child);
  return { code, stdout, stderr };
}

test("writers with different state directories lose no update: the counter ends at the number of reported successes (defect 9)", async () => {
  const counter = fx.at("counter.txt");
  await writeFile(counter, "0");
  const processes = 4;
  const rounds = 50;
  // Every child waits for the same moment, so their rounds overlap.
  const startAt = String(Date.now() + 2_000);
  const results = await Promise.all(
    Array.from({ length: processes }, (_, index) => runWithOwnStateDir("cas-rounds.ts", [fx.root, counter, String(rounds), startAt], path.join(fx.base, `state-${index}`))),
  );
  let successes = 0;
  for (const result of results) {
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const counts = JSON.parse(result.stdout) as { ok: number; stale_hash: number; lock_timeout: number };
    expect(counts.ok + counts.stale_hash + counts.lock_timeout).toBe(rounds);
    successes += counts.ok;
  }
  expect(successes).toBeGreaterThan(0);
  expect(Number(await fx.text("counter.txt"))).toBe(successes);
  // Nothing of the locks stays beside the file.
  expect(await readdir(fx.root)).toEqual(["counter.txt"]);
}, 60_000);
