/**
 * Every tool declares the error codes it can answer with (defineTool's `errors`), and cannot answer
 * with another: a code outside the set becomes internal_error, logged. Driven through the real
 * server over an in-memory MCP connection, every tool's error paths answer declared codes.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { z } from "zod";
import { ERROR_CODES, ToolError } from "../../src/core/errors.ts";
import { createMcpServer } from "../../src/server/mcp.ts";
import { type AnyTool, COMMON_ERRORS, defineTool, READ_ONLY } from "../../src/tools/contract.ts";
import { createToolServices, TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

/** A test tool that fails with `thrown`, or answers one per-item error with `itemCode`. */
function faultyTool(declared: ToolError["code"][], behaviour: { thrown?: ToolError["code"]; itemCode?: string }) {
  return defineTool({
    name: "faulty",
    title: "Faulty",
    description: "Test tool: fails with a chosen code, or answers a per-item error with one.",
    input: z.strictObject({}),
    output: z.object({ items: z.array(z.object({ error: z.object({ code: z.string(), message: z.string(), hint: z.string(), retryable: z.boolean() }) })) }),
    annotations: READ_ONLY,
    errors: declared,
    handler: async () => {
      if (behaviour.thrown) throw new ToolError(behaviour.thrown, "chosen failure");
      return { items: [{ error: { code: behaviour.itemCode ?? "file_not_found", message: "item failed", hint: "none", retryable: false } }] };
    },
    render: () => "faulty",
  });
}

async function connect(tools: readonly AnyTool[], root: string, services = createToolServices()) {
  const context = await makeContext([root], { services });
  const config = { ...context.config, config: { ...context.config.config, tools: { profile: "full" as const, enabled: [], disabled: [] } } };
  const server = createMcpServer({ snapshot: async () => config, workspaceFor: async () => context.workspace, tools, services }, "declared-errors-test");
  const client = new Client({ name: "declared-errors-test", version: "1" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return client;
}

/** The error codes one call answered with: the call's own error, or every per-item error of its result. */
async function answeredCodes(client: Client, name: string, args: Record<string, unknown>): Promise<{ codes: string[]; undeclared: unknown[] }> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    const text = (result.content as Array<{ type: string; text: string }>)[0]?.text ?? "";
    const { error } = JSON.parse(text) as { error: { code: string; details?: { undeclaredCode?: unknown } } };
    return { codes: [error.code], undeclared: error.details?.undeclaredCode === undefined ? [] : [error.details.undeclaredCode] };
  }
  const codes: string[] = [];
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if (typeof record.code === "string" && typeof record.hint === "string" && typeof record.retryable === "boolean") codes.push(record.code);
      Object.values(record).forEach(walk);
    }
  };
  walk(result.structuredContent);
  return { codes, undeclared: [] };
}

