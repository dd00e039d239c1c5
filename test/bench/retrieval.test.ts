/** The retrieval bench builds its tasks deterministically and scores rankings as its header says. */
import { describe, expect, test } from "bun:test";
import { blankDocs, conceptQuery, lookups, type Prepared, quality, type Ranked, seededSample, type Task } from "../../bench/retrieval.ts";
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
