/**
 * Every protocol era on every transport, through the built CLI under Node: a 2026-07-28 client on the SDK's
 * v2 client and a 2025-11-25 client on the 1.x SDK each read a file, preview a patch, commit it and undo it,
 * over stdio and over Streamable HTTP (the same /mcp endpoint serving both eras at once).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { CLI, exitOf, isolatedEnv, PROJECT_DIR, startHttpCli, tempRoot } from "../support/cli.ts";

const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

type CallResult = { isError?: boolean; content?: Array<{ type: string; text?: string }>; structuredContent?: unknown };
interface Connection {
  /** The revision the client and server agreed on. */
  protocolVersion: string | undefined;
  toolNames(): Promise<string[]>;
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  close(): Promise<void>;
}
type Era = "modern" | "legacy";
type Transport = "stdio" | "http";

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let root: string;
let http: { child: ChildProcessWithoutNullStreams; url: string };

beforeAll(async () => {
  ({ env, cleanup } = await isolatedEnv());
  root = await tempRoot();
  http = await startHttpCli([root], env);
});
afterAll(async () => {
  http.child.kill("SIGTERM");
  await exitOf(http.child);
  await cleanup();
});

async function connect(era: Era, transport: Transport): Promise<Connection> {
  const stdio = { command: "node", args: [CLI, "mcp", root], env, cwd: PROJECT_DIR, stderr: "pipe" as const };
  if (era === "modern") {
    const client = new ModernClient({ name: "eras-modern", version: "0.0.0" }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(transport === "stdio" ? new ModernStdioTransport(stdio) : new ModernHttpTransport(new URL(http.url)));
    return {
      protocolVersion: client.getNegotiatedProtocolVersion(),
      toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
      close: () => client.close(),
    };
  }
  const client = new LegacyClient({ name: "eras-legacy", version: "0.0.0" });
  const wire = transport === "stdio" ? new LegacyStdioTransport(stdio) : new LegacyHttpTransport(new URL(http.url));
  await client.connect(wire);
  return {
    protocolVersion: wire instanceof LegacyHttpTransport ? wire.protocolVersion : LEGACY,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as CallResult,
    close: () => client.close(),
  };
}

type Mutation = { batchId: string | null; committed: boolean; files: Record<string, { sha256: string | null; preview?: { previewReceipt: string; diff: string } }> };
type Read = { files: Array<{ sha256: string; content?: string }> };

for (const transport of ["stdio", "http"] as const) {
  for (const era of ["modern", "legacy"] as const) {
    test(`a ${era === "modern" ? MODERN : LEGACY} client over ${transport} reads, previews, commits and undoes a patch`, async () => {
      const file = `${era}-${transport}.ts`;
      const original = "export function greet(name: string) {\n\treturn 'hi ' + name;\n}\n";
      await writeFile(join(root, file), original);
      const connection = await connect(era, transport);
      try {
        if (era === "modern") expect(connection.protocolVersion).toBe(MODERN);
        else expect(connection.protocolVersion).toBe(LEGACY);
        expect(await connection.toolNames()).toContain("file_patch");

        const read = await connection.call("file_read", { files: [{ filePath: file }] });
        expect(read.isError).toBeFalsy();
        const sha = (read.structuredContent as Read).files[0]?.sha256;
        expect(sha).toBe(sha256Hex(Buffer.from(original)));

        const edit = { expectedSha256: sha, patchStrategy: "aider_block", aiderBlocks: [{ search: "\treturn 'hi ' + name;\n", replace: "\treturn `hello ${name}`;\n" }] };
        const previewed = await connection.call("file_patch", { files: { [file]: { ...edit, preview: true } } });
        expect(previewed.isError).toBeFalsy();
        const preview = (previewed.structuredContent as Mutation).files[file]?.preview;
        expect(preview?.diff).toContain("+\treturn `hello ${name}`;");
        expect(await readFile(join(root, file), "utf8")).toBe(original);

        // A legacy session commits the receipt it was given. A stateless client has no session for the
        // receipt to live in on this branch (receipts as bearer handles arrive with the tools' side of
        // issue 19), so it commits the same edit against the same hash: the preview showed what will land.
        const committed = await connection.call("file_patch", { files: { [file]: era === "legacy" ? { previewReceipt: preview?.previewReceipt } : edit } });
        expect(committed.isError).toBeFalsy();
        const batch = committed.structuredContent as Mutation;
        expect(batch.committed).toBe(true);
        expect(batch.batchId).toBeTruthy();
        expect(await readFile(join(root, file), "utf8")).toBe("export function greet(name: string) {\n\treturn `hello ${name}`;\n}\n");

        // The batch id from the commit's answer is the handle a stateless client passes back.
        const undone = await connection.call("file_undo", era === "modern" ? { batchId: batch.batchId } : {});
        expect(undone.isError).toBeFalsy();
        expect(await readFile(join(root, file), "utf8")).toBe(original);
      } finally {
        await connection.close();
      }
    }, 60_000);
  }
}

describe("one HTTP endpoint, both eras", () => {
  test("a 2026-07-28 request and a 2025-era session are served side by side, and only the legacy one holds a session", async () => {
    const sessions = async () => ((await (await fetch(new URL("/healthz", http.url))).json()) as { sessions: number }).sessions;
    const before = await sessions();
    const modern = await connect("modern", "http");
    const legacy = await connect("legacy", "http");
    try {
      const [a, b] = await Promise.all([modern.toolNames(), legacy.toolNames()]);
      expect(a).toEqual(b);
      expect(await sessions()).toBe(before + 1);
    } finally {
      await modern.close();
      await legacy.close();
    }
  }, 60_000);
});
