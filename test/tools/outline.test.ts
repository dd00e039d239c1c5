import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { estimateTokens } from "../../src/helpers/tokens.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { fileCapabilitiesTool, fileReadTool } from "../../src/tools/files.ts";
import { digestTool } from "../../src/tools/digest.ts";
import { indexTool } from "../../src/tools/index-tool.ts";
import { mapTool } from "../../src/tools/map.ts";
import { showTool } from "../../src/tools/show.ts";
import { surfaceTool } from "../../src/tools/surface.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure } from "../support/context.ts";

let temp: TempDir;
let cache: TempDir;
let context: ToolContext;
let previousCacheDir: string | undefined;

const SERVICE = `/** Users and their accounts. */
export interface User {
  id: string;
  name: string;
}

/** Stores users. Second sentence is not shown. */
export class UserService {
  private cache = new Map<string, User>();

  /** Creates a user. */
  async create(name: string): Promise<User> {
    const user = { id: String(this.cache.size), name };
    this.cache.set(user.id, user);
    return user;
  }

  save(user: User): void {
    this.cache.set(user.id, user);
  }

  private forget(id: string): void {
    this.cache.delete(id);
  }
}

function helper(value: number): number {
  return value * 2;
}

export const answer = helper(21);
`;

const ORDERS = `export class OrderService {
  save(order: { id: string }): void {
    console.log(order.id);
  }
}

export class Repo {
  save(): void {}
}
`;

