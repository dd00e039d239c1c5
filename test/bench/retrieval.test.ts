/** The retrieval bench builds its tasks deterministically and scores rankings as its header says. */
import { describe, expect, test } from "bun:test";
import {
  blankDocs,
  blankedFile,
  conceptQuery,
  type Definition,
  lookups,
  type Prepared,
  quality,
  type Ranked,
  relatedQuality,
  relationOf,
  type Relations,
  seededSample,
  type Task,
  TREES,
} from "../../bench/retrieval.ts";
import { extractFacts } from "../../src/intel/facts/extract.ts";

describe("tasks", () => {
  test("a doc sentence becomes a query without the function's name and name-words, only when 8 words stay", () => {
    expect(conceptQuery("ReadFull", "ReadFull reads exactly len(buf) bytes from r into buf, or fails with an error.")).toBe(
      "reads exactly len(buf) bytes from r into buf, or fails with an error.",
    );
    expect(conceptQuery("get_random_string", "Return a securely generated random string of the given length.")).toBe(
      "Return a securely generated of the given length.",
    );
    expect(conceptQuery("Count", "Count counts the non-overlapping instances of substr.")).toBeUndefined();
  });

  test("doc comments are blanked with their lines kept, and the file parses to the same symbols", () => {
    const go = "package p\n\n// Sum adds the numbers\n// and returns the total.\nfunc Sum(xs []int) int {\n\treturn 0 // none yet\n}\n";
    const goSymbols = extractFacts("go", go).symbols;
    const blankedGo = blankDocs("go", go, goSymbols);
    expect(blankedGo.split("\n")).toHaveLength(go.split("\n").length);
    expect(blankedGo).not.toContain("adds");
    expect(blankedGo).toContain("// none yet");
    expect(extractFacts("go", blankedGo).symbols.map((symbol) => [symbol.name, symbol.startLine, symbol.endLine])).toEqual([["Sum", 5, 7]]);

    const python = "def total(xs: list[int],\n          start: int = 0) -> int:\n    \"\"\"Add the numbers.\n\n    Longer text.\n    \"\"\"\n    return sum(xs, start)\n";
    const blankedPython = blankDocs("python", python, extractFacts("python", python).symbols);
    expect(blankedPython.split("\n")).toHaveLength(python.split("\n").length);
    expect(blankedPython).not.toContain("Add the numbers");
    expect(blankedPython).toContain("\"\"\"");
    expect(blankedPython).toContain("return sum(xs, start)");

    const typescript = "/**\n * Joins the parts.\n * @since 1.0\n */\nexport const join = (parts: string[]) => parts.join(\"\");\n";
    const blankedTypescript = blankDocs("typescript", typescript, []);
    expect(blankedTypescript).not.toContain("Joins");
    expect(blankedTypescript.split("\n")).toHaveLength(typescript.split("\n").length);
    expect(blankedTypescript).toContain("/**");
  });

  test("a file is blanked as it is indexed, its documented functions outside tests listed as tasks and every definition kept", () => {
    const go = "package p\n\n// Sum adds every number of the list given and returns the total of them.\nfunc Sum(xs []int) int {\n\treturn 0\n}\n\nfunc helper() {}\n";
    const candidates: Task[] = [];
    const definitions: Record<string, Definition[]> = Object.create(null);
    const blanked = blankedFile(TREES.xcrypto, "sum/sum.go", go, candidates, definitions);
    expect(blanked).not.toContain("adds");
    expect(candidates).toEqual([{ path: "sum/sum.go", name: "Sum", startLine: 4, endLine: 6, query: "adds every number of the list given and returns the total of them." }]);
    expect(Object.keys(definitions).sort()).toEqual(["Sum", "helper"]);
    // The same file as a test file gives definitions, no task.
    const fromTest: Task[] = [];
    blankedFile(TREES.xcrypto, "sum/sum_test.go", go, fromTest, Object.create(null));
    expect(fromTest).toEqual([]);
  });

  test("the sample is the same for the same seed, and in the order of the candidates", () => {
    const items = Array.from({ length: 50 }, (_, index) => index);
    const sample = seededSample(items, 10, 18);
    expect(seededSample(items, 10, 18)).toEqual(sample);
    expect(seededSample(items, 10, 19)).not.toEqual(sample);
    expect([...sample].sort((a, b) => a - b)).toEqual(sample);
    expect(new Set(sample).size).toBe(10);
  });
});

