/** typed: true on the read tools: the TypeScript compiler's answers through the tools' own schemas. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { callersTool } from "../../src/tools/callers.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { mapTool } from "../../src/tools/map.ts";
import { showTool } from "../../src/tools/show.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

const SLOW = 120_000;

let temp: TempDir;
let context: ToolContext;

beforeAll(async () => {
  temp = await makeTempDir("ast-mcp-typed-tools-");
  await temp.write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler" } }));
  await temp.write(
    "src/util.ts",
    [
      "export function add(a: number, b: number) { return a + b; }",
      "export class Calc {",
      "  sum(values: number[]) { return values.reduce((total, value) => add(total, value), 0); }",
      "}",
      "",
    ].join("\n"),
  );
  await temp.write(
    "src/app.ts",
    ["import { add as plus, Calc } from \"./util\";", "export function run() { return plus(1, 2) + new Calc().sum([1]); }", "export function outer() { return run(); }", ""].join(
      "\n",
    ),
  );
  // Same name, other module, calling itself: never a caller of util's add.
  await temp.write("src/decoy.ts", "export function add(a: string) { return a; }\nexport const decoyUse = add('x');\n");
  await temp.write("tool.py", "def helper():\n    return 1\n\ndef main():\n    return helper()\n");
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  context.services.typescript.disposeAll();
  await temp.cleanup();
});

describe("callers typed: true", () => {
  test(
    "the compiler resolves aliases and callbacks, follows callers up, and never counts the decoy",
    async () => {
      const result = await runTool(callersTool, { symbol: "src/util.ts#add", typed: true, depth: 2 }, context);
      expect(result.typed).toBe(true);
      expect(result.symbol).toMatchObject({ name: "add", path: "src/util.ts" });
      expect(
        result.calls.map((call: { path: string; line: number; caller?: string; callee: string; depth: number; confidence: string }) =>
          `${call.depth} ${call.path}:${call.line} ${call.caller} ${call.callee} ${call.confidence}`
        ),
      ).toEqual([
        "1 src/app.ts:2 run plus exact",
        "1 src/util.ts:3 Calc.sum add exact",
        "2 src/app.ts:3 outer run exact",
        "2 src/app.ts:2 run new Calc().sum exact",
      ]);
      expect(result.counts).toEqual({ exact: 4, inferred: 0, ambiguous: 0 });
      expect(result.complete).toBe(true);
      expect(callersTool.render(result)).toContain("resolved by the TypeScript compiler");

      const limited = await runTool(callersTool, { symbol: "src/util.ts#add", typed: true, limit: 1 }, context);
      expect(limited.calls).toHaveLength(1);
      expect(limited.complete).toBe(false);
      expect(limited.limits).toContain("limit = 1");
    },
    SLOW,
  );

  test(
    "other languages keep the syntactic answer",
    async () => {
      const result = await runTool(callersTool, { symbol: "tool.py#helper", typed: true }, context);
      expect(result.typed).toBeUndefined();
      expect(result.calls.map((call: { path: string; line: number }) => `${call.path}:${call.line}`)).toEqual(["tool.py:5"]);
    },
    SLOW,
  );
});

describe("map and show typed: true", () => {
  test(
    "map adds the inferred return types, and only with typed",
    async () => {
      const typed = await runTool(mapTool, { paths: ["src/util.ts", "tool.py"], typed: true }, context);
      const util = typed.files.find((file: { path: string }) => file.path === "src/util.ts");
      const byName = new Map(util.symbols.map((symbol: { qualifiedName: string; returnType?: string }) => [symbol.qualifiedName, symbol.returnType]));
      expect(byName.get("add")).toBe("number");
      expect(byName.get("Calc.sum")).toBe("number");
      expect(byName.get("Calc")).toBeUndefined();
      const python = typed.files.find((file: { path: string }) => file.path === "tool.py");
      expect(python.symbols.every((symbol: { returnType?: string }) => symbol.returnType === undefined)).toBe(true);
      expect(mapTool.render(typed)).toContain("→ number");

      const plain = await runTool(mapTool, { paths: ["src/util.ts"] }, context);
      expect(plain.files[0].symbols.some((symbol: { returnType?: string }) => symbol.returnType !== undefined)).toBe(false);
    },
    SLOW,
  );

  test(
    "show adds the compiler's signature and return type to each symbol",
    async () => {
      const result = await runTool(showTool, { path: "src/app.ts", symbols: ["run", "outer"], typed: true }, context);
      const [run, outer] = result.results.map((entry: { symbols: Array<{ returnType?: string; typedSignature?: string }> }) => entry.symbols[0]);
      expect(run).toMatchObject({ returnType: "number", typedSignature: "run(): number" });
      expect(outer).toMatchObject({ returnType: "number" });
      expect(showTool.render(result)).toContain(": run(): number");
    },
    SLOW,
  );
});
