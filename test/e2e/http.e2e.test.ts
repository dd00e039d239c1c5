/** The built CLI under Node, serving Streamable HTTP. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { connectHttp, exitOf, isolatedEnv, runCli, startHttpCli, tempRoot } from "../support/cli.ts";

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let root: string;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
  root = await tempRoot();
  await writeFile(join(root, "notes.md"), "# Notes\n\nhello\n");
});
afterAll(async () => cleanup());

describe("http end to end", () => {
  test("tools over Streamable HTTP (SSE) and /healthz; SIGTERM exits 0", async () => {
    const { child, url } = await startHttpCli([root], env);
    try {
      const health = (await (await fetch(new URL("/healthz", url))).json()) as { version: string; sessions: number };
      expect(health.version).toMatch(/^\d+\.\d+\.\d+/);
      const { client, transport } = await connectHttp(url);
      const { tools } = await client.listTools();
      expect(tools.length).toBeGreaterThanOrEqual(6);
      const read = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "notes.md" }] } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.structuredContent)).toContain("hello");
      const hashed = await client.callTool({ name: "file_hash", arguments: { filePaths: ["/etc/passwd"] } });
      const outside = (hashed.structuredContent as { files: Array<{ error?: { code: string } }> }).files[0]?.error;
      expect(outside?.code).toBe("path_outside_roots");
      const afterHealth = (await (await fetch(new URL("/healthz", url))).json()) as { sessions: number };
      expect(afterHealth.sessions).toBe(1);
      await transport.terminateSession();
      await transport.close();
    } finally {
      child.kill("SIGTERM");
      expect((await exitOf(child)).code).toBe(0);
    }
  });

  test("--json-response answers with plain JSON", async () => {
    const { child, url } = await startHttpCli(["--json-response", root], env);
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.headers.get("mcp-session-id")).toBeTruthy();
    } finally {
      child.kill("SIGINT");
      expect((await exitOf(child)).code).toBe(0);
    }
  });

  test("SIGHUP exits 0", async () => {
    const { child } = await startHttpCli([root], env);
    child.kill("SIGHUP");
    expect((await exitOf(child)).code).toBe(0);
  });

  test("a non-loopback bind without a token refuses to start; with one it requires it", async () => {
    const refused = await runCli(["mcp", "--transport", "http", "--host", "0.0.0.0", "--port", "0", root], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("AST_MCP_TOKEN");

    const { child, url } = await startHttpCli(["--host", "0.0.0.0", root], { ...env, AST_MCP_TOKEN: "s3cret-token-value" });
    try {
      const loopbackUrl = url.replace("0.0.0.0", "127.0.0.1");
      const denied = await fetch(loopbackUrl, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body: "{}" });
      expect(denied.status).toBe(401);
      const { client, transport } = await connectHttp(loopbackUrl, { authorization: "Bearer s3cret-token-value" });
      expect((await client.listTools()).tools.length).toBeGreaterThanOrEqual(6);
      await transport.close();
    } finally {
      child.kill("SIGTERM");
      expect((await exitOf(child)).code).toBe(0);
    }
  });
});