beforeAll(async () => {
  temp = await makeTempDir("ast-mcp-outline-");
  cache = await makeTempDir("ast-mcp-outline-cache-");
  previousCacheDir = process.env.AST_MCP_CACHE_DIR;
  process.env.AST_MCP_CACHE_DIR = cache.dir;
  await temp.write("src/users/service.ts", SERVICE);
  await temp.write("src/orders/service.ts", ORDERS);
  await temp.write("src/broken.ts", "export function ok() {}\nexport function broken( {\n");
  // A package entry that re-exports through two levels, renames, and a namespace.
  await temp.write(
    "pkg/index.ts",
    "export * from \"./a.js\";\nexport { inner as renamed } from \"./b\";\nexport * as helpers from \"./b\";\nexport type { Shape } from \"./types\";\nexport const own = 1;\n",
  );
  await temp.write("pkg/a.ts", "export function fromA(): number { return 1; }\nexport { deep } from \"./deep/index\";\nfunction hiddenA() {}\n");
  await temp.write("pkg/deep/index.ts", "/** Deep down. */\nexport function deep(): string { return \"deep\"; }\n");
  await temp.write("pkg/b.ts", "export function inner(): void {}\nexport function other(): void {}\n");
  await temp.write("pkg/types.ts", "export interface Shape { kind: string }\n");
  await temp.write("pkg/cycle.ts", "export * from \"./cycle2\";\nexport function c1() {}\n");
  await temp.write("pkg/cycle2.ts", "export * from \"./cycle\";\nexport function c2() {}\n");
  await temp.write("py/pkg/__init__.py", "from .models import User\nfrom .util import helper as assist\n\n__all__ = [\"User\", \"assist\", \"VERSION\"]\n\nVERSION = \"1\"\n");
  await temp.write("py/pkg/models.py", "class User:\n    \"\"\"A user.\"\"\"\n\n    def save(self):\n        pass\n\n    def _private(self):\n        pass\n");
  await temp.write("py/pkg/util.py", "def helper():\n    return 1\n");
  await temp.write(
    "go/shapes/shapes.go",
    "package shapes\n\n// Area of a circle.\nfunc Area(r float64) float64 { return 3.14 * r * r }\n\nfunc internal() {}\n\ntype Circle struct {\n\tRadius float64\n\tname   string\n}\n",
  );
  // A Go package whose methods sit apart from their type, one of them in another file, with a test file.
  await temp.write(
    "go/store/store.go",
    "package store\n\n// Store keeps things.\ntype Store struct {\n\tItems []string\n}\n\n// New makes a store.\nfunc New() *Store { return &Store{} }\n\nfunc helper() {}\n\n// Add adds one.\nfunc (s *Store) Add(item string) { s.Items = append(s.Items, item) }\n",
  );
  await temp.write("go/store/more.go", "package store\n\n// Len counts.\nfunc (s *Store) Len() int { return len(s.Items) }\n\nfunc (s *Store) reset() {}\n");
  await temp.write("go/store/store_test.go", "package store\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) { New().Add(\"x\") }\n");
  await temp.write("docs/README.md", "# Many\n");
  for (let i = 0; i < 40; i++) {
    await temp.write(
      `many/file${String(i).padStart(2, "0")}.ts`,
      Array.from({ length: 8 }, (_, j) => `/** Doc for function number ${j}. */\nexport function f${i}_${j}(alpha: string, beta: number): string { return alpha + beta; }\n`).join(
        "",
      ),
    );
  }
  await temp.write("big/large.ts", Array.from({ length: 600 }, (_, i) => `export function generated${i}(input: number): number {\n  return input + ${i};\n}\n`).join(""));
  await temp.write("node_modules/dep/index.ts", "export function dependency(): void {}\n");
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  context.services.indexes.closeAll();
  if (previousCacheDir === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCacheDir;
  await temp.cleanup();
  await cache.cleanup();
});

describe("map", () => {
  test("signatures with 1-based line ranges, first doc sentence, no bodies, private members hidden", async () => {
    const result = await runTool(mapTool, { paths: ["src/users/service.ts"] }, context);
    const file = result.files[0];
    expect(file).toMatchObject({ path: "src/users/service.ts", language: "typescript", parseErrors: 0 });
    const byName = Object.fromEntries(file.symbols.map((symbol: { qualifiedName: string }) => [symbol.qualifiedName, symbol]));
    expect(byName.UserService).toMatchObject({ kind: "class", startLine: 8, endLine: 25, depth: 0, doc: "Stores users." });
    expect(byName["UserService.create"]).toMatchObject({ kind: "method", startLine: 12, endLine: 16, depth: 1, doc: "Creates a user." });
    expect(byName["UserService.create"].signature).toContain("create(name: string): Promise<User>");
    expect(byName["UserService.create"].signature).not.toContain("this.cache");
    expect(byName["UserService.forget"]).toBeUndefined();
    expect(byName.helper).toMatchObject({ kind: "function", startLine: 27, endLine: 29 });
    const text = mapTool.render(result);
    expect(text).toContain("src/users/service.ts · typescript · 31 lines");
    expect(text).toContain("L12-16 ");
    expect(text).not.toContain("this.cache.set");

    const all = await runTool(mapTool, { paths: ["src/users/service.ts"], private: true, detail: "full" }, context);
    const forget = all.files[0].symbols.find((symbol: { name: string }) => symbol.name === "forget");
    expect(forget).toMatchObject({ visibility: "private", exported: false });
  });

  test("names detail is shorter, and parse errors are counted per file", async () => {
    const names = await runTool(mapTool, { paths: ["src/users/service.ts"], detail: "names" }, context);
    const signatures = await runTool(mapTool, { paths: ["src/users/service.ts"] }, context);
    expect(names.files[0].symbols[0].signature).toBeUndefined();
    expect(names.cut.tokens).toBeLessThan(signatures.cut.tokens);
    const broken = await runTool(mapTool, { paths: ["src/broken.ts"] }, context);
    expect(broken.files[0].parseErrors).toBeGreaterThan(0);
    expect(mapTool.render(broken)).toMatch(/parse error/);
  });

  test("a directory with a glob covers the indexed files below it; failed paths are reported per path", async () => {
    const result = await runTool(mapTool, { paths: ["src", "../outside.ts"], glob: "**/service.ts" }, context);
    expect(result.files.map((file: { path: string }) => file.path)).toEqual(["src/orders/service.ts", "src/users/service.ts"]);
    expect(result.failed).toEqual([{ path: "../outside.ts", error: expect.objectContaining({ code: "path_outside_roots" }) }]);
    expect(result).toMatchObject({ complete: true, limits: [] });
  });

  test("a folder the walk skips can still be mapped by name", async () => {
    const result = await runTool(mapTool, { paths: ["node_modules/dep"] }, context);
    expect(result.files.map((file: { path: string }) => file.path)).toEqual(["node_modules/dep/index.ts"]);
  });

  test("the output fits maxTokens and says what was cut and how to get the rest", async () => {
    const full = await runTool(mapTool, { paths: ["many"], maxTokens: 100_000 }, context);
    expect(full.files).toHaveLength(40);
    expect(full).toMatchObject({ complete: true, limits: [], cut: { next: null } });

    const result = await runTool(mapTool, { paths: ["many"], maxTokens: 1500 }, context);
    const text = mapTool.render(result);
    expect(estimateTokens(text)).toBeLessThanOrEqual(1500 + 150);
    expect(result.files.length).toBeGreaterThan(0);
    expect(result.files.length + result.omittedCount).toBe(40);
    expect(result.omittedFiles[0]).toBe(`many/file${String(result.files.length).padStart(2, "0")}.ts`);
    expect(result.cut.next).toContain(result.omittedFiles[0]);
    expect(result.cut.next).toContain("maxTokens");
    expect(result.complete).toBe(false);
    expect(result.limits).toEqual([`maxTokens = 1500: ${result.cut.next}`]);
    expect(text).toContain(`${result.omittedCount} more files not shown`);
    expect(text).toContain(`incomplete: maxTokens = 1500: ${result.cut.next}`);
  });

  test("a single file larger than the budget shows the symbols that fit", async () => {
    const result = await runTool(mapTool, { paths: ["big/large.ts"], maxTokens: 400 }, context);
    const file = result.files[0];
    expect(file.symbols.length).toBeGreaterThan(0);
    expect(file.symbols.length).toBeLessThan(file.symbolsTotal);
    expect(file.symbolsTotal).toBe(600);
    expect(mapTool.render(result)).toContain(`${600 - file.symbols.length} more symbols not shown`);
  });
});

describe("map of Go", () => {
  test("methods are listed under their receiver type, not under the function declared before them", async () => {
    const result = await runTool(mapTool, { paths: ["go/store/store.go"] }, context);
    expect(result.files[0].symbols.map((symbol: { qualifiedName: string; depth: number }) => [symbol.qualifiedName, symbol.depth])).toEqual([
      ["Store", 0],
      ["Store.Items", 1],
      ["Store.Add", 1],
      ["New", 0],
      ["helper", 0],
    ]);
    const text = mapTool.render(result);
    expect(text.indexOf("func (s *Store) Add")).toBeLessThan(text.indexOf("func New()"));
  });

  test("a method whose receiver type is declared in another file of the package is still listed", async () => {
    const result = await runTool(mapTool, { paths: ["go/store/more.go"] }, context);
    expect(result.files[0].symbols.map((symbol: { qualifiedName: string; depth: number }) => [symbol.qualifiedName, symbol.depth])).toEqual([
      ["Store.Len", 0],
      ["Store.reset", 0],
    ]);
    expect(mapTool.render(result)).toContain("  L4 func (s *Store) Len() int  — Len counts.");
  });
});

describe("digest", () => {
  test("files grouped by folder with public types, their public members and functions", async () => {
    const result = await runTool(digestTool, { paths: ["src"] }, context);
    const text = digestTool.render(result);
    expect(text).toContain("src/users/ (1 file: typescript 1)");
    expect(text).toMatch(/service\.ts: interface User \{ id, name \} · class UserService \{ create, save \} · answer/);
    expect(text).not.toContain("forget");
    expect(text).not.toContain("helper");
    expect(result.summary.files).toBe(3);
  });

  test("fits its one-page budget and says what was left out", async () => {
    const result = await runTool(digestTool, { paths: ["many"], maxTokens: 300 }, context);
    expect(result.limits).toEqual([`maxTokens = 300: ${result.cut.next}`]);
    expect(result.omittedCount).toBeGreaterThan(0);
    expect(result.summary.files).toBe(40);
    expect(digestTool.render(result)).toContain("more files not shown");
  });
});

describe("show", () => {
  test("the source of a symbol by qualified suffix, with 1-based lines", async () => {
    const result = await runTool(showTool, { path: "src/users/service.ts", symbols: ["UserService.create", "helper"] }, context);
    expect(result.results[0]).toMatchObject({ query: "UserService.create", status: "found" });
    expect(result.results[0].symbols[0]).toMatchObject({ qualifiedName: "UserService.create", startLine: 12, endLine: 16 });
    expect(result.results[0].symbols[0].source).toContain("this.cache.set(user.id, user);");
    expect(result.results[0].symbols[0].source.split("\n")).toHaveLength(5);
    expect(result.results[1].symbols[0].source).toBe("function helper(value: number): number {\n  return value * 2;\n}");
    const text = showTool.render(result);
    expect(text).toContain("27| function helper(value: number): number {");
  });

  test("an ambiguous name lists every candidate with its lines; a missing one gets suggestions", async () => {
    const result = await runTool(showTool, { path: "src/orders/service.ts", symbols: ["save", "OrderService.save", "sav"] }, context);
    expect(result.results[0].status).toBe("ambiguous");
    expect(result.results[0].candidates).toEqual([
      { qualifiedName: "OrderService.save", kind: "method", startLine: 2, endLine: 4 },
      { qualifiedName: "Repo.save", kind: "method", startLine: 8, endLine: 8 },
    ]);
    expect(result.results[1].status).toBe("found");
    expect(result.results[2]).toMatchObject({ status: "not_found" });
    expect(result.results[2].suggestions).toContain("OrderService.save");
    const text = showTool.render(result);
    expect(text).toContain("save: ambiguous, 2 candidates");
    expect(text).toContain("Repo.save (method) L8");
  });

  test("a body longer than the budget is cut with the lines still to read", async () => {
    await temp.write("src/long.ts", `export function long() {\n${Array.from({ length: 400 }, (_, i) => `  const value${i} = ${i} * ${i};`).join("\n")}\n}\n`);
    const result = await runTool(showTool, { path: "src/long.ts", symbols: ["long"], maxTokens: 200 }, context);
    const shown = result.results[0].symbols[0];
    expect(shown.shownEndLine).toBeLessThan(shown.endLine);
    expect(result.complete).toBe(false);
    expect(result.limits).toEqual([`maxTokens = 200: ${result.cut.next}`]);
    expect(showTool.render(result)).toContain(`file_read with startLine ${shown.shownEndLine + 1}`);
  });
});

describe("surface", () => {
  test("TS/JS re-exports are followed through relative modules, renames and namespaces", async () => {
    const result = await runTool(surfaceTool, { path: "pkg" }, context);
    expect(result.files).toEqual(["pkg/index.ts"]);
    const byName = Object.fromEntries(result.entries.map((entry: { name: string }) => [entry.name, entry]));
    expect(Object.keys(byName).sort()).toEqual(["Shape", "deep", "fromA", "helpers", "own", "renamed"]);
    expect(byName.deep).toMatchObject({ path: "pkg/deep/index.ts", startLine: 2, via: ["pkg/a.ts", "pkg/deep/index.ts"], doc: "Deep down." });
    expect(byName.renamed).toMatchObject({ path: "pkg/b.ts", qualifiedName: "inner" });
    expect(byName.helpers.members.map((member: { name: string }) => member.name)).toEqual(["inner", "other"]);
    expect(byName.Shape).toMatchObject({ kind: "interface", path: "pkg/types.ts" });
    expect(byName.fromA.path).toBe("pkg/a.ts");
    expect(result.problems).toEqual([]);
    const text = surfaceTool.render(result);
    expect(text).toContain("(as renamed) ← pkg/b.ts");
  });

  test("a re-export cycle stops with a problem instead of looping", async () => {
    const result = await runTool(surfaceTool, { path: "pkg/cycle.ts" }, context);
    expect(result.entries.map((entry: { name: string }) => entry.name).sort()).toEqual(["c1", "c2"]);
    expect(result.problems[0].reason).toContain("cycle");
  });

  test("Python __all__ through package imports, and Go capitalisation", async () => {
    const python = await runTool(surfaceTool, { path: "py/pkg" }, context);
    const names = Object.fromEntries(python.entries.map((entry: { name: string }) => [entry.name, entry]));
    expect(Object.keys(names).sort()).toEqual(["User", "VERSION", "assist"]);
    expect(names.User).toMatchObject({ path: "py/pkg/models.py", kind: "class" });
    expect(names.User.members.map((member: { name: string }) => member.name)).toEqual(["save"]);
    expect(names.assist).toMatchObject({ path: "py/pkg/util.py", qualifiedName: "helper" });

    const go = await runTool(surfaceTool, { path: "go/shapes" }, context);
    expect(go.entries.map((entry: { name: string }) => entry.name).sort()).toEqual(["Area", "Circle"]);
    const circle = go.entries.find((entry: { name: string }) => entry.name === "Circle");
    expect(circle.members.map((member: { name: string }) => member.name)).toEqual(["Radius"]);
  });
});

describe("surface of a Go package", () => {
  test("entries are grouped under the file that declares them, and test files are left out", async () => {
    const result = await runTool(surfaceTool, { path: "go/store" }, context);
    expect(result.files).toEqual(["go/store/more.go", "go/store/store.go"]);
    expect(result.testFiles).toEqual(["go/store/store_test.go"]);
    expect(result.entries.map((entry: { name: string; file: string }) => [entry.file, entry.name])).toEqual([
      ["go/store/store.go", "Store"],
      ["go/store/store.go", "New"],
    ]);
    const text = surfaceTool.render(result);
    expect(text).toContain("go/store: 2 public names across 2 files (1 test file left out)\n  go/store/store.go\n    L4-6 type Store struct");
    expect(text).not.toContain("TestAdd");
  });

  test("a method declared in another file of the package is a member of its receiver type, with its file", async () => {
    const result = await runTool(surfaceTool, { path: "go/store" }, context);
    const store = result.entries.find((entry: { name: string }) => entry.name === "Store");
    expect(store.members).toEqual([
      { name: "Items", kind: "field", signature: "Items []string", startLine: 5, endLine: 5 },
      expect.objectContaining({ name: "Add", kind: "method", startLine: 14 }),
      expect.objectContaining({ name: "Len", kind: "method", startLine: 4, path: "go/store/more.go" }),
    ]);
    expect(surfaceTool.render(result)).toContain("      go/store/more.go L4 func (s *Store) Len() int");
  });

  test("a folder of test files only says so and how to list one", async () => {
    await temp.write("go/onlytests/a_test.go", "package onlytests\n\nfunc TestA() {}\n");
    const error = await toolFailure(runTool(surfaceTool, { path: "go/onlytests" }, context));
    expect(error.code).toBe("file_not_found");
    expect(error.message).toContain("but 1 test file");
    expect(error.hint).toContain("go/onlytests/a_test.go");
  });
});

describe("index", () => {
  test("reports files, skips and stats; rebuild parses everything again", async () => {
    const result = await runTool(indexTool, { stats: true }, context);
    expect(result.files).toBeGreaterThan(40);
    expect(result.complete).toBe(true);
    expect(result.skipped.ignored).toBeGreaterThanOrEqual(1);
    expect(result.languages.typescript).toBeGreaterThan(40);
    expect(result.filesWithParseErrors.map((file: { path: string }) => file.path)).toContain("src/broken.ts");
    expect(result.snapshot.enabled).toBe(true);
    const scoped = await runTool(indexTool, { path: "pkg" }, context);
    expect(scoped.files).toBe(7);
    const rebuilt = await runTool(indexTool, { rebuild: true, stats: true }, context);
    expect(rebuilt.files).toBe(result.files);
    expect(rebuilt.lastBuild.parsed).toBe(result.files);
    expect(rebuilt.generation).toBeGreaterThan(result.generation);
    expect(indexTool.render(rebuilt)).toContain("cold build:");
  });

  test("a file changed on disk is reflected in the next answer", async () => {
    await runTool(mapTool, { paths: ["src"] }, context);
    await writeFile(path.join(temp.dir, "src/orders/service.ts"), "export function replaced() {}\n");
    const result = await runTool(mapTool, { paths: ["src"], glob: "orders/*" }, context);
    expect(result.files[0].symbols.map((symbol: { name: string }) => symbol.name)).toEqual(["replaced"]);
    await writeFile(path.join(temp.dir, "src/orders/service.ts"), ORDERS);
  });
});

describe("file_read modes and file_capabilities parse health", () => {
  test("mode ast returns the outline; with symbols their source", async () => {
    const result = await runTool(
      fileReadTool,
      { files: [{ filePath: "src/users/service.ts", mode: "ast" }, { filePath: "src/users/service.ts", mode: "ast", symbols: ["save"] }] },
      context,
    );
    expect(result.files[0]).toMatchObject({ mode: "ast", language: "typescript", totalLines: 31, parseErrors: 0 });
    expect(result.files[0].outline.map((symbol: { qualifiedName: string }) => symbol.qualifiedName)).toContain("UserService.create");
    expect(result.files[1].symbols[0].symbols[0]).toMatchObject({ qualifiedName: "UserService.save", startLine: 18, endLine: 20 });
    const text = fileReadTool.render(result);
    expect(text).toContain("src/users/service.ts · ast · typescript");
    expect(text).toContain("outline only");
  });

  test("mode auto: the outline for a large source file, text for a small one or a range", async () => {
    const result = await runTool(
      fileReadTool,
      {
        files: [
          { filePath: "big/large.ts", mode: "auto" },
          { filePath: "src/users/service.ts", mode: "auto" },
          { filePath: "big/large.ts", mode: "auto", startLine: 1, endLine: 3 },
        ],
      },
      context,
    );
    expect(result.files[0].mode).toBe("ast");
    expect(result.files[1].mode).toBeUndefined();
    expect(result.files[1].content).toContain("export class UserService");
    expect(result.files[2].content).toBe("export function generated0(input: number): number {\n  return input + 0;\n}");
  });

  test("bad combinations are per-file errors", async () => {
    const result = await runTool(fileReadTool, {
      files: [{ filePath: "src/users/service.ts", symbols: ["save"] }, { filePath: "src/users/service.ts", mode: "ast", startLine: 2 }, {
        filePath: "docs/README.md",
        mode: "ast",
      }],
    }, context);
    expect(result.files.map((item: { error?: { code: string } }) => item.error?.code)).toEqual(["invalid_input", "invalid_input", undefined]);
    expect(result.files[2].outline[0]).toMatchObject({ kind: "heading", name: "Many" });
  });

  test("file_capabilities reports parse health for parseable files", async () => {
    const result = await runTool(fileCapabilitiesTool, { filePaths: ["src/broken.ts", "src/users/service.ts", "docs/README.md"] }, context);
    expect(result.files[0].parseHealth.parseErrors).toBeGreaterThan(0);
    expect(result.files[1].parseHealth).toMatchObject({ language: "typescript", parseErrors: 0 });
    expect(result.files[1].parseHealth.symbols).toBeGreaterThan(5);
    expect(fileCapabilitiesTool.render(result)).toContain("parse clean");
  });
});