describe("the declared error codes of a tool", () => {
  test("defineTool adds the codes every call can answer with, in catalog order", () => {
    const tool = faultyTool(["stale_hash", "file_not_found"], {});
    const catalog = Object.keys(ERROR_CODES);
    expect(tool.errors).toEqual(expect.arrayContaining([...COMMON_ERRORS, "stale_hash", "file_not_found"]));
    expect(tool.errors).toHaveLength(COMMON_ERRORS.length + 2);
    expect([...tool.errors].sort((a, b) => catalog.indexOf(a) - catalog.indexOf(b))).toEqual([...tool.errors]);
  });

  test("every tool declares only catalog codes, each once, and more than the common ones", () => {
    for (const tool of TOOLS) {
      expect(tool.errors.every((code) => Object.hasOwn(ERROR_CODES, code))).toBe(true);
      expect(new Set(tool.errors).size).toBe(tool.errors.length);
      expect(tool.errors).toEqual(expect.arrayContaining([...COMMON_ERRORS]));
    }
    // Only config_status does nothing that can fail beyond what every call can.
    expect(TOOLS.filter((tool) => tool.errors.length === COMMON_ERRORS.length).map((tool) => tool.name)).toEqual(["config_status"]);
  });

  test("a declared code passes through unchanged", async () => {
    const context = await makeContext([]);
    const failure = await toolFailure(runTool(faultyTool(["stale_hash"], { thrown: "stale_hash" }), {}, context));
    expect(failure.code).toBe("stale_hash");
    const answer = await runTool(faultyTool(["file_not_found"], { itemCode: "file_not_found" }), {}, context);
    expect(answer.items[0].error.code).toBe("file_not_found");
  });

  test("an undeclared code, thrown or in a per-item error, answers internal_error and is logged", async () => {
    const context = await makeContext([]);
    const stderr = spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const thrown = await toolFailure(runTool(faultyTool([], { thrown: "stale_hash" }), {}, context));
      expect(thrown.code).toBe("internal_error");
      expect(thrown.details).toEqual({ undeclaredCode: "stale_hash" });
      const item = await toolFailure(runTool(faultyTool(["stale_hash"], { itemCode: "file_not_found" }), {}, context));
      expect(item.code).toBe("internal_error");
      expect(item.details).toEqual({ undeclaredCode: "file_not_found" });
      const logged = stderr.mock.calls.map((call) => String(call[0])).filter((line) => line.includes("does not declare"));
      expect(logged).toHaveLength(2);
      expect(logged[0]).toContain("tool=faulty code=stale_hash");
    } finally {
      stderr.mockRestore();
    }
  });

  test("the server answers internal_error for an undeclared code and keeps serving", async () => {
    const temp = await makeTempDir();
    const stderr = spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      const steady = faultyTool(["file_not_found"], {});
      const client = await connect([{ ...faultyTool([], { thrown: "path_denied" }), name: "faulty_thrown" }, steady], temp.dir);
      expect(await answeredCodes(client, "faulty_thrown", {})).toEqual({ codes: ["internal_error"], undeclared: ["path_denied"] });
      expect(await answeredCodes(client, "faulty", {})).toEqual({ codes: ["file_not_found"], undeclared: [] });
      await client.close();
    } finally {
      stderr.mockRestore();
      await temp.cleanup();
    }
  });
});

