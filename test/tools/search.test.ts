/** search and find_related through their handlers, over real temp directories and a real code index. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FileFacts, ImportFact, SymbolFact } from "../../src/intel/facts/types.ts";
import { CodeIndex } from "../../src/intel/index/index.ts";
import { type Embedder, SearchService } from "../../src/intel/search/index.ts";
import { createToolServices } from "../../src/tools/index.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { findRelatedTool, searchTool } from "../../src/tools/search.ts";
import { makeContext, makeTempDir, runTool as call, type TempDir } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;
let index: CodeIndex | undefined;
let cacheDir: string;

/**
 * Facts by file content: the tests state each file's symbols and imports, so ranking is tested
 * apart from the extractors.
 */
const factsByText = new Map<string, { symbols: SymbolFact[]; imports: ImportFact[] }>();

function sym(name: string, startLine: number, endLine: number, signature: string, doc?: string): SymbolFact {
  return { name, qualifiedName: name, kind: "function", visibility: "public", exported: true, startLine, endLine, signature, ...(doc === undefined ? {} : { doc }) };
}

const tableFacts = (language: string, text: string): FileFacts => {
  const known = factsByText.get(text);
  return { language, parseErrors: 0, symbols: known?.symbols ?? [], imports: known?.imports ?? [], calls: [], exportedNames: [] };
};

async function put(relative: string, text: string, symbols: SymbolFact[] = [], imports: ImportFact[] = []): Promise<void> {
  factsByText.set(text, { symbols, imports });
  await temp.write(relative, text);
}

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
});
afterAll(async () => {
  index?.close();
  await temp?.cleanup();
  await rm(cacheDir, { recursive: true, force: true });
});
beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir();
  const made = await makeContext([temp.dir]);
  made.config = { ...made.config, config: { ...made.config.config, index: { ...made.config.config.index, persist: false } } };
  index?.close();
  index = made.services.indexes.forContext(made, { cacheDir, watch: "off", extract: tableFacts, extractorVersion: "search-test" });
  context = made;
});

async function configFixture(): Promise<void> {
  await put("src/config.ts", "/** Reads the settings file. */\nexport function loadSettings(file: string): Settings {\n  return parseToml(readText(file));\n}\n", [
    sym("loadSettings", 2, 4, "export function loadSettings(file: string): Settings", "Reads the settings file."),
  ]);
  await put(
    "src/app.ts",
    "import { loadSettings } from \"./config.js\";\n\nexport function start() {\n  const settings = loadSettings(\"app.toml\");\n  const again = loadSettings(\"other.toml\");\n  return [settings, again];\n}\n",
    [sym("start", 3, 7, "export function start()")],
    [{ specifier: "./config.js", kind: "import", names: [{ local: "loadSettings", imported: "loadSettings" }], line: 1 }],
  );
  await put("scripts/tool.py", "def load_settings(path):\n    return open(path).read()\n", [sym("load_settings", 1, 2, "def load_settings(path)")]);
}

