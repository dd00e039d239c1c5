/**
 * Unresolved candidates over hand-built facts: whole-word occurrences, when an import path may name
 * a module of the tree, the scan's byte bound, and the call graph keeping an answer per generation.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { CallGraph } from "../../../src/intel/calls/call-graph.ts";
import { ImportGraph } from "../../../src/intel/graph/import-graph.ts";
import { callCandidates, externalsInTree, inProse, mayName, moduleSegments, rebinds, specifierSegments, wordOccurrences } from "../../../src/intel/calls/candidates.ts";
import type { GraphFile } from "../../../src/intel/graph/types.ts";
import { call, imp, makeRepo, type Repo, sym } from "../graph/fixture.ts";

describe("wordOccurrences", () => {
  test("finds the name only as a whole word", () => {
    const text = "run(); rerun(); run_fast(); obj.run(); $run; run";
    expect(wordOccurrences(text, "run")).toEqual([0, 32, 45]);
  });

  test("a name absent from the text gives nothing", () => {
    expect(wordOccurrences("nothing here", "absent")).toEqual([]);
  });
});

describe("prose and bindings on a line", () => {
  const at = (line: string, name: string) => line.indexOf(name);

  test("a string literal or a trailing comment is prose; code around it, and a template's ${…}, is not", () => {
    expect(inProse("'Used by copy and pickle.'", at("'Used by copy and pickle.'", "copy"), "python")).toBe(true);
    expect(inProse("x = 1  # see copy", at("x = 1  # see copy", "copy"), "python")).toBe(true);
    expect(inProse("f(\"a\\\"b\", copy)", at("f(\"a\\\"b\", copy)", "copy"), "typescript")).toBe(false);
    expect(inProse("const s = `${copy(x)}`;", at("const s = `${copy(x)}`;", "copy"), "typescript")).toBe(false);
    expect(inProse("const s = `copy`; // copy", "const s = `copy`; // copy".lastIndexOf("copy"), "typescript")).toBe(true);
    expect(inProse("const s = `copy`;", at("const s = `copy`;", "copy"), "typescript")).toBe(true);
    expect(inProse("handlers = [copy]", at("handlers = [copy]", "copy"), "python")).toBe(false);
    expect(inProse("fn run<'a>(x: &'a str) { copy(x) }", at("fn run<'a>(x: &'a str) { copy(x) }", "copy"), "rust")).toBe(false);
  });

  test("a parameter, a keyword argument, an assignment to the name or a declaration binds it; an assignment from it does not", () => {
    expect(rebinds("def shutdown(self, wait=True):", at("def shutdown(self, wait=True):", "wait"), 4)).toBe(true);
    expect(rebinds("wait = 3", 0, 4)).toBe(true);
    expect(rebinds("def wait():", at("def wait():", "wait"), 4)).toBe(true);
    expect(rebinds("insort = insort_right", at("insort = insort_right", "insort_right"), 12)).toBe(false);
    expect(rebinds("if wait == 3:", at("if wait == 3:", "wait"), 4)).toBe(false);
  });
});

describe("module paths", () => {
  test("an import path's segments per language", () => {
    expect(specifierSegments("\"net/http\"", "go")).toEqual(["net", "http"]);
    expect(specifierSegments("django.utils.crypto", "python")).toEqual(["django", "utils", "crypto"]);
    expect(specifierSegments("..crypto_old", "python")).toEqual(["crypto_old"]);
    expect(specifierSegments("../fmt/util.js", "typescript")).toEqual(["fmt", "util"]);
  });

  test("a file's module below its root: a Go package is its folder, an index file its folder", () => {
    expect(moduleSegments({ real: "/r/src/net/http/server.go", rootReal: "/r", language: "go" })).toEqual(["src", "net", "http"]);
    expect(moduleSegments({ real: "/r/utils/crypto.py", rootReal: "/r", language: "python" })).toEqual(["utils", "crypto"]);
    expect(moduleSegments({ real: "/r/pkg/__init__.py", rootReal: "/r", language: "python" })).toEqual(["pkg"]);
    expect(moduleSegments({ real: "/r/src/fmt/index.ts", rootReal: "/r", language: "typescript" })).toEqual(["src", "fmt"]);
  });

  test("an import path names a module when their tails agree wholly on one side or on two segments", () => {
    expect(mayName(["net", "http"], ["src", "net", "http"])).toBe(true);
    expect(mayName(["django", "utils", "crypto"], ["utils", "crypto"])).toBe(true);
    expect(mayName(["github.com", "acme", "server"], ["server"])).toBe(true);
    expect(mayName(["lodash"], ["src", "fmt", "util"])).toBe(false);
    expect(mayName(["net", "http"], ["vendor", "x", "http"])).toBe(false);
  });

  test("a one-segment import path names only a top-level module, not a project's module of that name", () => {
    expect(mayName(["fmt"], ["src", "fmt"])).toBe(true);
    expect(mayName(["fmt"], ["fmt"])).toBe(true);
    expect(mayName(["logging"], ["app", "logging"])).toBe(false);
    expect(mayName(["errors"], ["pkg", "internal", "errors"])).toBe(false);
  });
});

describe("callCandidates", () => {
  let repo: Repo;
  let reads = 0;
  const read = async (file: GraphFile) => {
    reads++;
    return readFile(file.real, "utf8");
  };
  const size = (file: GraphFile) => statSync(file.real).size;

  beforeAll(async () => {
    repo = await makeRepo({
      "lib/util.py": { content: "def helper():\n    pass\n", symbols: [sym("helper", { startLine: 1, endLine: 2 })] },
      "lib/more.py": { content: "from .util import helper\nHANDLERS = [helper]\n", imports: [imp(".util", "import", ["helper"])] },
      "app/main.py": { content: "from .gone import helper\n\nhelper()\n", imports: [imp(".gone", "import", ["helper"])], calls: [call("helper", { line: 3, column: 1 })] },
    });
  });

  afterAll(() => repo.cleanup());

  test("the call bound by an import that did not resolve, and a value in a file importing the target", async () => {
    const graph = await CallGraph.for(repo.index, repo.workspace);
    const target = graph.findSymbols("helper")[0]!;
    const found = await callCandidates(graph, target, new Set(), { read, size, scanText: true, maxScanBytes: 1_000_000, maxListed: 50 });
    expect(found.candidates.map((candidate) => `${candidate.file.slice(repo.root.length + 1)}:${candidate.line} ${candidate.reason} ${candidate.text}`)).toEqual([
      "app/main.py:3 unresolved_import helper()",
      "lib/more.py:2 value HANDLERS = [helper]",
    ]);
    expect(found.scanCut).toBeUndefined();
    expect(found.total).toBe(2);
  });

  test("lists at most maxListed, with the count of all", async () => {
    const graph = await CallGraph.for(repo.index, repo.workspace);
    const target = graph.findSymbols("helper")[0]!;
    const found = await callCandidates(graph, target, new Set(), { read, size, scanText: true, maxScanBytes: 1_000_000, maxListed: 1 });
    expect(found.candidates.map((candidate) => candidate.line)).toEqual([3]);
    expect(found.total).toBe(2);
  });

  test("a file that would take the scan past its byte bound is not read, and the answer says how many were", async () => {
    const graph = await CallGraph.for(repo.index, repo.workspace);
    const target = graph.findSymbols("helper")[0]!;
    expect(await callCandidates(graph, target, new Set(), { read, size, scanText: true, maxScanBytes: 1, maxListed: 50 })).toMatchObject({ scanCut: { scanned: 0, files: 2 } });
    // The bound holds the target's file, not lib/more.py after it: that one is left unread whole, not read past the bound.
    const bound = statSync(repo.real("lib/util.py")).size + 10;
    expect(bound).toBeLessThan(statSync(repo.real("lib/util.py")).size + statSync(repo.real("lib/more.py")).size);
    const seen: string[] = [];
    const found = await callCandidates(graph, target, new Set(), {
      read: (file) => (seen.push(file.display), read(file)),
      size,
      scanText: true,
      maxScanBytes: bound,
      maxListed: 50,
    });
    expect(found.scanCut).toEqual({ scanned: 1, files: 2 });
    expect(seen).not.toContain("lib/more.py");
    expect(found.candidates.map((candidate) => `${candidate.file.slice(repo.root.length + 1)}:${candidate.line}`)).toEqual(["app/main.py:3"]);
  });

  test("each file is read once: the lines of its candidates come from the scan's read", async () => {
    const graph = await CallGraph.for(repo.index, repo.workspace);
    const target = graph.findSymbols("helper")[0]!;
    const seen: string[] = [];
    const found = await callCandidates(graph, target, new Set(), {
      read: (file) => (seen.push(file.display), read(file)),
      size,
      scanText: true,
      maxScanBytes: 1_000_000,
      maxListed: 50,
    });
    expect(found.candidates.map((candidate) => candidate.text)).toEqual(["helper()", "HANDLERS = [helper]"]);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen).size).toBe(seen.length);
  });

  test("the call graph keeps a derived answer for its generation, and computes it again after a change", async () => {
    let graph = await CallGraph.for(repo.index, repo.workspace);
    const target = graph.findSymbols("helper")[0]!;
    const scan = () => callCandidates(graph, target, new Set(), { read, size, scanText: true, maxScanBytes: 1_000_000, maxListed: 50 });
    await graph.derived("candidates", scan);
    const before = reads;
    await graph.derived("candidates", scan);
    expect(reads).toBe(before);
    await repo.add("lib/other.py", "x = 1\n");
    graph = await CallGraph.for(repo.index, repo.workspace);
    await graph.derived("candidates", scan);
    expect(reads).toBeGreaterThan(before);
  });
});

describe("a file with thousands of imports", () => {
  const COUNT = 2000;
  let repo: Repo;

  beforeAll(async () => {
    // A generated barrel: every import is its own statement, and the name is used through each.
    const lines = Array.from({ length: COUNT }, (_, index) => `import * as m${index} from "./gone${index}";`);
    const uses = Array.from({ length: COUNT }, (_, index) => `m${index}.helper;`);
    const resolved = Array.from({ length: COUNT }, (_, index) => `import * as u${index} from "./util";`);
    repo = await makeRepo({
      "src/util.ts": { content: "export function helper() {}\n", symbols: [sym("helper", { startLine: 1, endLine: 1 })] },
      "src/many.ts": {
        content: [...lines, "import { helper } from \"./util\";", ...uses, ...resolved, ""].join("\n"),
        imports: [
          ...lines.map((_, index) => imp(`./gone${index}`, "import", [[`m${index}`, "*"]], index + 1)),
          imp("./util", "import", ["helper"], COUNT + 1),
          ...resolved.map((_, index) => imp("./util", "import", [[`u${index}`, "*"]], 2 * COUNT + 2 + index)),
        ],
      },
    });
  });

  afterAll(() => repo.cleanup());

  /** Calls of the graph's per-file lists for src/many.ts while `run` runs. */
  async function lookups(graph: ImportGraph, run: () => unknown): Promise<number> {
    const many = repo.real("src/many.ts");
    const edges = spyOn(graph, "dependenciesOf");
    const unresolved = spyOn(graph, "unresolvedOf");
    try {
      await run();
      return [...edges.mock.calls, ...unresolved.mock.calls].filter(([real]) => real === many).length;
    } finally {
      edges.mockRestore();
      unresolved.mockRestore();
    }
  }

  test("its imports are looked up in the graph once for the file, not once per import", async () => {
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    const file = repo.index.get(repo.real("src/many.ts"))!;
    let found: ReturnType<typeof externalsInTree> = [];
    expect(await lookups(graph, () => (found = externalsInTree(graph, [file])))).toBeLessThanOrEqual(2);
    expect(found).toEqual([]);
  });

  test("the scan for candidates looks the file's imports up once, not once per occurrence", async () => {
    const calls = await CallGraph.for(repo.index, repo.workspace);
    const target = calls.findSymbols("helper")[0]!;
    let found: Awaited<ReturnType<typeof callCandidates>> | undefined;
    const options = {
      read: (file: GraphFile) => readFile(file.real, "utf8"),
      size: (file: GraphFile) => statSync(file.real).size,
      scanText: true,
      maxScanBytes: 1e7,
      maxListed: 5,
    };
    // Once for the files importing the target (the scan's scope), once for the scan.
    expect(await lookups(calls.imports, async () => (found = await callCandidates(calls, target, new Set(), options)))).toBeLessThanOrEqual(4);
    // Every use through an import that did not resolve is a candidate with that import's reason.
    expect(found!.total).toBe(COUNT);
    expect(found!.candidates[0]).toMatchObject({ line: COUNT + 2, reason: "unresolved_import", specifier: "./gone0", text: "m0.helper;" });
  });
});