describe("every tool's error paths answer declared codes", () => {
  usePrivateStateDir();
  let temp: TempDir;
  let outsideRoot: TempDir;
  let client: Client;
  const sha = async (relative: string) => createHash("sha256").update(await readFile(path.join(temp.dir, relative))).digest("hex");

  beforeAll(async () => {
    temp = await makeTempDir();
    outsideRoot = await makeTempDir();
    await outsideRoot.write("secret.ts", "export const secret = 1;\n");
    await temp.write("src/a.ts", "export function alpha() {\n  return beta();\n}\nexport function beta() {\n  return 1;\n}\n");
    await temp.write("src/b.ts", "import { alpha } from './a';\nexport function gamma() {\n  return alpha() + alpha();\n}\nexport function dup() {}\n");
    await temp.write("src/c.ts", "export function dup() {}\n");
    await temp.write("notes.txt", "one\ntwo\ntwo\n");
    await temp.write("data.json", "{\"a\": 1}\n");
    await temp.write("bad.json", "{\"a\": }\n");
    await temp.write("image.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    await temp.write("logo.bin", new Uint8Array([0x89, 0x50, 0, 0, 1]));
    await temp.write("dir/keep.txt", "k\n");
    client = await connect(TOOLS, temp.dir);
  });

  afterAll(async () => {
    await client.close();
    await temp.cleanup();
    await outsideRoot.cleanup();
  });

  const outside = () => path.join(outsideRoot.dir, "secret.ts");

  /** Each tool's error paths and a code each must answer with; every code answered must be declared. */
  const cases: Record<string, () => Promise<Array<{ args: Record<string, unknown>; expects: string[] }>>> = {
    file_read: async () => [
      {
        args: { files: [{ filePath: outside() }, { filePath: "missing.ts" }, { filePath: "dir" }, { filePath: "image.png" }, { filePath: "notes.txt", startLine: 9 }] },
        expects: ["path_outside_roots", "file_not_found", "not_a_file", "binary_file", "invalid_range"],
      },
      { args: { files: [{ filePath: "notes.txt", mode: "text", symbols: ["x"] }] }, expects: ["invalid_input"] },
    ],
    file_hash: async () => [{ args: { filePaths: [outside(), "missing.ts", "dir", "\u0001"] }, expects: ["path_outside_roots", "file_not_found", "not_a_file", "invalid_path"] }],
    file_capabilities: async () => [{ args: { filePaths: [outside(), "missing.ts", "dir"] }, expects: ["path_outside_roots", "file_not_found", "not_a_file"] }],
    document_query: async () => [
      { args: { filePath: "bad.json", selectors: ["/a"] }, expects: ["parse_error"] },
      { args: { filePath: "notes.txt", selectors: ["/a"] }, expects: ["unsupported_document"] },
      { args: { filePath: "data.json", selectors: ["a"] }, expects: ["invalid_selector"] },
      { args: { filePath: "image.png", selectors: [""] }, expects: ["unsupported_document"] },
    ],
    policy_check: async () => [{ args: { checks: [] }, expects: ["invalid_input"] }],
    config_status: async () => [{ args: { extra: true }, expects: ["invalid_input"] }],
    map: async () => [{ args: { paths: [outside(), "missing.ts", "image.png"] }, expects: ["path_outside_roots", "file_not_found"] }],
    digest: async () => [{ args: { paths: [outside(), "missing.ts"] }, expects: ["path_outside_roots", "file_not_found"] }],
    show: async () => [
      { args: { path: "missing.ts", symbols: ["alpha"] }, expects: ["file_not_found"] },
      { args: { path: outside(), symbols: ["alpha"] }, expects: ["path_outside_roots"] },
    ],
    surface: async () => [{ args: { path: outside() }, expects: ["path_outside_roots"] }, { args: { path: "missing.ts" }, expects: ["file_not_found"] }],
    index: async () => [{ args: { path: "missing" }, expects: ["file_not_found"] }, { args: { path: outside() }, expects: ["path_outside_roots"] }],
    deps: async () => [{ args: { path: "missing.ts" }, expects: ["file_not_found"] }, { args: { path: outside() }, expects: ["path_outside_roots"] }],
    reverse_deps: async () => [{ args: { path: "missing.ts" }, expects: ["file_not_found"] }],
    graph: async () => [{ args: { paths: ["missing.ts"] }, expects: ["file_not_found"] }],
    cycles: async () => [{ args: { paths: [outside()] }, expects: ["path_outside_roots"] }],
    callers: async () => [{ args: { symbol: "nowhere" }, expects: ["symbol_not_found"] }, { args: { symbol: "dup" }, expects: ["ambiguous_symbol"] }],
    callees: async () => [{ args: { symbol: "nowhere" }, expects: ["symbol_not_found"] }, { args: { symbol: "alpha", path: "missing.ts" }, expects: ["file_not_found"] }],
    trace: async () => [{ args: { from: "nowhere", to: "alpha" }, expects: ["symbol_not_found"] }],
    implements: async () => [{ args: { symbol: "nowhere" }, expects: ["symbol_not_found"] }],
    impact: async () => [{ args: { symbol: "nowhere" }, expects: ["symbol_not_found"] }],
    context: async () => [{ args: { target: "dup" }, expects: ["ambiguous_symbol"] }],
    search: async () => [{ args: { query: "alpha", path: outside() }, expects: ["path_outside_roots"] }],
    find_related: async () => [{ args: { path: "src/a.ts", line: 999 }, expects: ["invalid_range"] }],
    squeeze: async () => [{ args: { path: "notes.txt", startLine: 99 }, expects: ["invalid_range"] }, { args: { path: "image.png" }, expects: ["binary_file"] }],
    run: async () => [
      { args: { pattern: "alpha()", rewrite: "omega()", paths: ["src/b.ts"], write: true, expectedMatches: 5 }, expects: ["match_count"] },
      { args: { pattern: "alpha()", paths: [outside()] }, expects: ["path_outside_roots"] },
      { args: { previewReceipt: "not-a-receipt" }, expects: ["receipt_invalid"] },
    ],
    file_write: async () => [
      { args: { files: { [outside()]: { content: "x", expectedSha256: null } } }, expects: ["path_outside_roots"] },
      { args: { files: { "notes.txt": { content: "x" } } }, expects: ["missing_hash"] },
      { args: { files: { "notes.txt": { content: "x", expectedSha256: "0".repeat(64) } } }, expects: ["stale_hash"] },
      { args: { files: { "src/a.ts": { content: "export const = ;\n", expectedSha256: await sha("src/a.ts") } } }, expects: ["syntax_regression"] },
    ],
    file_patch: async () => [
      {
        args: { files: { "notes.txt": { expectedSha256: await sha("notes.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "zzz\n", replace: "y\n" }] } } },
        expects: ["no_match"],
      },
      {
        args: { files: { "notes.txt": { expectedSha256: await sha("notes.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "two\n", replace: "y\n" }] } } },
        expects: ["ambiguous_match"],
      },
      {
        args: { files: { "src/b.ts": { expectedSha256: await sha("src/b.ts"), patchStrategy: "ast", astRules: [{ pattern: "alpha()", fix: "omega()" }] } } },
        expects: ["match_count"],
      },
      { args: { files: { "notes.txt": { previewReceipt: "not-a-receipt" } } }, expects: ["receipt_invalid"] },
    ],
    file_rename: async () => [
      { args: { files: { "notes.txt": { destination: "data.json", expectedSha256: await sha("notes.txt") } } }, expects: ["destination_exists"] },
      { args: { files: { "missing.txt": { destination: "else.txt", expectedSha256: "0".repeat(64) } } }, expects: ["file_not_found"] },
    ],
    file_delete: async () => [
      { args: { files: { "src/a.ts": { expectedSha256: await sha("src/a.ts") } } }, expects: ["referenced_file"] },
      { args: { files: { [outside()]: { expectedSha256: "0".repeat(64) } } }, expects: ["path_outside_roots"] },
      // The reference check loads a file the import graph does not hold; whatever it answers for a binary file must be declared.
      { args: { files: { "logo.bin": { expectedSha256: await sha("logo.bin") } } }, expects: [] },
    ],
    file_chattr: async () => [
      { args: { files: { "notes.txt": { chmod: "4755", expectedSha256: await sha("notes.txt") } } }, expects: ["invalid_input"] },
      { args: { files: { "notes.txt": { chmod: "+x", expectedSha256: "0".repeat(64) } } }, expects: ["stale_hash"] },
    ],
    file_undo: async () => [{ args: {}, expects: ["invalid_input"] }, { args: { batchId: "no-such-batch" }, expects: ["invalid_input"] }],
    journal_list: async () => [{ args: { path: "notes.txt" }, expects: ["invalid_input"] }, { args: { path: outside() }, expects: ["path_outside_roots"] }],
  };

  test("every tool has error paths driven here", () => {
    expect(Object.keys(cases).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  for (const tool of TOOLS) {
    test(`${tool.name}: its error paths answer the expected codes, each declared`, async () => {
      const declared = new Set<string>(tool.errors);
      for (const { args, expects } of await (cases[tool.name] ?? (async () => []))()) {
        const answered = await answeredCodes(client, tool.name, args);
        expect({ args, ...answered }).toEqual({ args, codes: expect.arrayContaining(expects), undeclared: [] });
        for (const code of answered.codes) expect({ code, declared: declared.has(code) }).toEqual({ code, declared: true });
      }
    });
  }

  test("with no usable root, the same calls answer only declared codes, no_roots among them", async () => {
    const rootless = await connect(TOOLS, path.join(outsideRoot.dir, "not-a-directory"));
    try {
      const noRoots = new Set<string>();
      for (const tool of TOOLS) {
        const declared = new Set<string>(tool.errors);
        for (const { args } of await cases[tool.name]!()) {
          const answered = await answeredCodes(rootless, tool.name, args);
          expect({ tool: tool.name, undeclared: answered.undeclared }).toEqual({ tool: tool.name, undeclared: [] });
          for (const code of answered.codes) {
            expect({ tool: tool.name, code, declared: declared.has(code) }).toEqual({ tool: tool.name, code, declared: true });
            if (code === "no_roots") noRoots.add(tool.name);
          }
        }
      }
      expect([...noRoots]).toEqual(expect.arrayContaining(["file_read", "file_hash", "map", "search", "file_write", "file_patch", "journal_list"]));
    } finally {
      await rootless.close();
    }
  });
});