describe("search", () => {
  test("ranks the definition first and shows where it matched", async () => {
    await configFixture();
    const result = await call(searchTool, { query: "loadSettings" }, context);
    expect(result.results[0]).toMatchObject({ path: "src/config.ts", startLine: 2, endLine: 4, symbol: "loadSettings", kind: "function" });
    expect(result.results[0].signals).toEqual(expect.arrayContaining(["name", "signature", "body", "definition"]));
    expect(result.results[0].snippet.text).toContain("export function loadSettings(file: string): Settings");
    expect(result.results.map((hit: { path: string }) => hit.path)).toContain("src/app.ts");
    expect(result).toMatchObject({ terms: ["loadsettings", "load", "settings"], embedder: "none", complete: true });
    expect(result.indexed.files).toBe(3);
    const text = searchTool.render(searchTool.output.parse(result));
    expect(text).toContain("src/config.ts:2-4 loadSettings (function)");
    expect(text).toMatch(/\n\s+2\| export function loadSettings/);
  });

  test("a file too large to chunk is searched by its names only, and the answer says so", async () => {
    await configFixture();
    const big = `export function hugeTable() {\n${"  return 1;\n".repeat(100_000)}}\n`;
    await put("src/huge.ts", big, [sym("hugeTable", 1, 100_002, "export function hugeTable()")]);
    const result = await call(searchTool, { query: "hugeTable" }, context);
    expect(result.results[0]).toMatchObject({ path: "src/huge.ts", symbol: "hugeTable" });
    expect(result.complete).toBe(false);
    expect(result.limits).toEqual(["intel.search.maxChunkedFileBytes = 1048576 (1 file searched by symbol names only): read those with map or show"]);
  });

  test("words find split identifiers in every language; path and languages narrow", async () => {
    await configFixture();
    const words = await call(searchTool, { query: "load settings" }, context);
    const paths = words.results.map((hit: { path: string }) => hit.path);
    expect(paths).toEqual(expect.arrayContaining(["src/config.ts", "scripts/tool.py"]));
    const python = await call(searchTool, { query: "load settings", languages: ["py"] }, context);
    expect(python.results.map((hit: { path: string }) => hit.path)).toEqual(["scripts/tool.py"]);
    const scoped = await call(searchTool, { query: "load settings", path: "src" }, context);
    expect(scoped.results.every((hit: { path: string }) => hit.path.startsWith("src/"))).toBe(true);
    expect((await failure(call(searchTool, { query: "x", languages: ["klingon"] }, context))).code).toBe("invalid_input");
    expect((await failure(call(searchTool, { query: "x", path: "/etc" }, context))).code).toBe("path_outside_roots");
  });

  test("contextFile lifts files it imports, through the real import graph", async () => {
    const helper = (tag: string) => `export function formatStamp(value: Date) {\n  return value.toISOString(); // ${tag}\n}\n`;
    await put("a/stamp.ts", helper("a"), [sym("formatStamp", 1, 3, "export function formatStamp(value: Date)")]);
    await put("b/stamp.ts", helper("b"), [sym("formatStamp", 1, 3, "export function formatStamp(value: Date)")]);
    await put("b/view.ts", "import { formatStamp } from \"./stamp.js\";\nexport const view = 1;\n", [], [
      { specifier: "./stamp.js", kind: "import", names: [{ local: "formatStamp", imported: "formatStamp" }], line: 1 },
    ]);
    const plain = await call(searchTool, { query: "formatStamp", topK: 2 }, context);
    expect(plain.results.map((hit: { path: string }) => hit.path)).toEqual(["a/stamp.ts", "b/stamp.ts"]);
    const near = await call(searchTool, { query: "formatStamp", topK: 2, contextFile: "b/view.ts" }, context);
    expect(near.results.map((hit: { path: string }) => hit.path)).toEqual(["b/stamp.ts", "a/stamp.ts"]);
    expect(near.results[0].signals).toContain("proximity");
  });

  test("answers reflect files changed on disk since the last search", async () => {
    await configFixture();
    expect((await call(searchTool, { query: "renderInvoice" }, context)).results).toHaveLength(0);
    const text = "export function renderInvoice(total: number) {\n  return `total ${total}`;\n}\n";
    factsByText.set(text, { symbols: [sym("renderInvoice", 1, 3, "export function renderInvoice(total: number)")], imports: [] });
    await writeFile(path.join(temp.dir, "src/config.ts"), text);
    const after = await call(searchTool, { query: "renderInvoice" }, context);
    expect(after.results[0]).toMatchObject({ path: "src/config.ts", symbol: "renderInvoice" });
    expect((await call(searchTool, { query: "loadSettings", path: "src/config.ts" }, context)).results).toHaveLength(0);
  });
});

describe("search modes and landing", () => {
  test("a concept query says so, and a result names the function or method it lands in with its whole line range", async () => {
    const method = (name: string, startLine: number, endLine: number): SymbolFact => ({
      name,
      qualifiedName: `Ledger.${name}`,
      kind: "method",
      visibility: "public",
      exported: false,
      startLine,
      endLine,
      signature: `${name}()`,
      parent: "Ledger",
    });
    const lines = [
      "export class Ledger {",
      "  settle() {",
      "    return this.total;",
      "  }",
      "  archiveEntries() {",
      "    const archived = this.entries.filter((entry) => entry.old);",
      "    this.archive.push(...archived);",
      "    this.entries = this.entries.filter((entry) => !entry.old);",
      "    return archived;",
      "  }",
      "}",
    ];
    await put("src/ledger.ts", `${lines.join("\n")}\n`, [
      { ...sym("Ledger", 1, 11, "export class Ledger"), kind: "class" },
      method("settle", 2, 4),
      method("archiveEntries", 5, 10),
    ]);
    const result = await call(searchTool, { query: "move the old entries to the archive" }, context);
    expect(result.mode).toBe("concept");
    expect(result.terms).toContain("the");
    expect(result.results[0]).toMatchObject({ path: "src/ledger.ts", within: { symbol: "Ledger.archiveEntries", kind: "method", startLine: 5, endLine: 10 } });
    expect(searchTool.render(searchTool.output.parse(result))).toContain("in Ledger.archiveEntries (method, 5-10)");
    expect((await call(searchTool, { query: "archiveEntries" }, context)).mode).toBe("identifier");
  });

  test("an embedder's ranking joins a concept query's and finds what no word of the query spells", async () => {
    const services = { ...createToolServices(), search: new SearchService({ embedder: new TrigramEmbedder() }) };
    const made = await makeContext([temp.dir], { services });
    made.config = { ...made.config, config: { ...made.config.config, index: { ...made.config.config.index, persist: false } } };
    const own = services.indexes.forContext(made, { cacheDir, watch: "off", extract: tableFacts, extractorVersion: "search-test" });
    try {
      await put("src/tokenizer.ts", "export class Tokenizer {\n  next() {\n    return this.source.shift();\n  }\n}\n", [
        { ...sym("Tokenizer", 1, 5, "export class Tokenizer"), kind: "class" },
      ]);
      await put("src/report.ts", "export function summary(rows: Row[]) {\n  return rows.length;\n}\n", [sym("summary", 1, 3, "export function summary(rows: Row[])")]);
      const result = await call(searchTool, { query: "tokenizing routines" }, made);
      expect(result).toMatchObject({ mode: "concept", embedder: "trigrams-test" });
      expect(result.results[0]).toMatchObject({ path: "src/tokenizer.ts", signals: ["embedding"] });
    } finally {
      own.close();
    }
  });
});

