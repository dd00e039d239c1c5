/** run through its handler: patterns that do not parse, and patterns that run in another form. */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { runTool } from "../../src/tools/run.ts";
import { runTool as call, toolFailure as failure } from "../support/context.ts";
import { useRunFixture } from "./run-fixture.ts";

const fx = useRunFixture("run-form-test");

const GO =
  "package main\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\nfunc f(x int) error {\n\tif x > 0 {\n\t\treturn fmt.Errorf(\"bad %d\", x)\n\t}\n\tfmt.Println(errors.New(\"boom\"))\n\treturn fmt.Errorf(\"plain\")\n}\n";

describe("run: patterns in the form that parses", () => {
  test("Go calls find what grep finds, and the answer says how the pattern ran", async () => {
    await fx.temp.write("main.go", GO);
    await fx.temp.write("util.go", "package main\n\nfunc g() { fmt.Println(1) }\n");
    for (const [pattern, expected] of [["fmt.Errorf($$$A)", 2], ["errors.New($A)", 1], ["fmt.Println($A)", 2]] as const) {
      const result = await call(runTool, { pattern }, fx.context);
      expect({ pattern, count: result.matchCount }).toEqual({ pattern, count: expected });
      expect(result.notes.some((note: string) => note.startsWith("go: the pattern parses as a type_conversion_expression on its own"))).toBe(true);
    }
    const located = await call(runTool, { pattern: "fmt.Errorf($$$A)", lang: "go" }, fx.context);
    expect(located.matches.map((match: { startLine: number; column: number }) => [match.startLine, match.column])).toEqual([
      [10, 10],
      [13, 9],
    ]);
    expect(located.literals.sort()).toEqual(["Errorf", "fmt"]);
  });

  test("a Go rewrite rewrites exactly the matches the search counted", async () => {
    await fx.temp.write("main.go", GO);
    const written = await call(runTool, { pattern: "fmt.Errorf($$$A)", rewrite: "errs.Wrapf($$$A)", write: true, expectedMatches: 2 }, fx.context);
    expect(written.mode).toBe("write");
    const text = await readFile(path.join(fx.temp.dir, "main.go"), "utf8");
    expect(text).toContain("return errs.Wrapf(\"bad %d\", x)");
    expect(text).toContain("return errs.Wrapf(\"plain\")");
    expect(text).not.toContain("fmt.Errorf");
  });

  test("a Java call that needs its ; is no longer skipped when no lang is given", async () => {
    await fx.temp.write("A.java", "class A {\n  void f() {\n    System.out.println(1);\n    System.out.println(2, 3);\n  }\n}\n");
    const result = await call(runTool, { pattern: "System.out.println($$$A)" }, fx.context);
    expect(result.matchCount).toBe(2);
    expect(result.languages).toEqual(["java"]);
  });
});

describe("run: a pattern that does not parse", () => {
  test("is invalid_input with its position inside the pattern and a hint, not 0 matches", async () => {
    await fx.temp.write("a.ts", "if (Option.isNone(x)) {}\n");
    for (const args of [{ pattern: "Option.isNone($X" }, { pattern: "Option.isNone($X", lang: "typescript" }]) {
      const refused = await failure(call(runTool, args, fx.context));
      expect(refused.code).toBe("invalid_input");
      expect(refused.message).toContain("the \"(\" at line 1, column 14 is not closed by the end of the pattern (line 1, column 17)");
      expect(refused.details).toMatchObject({ language: "typescript", line: 1, column: 14 });
      expect(refused.hint).toContain("selector");
    }
  });

  test("one that parses nowhere but that ast-grep accepts runs as given, and the answer says it may miss matches", async () => {
    await fx.temp.write("A.java", "class A {\n  @Override\n  public String toString() { return \"\"; }\n}\n");
    for (const args of [{ pattern: "@Override" }, { pattern: "@Override", lang: "java" }]) {
      const result = await call(runTool, args, fx.context);
      expect(result.matchCount).toBe(1);
      expect(result.notes.some((note: string) => note.startsWith("java: the pattern does not parse cleanly") && note.includes("may miss matches"))).toBe(true);
    }
  });

  test("run as given where it can run, the languages where it cannot are named in a note", async () => {
    await fx.temp.write("A.java", "class A { void f() { x y z; } }\n");
    await fx.temp.write("b.dart", "void f() { x; }\n");
    const result = await call(runTool, { pattern: "x y z" }, fx.context);
    expect(result.languages).toEqual(["java"]);
    expect(result.notes.some((note: string) => note.startsWith("java: the pattern does not parse cleanly"))).toBe(true);
    expect(result.notes.some((note: string) => note.startsWith("skipped languages the pattern cannot run in: dart ("))).toBe(true);
  });

  test("in every language in scope is refused; in some of them, those are skipped with a note", async () => {
    await fx.temp.write("a.ts", "f(1);\n");
    await fx.temp.write("b.go", "package b\n\nfunc g() { f(2) }\n");
    const refused = await failure(call(runTool, { pattern: "f($A" }, fx.context));
    expect(refused.code).toBe("invalid_input");
    expect(refused.message).toContain("go (");
    expect(refused.message).toContain("typescript (");
    const some = await call(runTool, { pattern: "f($A) as number" }, fx.context);
    expect(some.languages).toEqual(["typescript"]);
    expect(some.notes.some((note: string) => note.startsWith("skipped languages the pattern does not parse in: go"))).toBe(true);
  });
});