describe("scoring", () => {
  const task: Task = { path: "a.go", name: "Sum", startLine: 10, endLine: 20, query: "adds the numbers" };

  test("file accuracy, MRR and function hits count the first result in the task's file and results overlapping its lines", () => {
    const rankings: Ranked[][] = [
      [
        { path: "b.go", startLine: 1, endLine: 5 },
        { path: "a.go", startLine: 30, endLine: 40 },
        { path: "a.go", startLine: 18, endLine: 25 },
      ],
    ];
    const chunks = quality([task], rankings, (path) => path.endsWith("_test.go"), true);
    expect(chunks).toMatchObject({ acc1: 0, acc5: 1, acc10: 1, mrr10: 0.5, functionHit10: 1, firstIsTest: 0 });
    const files = quality([task], [[{ path: "a_test.go" }]], (path) => path.endsWith("_test.go"), false);
    expect(files).toMatchObject({ acc10: 0, firstIsTest: 1 });
    expect(files.functionHit10).toBeUndefined();
  });

  test("a name lookup counts when its first result is any definition of the name", () => {
    const prepared: Prepared = {
      root: "/",
      files: ["a.go", "b.go"],
      tasks: [task],
      definitions: { Sum: [task, { path: "b.go", name: "Sum", startLine: 3, endLine: 4 }] },
    };
    expect(lookups(prepared, [[{ path: "b.go", startLine: 3, endLine: 3 }]])).toEqual({ first: 1, top10: 1 });
    expect(lookups(prepared, [[{ path: "c.go", startLine: 3, endLine: 3 }, { path: "a.go", startLine: 12, endLine: 12 }]])).toEqual({ first: 0, top10: 1 });
  });
});

describe("find_related", () => {
  // Sum (a.go 10-20) is a method of Totals, calls helper (b.go 1-5); c.go 7-9 calls Sum; Mean (a.go 22-30) is its sibling.
  const task: Task = { path: "a.go", name: "Sum", startLine: 10, endLine: 20, query: "adds the numbers" };
  const relations: Relations = {
    files: new Map([
      ["a.go", {
        definitions: [{ name: "Sum", parent: "Totals", startLine: 10, endLine: 20 }, { name: "Mean", parent: "Totals", startLine: 22, endLine: 30 }],
        calls: [{ name: "helper", line: 12 }],
      }],
      ["b.go", { definitions: [{ name: "helper", startLine: 1, endLine: 5 }, { name: "other", startLine: 7, endLine: 9 }], calls: [] }],
      ["c.go", { definitions: [{ name: "caller", startLine: 6, endLine: 10 }], calls: [{ name: "Sum", line: 8 }] }],
    ]),
  };

  test("a result is a caller when it holds a call of the name, a callee when it defines a name the function calls, a sibling when it shares the class", () => {
    expect(relationOf(task, { path: "c.go", startLine: 6, endLine: 10 }, relations)).toBe("caller");
    expect(relationOf(task, { path: "c.go", startLine: 1, endLine: 5 }, relations)).toBe("none");
    expect(relationOf(task, { path: "b.go", startLine: 1, endLine: 5 }, relations)).toBe("callee");
    expect(relationOf(task, { path: "b.go", startLine: 7, endLine: 9 }, relations)).toBe("none");
    expect(relationOf(task, { path: "a.go", startLine: 22, endLine: 30 }, relations)).toBe("sibling");
    expect(relationOf(task, { path: "a.go", startLine: 31, endLine: 40 }, relations)).toBe("none");
  });

  test("precision counts related results among all, and a caller is looked for only when the name is called somewhere", () => {
    const measured = relatedQuality(
      [task],
      [[{ path: "b.go", startLine: 7, endLine: 9 }, { path: "c.go", startLine: 6, endLine: 10 }, { path: "a.go", startLine: 22, endLine: 30 }, {
        path: "a.go",
        startLine: 31,
        endLine: 40,
      }]],
      relations,
    );
    expect(measured).toMatchObject({ precision10: 0.5, first: 0, callerFound: 1, callerTasks: 1, counts: { caller: 1, callee: 0, sibling: 1, none: 2 } });
    const uncalled = relatedQuality([{ ...task, name: "Mean", startLine: 22, endLine: 30 }], [[{ path: "a.go", startLine: 10, endLine: 20 }]], relations);
    expect(uncalled).toMatchObject({ precision10: 1, first: 1, callerTasks: 0 });
  });
});