/**
 * A deterministic stand-in for a model: each identifier word's letter trigrams hashed into 64
 * dimensions, so "tokenizing" and "Tokenizer" embed alike though neither is a form of the other.
 */
class TrigramEmbedder implements Embedder {
  readonly id = "trigrams-test";
  readonly dimensions = 64;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      for (const word of (text.match(/[A-Za-z]+/g) ?? []).map((identifier) => identifier.toLowerCase())) {
        for (let at = 0; at + 3 <= word.length; at++) {
          let hash = 2166136261;
          for (const char of word.slice(at, at + 3)) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
          vector[(hash >>> 0) % this.dimensions]! += 1;
        }
      }
      return vector;
    });
  }
}

describe("find_related", () => {
  test("finds code sharing rare identifiers with a place", async () => {
    const common = "  const result = compute(input);\n  return result;\n";
    await put("src/queue.ts", `export function enqueue(jobQueue: JobQueue, job: Job) {\n  jobQueue.pending.push(job);\n  scheduleDrain(jobQueue);\n${common}}\n`, [
      sym("enqueue", 1, 6, "export function enqueue(jobQueue: JobQueue, job: Job)"),
    ]);
    await put("src/drain.ts", "export function scheduleDrain(jobQueue: JobQueue) {\n  setTimeout(() => jobQueue.pending.shift(), 0);\n}\n", [
      sym("scheduleDrain", 1, 3, "export function scheduleDrain(jobQueue: JobQueue)"),
    ]);
    for (let n = 0; n < 5; n++) {
      await put(`src/other${n}.ts`, `export function other${n}(input: number) {\n${common}}\n`, [sym(`other${n}`, 1, 4, `export function other${n}(input: number)`)]);
    }
    const result = await call(findRelatedTool, { path: "src/queue.ts", line: 3 }, context);
    expect(result.anchor).toEqual({ path: "src/queue.ts", startLine: 1, endLine: 6, symbol: "enqueue" });
    expect(result.results[0]).toMatchObject({ path: "src/drain.ts", symbol: "scheduleDrain" });
    expect(result.results[0].shared).toEqual(expect.arrayContaining(["jobqueue", "scheduledrain", "pending"]));
    expect(result.results.some((hit: { path: string; startLine: number }) => hit.path === "src/queue.ts" && hit.startLine === 1)).toBe(false);
    const text = findRelatedTool.render(findRelatedTool.output.parse(result));
    expect(text).toContain("related to src/queue.ts:1-6 enqueue");
    expect((await failure(call(findRelatedTool, { path: "src/queue.ts", line: 99 }, context))).code).toBe("invalid_range");
    expect((await failure(call(findRelatedTool, { path: "src/none.ts", line: 1 }, context))).code).toBe("file_not_found");
  });
});

describe("search with the real extractors", () => {
  test("finds a TypeScript method and a Python function by their words", async () => {
    const own = await makeTempDir();
    const made = await makeContext([own.dir]);
    made.config = { ...made.config, config: { ...made.config.config, index: { ...made.config.config.index, persist: false } } };
    const realIndex = made.services.indexes.forContext(made, { cacheDir, watch: "off" });
    try {
      await own.write(
        "src/cart.ts",
        "export class ShoppingCart {\n  /** Adds an item to the cart. */\n  addLineItem(sku: string, quantity: number) {\n    this.items.push({ sku, quantity });\n  }\n  private items: Array<{ sku: string; quantity: number }> = [];\n}\n",
      );
      await own.write("src/checkout.ts", "import { ShoppingCart } from \"./cart.js\";\nexport function checkout(cart: ShoppingCart) {\n  cart.addLineItem(\"fee\", 1);\n}\n");
      await own.write("tools/report.py", "def line_item_total(items):\n    return sum(item.quantity for item in items)\n");
      const result = await call(searchTool, { query: "add line item" }, made);
      // The class is one chunk; the result points at the method the query names.
      expect(result.results[0]).toMatchObject({ path: "src/cart.ts", startLine: 3, endLine: 5, symbol: "ShoppingCart.addLineItem", kind: "method" });
      expect(result.results[0].snippet.text).toContain("addLineItem(sku: string, quantity: number) {");
      expect(result.results[0].signals).toEqual(expect.arrayContaining(["name", "definition"]));
      const python = await call(searchTool, { query: "line item total", languages: ["python"] }, made);
      expect(python.results[0]).toMatchObject({ path: "tools/report.py", symbol: "line_item_total" });
    } finally {
      realIndex.close();
      await own.cleanup();
    }
  });
});
