/** Typed answers through the TypeScript language service, over real temp projects. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type * as TS from "typescript";
import { LIMITS } from "../../../src/core/limits.ts";
import { collectDeclarations } from "../../../src/intel/typescript/declarations.ts";
import { diagnosticDelta, typedOutline, typedReferences, TypeScriptProjects } from "../../../src/intel/typescript/index.ts";
import { loadTypeScript } from "../../../src/intel/typescript/load.ts";
import { ProjectDisposedError } from "../../../src/intel/typescript/project.ts";
import { typedRows } from "../../../src/intel/typescript/typed.ts";
import type { Workspace } from "../../../src/policy/workspace.ts";
import { makeContext, makeTempDir, type TempDir } from "../../support/context.ts";
import { toolFailure as failure } from "../../support/context.ts";

const SLOW = 120_000;
/** The projects these tests share; each describe disposes them when it ends. */
const projects = new TypeScriptProjects();

/** Every path below dir with its size and mtime: proves nothing was written. */
async function treeState(dir: string): Promise<string[]> {
  const names = (await readdir(dir, { recursive: true })).sort();
  return Promise.all(
    names.map(async (name) => {
      const info = await stat(path.join(dir, name));
      return `${name} ${info.size} ${info.mtimeMs}`;
    }),
  );
}

const UTIL = [
  "export function add(a: number, b: number) { return a + b; }",
  "export const greet = (name: string) => `hi ${name}`;",
  "const wrap = <F>(f: F): F => f;",
  "export const wrapped = wrap((n: number) => [n]);",
  "export class Box<T> {",
  "  constructor(private value: T) {}",
  "  get() { return this.value; }",
  "  map<U>(f: (value: T) => U) { return new Box(f(this.value)); }",
  "}",
  "export const api = { fetch(id: string) { return Promise.resolve({ id }); }, size: () => 3 };",
  "export namespace Geometry { export function area(w: number, h: number) { return w * h > 0; } }",
  "export default function () { return null as string | null; }",
  "",
].join("\n");

