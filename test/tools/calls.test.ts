/** callers, callees, trace, implements, impact and context through their handlers, over a real temp repository and the real index. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { calleesTool } from "../../src/tools/callees.ts";
import { callersTool } from "../../src/tools/callers.ts";
import { contextTool } from "../../src/tools/context.ts";
import { impactTool } from "../../src/tools/impact.ts";
import { implementsTool } from "../../src/tools/implements.ts";
import { traceTool } from "../../src/tools/trace.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;
let cacheDir: string;
const previousCacheDir = process.env.AST_MCP_CACHE_DIR;

const REPO: Record<string, string> = {
  "src/fmt/util.ts": [
    "export function format(value: string): string {",
    "  return helper(value).trim();",
    "}",
    "",
    "export function helper(value: string): string {",
    "  return value + \" \";",
    "}",
    "",
  ].join("\n"),
  "src/fmt/index.ts": "export { format } from \"./util\";\nexport * from \"./extra\";\n",
  "src/fmt/extra.ts": "export function pad(text: string): string {\n  return ` ${text}`;\n}\n",
  // A decoy: same name, other module.
  "src/other.ts": "export function format(): string {\n  return 'decoy';\n}\n",
  "src/app.ts": [
    "import { format, pad } from \"./fmt/index\";",
    "",
    "export function main(): string {",
    "  return pad(format(\"x\"));",
    "}",
    "",
  ].join("\n"),
  "src/decoy-user.ts": "import { format } from \"./other\";\n\nexport function useDecoy(): string {\n  return format();\n}\n",
  "src/shapes.ts": [
    "export interface Shape {",
    "  area(): number;",
    "}",
    "",
    "export class Circle implements Shape {",
    "  area(): number {",
    "    return this.radius() * 3;",
    "  }",
    "  radius(): number {",
    "    return 1;",
    "  }",
    "}",
    "",
    "export class Big extends Circle {}",
    "",
  ].join("\n"),
  "src/other-shapes.ts": "export interface Shape {\n  sides: number;\n}\n\nexport class Square implements Shape {\n  sides = 4;\n}\n",
  "test/app.test.ts": "import { main } from \"../src/app\";\n\nexport function checkMain(): boolean {\n  return main() === \" x\";\n}\n",
  "test/util.test.ts": "export const nothing = 0;\n",
};

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  process.env.AST_MCP_CACHE_DIR = cacheDir;
  temp = await makeTempDir("ast-mcp-calls-tools-");
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

type Call = { path: string; line: number; caller?: string; confidence: string; depth: number; targets: string[] };

describe("callers", () => {
  test("through a re-export, exact; the decoy's caller is not among them", async () => {
    const result = await runTool(callersTool, { symbol: "format", path: "src/fmt/util.ts" }, context);
    expect(result.symbol).toMatchObject({ name: "format", path: "src/fmt/util.ts", startLine: 1, endLine: 3 });
    expect(result.calls.map((call: Call) => `${call.path}:${call.line} ${call.caller} ${call.confidence}`)).toEqual(["src/app.ts:4 main exact"]);
    expect(result.complete).toBe(true);
    expect(callersTool.render(result)).toContain("src/app.ts:4 main → format");
    const decoy = await runTool(callersTool, { symbol: "src/other.ts#format" }, context);
    expect(decoy.calls.map((call: Call) => `${call.path}:${call.line} ${call.caller}`)).toEqual(["src/decoy-user.ts:4 useDecoy"]);
  });

  test("an ambiguous name lists its candidates; an unknown one says so", async () => {
    const ambiguous = await failure(runTool(callersTool, { symbol: "format" }, context));
    expect(ambiguous.code).toBe("ambiguous_symbol");
    expect(ambiguous.message).toContain("src/fmt/util.ts#format");
    expect(ambiguous.message).toContain("src/other.ts#format");
    expect((await failure(runTool(callersTool, { symbol: "nothingLikeThis" }, context))).code).toBe("symbol_not_found");
  });

  test("depth walks up to the tests", async () => {
    const result = await runTool(callersTool, { symbol: "helper", depth: 3 }, context);
    expect(result.calls.map((call: Call) => `${call.depth} ${call.caller}`)).toEqual(["1 format", "2 main", "3 checkMain"]);
  });

  test("this.method() in a class", async () => {
    const result = await runTool(callersTool, { symbol: "Circle.radius" }, context);
    expect(result.calls.map((call: Call) => `${call.caller} ${call.confidence}`)).toEqual(["Circle.area exact"]);
  });
});

describe("callees and trace", () => {
  test("callees in call order, resolved through the re-exports", async () => {
    const result = await runTool(calleesTool, { symbol: "main" }, context);
    expect(result.calls.map((call: Call) => `${call.targets.join(",")} ${call.confidence}`).sort()).toEqual(["src/fmt/extra.ts#pad exact", "src/fmt/util.ts#format exact"]);
  });

  test("trace: the shortest call path, each step with its call line", async () => {
    const result = await runTool(traceTool, { from: "checkMain", to: "helper" }, context);
    expect(result.length).toBe(3);
    expect(result.paths[0].steps).toEqual([
      { symbol: "test/app.test.ts#checkMain", line: 4, confidence: "exact" },
      { symbol: "src/app.ts#main", line: 4, confidence: "exact" },
      { symbol: "src/fmt/util.ts#format", line: 2, confidence: "exact" },
      { symbol: "src/fmt/util.ts#helper" },
    ]);
    expect(traceTool.render(result)).toContain("test/app.test.ts#checkMain :4 → src/app.ts#main :4 → src/fmt/util.ts#format :2 → src/fmt/util.ts#helper");
    const none = await runTool(traceTool, { from: "helper", to: "main" }, context);
    expect(none.paths).toEqual([]);
    expect(traceTool.render(none)).toContain("no call path");
  });
});

describe("implements", () => {
  test("the implementations of one Shape, not of its namesake", async () => {
    const result = await runTool(implementsTool, { symbol: "src/shapes.ts#Shape" }, context);
    expect(result.implementations.map((entry: { name: string; depth: number; confidence: string }) => `${entry.name} ${entry.depth} ${entry.confidence}`)).toEqual([
      "Circle 1 exact",
      "Big 2 exact",
    ]);
    const other = await runTool(implementsTool, { symbol: "Shape", path: "src/other-shapes.ts" }, context);
    expect(other.implementations.map((entry: { name: string }) => entry.name)).toEqual(["Square"]);
  });
});

describe("impact", () => {
  test("callers, dependents and the tests that reach a symbol", async () => {
    const result = await runTool(impactTool, { symbol: "helper" }, context);
    expect(result.tests).toEqual([
      { path: "test/app.test.ts", via: "calls", distance: 3 },
      { path: "test/util.test.ts", via: "name", distance: 0 },
    ]);
    expect(result.dependents.map((entry: { path: string }) => entry.path)).toContain("src/app.ts");
    expect(impactTool.render(result)).toContain("test/app.test.ts (calls, 3 away)");
  });

  test("a whole file: dependents and the tests importing it", async () => {
    const result = await runTool(impactTool, { path: "src/fmt/extra.ts" }, context);
    expect(result.symbol).toBeUndefined();
    expect(result.tests).toEqual([{ path: "test/app.test.ts", via: "imports", distance: 3 }]);
  });
});

describe("context", () => {
  test("target body, callee bodies and caller signatures, within the budget", async () => {
    const result = await runTool(contextTool, { target: "src/fmt/util.ts#format", budget: 2000 }, context);
    expect(result.sections.map((section: { role: string; name: string }) => `${section.role} ${section.name}`)).toEqual(["target format", "callee helper", "caller main"]);
    expect(result.sections[0].text).toContain("return helper(value).trim();");
    expect(result.usedTokens).toBeLessThanOrEqual(2000);
    expect(result.complete).toBe(true);
    const text = contextTool.render(result);
    expect(text).toContain("── callees");
    expect(text).toContain("── callers");
  });

  test("a small budget keeps the target and names what did not fit", async () => {
    const result = await runTool(contextTool, { target: "src/fmt/util.ts#format", budget: 40 }, context);
    expect(result.usedTokens).toBeLessThanOrEqual(40);
    expect(result.omitted.length).toBeGreaterThan(0);
    expect(result.complete).toBe(false);
    expect(result.limits).toContain("budget = 40: raise budget");
  });
});

test("the call tools are registered", () => {
  const names = TOOLS.map((tool) => tool.name);
  for (const name of ["callers", "callees", "trace", "implements", "impact", "context"]) expect(names).toContain(name);
});
