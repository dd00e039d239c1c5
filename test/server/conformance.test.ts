/**
 * Runs the official MCP conformance CLI (@modelcontextprotocol/conformance) against our
 * Streamable HTTP transport. The CLI runs under Node with a loader shim (Node 20's fs has
 * no globSync, which the CLI imports at load time).
 *
 * The server under test is the product's own (createMcpServer over a temporary root).
 */

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { type HttpHandle, startHttpServer } from "../../src/server/http.ts";
import { realServerFactory } from "../support/real-server.ts";

const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SHIM = join(ROOT, "test", "support", "conformance-shim", "register.mjs");
const BASELINE = join(ROOT, "test", "support", "conformance-baseline.yaml");
const CLI_TIMEOUT_MS = 120_000;

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

async function startServer(jsonResponse: boolean): Promise<HttpHandle> {
  const { createServer } = await realServerFactory();
  return startHttpServer({
    host: "127.0.0.1",
    port: 0,
    jsonResponse,
    token: undefined,
    maxSessions: 256,
    sessionIdleMs: 60_000,
    allowedHosts: [],
    allowedOrigins: [],
    version: "0.0.0-conformance",
    createServer,
  });
}

const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection", "server-sse-multiple-streams"];

for (const jsonResponse of [false, true]) {
  describe(`conformance CLI (${jsonResponse ? "JSON" : "SSE"} responses)`, () => {
    let handle: HttpHandle;
    beforeAll(async () => {
      handle = await startServer(jsonResponse);
    });
    afterAll(async () => {
      await handle.close();
    });

    // Each scenario on its own is covered in SSE mode; JSON mode runs the suite only.
    if (!jsonResponse) {
      for (const scenario of SCENARIOS) {
        test(
          `scenario ${scenario} passes`,
          async () => {
            const { code, output } = await runConformance(["--url", handle.url, "--scenario", scenario]);
            if (code !== 0) console.error(output);
            expect(output).toContain("0 failed");
            expect(code).toBe(0);
          },
          CLI_TIMEOUT_MS + 10_000,
        );
      }
    }

    test(
      "the active suite fails only where the baseline expects",
      async () => {
        const { code, output } = await runConformance(["--url", handle.url, "--expected-failures", BASELINE]);
        if (code !== 0) console.error(output);
        for (const scenario of SCENARIOS) expect(output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`));
        expect(code).toBe(0);
      },
      CLI_TIMEOUT_MS + 10_000,
    );
  });
}
