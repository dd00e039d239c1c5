/** The built CLI under Node, over real stdio. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { CLI, connectStdio, errorOf, exitOf, isolatedEnv, PROJECT_DIR, spawnCli, tempRoot } from "../support/cli.ts";

const READ_TOOLS = ["config_status", "document_query", "file_capabilities", "file_hash", "file_read", "policy_check"];
const MUTATION_TOOLS = ["file_chattr", "file_delete", "file_patch", "file_rename", "file_undo", "file_write", "run"];

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let root: string;

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
  root = await tempRoot();
  await mkdir(join(root, "src"));
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\r\nexport function f() {\r\n\treturn a;\r\n}\r\n");
  await writeFile(join(root, "package.json"), JSON.stringify({ name: "demo", scripts: { test: "bun test" } }, null, 2));
});

afterAll(async () => {
  await cleanup();
});

/** Reads newline-framed JSON from a child's stdout. */
function frames(child: ReturnType<typeof spawnCli>) {
  const received: unknown[] = [];
  let buffer = "";
  const waiters: Array<() => void> = [];
  child.stdout.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl = buffer.indexOf("\n");
    while (nl !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim() !== "") received.push(JSON.parse(line));
      nl = buffer.indexOf("\n");
    }
    for (const w of waiters.splice(0)) w();
  });
  return {
    received,
    async until(predicate: (all: unknown[]) => boolean, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(received).slice(0, 2000)}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
  };
}

const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