describe("typed answers on a tsconfig project", () => {
  let temp: TempDir;
  let workspace: Workspace;

  beforeAll(async () => {
    temp = await makeTempDir("ast-mcp-typed-");
    await temp.write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler" }, include: ["src"] }));
    await temp.write("src/util.ts", UTIL);
    await temp.write("src/index.ts", "export * from \"./util\";\n");
    await temp.write(
      "src/app.ts",
      [
        "import { add, greet, Box } from \"./util\";",
        "export function main() {",
        "  const box = new Box(add(1, 2));",
        "  return greet(String(box.get()));",
        "}",
        "export const total = [1, 2].map((n) => add(n, n));",
        "",
      ].join("\n"),
    );
    await temp.write("src/via-index.ts", "import { add } from \"./index\";\nexport const viaIndex = add(5, 6);\n");
    // Same name, other module: a syntactic "callers" would confuse it with util's add.
    await temp.write("src/decoy.ts", "export function add(a: string) { return a; }\nexport const decoyUse = add('x');\n");
    workspace = (await makeContext([temp.dir])).workspace;
  });

  afterAll(async () => {
    projects.disposeAll();
    await temp.cleanup();
  });

  test(
    "inferred return types and signatures for functions, arrows, wrapped values, class and object members",
    async () => {
      const outline = await typedOutline(workspace, await workspace.resolve("src/util.ts", "read"), { projects });
      const byName = new Map(outline.symbols.map((symbol) => [symbol.qualifiedName, symbol]));
      expect(outline.project.config).toBe("tsconfig.json");
      expect(outline.complete).toBe(true);
      expect(byName.get("add")).toMatchObject({ kind: "function", startLine: 1, endLine: 1, returnType: "number", signature: "add(a: number, b: number): number" });
      expect(byName.get("greet")).toMatchObject({ kind: "variable", returnType: "string", signature: "greet(name: string): string" });
      expect(byName.get("wrapped")).toMatchObject({ returnType: "number[]", signature: "wrapped(n: number): number[]" });
      expect(byName.get("Box.get")).toMatchObject({ kind: "method", startLine: 7, returnType: "T" });
      expect(byName.get("Box.map")).toMatchObject({ returnType: "Box<U>", signature: "map<U>(f: (value: T) => U): Box<U>" });
      expect(byName.get("Box.constructor")?.kind).toBe("constructor");
      expect(byName.get("api.fetch")).toMatchObject({ returnType: "Promise<{ id: string; }>" });
      expect(byName.get("api.size")).toMatchObject({ returnType: "number" });
      expect(byName.get("Geometry.area")).toMatchObject({ returnType: "boolean" });
      expect(byName.get("default")).toMatchObject({ returnType: "string | null" });
      // Non-callable values and types carry no return type.
      expect(byName.has("Box")).toBe(false);
      expect(byName.has("api")).toBe(false);
    },
    SLOW,
  );

  test(
    "a failing symbol is marked, the rest of the file still answers",
    async () => {
      const ts = await loadTypeScript();
      const source = ts.createSourceFile("/x.ts", "function a() { return 1; }\nfunction b() { return 2; }\n", ts.ScriptTarget.ES2022, true);
      const sites = collectDeclarations(ts, source);
      const checker = {
        getSignatureFromDeclaration: () => {
          throw new Error("checker crashed");
        },
      } as unknown as TS.TypeChecker;
      const rows = sites.flatMap((site) => typedRows(ts, checker, source, site));
      expect(rows.map((row) => [row.qualifiedName, row.startLine, row.error])).toEqual([
        ["a", 1, "checker crashed"],
        ["b", 2, "checker crashed"],
      ]);
    },
    SLOW,
  );

  test(
    "compiler-resolved references: across files, through re-exports, never the same-name decoy",
    async () => {
      const util = await workspace.resolve("src/util.ts", "read");
      const result = await typedReferences(workspace, util, { symbolName: "add" }, { projects });
      expect(result.complete).toBe(true);
      expect(result.symbol).toContain("function add(a: number, b: number): number");
      const places = result.references.map((ref) =>
        `${ref.path}:${ref.line}:${ref.column}${ref.isDefinition ? " def" : ""}${ref.isCall ? " call" : ""}${ref.enclosing ? ` in ${ref.enclosing}` : ""}`
      );
      expect(places).toEqual([
        "src/app.ts:1:10",
        "src/app.ts:3:23 call in main",
        "src/app.ts:6:40 call in total",
        "src/util.ts:1:17 def",
        "src/via-index.ts:1:10",
        "src/via-index.ts:2:25 call in viaIndex",
      ]);
      expect(places.some((place) => place.startsWith("src/decoy.ts"))).toBe(false);
      expect(result.references[1]?.text).toBe("const box = new Box(add(1, 2));");

      // The same symbol by position (a use in another file), and by qualified member name.
      const byPosition = await typedReferences(workspace, await workspace.resolve("src/app.ts", "read"), { line: 3, column: 23 }, { projects });
      expect(byPosition.references.map((ref) => `${ref.path}:${ref.line}`)).toEqual(result.references.map((ref) => `${ref.path}:${ref.line}`));
      const member = await typedReferences(workspace, util, { symbolName: "Box.get" }, { projects });
      expect(member.references.filter((ref) => !ref.isDefinition).map((ref) => `${ref.path}:${ref.line} ${ref.enclosing}`)).toEqual(["src/app.ts:4 main"]);
    },
    SLOW,
  );

  test(
    "bad targets are structured errors",
    async () => {
      const util = await workspace.resolve("src/util.ts", "read");
      expect((await failure(typedReferences(workspace, util, { symbolName: "nope" }, { projects }))).code).toBe("invalid_input");
      expect((await failure(typedReferences(workspace, util, { line: 999, column: 1 }, { projects }))).code).toBe("invalid_range");
      expect((await failure(typedReferences(workspace, util, { line: 1, column: 500 }, { projects }))).code).toBe("invalid_range");
      await temp.write("notes.md", "# hi\n");
      expect((await failure(typedOutline(workspace, await workspace.resolve("notes.md", "read"), { projects }))).code).toBe("invalid_input");
      expect((await failure(typedOutline(workspace, await workspace.resolve("src/missing.ts", "read"), { projects }))).code).toBe("file_not_found");
      // JavaScript in a project whose tsconfig leaves allowJs off is not read by the compiler.
      await temp.write("src/legacy.js", "export function old() { return 1; }\n");
      const legacy = await failure(typedOutline(workspace, await workspace.resolve("src/legacy.js", "read"), { projects }));
      expect([legacy.code, legacy.message.includes("allowJs")]).toEqual(["invalid_input", true]);
      // A cancelled call stops with the caller's abort reason.
      const controller = new AbortController();
      controller.abort(new Error("caller gave up"));
      await expect(typedOutline(workspace, util, { projects, signal: controller.signal })).rejects.toThrow("caller gave up");
    },
    SLOW,
  );

  test(
    "diagnostic delta: only what the candidate introduces, in the file and in its importers",
    async () => {
      const resolved = await workspace.resolve("src/decoy.ts", "read");
      const before = "export function add(a: string) { return a; }\nexport const decoyUse = add('x');\nconst broken: number = 'already';\n";
      // A new line on top moves the existing error down a line: it is still not "introduced".
      const after = `const fresh: string = 42;\n${before}`;
      const delta = await diagnosticDelta(workspace, resolved, before, after, { projects });
      expect(delta.introduced).toEqual([{ path: "src/decoy.ts", line: 1, column: 7, code: 2322, message: "Type 'number' is not assignable to type 'string'." }]);
      expect(delta.errorsBefore).toBe(1);
      expect(delta.errorsAfter).toBe(2);

      // Changing a signature breaks the importers: their new errors are reported with their paths.
      const util = await workspace.resolve("src/util.ts", "read");
      const breaking = await diagnosticDelta(workspace, util, UTIL, UTIL.replace("export function add(a: number, b: number)", "export function add(a: number)"), { projects });
      expect(breaking.importersChecked).toBe(3);
      expect(breaking.introduced.map((d) => `${d.path}:${d.line} ${d.code}`).sort()).toEqual([
        "src/app.ts:3 2554",
        "src/app.ts:6 2554",
        "src/util.ts:1 2304",
        "src/via-index.ts:2 2554",
      ]);
      // Nothing of the candidate stays behind: the next answer sees the disk again.
      const outline = await typedOutline(workspace, util, { projects });
      expect(outline.symbols.find((symbol) => symbol.qualifiedName === "add")?.signature).toBe("add(a: number, b: number): number");

      // A new file: every error of the candidate is new.
      const created = await workspace.resolve("src/new-file.ts", "write");
      const fresh = await diagnosticDelta(workspace, created, undefined, "import { add } from \"./util\";\nexport const bad: string = add(1, 2);\n", { projects });
      expect(fresh.introduced.map((d) => [d.line, d.code])).toEqual([[2, 2322]]);
    },
    SLOW,
  );

  test(
    "a file changed outside ast-mcp is seen by the next answer",
    async () => {
      const util = await workspace.resolve("src/util.ts", "read");
      const first = await typedOutline(workspace, util, { projects });
      expect(first.symbols.find((symbol) => symbol.qualifiedName === "greet")?.returnType).toBe("string");
      await writeFile(path.join(temp.dir, "src/util.ts"), UTIL.replace("(name: string) => `hi ${name}`", "(name: string) => name.length"));
      const second = await typedOutline(workspace, util, { projects });
      expect(second.symbols.find((symbol) => symbol.qualifiedName === "greet")?.returnType).toBe("number");

      // A new importer appears in the references.
      await temp.write("src/late.ts", "import { add } from \"./util\";\nexport const late = add(0, 0);\n");
      const refs = await typedReferences(workspace, util, { symbolName: "add" }, { projects });
      expect(refs.references.some((ref) => ref.path === "src/late.ts" && ref.isCall)).toBe(true);
      await writeFile(path.join(temp.dir, "src/util.ts"), UTIL);
    },
    SLOW,
  );
});

