/**
 * The read race shared by the seeded slice (test/policy/read-race.test.ts) and the stress run: a
 * directory `d/` inside the root is swapped for a link to a directory outside by another process
 * while the read tools ask for `d/…` in process. No answer may carry the outside content or the
 * outside hash, and every failure must be a specific code.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { documentQueryTool } from "../../src/tools/document.ts";
import { fileHashTool, fileReadTool } from "../../src/tools/files.ts";
import { mapTool } from "../../src/tools/map.ts";
import { searchTool } from "../../src/tools/search.ts";
import { makeContext, runTool } from "../support/context.ts";
import { startLinkSwapper } from "../support/link-swapper.ts";

const INSIDE_TEXT = "inside marker\n";
const OUTSIDE_TEXT = "OUTSIDE_SECRET marker\n";
const INSIDE_CODE = "export function insideOnly(): number {\n  return 1;\n}\n";
const OUTSIDE_CODE = "export function OUTSIDE_SECRET_fn(): number {\n  return 2;\n}\n";
const INSIDE_JSON = "{\"who\": \"inside\"}\n";
const OUTSIDE_JSON = "{\"who\": \"OUTSIDE_SECRET\"}\n";

export interface ReadRaceReport {
  operations: number;
  leaks: string[];
  /** Error codes seen, with counts. */
  codes: Map<string, number>;
  /** Failures that were not a ToolError with a specific code. */
  unexpected: string[];
  swaps: number;
}

interface Tree {
  base: string;
  root: string;
  outside: string;
  cache: string;
}

function makeTree(): Tree {
  const base = mkdtempSync(path.join(tmpdir(), "ast-mcp-read-race-"));
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  const cache = path.join(base, "cache");
  for (const dir of [path.join(root, "d"), outside, cache]) mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(root, "d", "x.txt"), INSIDE_TEXT);
  writeFileSync(path.join(root, "d", "x.ts"), INSIDE_CODE);
  writeFileSync(path.join(root, "d", "x.json"), INSIDE_JSON);
  writeFileSync(path.join(outside, "x.txt"), OUTSIDE_TEXT);
  writeFileSync(path.join(outside, "x.ts"), OUTSIDE_CODE);
  writeFileSync(path.join(outside, "x.json"), OUTSIDE_JSON);
  writeFileSync(path.join(outside, "only-outside.ts"), OUTSIDE_CODE);
  return { base, root, outside, cache };
}

const OUTSIDE_HASHES = [OUTSIDE_TEXT, OUTSIDE_CODE, OUTSIDE_JSON].map((text) => sha256Hex(Buffer.from(text)));

function leaked(answer: unknown): string | undefined {
  const text = JSON.stringify(answer);
  if (text.includes("OUTSIDE_SECRET")) return "outside content";
  if (text.includes("only-outside")) return "outside file name";
  for (const hash of OUTSIDE_HASHES) if (text.includes(hash)) return "outside hash";
  return undefined;
}

/** Runs read operations for `durationMs` or until `maxOperations`, whichever comes first. */
export async function runReadRace(options: { durationMs: number; maxOperations?: number }): Promise<ReadRaceReport> {
  const tree = makeTree();
  const previousCache = process.env.AST_MCP_CACHE_DIR;
  process.env.AST_MCP_CACHE_DIR = tree.cache;
  const report: ReadRaceReport = { operations: 0, leaks: [], codes: new Map(), unexpected: [], swaps: 0 };
  const context: ToolContext = await makeContext([tree.root]);
  const count = (code: string) => report.codes.set(code, (report.codes.get(code) ?? 0) + 1);
  const record = (what: string, answer: unknown) => {
    const leak = leaked(answer);
    if (leak) report.leaks.push(`${what}: ${leak}: ${JSON.stringify(answer).slice(0, 300)}`);
    for (const code of JSON.stringify(answer).match(/"code":"[a-z_]+"/g) ?? []) count(code.slice(8, -1));
    if (JSON.stringify(answer).includes("\"code\":\"internal_error\"")) report.unexpected.push(`${what}: item internal_error`);
  };
  const operations: Array<[string, () => Promise<unknown>]> = [
    ["file_read", () => runTool(fileReadTool, { files: [{ filePath: "d/x.txt" }, { filePath: "d/x.ts" }] }, context)],
    ["file_hash", () => runTool(fileHashTool, { filePaths: ["d/x.txt", "d/x.ts", "d/x.json"] }, context)],
    ["document_query", () => runTool(documentQueryTool, { filePath: "d/x.json", selectors: ["/who"] }, context)],
    ["map", () => runTool(mapTool, { paths: ["d"] }, context)],
    ["search", () => runTool(searchTool, { query: "function number return", path: "d" }, context)],
    ["listDirectory", async () => context.workspace.listDirectory("d")],
  ];
  const swapper = await startLinkSwapper(path.join(tree.root, "d"), tree.outside);
  const until = Date.now() + options.durationMs;
  try {
    for (let i = 0; Date.now() < until && (options.maxOperations === undefined || report.operations < options.maxOperations); i++) {
      const [name, run] = operations[i % operations.length]!;
      report.operations += 1;
      try {
        record(name, await run());
      } catch (error) {
        if (error instanceof ToolError && error.code !== "internal_error") count(error.code);
        else report.unexpected.push(`${name}: ${error instanceof Error ? error.stack : String(error)}`);
      }
    }
  } finally {
    report.swaps = await swapper.stop();
    context.services.indexes.closeAll();
    if (previousCache === undefined) delete process.env.AST_MCP_CACHE_DIR;
    else process.env.AST_MCP_CACHE_DIR = previousCache;
    rmSync(tree.base, { recursive: true, force: true, maxRetries: 5 });
  }
  return report;
}
