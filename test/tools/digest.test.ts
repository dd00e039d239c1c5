import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { realpath } from "node:fs/promises";
import type { ToolContext } from "../../src/tools/contract.ts";
import { digestTool } from "../../src/tools/digest.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure } from "../support/context.ts";

let temp: TempDir;
let cache: TempDir;
let context: ToolContext;
let previousCacheDir: string | undefined;

const functions = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, index) => `export function ${prefix}${index}(value: string): string {\n  return value;\n}\n`).join("");

beforeAll(async () => {
  temp = await makeTempDir("ast-mcp-digest-");
  cache = await makeTempDir("ast-mcp-digest-cache-");
  previousCacheDir = process.env.AST_MCP_CACHE_DIR;
  process.env.AST_MCP_CACHE_DIR = cache.dir;
  // An npm package laid out like effect's: a folder per subpath holding one package.json, a re-export barrel.
  for (const name of ["Array", "Brand", "Cause", "Chunk"]) await temp.write(`lib/${name}/package.json`, `{ "main": "../dist/${name}.js" }\n`);
  await temp.write("lib/Data/index.ts", "export * from \"../src/core/data.js\";\n");
  await temp.write("lib/src/core/data.ts", `export class Data {\n  get(): number {\n    return 1;\n  }\n}\n${functions("data", 3)}`);
  await temp.write("lib/src/core/effect.ts", functions("effect", 4));
  await temp.write("lib/src/small/one.ts", "export const one = 1;\n");
  // Test data sorting first by name and holding the most declarations, as Go's misc/cgo/test does.
  await temp.write("lib/aaa/cgo/test/cases.go", `package test\n\n${Array.from({ length: 20 }, (_, index) => `func Case${index}() {}\n`).join("")}`);
  // A Go method declared apart from its type.
  await temp.write("lib/src/store/store.go", "package store\n\ntype Store struct{}\n");
  await temp.write("lib/src/store/more.go", "package store\n\nfunc (s *Store) Len() int { return 0 }\n");
  for (let index = 0; index < 30; index++) await temp.write(`wide/big/file${String(index).padStart(2, "0")}.ts`, functions(`big${index}_`, 5));
  await temp.write("wide/small/one.ts", "export const one = 1;\n");
  await temp.write(
    "names/many.ts",
    `${functions("n", 40)}export function over(a: string): string;\nexport function over(a: number): number;\nexport function over(a: unknown): unknown {\n  return a;\n}\n`,
  );
  for (let index = 0; index < 24; index++) await temp.write(`many/d${String(index).padStart(2, "0")}/file.ts`, functions(`f${index}_`, 5));
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  context.services.indexes.closeAll();
  if (previousCacheDir === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCacheDir;
  await temp.cleanup();
  await cache.cleanup();
});

describe("digest of a root", () => {
  test("the first page starts with the top-level folders: file counts, languages and main declarations", async () => {
    const result = await runTool(digestTool, { paths: ["lib"] }, context);
    expect(result.base).toBe("lib");
    expect(result.folders).toEqual([
      { path: "lib/src", files: 5, languages: { typescript: 3, go: 2 }, declarations: 11, main: ["Data", "data0", "data1", "data2"] },
      { path: "lib/aaa", files: 1, languages: { go: 1 }, declarations: 20, main: ["Case0", "Case1", "Case10", "Case11"] },
    ]);
    const text = digestTool.render(result);
    expect(text).toContain("Folders under lib/:\n  src/ 5 files (typescript 3, go 2) · 11 declarations: Data, data0, data1, data2\n  aaa/ 1 file (go 1)");
    expect(result.complete).toBe(true);
  });

  test("folders whose files declare nothing (a package.json, a re-export barrel) are collapsed into one line, not listed", async () => {
    const result = await runTool(digestTool, { paths: ["lib"] }, context);
    expect(result.stubFolders).toEqual(["lib/Array", "lib/Brand", "lib/Cause", "lib/Chunk", "lib/Data"]);
    expect(result.stubFolderCount).toBe(5);
    expect(result.directories.map((directory: { path: string }) => directory.path)).not.toContain("lib/Array");
    expect(digestTool.render(result)).toContain(
      "5 stub folders without declarations (package.json, re-exports or data only), left out: lib/Array/, lib/Brand/, lib/Cause/, lib/Chunk/, lib/Data/",
    );
  });

  test("folders come most declarations first with test data last, not in path order, and the answer says so", async () => {
    const result = await runTool(digestTool, { paths: ["lib"] }, context);
    expect(result.directories.map((directory: { path: string }) => directory.path)).toEqual(["lib/src/core", "lib/src/store", "lib/src/small", "lib/aaa/cgo/test"]);
    expect(result.order).toContain("most public declarations first, test folders and test data last");
    expect(digestTool.render(result)).toContain(`Listed by ${result.order}:`);
  });

  test("a Go method declared in another file than its type is listed with its type's name", async () => {
    const result = await runTool(digestTool, { paths: ["lib/src/store"] }, context);
    const text = digestTool.render(result);
    expect(text).toContain("more.go: fn Store.Len");
    expect(text).toContain("store.go: struct Store");
  });
});

describe("digest within its budget", () => {
  test("a file's line names its first 24 functions and counts the rest; overloads are one name", async () => {
    const result = await runTool(digestTool, { paths: ["names"] }, context);
    expect(result.directories[0].files[0].functions).toHaveLength(41);
    expect(result.directories[0].files[0].functions.filter((name: string) => name === "over")).toEqual(["over"]);
    expect(digestTool.render(result)).toContain("  many.ts: fn n0, n1, n2, n3, n4, n5, n6, n7, n8, n9, n10, n11, n12, n13, n14, n15, n16, n17, n18, n19, n20, n21, n22, n23, +17");
    expect(digestTool.render(result)).not.toContain("n24");
  });

  test("a folder that does not fit is shortened to one line with its main declarations, and the listing goes on", async () => {
    const result = await runTool(digestTool, { paths: ["wide"], maxTokens: 400 }, context);
    expect(result.directories.map((directory: { path: string; shortened: boolean }) => [directory.path, directory.shortened])).toEqual([
      ["wide/big", true],
      ["wide/small", false],
    ]);
    expect(result.directories[0]).toMatchObject({ files: [], fileCount: 30, declarations: 150, main: ["big0_0", "big0_1", "big0_2", "big0_3"] });
    expect(result.nextCursor).toBeNull();
    const text = digestTool.render(result);
    expect(text).toContain("wide/big/ (30 files: typescript 30) · 150 declarations: big0_0, big0_1, big0_2, big0_3, +146 [shortened]");
    expect(text).toContain("wide/small/ (1 file: typescript 1)\n  one.ts: one");
    expect(result.complete).toBe(false);
    expect(result.omittedCount).toBe(30);
    expect(result.limits).toEqual([`maxTokens = 400: digest a shortened folder alone to see its files (paths ["wide/big"]); or raise maxTokens`]);
  });

  test("nextCursor pages through every folder exactly once, and the hint names the cursor and the next folders", async () => {
    const seen: string[] = [];
    let result = await runTool(digestTool, { paths: ["many"], maxTokens: 300 }, context);
    expect(result.nextCursor).not.toBeNull();
    const first = result.directories.length;
    expect(first).toBeLessThan(24);
    expect(result.cut.next).toContain(`cursor ${JSON.stringify(result.nextCursor)}`);
    expect(result.cut.next).toContain(`next: "many/d${String(first).padStart(2, "0")}"`);
    expect(digestTool.render(result)).toContain(`incomplete: maxTokens = 300: call digest with cursor "${result.nextCursor}"`);
    let pages = 1;
    for (;;) {
      seen.push(...result.directories.map((directory: { path: string }) => directory.path));
      if (result.nextCursor === null) break;
      result = await runTool(digestTool, { paths: ["many"], maxTokens: 300, cursor: result.nextCursor }, context);
      expect(result.folders).toEqual([]);
      pages += 1;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(Array.from({ length: 24 }, (_, index) => `many/d${String(23 - index).padStart(2, "0")}`).sort((a, b) => (a < b ? -1 : 1)));
    expect(result.complete).toBe(true);
  });

  test("a cursor for other paths, or one issued before the folders it pages changed, is refused with the call to make; a change elsewhere leaves it valid", async () => {
    const page = await runTool(digestTool, { paths: ["many"], maxTokens: 300 }, context);
    const other = await toolFailure(runTool(digestTool, { paths: ["lib"], cursor: page.nextCursor }, context));
    expect(other.code).toBe("invalid_input");
    expect(other.message).toContain("other paths");
    const garbage = await toolFailure(runTool(digestTool, { paths: ["many"], cursor: "not-a-cursor" }, context));
    expect(garbage.code).toBe("invalid_input");
    // Written as a write tool would, which tells the index (an outside write waits for a watch event).
    // A file outside the paths paged: the index changed, the listing did not, so the cursor pages on.
    context.services.indexes.noteCommitted([await realpath(await temp.write("lib/src/small/two.ts", functions("two", 1)))]);
    const after = await runTool(digestTool, { paths: ["many"], maxTokens: 300, cursor: page.nextCursor }, context);
    expect(after.directories[0].path).toBe(page.cut.next.match(/next: "([^"]+)"/)![1]);
    // A folder added among them: the order it paged is gone.
    context.services.indexes.noteCommitted([await realpath(await temp.write("many/d24/file.ts", functions("extra", 1)))]);
    const stale = await toolFailure(runTool(digestTool, { paths: ["many"], maxTokens: 300, cursor: page.nextCursor }, context));
    expect(stale.code).toBe("invalid_input");
    expect(stale.message).toContain("stale");
    expect(stale.suggestedNextCall).toEqual({ tool: "digest", arguments: { paths: ["many"] } });
  });
});