describe("the repository cannot make the compiler write or read outside", () => {
  let temp: TempDir;
  let outside: string;

  beforeAll(async () => {
    temp = await makeTempDir("ast-mcp-typed-guard-");
    outside = await mkdtemp(path.join(tmpdir(), "ast-mcp-typed-outside-"));
  });
  afterAll(async () => {
    projects.disposeAll();
    await temp.cleanup();
    await rm(outside, { recursive: true, force: true });
  });

  test(
    "incremental, composite, tsBuildInfoFile and outDir in tsconfig write nothing",
    async () => {
      const root = path.join(temp.dir, "emit");
      await temp.write(
        "emit/tsconfig.json",
        JSON.stringify({
          compilerOptions: { incremental: true, composite: true, declaration: true, sourceMap: true, outDir: "out", tsBuildInfoFile: "build/info.tsbuildinfo", strict: true },
          include: ["src"],
        }),
      );
      await temp.write("emit/src/a.ts", "export const a = (n: number) => n * 2;\n");
      await temp.write("emit/src/b.ts", "import { a } from \"./a\";\nexport const b = a(2);\n");
      const { workspace } = await makeContext([root]);
      const before = await treeState(root);
      const resolved = await workspace.resolve("src/a.ts", "read");
      expect((await typedOutline(workspace, resolved, { projects })).symbols[0]?.returnType).toBe("number");
      await typedReferences(workspace, resolved, { symbolName: "a" }, { projects });
      const delta = await diagnosticDelta(workspace, resolved, "export const a = (n: number) => n * 2;\n", "export const a = (n: string) => n;\n", { projects });
      expect(delta.introduced.map((d) => d.path)).toEqual(["src/b.ts"]);
      expect(await treeState(root)).toEqual(before);
    },
    SLOW,
  );

  test(
    "extends pointing outside the roots (directly or through a link) is never read",
    async () => {
      // If this base were read, strict mode would report the implicit any below.
      await writeFile(path.join(outside, "base.json"), JSON.stringify({ compilerOptions: { strict: true, noImplicitAny: true } }));
      const past = new Date(Date.UTC(2001, 0, 1));
      await utimes(path.join(outside, "base.json"), past, past);
      for (
        const [name, target] of [
          ["direct", path.join(outside, "base.json")],
          ["linked", "./base-link.json"],
        ] as const
      ) {
        const root = path.join(temp.dir, name);
        await temp.write(`${name}/tsconfig.json`, JSON.stringify({ extends: target, compilerOptions: { noEmit: true } }));
        if (name === "linked") await symlink(path.join(outside, "base.json"), path.join(root, "base-link.json"));
        await temp.write(`${name}/src/f.ts`, "export const ok = 1;\n");
        const { workspace } = await makeContext([root]);
        const resolved = await workspace.resolve("src/f.ts", "read");
        const delta = await diagnosticDelta(workspace, resolved, "export const ok = 1;\n", "export function f(x) { return x; }\n", { projects });
        expect(delta.introduced.map((d) => d.code)).not.toContain(7006);
        expect(delta.project.notes.join("\n")).toContain("base");
      }
      // Reading a file updates its access time on most mounts; it must not have moved.
      expect((await stat(path.join(outside, "base.json"))).atimeMs).toBe(past.getTime());
    },
    SLOW,
  );

  test(
    "a file the policy denies is invisible to the compiler",
    async () => {
      const root = path.join(temp.dir, "denied");
      await temp.write("denied/tsconfig.json", JSON.stringify({ compilerOptions: { strict: true } }));
      await temp.write("denied/secret/value.ts", "export const value = 42;\n");
      await temp.write("denied/src/use.ts", "import { value } from \"../secret/value\";\nexport const read = () => value;\n");
      const open = (await makeContext([root])).workspace;
      const use = await open.resolve("src/use.ts", "read");
      expect((await typedOutline(open, use, { projects })).symbols[0]?.returnType).toBe("number");
      const closed = (await makeContext([root], { rules: [{ path: "secret/**", read: "deny" }] })).workspace;
      expect((await typedOutline(closed, await closed.resolve("src/use.ts", "read"), { projects })).symbols[0]?.returnType).toBe("any");
    },
    SLOW,
  );
});