describe("stdio end to end", () => {
  test("initialize, tools/list with schemas and annotations, and structured errors", async () => {
    const { client, transport } = await connectStdio(["mcp", root], env);
    try {
      expect(client.getServerVersion()?.name).toBe("ast-mcp");
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of [...READ_TOOLS, ...MUTATION_TOOLS]) expect(names).toContain(name);
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe("object");
        expect((tool.inputSchema as { additionalProperties?: unknown }).additionalProperties).toBe(false);
        expect(tool.outputSchema?.type).toBe("object");
        expect(tool.annotations?.readOnlyHint).toBe(!MUTATION_TOOLS.includes(tool.name));
        expect(tool.annotations?.openWorldHint).toBe(false);
      }

      const bad = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "src/a.ts", startLine: 0 }] } });
      const badError = errorOf(bad);
      expect(badError.code).toBe("invalid_input");
      expect(badError.message).toContain("files[0].startLine");

      const unknownField = errorOf(await client.callTool({ name: "file_hash", arguments: { filePaths: ["src/a.ts"], bogus: 1 } }));
      expect(unknownField.code).toBe("invalid_input");
      expect(unknownField.message).toContain("bogus");

      const unknownTool = errorOf(await client.callTool({ name: "no_such_tool", arguments: {} }));
      expect(unknownTool.code).toBe("unknown_tool");

      // The session survives all of the above.
      const hash = await client.callTool({ name: "file_hash", arguments: { filePaths: ["src/a.ts"] } });
      expect(hash.isError).toBeFalsy();
      expect(JSON.stringify(hash.structuredContent)).toContain("src/a.ts");
    } finally {
      await transport.close();
    }
  });

  test("JSON-RPC batches get one framed response per request and none for notifications", async () => {
    const child = spawnCli(["mcp", root], env);
    const out = frames(child);
    child.stdin.write(`${JSON.stringify(INIT)}\n${JSON.stringify(INITIALIZED)}\n`);
    await out.until((all) => all.length >= 1);
    const batch = [
      { jsonrpc: "2.0", id: 1, method: "tools/list" },
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ];
    child.stdin.write(`${JSON.stringify(batch)}\n`);
    await out.until((all) => all.length >= 3);
    const ids = out.received.slice(1).map((m) => (m as { id: unknown }).id).sort();
    expect(ids).toEqual([1, 2]);
    child.stdin.end();
    expect((await exitOf(child)).code).toBe(0);
  });

  test("a flood of malformed lines while the client is not reading: bounded replies, session survives", async () => {
    const child = spawnCli(["mcp", root], env);
    child.stdout.pause();
    child.stdin.write(`${JSON.stringify(INIT)}\n${JSON.stringify(INITIALIZED)}\n`);
    const junk = Buffer.from("this is not json\n".repeat(20_000));
    for (let i = 0; i < 10; i++) {
      if (!child.stdin.write(junk)) await new Promise((resolve) => child.stdin.once("drain", resolve));
    }
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" })}\n`);
    const out = frames(child);
    child.stdout.resume();
    await out.until((all) => all.some((m) => (m as { id?: unknown }).id === 7), 60_000);
    const errors = out.received.filter((m) => (m as { error?: { code: number } }).error?.code === -32700);
    const notices = out.received.filter((m) => (m as { method?: string }).method === "notifications/message");
    expect(errors.length).toBe(64);
    expect(notices.length).toBe(1);
    child.stdin.end();
    expect((await exitOf(child)).code).toBe(0);
  }, 90_000);

  test("stdin closing ends the process with exit 0", async () => {
    const child = spawnCli(["mcp", root], env);
    child.stdout.resume();
    child.stdin.end();
    expect((await exitOf(child)).code).toBe(0);
  });

  test("a process that answers one call and ends leaves an index snapshot the next process starts from", async () => {
    const own = await tempRoot();
    for (let i = 0; i < 5; i++) await writeFile(join(own, `m${i}.ts`), `export function m${i}() { return ${i}; }\n`);
    const indexCall = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "index", arguments: { stats: true } } };
    const once = async () => {
      const child = spawnCli(["mcp", own], env);
      const out = frames(child);
      child.stdin.write(`${JSON.stringify(INIT)}\n${JSON.stringify(INITIALIZED)}\n${JSON.stringify(indexCall)}\n`);
      await out.until((all) => all.some((frame) => (frame as { id?: number }).id === 1));
      // The host ends the session at once: no idle time for a snapshot save.
      child.stdin.end();
      expect((await exitOf(child)).code).toBe(0);
      const reply = out.received.find((frame) => (frame as { id?: number }).id === 1) as { result: { structuredContent: { lastBuild: { parsed: number; fromSnapshot: number } } } };
      return reply.result.structuredContent.lastBuild;
    };
    expect(await once()).toMatchObject({ parsed: 5, fromSnapshot: 0 });
    expect(await once()).toMatchObject({ parsed: 0, fromSnapshot: 5 });
  });

  test("SIGTERM ends the process with exit 0", async () => {
    const child = spawnCli(["mcp", root], env);
    const out = frames(child);
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    await out.until((all) => all.length >= 1);
    child.kill("SIGTERM");
    expect((await exitOf(child)).code).toBe(0);
  });

  test("a closed stdout (EPIPE) ends the process cleanly", async () => {
    const child = spawnCli(["mcp", root], env);
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.stdout.destroy();
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    const { code } = await exitOf(child);
    expect(code).toBe(0);
    expect(stderr).not.toContain("Unhandled");
    expect(stderr).not.toContain("EPIPE\n    at");
  });

  test("stdout carries only JSON-RPC frames", async () => {
    const child = spawnCli(["mcp", root], { ...env, AST_MCP_LOG_LEVEL: "debug" });
    let raw = "";
    child.stdout.on("data", (c: Buffer) => (raw += c.toString()));
    child.stdin.write(
      `${JSON.stringify(INIT)}\n${JSON.stringify(INITIALIZED)}\n${
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "config_status", arguments: {} } })
      }\n`,
    );
    const deadline = Date.now() + 20_000;
    while (!raw.includes("\"id\":3") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    await exitOf(child);
    const lines = raw.split("\n").filter((l) => l !== "");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect((JSON.parse(line) as { jsonrpc: string }).jsonrpc).toBe("2.0");
  });

  test("client roots narrow the configured roots for the session, and list_changed re-reads them", async () => {
    let clientRoots = [{ uri: pathToFileURL(join(root, "src")).href, name: "src" }];
    const client = new Client({ name: "roots-client", version: "0" }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: clientRoots }));
    const transport = new StdioClientTransport({ command: "node", args: [CLI, "mcp", root], env, cwd: PROJECT_DIR, stderr: "pipe" });
    await client.connect(transport);
    try {
      const firstFile = (r: unknown) => (r as { structuredContent: { files: Array<{ error?: { code: string }; sha256?: string }> } }).structuredContent.files[0];
      const inside = firstFile(await client.callTool({ name: "file_hash", arguments: { filePaths: [join(root, "src", "a.ts")] } }));
      expect(inside?.sha256).toMatch(/^[0-9a-f]{64}$/);
      const narrowedOut = firstFile(await client.callTool({ name: "file_hash", arguments: { filePaths: [join(root, "package.json")] } }));
      expect(narrowedOut?.error?.code).toBe("path_outside_roots");

      // A client root outside the configured ones never widens them.
      clientRoots = [{ uri: pathToFileURL(root).href, name: "all" }, { uri: "file:///", name: "everything" }];
      await client.sendRootsListChanged();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const widened = firstFile(await client.callTool({ name: "file_hash", arguments: { filePaths: [join(root, "package.json")] } }));
      expect(widened?.sha256).toMatch(/^[0-9a-f]{64}$/);
      const etc = firstFile(await client.callTool({ name: "file_hash", arguments: { filePaths: ["/etc/hostname"] } }));
      expect(etc?.error?.code).toBe("path_outside_roots");
    } finally {
      await transport.close();
    }
  });

  test("the built CLI also runs on Bun", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath.includes("bun") ? process.execPath : "bun",
      args: [CLI, "mcp", root],
      env,
      cwd: PROJECT_DIR,
      stderr: "pipe",
    });
    const client = new Client({ name: "bun-runtime", version: "0" });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const name of [...READ_TOOLS, ...MUTATION_TOOLS]) expect(names).toContain(name);
      const read = await client.callTool({ name: "file_read", arguments: { files: [{ filePath: "src/a.ts", startLine: 2, endLine: 3 }] } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.structuredContent)).toContain("export function f()");
    } finally {
      await transport.close();
    }
  });
});
