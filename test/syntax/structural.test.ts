import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { createRequire } from "node:module";
import { LIMITS } from "../../src/core/limits.ts";
import {
  compileQuery,
  matchText,
  patternLiterals,
  patternVariables,
  type LanguageId,
  releaseTreesLater,
  TREE_RELEASE_DEFAULTS,
  TreeRelease,
  treeReleaseProcess,
} from "../../src/syntax/index.ts";
import { batchBySize, scanFiles, type RunFile, type ScanResult } from "../../src/intel/run/scan.ts";
import { makeTempDir, type TempDir } from "../support/context.ts";

describe("pattern literals", () => {
  test("are the pattern's leaves minus metavariables, punctuation and comments", () => {
    expect(patternLiterals({ pattern: "console.log($$$ARGS)" }, "typescript").sort()).toEqual(["console", "log"]);
    expect(patternLiterals({ pattern: "foo('a b', $X, $$$, $_) // note" }, "typescript").sort()).toEqual(["a b", "foo"]);
    expect(patternLiterals({ pattern: "if ($C) { return $$$B }" }, "javascript").sort()).toEqual(["if", "return"]);
  });

  test("in languages whose metavariables are spelled differently", () => {
    expect(patternLiterals({ pattern: "print($A)" }, "python")).toEqual(["print"]);
    expect(patternLiterals({ pattern: "fn f() { $X.unwrap() }", selector: "call_expression" }, "rust")).toEqual(["unwrap"]);
  });

  test("with a selector, only the selected node's leaves count", () => {
    const literals = patternLiterals({ pattern: "func t() { fmt.Println($$$) }", selector: "call_expression" }, "go");
    expect(literals.sort()).toEqual(["Println", "fmt"]);
    expect(literals).not.toContain("t");
  });

  test("a pattern that does not parse rules nothing out", () => {
    expect(patternLiterals({ pattern: "foo(((" }, "typescript")).toEqual([]);
    expect(compileQuery({ pattern: "foo(((" }, "typescript").patternProblem).toBeString();
  });

  test("metavariables are named once, multi when written $$$", () => {
    expect([...patternVariables("$A + $B($$$REST) + $_ + $A")]).toEqual([
      ["A", "single"],
      ["B", "single"],
      ["REST", "multi"],
    ]);
  });
});

describe("matchText", () => {
  test("gives 1-based positions in UTF-16 columns and source captures", async () => {
    const compiled = compileQuery({ pattern: "foo($A, $$$REST)" }, "typescript");
    const { count, matches } = await matchText("const é🌍 = foo(1, 2, 3);\nfoo(foo(a, b), c);\n", compiled);
    expect(count).toBe(3);
    expect(matches[0]).toEqual({ startLine: 1, endLine: 1, column: 13, endColumn: 25, text: "foo(1, 2, 3)", captures: { A: "1", REST: "2, 3" } });
    expect(matches.map((match) => [match.startLine, match.column])).toEqual([
      [1, 13],
      [2, 1],
      [2, 5],
    ]);
  });

  test("details only as many matches as asked, counting all", async () => {
    const compiled = compileQuery({ pattern: "f($A)" }, "typescript");
    const { count, matches } = await matchText("f(1); f(2); f(3); f(4);", compiled, 2);
    expect(count).toBe(4);
    expect(matches.map((match) => match.captures.A)).toEqual(["1", "2"]);
  });
});