describe("projects without a tsconfig and the service bound", () => {
  let temp: TempDir;
  beforeAll(async () => {
    temp = await makeTempDir("ast-mcp-typed-js-");
  });
  afterAll(async () => {
    projects.disposeAll();
    await temp.cleanup();
  });

  test(
    "JavaScript in an inferred project gets inferred types and references",
    async () => {
      await temp.write("lib.js", "export function twice(n) { return [n, n]; }\n/** @param {string} s */\nexport const shout = (s) => s.toUpperCase();\n");
      await temp.write("main.mjs", "import { shout } from \"./lib.js\";\nshout(\"x\");\n");
      const { workspace } = await makeContext([temp.dir]);
      const lib = await workspace.resolve("lib.js", "read");
      const outline = await typedOutline(workspace, lib, { projects });
      expect(outline.project.config).toBeNull();
      expect(outline.symbols.map((symbol) => [symbol.qualifiedName, symbol.returnType])).toEqual([
        ["twice", "any[]"],
        ["shout", "string"],
      ]);
      const refs = await typedReferences(workspace, lib, { symbolName: "shout" }, { projects });
      expect(refs.references.filter((ref) => ref.isCall).map((ref) => `${ref.path}:${ref.line}`)).toEqual(["main.mjs:2"]);
    },
    SLOW,
  );

  test(
    `at most ${LIMITS.intel.typescript.maxServices} language services stay alive`,
    async () => {
      for (let index = 0; index <= LIMITS.intel.typescript.maxServices; index++) {
        await temp.write(`p${index}/tsconfig.json`, "{}");
        await temp.write(`p${index}/a.ts`, `export const v${index} = () => ${index};\n`);
      }
      const { workspace } = await makeContext([temp.dir]);
      const first = await projects.projectFor(workspace, await workspace.resolve("p0/a.ts", "read"));
      for (let index = 0; index <= LIMITS.intel.typescript.maxServices; index++) {
        const outline = await typedOutline(workspace, await workspace.resolve(`p${index}/a.ts`, "read"), { projects });
        expect(outline.project.config).toBe(`p${index}/tsconfig.json`);
        expect(projects.liveCount).toBeLessThanOrEqual(LIMITS.intel.typescript.maxServices);
      }
      // The evicted service is disposed (a late caller is told to look it up again) and comes back on demand.
      await expect(first.use(workspace, async () => 1)).rejects.toBeInstanceOf(ProjectDisposedError);
      const again = await typedOutline(workspace, await workspace.resolve("p0/a.ts", "read"), { projects });
      expect(again.symbols[0]?.returnType).toBe("number");
    },
    SLOW,
  );
});
