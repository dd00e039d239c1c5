/**
 * A seeded slice of the process-level fuzzer (the long run is stress/fuzz.stress.test.ts): the built server
 * survives schema-guided hostile arguments for every tool with no internal_error, no effect outside the
 * root, no root change without a commit, no leftover temp file and no leaked descriptor.
 * AST_MCP_FUZZ_SEED / AST_MCP_FUZZ_CALLS replay another slice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CLI, isolatedEnv } from "../support/cli.ts";
import { runFuzz, summarize } from "../support/fuzz.ts";

const SEED = Number(process.env.AST_MCP_FUZZ_SEED ?? 14);
const CALLS = Number(process.env.AST_MCP_FUZZ_CALLS ?? 250);

let base: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
  base = await realpath(await mkdtemp(path.join(tmpdir(), "ast-mcp-fuzz-")));
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
  await cleanup();
});

describe("process-level fuzzer (seeded slice)", () => {
  test(`seed ${SEED}, ${CALLS} calls over the 2025-06-18 wire: every guarantee holds`, async () => {
    console.log(`fuzz seed ${SEED}, ${CALLS} calls`);
    const report = await runFuzz({ cli: process.env.AST_MCP_FUZZ_CLI ?? CLI, base, env, seed: SEED, calls: CALLS, callTimeoutMs: 10_000, log: (line) => console.log(line) });
    console.log(JSON.stringify({ codes: report.errorCodes, commits: report.commits, restarts: report.restarts, findings: summarize(report.findings) }));
    expect(report.findings).toEqual([]);
    // The run exercised both outcomes: commits and specific refusals.
    expect(report.commits).toBeGreaterThan(0);
    expect(Object.keys(report.errorCodes).length).toBeGreaterThan(3);
  }, 90_000);

  // Another seed, so the two wires do not replay the same calls; every call is stateless on this one.
  test(`seed ${SEED + 1}, ${CALLS} calls over the 2026-07-28 wire: every guarantee holds`, async () => {
    const report = await runFuzz({
      cli: process.env.AST_MCP_FUZZ_CLI ?? CLI,
      base: path.join(base, "stateless"),
      env,
      seed: SEED + 1,
      calls: CALLS,
      callTimeoutMs: 10_000,
      era: "modern",
      log: (line) => console.log(line),
    });
    console.log(JSON.stringify({ codes: report.errorCodes, commits: report.commits, restarts: report.restarts, findings: summarize(report.findings) }));
    expect(report.findings).toEqual([]);
    expect(report.commits).toBeGreaterThan(0);
    expect(Object.keys(report.errorCodes).length).toBeGreaterThan(3);
  }, 90_000);
});