describe("scanFiles", () => {
  let temp: TempDir;
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  async function file(name: string, content: string | Uint8Array, language: LanguageId = "typescript"): Promise<RunFile> {
    return { real: await temp.write(name, content), display: name, language };
  }

  test("lists matches in file order up to the limit and counts every match", async () => {
    const files: RunFile[] = [];
    for (let index = 0; index < 12; index++) files.push(await file(`f${String(index).padStart(2, "0")}.ts`, "g(1); g(2); g(3);\n"));
    const compiled = compileQuery({ pattern: "g($A)" }, "typescript");
    const result = await scanFiles(files, new Map([["typescript", compiled]]), { listLimit: 5 });
    expect(result.matched.reduce((sum, scanned) => sum + scanned.count, 0)).toBe(36);
    const listed = result.matched.flatMap((scanned) => scanned.matches.map((match) => `${scanned.file.display}:${match.captures.A}`));
    expect(listed.slice(0, 5)).toEqual(["f00.ts:1", "f00.ts:2", "f00.ts:3", "f01.ts:1", "f01.ts:2"]);
  });

  test("releases the trees it leaves behind once it has returned", async () => {
    const files = [await file("a.ts", "g(1);\n"), await file("b.ts", "g(2);\n")];
    const compiled = compileQuery({ pattern: "g($A)" }, "typescript");
    const before = treeReleaseProcess.runs;
    await scanFiles(files, new Map([["typescript", compiled]]));
    // Not while the caller still holds the answer (no timer runs before this continuation)…
    expect(treeReleaseProcess.runs).toBe(before);
    // …but soon after (Bun collects through Bun.gc, Node through a run-time --expose-gc).
    await new Promise((resolve) => setTimeout(resolve, TREE_RELEASE_DEFAULTS.releaseDelayMs + 50));
    expect(treeReleaseProcess.runs).toBe(before + 1);
  });

  test("later releases asked for close together run once", async () => {
    const before = treeReleaseProcess.runs;
    releaseTreesLater();
    releaseTreesLater();
    await new Promise((resolve) => setTimeout(resolve, TREE_RELEASE_DEFAULTS.releaseDelayMs + 50));
    expect(treeReleaseProcess.runs).toBe(before + 1);
  });

  test("counts the files whose native results arrive after findInFiles has resolved", async () => {
    // With the main thread busy while the native side finishes, the results and the promise's
    // resolution are all queued at once and may be delivered in any order; the scan waits for
    // as many results as findInFiles reports.
    const files: RunFile[] = [];
    for (let index = 0; index < 300; index++) files.push(await file(`late${String(index).padStart(3, "0")}.ts`, `h(${index});\nother();\n`));
    const compiled = compileQuery({ pattern: "h($A)" }, "typescript");
    for (let round = 0; round < 4; round++) {
      // The last round waits for late results in each of several batches.
      const tuning = round === 3 ? { batchBytes: 2_000 } : {};
      // Keeps this thread mostly busy, so native results pile up between its turns.
      const busy = setInterval(() => {
        const until = Date.now() + 20;
        while (Date.now() < until) {
          // busy
        }
      }, 1);
      const result = await scanFiles(files, new Map([["typescript", compiled]]), { listLimit: 3, tuning }).finally(() => clearInterval(busy));
      expect(result.matched).toHaveLength(300);
      expect(result.matched.every((scanned) => scanned.count === 1)).toBe(true);
      expect(result.matched.slice(0, 3).map((scanned) => scanned.matches[0]!.captures.A)).toEqual(["0", "1", "2"]);
    }
  });

  test("matches natively in batches bounded by source bytes, with the unbatched answer", async () => {
    const files: RunFile[] = [];
    for (let index = 0; index < 40; index++) {
      const body = index % 3 === 0 ? "nothing();\n" : `k(${index}); k(${index + 100});\n`.repeat(1 + (index % 4));
      files.push(await file(`b${String(index).padStart(2, "0")}.ts`, `k(0);\n${body}`));
    }
    const compiled = compileQuery({ pattern: "k($A)" }, "typescript");
    // The module scan.ts requires: each findInFiles call is recorded with its number of paths.
    type Find = (language: string, config: { paths: string[] }, callback: unknown) => Promise<number>;
    const napi = createRequire(import.meta.url)("@ast-grep/napi") as { findInFiles: Find };
    const original = napi.findInFiles;
    const calls: number[] = [];
    napi.findInFiles = (language, config, callback) => {
      calls.push(config.paths.length);
      return original(language, config, callback);
    };
    const scan = async (bytes: number): Promise<ScanResult> => {
      calls.length = 0;
      return scanFiles(files, new Map([["typescript", compiled]]), { listLimit: 7, tuning: { batchBytes: bytes } });
    };
    try {
      const whole = await scan(Number.MAX_SAFE_INTEGER);
      expect(calls).toEqual([40]);
      const batched = await scan(100);
      expect(calls.length).toBeGreaterThan(5);
      expect(calls.reduce((sum, paths) => sum + paths, 0)).toBe(40);
      expect(batched).toEqual(whole);
      expect(batched.matched).toHaveLength(40);
      expect(batched.matched.reduce((sum, scanned) => sum + scanned.count, 0)).toBe(whole.matched.reduce((sum, scanned) => sum + scanned.count, 0));
    } finally {
      napi.findInFiles = original;
    }
  });

  test("batches close before they would pass the byte limit; a larger file goes alone", () => {
    const sizes = new Map([
      [0, 40],
      [1, 50],
      [2, 20],
      [3, 500],
      [4, 10],
      [5, 100],
    ]);
    expect(batchBySize([0, 1, 2, 3, 4, 5], sizes, 100)).toEqual([[0, 1], [2], [3], [4], [5]]);
    expect(batchBySize([], sizes, 100)).toEqual([]);
  });

  test("trees are released with full collections while they are cheap next to the matching, young ones after", async () => {
    const release = new TreeRelease(TREE_RELEASE_DEFAULTS.fullCollectionShare);
    // A minute of matching makes any full collection cheap.
    await release.after(60_000);
    expect(release.young).toBe(false);
    // No matching time at all: the next full collection is too dear, and the run switches for good.
    await release.after(0);
    expect(release.young).toBe(true);
    await release.after(60_000);
    expect(release.young).toBe(true);
  });

  test("rules out on bytes, decodes UTF-16, and counts what it cannot read", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("target(1);\n", "utf16le")]);
    const files = [
      await file("plain.ts", "target(2);\n"),
      await file("other.ts", "nothing(3);\n"),
      await file("wide.ts", utf16),
      await file("binary.ts", Buffer.from([0x74, 0x61, 0x72, 0x67, 0x65, 0x74, 0x00, 0x01])),
      await file("big.ts", `target(4);\n${"x".repeat(LIMITS.intel.run.maxFileBytes)}`),
      await file("skip.py", "target(5)\n", "python"),
    ];
    const compiled = compileQuery({ pattern: "target($N)" }, "typescript");
    const result = await scanFiles(files, new Map([["typescript", compiled]]));
    expect(result).toMatchObject({ considered: 5, ruledOut: 1, parsed: 2, unreadable: ["binary.ts"], tooLarge: ["big.ts"] });
    expect(result.matched.map((scanned) => [scanned.file.display, scanned.matches[0]!.captures.N])).toEqual([
      ["plain.ts", "2"],
      ["wide.ts", "1"],
    ]);
  });
});
