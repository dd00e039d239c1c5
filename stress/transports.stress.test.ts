/**
 * Longer stress runs for the transports (`npm run stress`; not part of `npm test`).
 * Each loop is bounded in count and time and talks to loopback only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connectHttp, exitOf, isolatedEnv, spawnCli, startHttpCli, tempRoot } from "../test/support/cli.ts";

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let root: string;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
  root = await tempRoot();
  await writeFile(join(root, "a.txt"), "hello\n");
});
afterAll(async () => cleanup());

/** Peak resident memory of a process in MiB (Linux). */
function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? "0");
  return kib / 1024;
}

describe("stdio under a hostile client", () => {
  test("2,000,000 malformed lines and 20 oversized frames keep memory bounded and the session alive", async () => {
    const child = spawnCli(["mcp", root], env);
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    const write = async (data: Buffer | string) => {
      if (!child.stdin.write(data)) await new Promise((resolve) => child.stdin.once("drain", resolve));
    };
    await write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } } })}\n`,
    );
    const junk = Buffer.from("{not json at all}\n".repeat(50_000));
    for (let i = 0; i < 40; i++) await write(junk);
    const big = Buffer.alloc(11 * 1024 * 1024, 0x61);
    for (let i = 0; i < 20; i++) {
      await write(big);
      await write("\n");
    }
    await write(`${JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" })}\n`);
    const deadline = Date.now() + 300_000;
    while (!out.includes("\"id\":99") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(out).toContain("\"id\":99");
    const peak = peakRssMiB(child.pid as number);
    console.error(`stdio stress: peak RSS ${peak.toFixed(1)} MiB`);
    expect(peak).toBeLessThan(400);
    child.stdin.end();
    expect((await exitOf(child)).code).toBe(0);
  }, 400_000);
});

describe("HTTP session churn", () => {
  test("3,000 sessions opened, used and deleted leave no session behind and memory bounded", async () => {
    const { child, url } = await startHttpCli([root], env);
    try {
      const rounds = 100;
      const concurrency = 30;
      for (let round = 0; round < rounds; round++) {
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            const { client, transport } = await connectHttp(url);
            await client.callTool({ name: "file_hash", arguments: { filePaths: ["a.txt"] } });
            await transport.terminateSession();
            await transport.close();
          }),
        );
      }
      const health = (await (await fetch(new URL("/healthz", url))).json()) as { sessions: number };
      expect(health.sessions).toBe(0);
      const peak = peakRssMiB(child.pid as number);
      console.error(`http stress: ${rounds * concurrency} sessions, peak RSS ${peak.toFixed(1)} MiB`);
      expect(peak).toBeLessThan(400);
    } finally {
      child.kill("SIGTERM");
      expect((await exitOf(child)).code).toBe(0);
    }
  }, 600_000);
});
