/** The one-pass scan that ranks before the search index exists: BM25 over windows of text, query terms only. */
import { describe, expect, test } from "bun:test";
import { ColdScan, type ScannedFile } from "../../../src/intel/search/cold.ts";
import { queryTerms } from "../../../src/intel/search/tokenize.ts";

const file = (name: string): ScannedFile => ({ real: `/r/${name}`, display: name, language: "typescript" });
const lines = (count: number, line: string) => Array.from({ length: count }, () => line).join("\n");

describe("cold scan", () => {
  test("more occurrences rank higher, and a rarer term weighs more than a common one", () => {
    const scan = new ColdScan(queryTerms("parse duration"));
    scan.add(file("once.ts"), "const d = duration;\n");
    scan.add(file("twice.ts"), "const d = duration + duration;\n");
    for (let i = 0; i < 20; i++) scan.add(file(`common${i}.ts`), "parse(x);\n");
    const top = scan.top(3);
    expect(top.map((hit) => hit.file.display)).toEqual(["twice.ts", "once.ts", "common0.ts"]);
    expect(top[1]!.score).toBeGreaterThan(top[2]!.score);
  });

  test("identifiers count by their words, so parseDuration matches both terms", () => {
    const scan = new ColdScan(queryTerms("parse duration"));
    scan.add(file("a.ts"), "export function parseDuration() {}\n");
    scan.add(file("b.ts"), "export function parse() {}\n");
    expect(scan.top(2).map((hit) => hit.file.display)).toEqual(["a.ts", "b.ts"]);
  });

  test("a file is cut into 40-line windows, each with its own lines; files without a term still count as documents", () => {
    const scan = new ColdScan(["needle"]);
    scan.add(file("long.ts"), `${lines(45, "x();")}\nneedle();\n${lines(10, "y();")}`);
    scan.add(file("none.ts"), lines(100, "z();"));
    const [hit] = scan.top(5);
    expect(hit).toMatchObject({ startLine: 41, endLine: 56 });
    expect(scan.top(5)).toHaveLength(1);
    expect(scan.windows).toBe(2 + 3);
    expect(scan.files).toBe(2);
  });

  test("equal scores keep path and line order, so an answer repeats", () => {
    const scan = new ColdScan(["alpha"]);
    scan.add(file("b.ts"), "alpha\n");
    scan.add(file("a.ts"), "alpha\n");
    scan.add(file("c.py"), "alpha\n");
    expect(scan.top(5).map((hit) => hit.file.display)).toEqual(["a.ts", "b.ts", "c.py"]);
  });
});
