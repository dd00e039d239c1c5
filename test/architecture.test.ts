/**
 * The layers of `src/` hold: every import (static, type, re-export, dynamic, createRequire) runs
 * down the table in `test/layers.ts`, tools reach patch only through its façade, only the policy
 * layer's reader opens files in the read path, one module loads napi, one function computes line
 * starts. Breaks still being removed are listed by name in `PENDING`; that list may only shrink.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  checkArchitecture,
  fileReadsOf,
  importsOf,
  layerOf,
  lineStartsDeclarationsOf,
  moduleStateOf,
  renderLayerTable,
  RULES,
  sourceFiles,
  tableProblems,
  withLayerTable,
} from "./support/architecture.ts";
import { BUILD_ARTIFACTS, LAYERS, MODULE_STATE, PENDING, PICTURE, READS_ALLOWED } from "./layers.ts";

const ROOT = path.join(import.meta.dir, "..");
const LINE_STARTS = "export function lineStarts(text: string): number[] { return [0]; }";

/** Checks synthetic sources; the files they import are given as empty modules. */
function check(sources: Record<string, string>, rules = RULES): string[] {
  const files = new Map(Object.entries(sources));
  // The one lineStarts is not under test here unless a source of that layer is given.
  if (![...files.keys()].some((file) => file.startsWith(`src/${rules.lineStartsLayer}/`))) files.set(`src/${rules.lineStartsLayer}/lines.ts`, LINE_STARTS);
  for (const [file, text] of Object.entries(sources)) {
    for (const edge of importsOf(file, text)) if (edge.target.startsWith("src/") && edge.target.endsWith(".ts") && !files.has(edge.target)) files.set(edge.target, "");
  }
  return checkArchitecture(files, rules).map((violation) => violation.key);
}

describe("the import graph of src/", () => {
  const files = sourceFiles();
  const violations = checkArchitecture(files);
  const pending = new Set(PENDING.map((entry) => entry.key));

  test("has no break beyond the named pending ones", () => {
    const unexpected = violations.filter((violation) => !pending.has(violation.key)).map((violation) => `${violation.key}  (${violation.where})`);
    expect(unexpected).toEqual([]);
  });

  test("still has every pending break (a fixed one leaves the list)", () => {
    const found = new Set(violations.map((violation) => violation.key));
    const gone = PENDING.filter((entry) => !found.has(entry.key)).map((entry) => entry.key);
    expect(gone).toEqual([]);
  });

  test("uses every allowance: each place allowed to read files reads, each build artifact is imported", () => {
    const reading = [...files].filter(([file, text]) => fileReadsOf(file, text).length > 0).map(([file]) => file);
    const idle = READS_ALLOWED.filter((allowed) => !reading.some((file) => (allowed.where.endsWith("/") ? file.startsWith(allowed.where) : file === allowed.where))).map((
      allowed,
    ) => allowed.where);
    expect(idle).toEqual([]);
    const imported = new Set([...files].flatMap(([file, text]) => importsOf(file, text).map((edge) => edge.target)));
    expect(Object.keys(BUILD_ARTIFACTS).filter((artifact) => !imported.has(artifact))).toEqual([]);
  });

  test("keeps module-level mutable state to the named process-wide objects, memos and side tables", () => {
    const listed = new Set(MODULE_STATE.map((entry) => `${entry.where} ${entry.name}`));
    const found = [...files].flatMap(([file, text]) => moduleStateOf(text).map((name) => `${file} ${name}`));
    expect(found.filter((key) => !listed.has(key))).toEqual([]);
    // The named process-wide objects are `const` objects the scan cannot see: each must still be declared.
    const declared = (entry: (typeof MODULE_STATE)[number]) => new RegExp(`^(?:export )?(?:let|const) ${entry.name}\\b`, "m").test(files.get(entry.where) ?? "");
    expect(MODULE_STATE.filter((entry) => !declared(entry)).map((entry) => `${entry.where} ${entry.name}`)).toEqual([]);
  });

  test("places every source file in a layer", () => {
    const unplaced = [...files.keys()].filter((file) => layerOf(file) === undefined);
    expect(unplaced).toEqual([]);
  });
});

