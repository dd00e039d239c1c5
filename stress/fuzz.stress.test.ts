/**
 * The long run of the process-level fuzzer (test/support/fuzz.ts) against the built server.
 * AST_MCP_FUZZ_CALLS (default 10,000) and AST_MCP_FUZZ_SEED (default: from the clock, printed) choose the run;
 * AST_MCP_FUZZ_TIMEOUT_MS lowers the per-call limit; AST_MCP_FUZZ_CLI points it at another build (e.g. an older commit's dist/cli.js).
 * Every finding fails the run; AST_MCP_FUZZ_ALLOW="1,2" tolerates the named #14 defects while they are fixed elsewhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CLI, isolatedEnv } from "../test/support/cli.ts";
import { runFuzz, summarize } from "../test/support/fuzz.ts";

const SEED = Number(process.env.AST_MCP_FUZZ_SEED ?? Date.now() % 2 ** 31);
const CALLS = Number(process.env.AST_MCP_FUZZ_CALLS ?? 10_000);
/** A call slower than this is a hang (the guarantee is 30 s; a shorter limit makes a run with known hangs quicker). */
const CALL_TIMEOUT_MS = Number(process.env.AST_MCP_FUZZ_TIMEOUT_MS ?? 30_000);
const ALLOWED = (process.env.AST_MCP_FUZZ_ALLOW ?? "").split(",").filter(Boolean).map(Number);

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

describe("process-level fuzzer (long run)", () => {
  test(`${CALLS} calls`, async () => {
    console.log(`fuzz seed ${SEED}, ${CALLS} calls (replay: AST_MCP_FUZZ_SEED=${SEED} AST_MCP_FUZZ_CALLS=${CALLS})`);
    const started = Date.now();
    const report = await runFuzz({
      cli: process.env.AST_MCP_FUZZ_CLI ?? CLI,
      base,
      env,
      seed: SEED,
      calls: CALLS,
      callTimeoutMs: CALL_TIMEOUT_MS,
      log: (line) => console.log(line),
    });
    console.log(
      JSON.stringify({
        seed: SEED,
        calls: CALLS,
        seconds: Math.round((Date.now() - started) / 1000),
        codes: report.errorCodes,
        commits: report.commits,
        restarts: report.restarts,
        findings: summarize(report.findings),
      }),
    );
    const unexpected = report.findings.filter((finding) => finding.defect === undefined || !ALLOWED.includes(finding.defect));
    expect(unexpected).toEqual([]);
  }, 6 * 60 * 60 * 1000);
});
