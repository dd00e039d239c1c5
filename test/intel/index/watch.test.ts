/**
 * The index's watch mode runs only under Node on Linux (see src/intel/index/watcher.ts), so this
 * test bundles a harness with Bun and runs it with Node. The bundle lives under node_modules/.cache
 * so the native parser packages resolve from the project.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";

const PROJECT = path.join(import.meta.dir, "..", "..", "..");

describe.skipIf(process.platform !== "linux")("watch mode under Node", () => {
  test("changes, new directories and deletions are seen right after they happen, without a stat walk", async () => {
    const cache = path.join(PROJECT, "node_modules", ".cache");
    await mkdir(cache, { recursive: true });
    const out = await mkdtemp(path.join(cache, "ast-mcp-watch-test-"));
    try {
      const bundle = path.join(out, "harness.mjs");
      const built = spawnSync(process.execPath, [
        "build",
        path.join(import.meta.dir, "watch-harness.ts"),
        "--target=node",
        "--format=esm",
        "--outfile",
        bundle,
        "--external",
        "@ast-grep/*",
      ], {
        cwd: PROJECT,
        encoding: "utf8",
      });
      expect(built.status, built.stderr).toBe(0);
      const run = spawnSync("node", [bundle], { cwd: PROJECT, encoding: "utf8", timeout: 120_000 });
      expect(run.status, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
      expect(report.watch.active).toBe(true);
      expect(report.failures).toEqual([]);
      expect(report.freshness).toEqual(["watch"]);
      expect(report.files).toBe(20);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 180_000);
});
