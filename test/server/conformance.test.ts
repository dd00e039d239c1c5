/**
 * Runs the official MCP conformance CLI (@modelcontextprotocol/conformance, the prerelease line that
 * scores 2026-07-28) against our Streamable HTTP transport, once per protocol revision served. The CLI
 * runs under Node with a loader shim (Node 20's fs has no globSync, which the CLI imports at load time).
 *
 * The server under test is the product's own (createMcpServer over a temporary root).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { type HttpHandle, startHttpServer } from "../../src/server/http.ts";
import { testHttpOptions } from "../support/http-server.ts";
import { realServerFactory } from "../support/real-server.ts";

const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SHIM = join(ROOT, "test", "support", "conformance-shim", "register.mjs");
const EXPECTED_FAILURES = join(ROOT, "test", "support", "conformance-expected-failures.yaml");
const CLI_TIMEOUT_MS = 300_000;

/** Runs the CLI asynchronously: the server under test lives in this process and must keep serving. */
function runConformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("node", ["--import", SHIM, CLI, "server", ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: "1" } });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), CLI_TIMEOUT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Scenarios about what ast-mcp does offer, per revision: each must pass outright, not merely be expected. */
const MUST_PASS: Record<string, string[]> = {
  "2025-11-25": [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-error",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "server-session-lifecycle",
    "logging-set-level",
  ],
  "2026-07-28": [
    "tools-list",
    "tools-call-error",
    "dns-rebinding-protection",
    "server-sse-multiple-streams",
    "http-header-validation",
    "input-required-result-unsupported-methods",
  ],
};

describe("conformance CLI over Streamable HTTP, once per protocol revision", () => {
  let handle: HttpHandle;
  beforeAll(async () => {
    const { createServer } = await realServerFactory();
    handle = await startHttpServer(testHttpOptions(createServer, { maxSessions: 256, version: "0.0.0-conformance" }));
  });
  afterAll(async () => {
    await handle.close();
  });

  for (const revision of ["2025-11-25", "2026-07-28"]) {
    test(
      `the ${revision} requirements fail only where ast-mcp deliberately offers nothing`,
      async () => {
        const { code, output } = await runConformance(["--url", handle.url, "--requirements", revision, "--expected-failures", EXPECTED_FAILURES]);
        if (code !== 0) console.error(output);
        for (const scenario of MUST_PASS[revision] ?? []) expect(output).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
        // The stateless lifecycle and the caching hints pass except for checks that need the reference server's demo tools.
        if (revision === "2026-07-28") {
          expect(output).toMatch(/server-stateless: \d+ passed, 2 failed/);
          expect(output).toMatch(/caching: \d+ passed, 3 failed/);
        }
        expect(output).toContain("Baseline check passed");
        expect(code).toBe(0);
      },
      CLI_TIMEOUT_MS + 10_000,
    );
  }
});