describe("the layer table", () => {
  test("only lets a layer import layers drawn below it (no cycle, no arrow up)", () => {
    expect(tableProblems()).toEqual([]);
  });

  test("a table with an arrow up is refused", () => {
    const inverted = LAYERS.map((layer) => (layer.name === "intel" ? { ...layer, may: [...layer.may, "tools"] } : layer));
    expect(tableProblems(inverted, PICTURE)).toEqual(["intel may import tools, which is not below it"]);
  });

  test("keeps intel and patch peers: neither may import the other", () => {
    const may = (name: string) => LAYERS.find((layer) => layer.name === name)!.may;
    expect(may("intel")).not.toContain("patch");
    expect(may("patch")).not.toContain("intel");
  });

  test("is the table ARCHITECTURE.md shows (regenerate: npx bun scripts/gen-architecture.ts)", () => {
    const document = readFileSync(path.join(ROOT, "ARCHITECTURE.md"), "utf8");
    const expected = withLayerTable(document);
    expect(expected).toBeDefined();
    expect(document === expected ? "current" : `out of date; the table should read:\n${renderLayerTable()}`).toBe("current");
  });
});

describe("the checker", () => {
  test("sees module-level state: a top-level let and a lower-case new Map, not a constant table or a local", () => {
    const source = [
      "let counter = 0;",
      "export let shared: string | undefined;",
      "const seen = new Map<string, number>();",
      "const owners: Map<string, string> = new Map();",
      "const KINDS = new Set([\"a\"]);",
      "function f() {",
      "  let local = 1;",
      "  const inner = new Map();",
      "}",
    ].join("\n");
    expect(moduleStateOf(source)).toEqual(["counter", "shared", "seen", "owners"]);
  });

  test("sees every form of import: static, type, re-export, dynamic, typeof import, createRequire", () => {
    const source = [
      "import { a } from \"./a.ts\";",
      "import type { B } from \"./b.ts\";",
      "import { type C } from \"./c.ts\";",
      "export { d } from \"./d.ts\";",
      "export type { E } from \"./e.ts\";",
      "const f = await import(\"./f.ts\");",
      "type G = typeof import(\"./g.ts\");",
      "import { createRequire } from \"node:module\";",
      "const require = createRequire(import.meta.url);",
      "const h = require(\"./h.ts\");",
      "const i = createRequire(import.meta.url)(\"./i.ts\");",
    ].join("\n");
    const edges = importsOf("src/x/y.ts", source).map((edge) => `${edge.kind} ${edge.target}`);
    expect(edges).toEqual([
      "static src/x/a.ts",
      "type src/x/b.ts",
      "type src/x/c.ts",
      "re-export src/x/d.ts",
      "type src/x/e.ts",
      "dynamic src/x/f.ts",
      "type src/x/g.ts",
      "static node:module",
      "require src/x/h.ts",
      "require src/x/i.ts",
    ]);
  });

  test("fails on the index subscribing to the write pipeline (intel -> patch)", () => {
    expect(check({ "src/intel/index/code-index.ts": "import { onCommitted } from \"../../patch/pipeline.ts\";" })).toEqual([
      "layer: src/intel/index/code-index.ts -> src/patch/pipeline.ts",
    ]);
  });

  test("fails on run's scan decoding through patch (intel -> patch), even as a type import", () => {
    expect(check({ "src/intel/run/scan.ts": "import type { DecodedFile } from \"../../patch/text-codec.ts\";" })).toEqual([
      "layer: src/intel/run/scan.ts -> src/patch/text-codec.ts",
    ]);
  });

  test("fails on the hook's settings cache reaching into patch (hosts -> patch), even loaded lazily", () => {
    expect(check({ "src/hosts/hook/settings-cache.ts": "const { stateDir } = await import(\"../../patch/state-dir.ts\");" })).toEqual([
      "layer: src/hosts/hook/settings-cache.ts -> src/patch/state-dir.ts",
    ]);
  });

  test("fails on a module loaded through createRequire against the table (patch -> intel)", () => {
    const source = "import { createRequire } from \"node:module\";\nconst require = createRequire(import.meta.url);\nexport const x = require(\"../intel/index/code-index.ts\");";
    expect(check({ "src/patch/pipeline.ts": source })).toEqual(["layer: src/patch/pipeline.ts -> src/intel/index/code-index.ts"]);
  });

  test("fails on a re-export that runs up (syntax -> config)", () => {
    expect(check({ "src/syntax/detect.ts": "export { loadConfig } from \"../config/load.ts\";" })).toEqual(["layer: src/syntax/detect.ts -> src/config/load.ts"]);
  });

  test("allows an import that runs down", () => {
    expect(check({ "src/tools/files.ts": "import { readBounded } from \"../policy/open.ts\";\nimport { decodeForEdit } from \"../text/index.ts\";" })).toEqual([]);
  });

  test("fails on a tool reaching past patch's façade, and not on the façade", () => {
    expect(check({ "src/tools/write.ts": "import { commitPlans } from \"../patch/pipeline.ts\";\nimport { writeBatch } from \"../patch/index.ts\";" })).toEqual([
      "facade: src/tools/write.ts -> src/patch/pipeline.ts",
    ]);
  });

  test("fails on a second napi loader, static or through createRequire, and not on a type import", () => {
    const lazy = "import { createRequire } from \"node:module\";\nconst require = createRequire(import.meta.url);\nexport const napi = () => require(\"@ast-grep/napi\");";
    expect(
      check({
        "src/intel/run/scan.ts": lazy,
        "src/intel/facts/lang/go.ts": "import { kind } from \"@ast-grep/napi\";",
        "src/intel/facts/lang/rust.ts": "import type { SgNode } from \"@ast-grep/napi\";",
      }),
    ).toEqual([
      "napi: src/intel/facts/lang/go.ts loads @ast-grep/napi",
      "napi: src/intel/run/scan.ts loads @ast-grep/napi",
    ]);
    expect(check({ "src/syntax/grammars.ts": lazy })).toEqual([]);
    expect(check({ "src/syntax/grammars.ts": lazy, "src/syntax/structural.ts": lazy })).toEqual([
      "napi: more than one loader in syntax/ (src/syntax/grammars.ts, src/syntax/structural.ts)",
    ]);
  });

  test("fails on a file opened for reading outside the policy layer's reader, and not on a write", () => {
    const source = [
      "import { promises as fs, readFileSync } from \"node:fs\";",
      "import { open } from \"node:fs/promises\";",
      "export const a = () => readFileSync(\"x\");",
      "export const b = () => fs.readFile(\"x\");",
      "export const c = () => open(\"x\", \"wx\");",
      "export const d = (ts: any) => ts.sys.readFile(\"x\");",
    ].join("\n");
    expect(fileReadsOf("src/intel/index/code-index.ts", source).map((read) => read.call)).toEqual(["readFileSync", "readFile", "sys.readFile"]);
    expect(check({ "src/intel/index/code-index.ts": source })).toEqual([
      "reader: src/intel/index/code-index.ts opens files (readFile)",
      "reader: src/intel/index/code-index.ts opens files (readFileSync)",
      "reader: src/intel/index/code-index.ts opens files (sys.readFile)",
    ]);
    expect(check({ "src/config/file.ts": source })).toEqual([]);
  });

  test("fails on file system access in a pure layer", () => {
    expect(check({ "src/helpers/glob.ts": "import { statSync } from \"node:fs\";" })).toEqual(["pure: src/helpers/glob.ts imports node:fs"]);
  });

  test("fails on line starts computed outside text/, under any name", () => {
    const renamed =
      "export function offsetsOf(text: string): number[] {\n  const out = [0];\n  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) out.push(i + 1);\n  return out;\n}";
    expect(lineStartsDeclarationsOf("src/tools/squeeze.ts", renamed)).toEqual([{ name: "offsetsOf", exported: true }]);
    expect(check({ "src/tools/squeeze.ts": renamed, "src/intel/a.ts": "const lineStarts = (text: string) => [0];" })).toEqual([
      "lineStarts: src/intel/a.ts computes line starts in lineStarts",
      "lineStarts: src/tools/squeeze.ts computes line starts in offsetsOf",
    ]);
    expect(check({ "src/text/lines.ts": "export const x = 1;" })).toEqual(["lineStarts: text/ exports no lineStarts"]);
    expect(check({ "src/text/lines.ts": LINE_STARTS, "src/text/codec.ts": LINE_STARTS })).toEqual([
      "lineStarts: more than one lineStarts in text/ (src/text/codec.ts, src/text/lines.ts)",
    ]);
  });

  test("fails on an import of a file that is not in src/ (moved, or a build artifact nobody named), and on package.json outside core", () => {
    expect(checkArchitecture(new Map([["src/tools/a.ts", "import \"./gone.ts\";"], ["src/text/lines.ts", LINE_STARTS]])).map((violation) => violation.key)).toEqual([
      "missing: src/tools/a.ts -> src/tools/gone.ts",
    ]);
    expect(check({ "src/core/version.ts": "import pkg from \"../../package.json\" with { type: \"json\" };" })).toEqual([]);
    expect(check({ "src/tools/version.ts": "import pkg from \"../../package.json\" with { type: \"json\" };" })).toEqual(["package: src/tools/version.ts imports package.json"]);
  });
});
