/** deps, reverse_deps, graph and cycles through their handlers, over a real temp repository and the real index. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ToolContext } from "../../src/tools/contract.ts";
import { cyclesTool } from "../../src/tools/cycles.ts";
import { depsTool } from "../../src/tools/deps.ts";
import { graphTool } from "../../src/tools/graph.ts";
import { reverseDepsTool } from "../../src/tools/reverse-deps.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;
let cacheDir: string;
const previousCacheDir = process.env.AST_MCP_CACHE_DIR;

const REPO: Record<string, string> = {
  "tsconfig.json": "{\n  // paths steer @lib imports\n  \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@lib/*\": [\"lib/*\"] } },\n}\n",
  "src/a.ts": "import { b } from \"./b.js\";\nimport { c } from \"@lib/c\";\nimport React from \"react\";\nimport { readFile } from \"node:fs\";\nexport const a = () => b + c;\n",
  "src/b.ts": "import type { Thing } from \"./types\";\nimport { a } from \"./a\";\nexport const b = 1;\n",
  "src/types.ts": "import type { b } from \"./b\";\nexport interface Thing { x: number }\n",
  "lib/c.ts": "export const c = 2;\n",
  "src/bad.ts": "import \"./missing\";\nimport \"../../../../etc/passwd\";\nexport {};\n",
  "app/main.ts": "import { a } from \"../src/a\";\nconsole.log(a());\n",
};

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  process.env.AST_MCP_CACHE_DIR = cacheDir;
  temp = await makeTempDir("ast-mcp-graph-tools-");
  for (const [relative, content] of Object.entries(REPO)) await temp.write(relative, content);
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  context.services.indexes.closeAll();
  await temp.cleanup();
  await rm(cacheDir, { recursive: true, force: true });
  if (previousCacheDir === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCacheDir;
});

describe("deps", () => {
  test("direct imports with their statements, tsconfig paths, externals counted per package", async () => {
    const result = await runTool(depsTool, { path: "src/a.ts" }, context);
    expect(result.files.map((file: { path: string }) => file.path)).toEqual(["lib/c.ts", "src/b.ts"]);
    expect(result.files[0].imports).toEqual([{ from: "src/a.ts", specifier: "@lib/c", line: 2, kind: "import", via: "tsconfig_paths" }]);
    expect(result.external).toEqual([
      { package: "node:fs", builtin: true, files: 1, imports: 1 },
      { package: "react", builtin: false, files: 1, imports: 1 },
    ]);
    expect(result.complete).toBe(true);
    const text = depsTool.render(result);
    expect(text).toContain("src/a.ts imports 2 files");
    expect(text).toContain("src/b.ts  ← \"./b.js\" L1");
    expect(text).toContain("external (2): node:fs [builtin], react");
  });

  test("depth follows imports further; unresolved specifiers carry their reason", async () => {
    const deep = await runTool(depsTool, { path: "app/main.ts", depth: 3 }, context);
    expect(deep.files.map((file: { path: string; depth: number }) => `${file.depth} ${file.path}`)).toEqual(["1 src/a.ts", "2 lib/c.ts", "2 src/b.ts", "3 src/types.ts"]);
    const bad = await runTool(depsTool, { path: "src/bad.ts" }, context);
    expect(bad.unresolved.map((entry: { specifier: string; reason: string }) => `${entry.specifier} ${entry.reason}`)).toEqual([
      "./missing not_found",
      "../../../../etc/passwd outside_roots",
    ]);
    expect(depsTool.render(bad)).toContain("unresolved (2):");
  });

  test("a folder's dependencies are what its files import from outside it", async () => {
    const result = await runTool(depsTool, { path: "src" }, context);
    expect(result.directory).toBe(true);
    expect(result.files.map((file: { path: string }) => file.path)).toEqual(["lib/c.ts"]);
  });

  test("paths go through the policy", async () => {
    expect((await failure(runTool(depsTool, { path: "/etc/passwd" }, context))).code).toBe("path_outside_roots");
    expect((await failure(runTool(depsTool, { path: "src/nope.ts" }, context))).code).toBe("file_not_found");
  });
});

describe("reverse_deps", () => {
  test("importers, direct with their statements, then transitively", async () => {
    const direct = await runTool(reverseDepsTool, { path: "src/b.ts" }, context);
    expect(direct.files.map((file: { path: string }) => file.path)).toEqual(["src/a.ts", "src/types.ts"]);
    expect(direct.files[0].imports[0]).toMatchObject({ from: "src/a.ts", specifier: "./b.js", line: 1 });
    const deep = await runTool(reverseDepsTool, { path: "lib/c.ts", depth: 5 }, context);
    expect(deep.files.map((file: { path: string; depth: number }) => `${file.depth} ${file.path}`)).toEqual(["1 src/a.ts", "2 app/main.ts", "2 src/b.ts", "3 src/types.ts"]);
    expect(reverseDepsTool.render(deep)).toContain("lib/c.ts imported by 4 files (depth 5)");
  });
});

describe("graph", () => {
  test("adjacency with counts, or a bounded edge list that says it was cut", async () => {
    const adjacency = await runTool(graphTool, { paths: ["src"] }, context);
    expect(adjacency.files).toBe(4);
    expect(adjacency.adjacency.find((row: { path: string }) => row.path === "src/a.ts")).toEqual({ path: "src/a.ts", imports: ["lib/c.ts", "src/b.ts"], importedBy: 2 });
    expect(adjacency.unresolvedByReason).toEqual({ not_found: 1, outside_roots: 1 });
    expect(adjacency.complete).toBe(true);
    const edges = await runTool(graphTool, { format: "edges", maxEdges: 2 }, context);
    expect(edges.edgeList).toHaveLength(2);
    expect(edges.complete).toBe(false);
    expect(edges.limits).toEqual(["maxEdges = 2: raise maxEdges or narrow paths"]);
    expect(graphTool.render(edges)).toContain("incomplete: maxEdges = 2");
  });
});

describe("cycles", () => {
  test("strongly connected components with a concrete path; runtimeOnly drops type-only edges", async () => {
    const all = await runTool(cyclesTool, {}, context);
    expect(all.cycles).toEqual([{ size: 3, files: ["src/a.ts", "src/b.ts", "src/types.ts"], path: ["src/a.ts", "src/b.ts"] }]);
    expect(cyclesTool.render(all)).toContain("src/a.ts → src/b.ts → src/a.ts");
    const runtime = await runTool(cyclesTool, { runtimeOnly: true }, context);
    expect(runtime.cycles.map((cycle: { files: string[] }) => cycle.files)).toEqual([["src/a.ts", "src/b.ts"]]);
    const scoped = await runTool(cyclesTool, { paths: ["lib"] }, context);
    expect(scoped.total).toBe(0);
    expect(cyclesTool.render(scoped)).toBe("no import cycles");
  });

  test("a change on disk is reflected in the next answer", async () => {
    await temp.write("src/types.ts", "export interface Thing { x: number }\n");
    const after = await runTool(cyclesTool, {}, context);
    expect(after.cycles.map((cycle: { files: string[] }) => cycle.files)).toEqual([["src/a.ts", "src/b.ts"]]);
  });
});

test("the graph tools are registered", () => {
  const names = TOOLS.map((tool) => tool.name);
  for (const name of ["deps", "reverse_deps", "graph", "cycles"]) expect(names).toContain(name);
});
