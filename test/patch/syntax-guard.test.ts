import { describe, expect, spyOn, test } from "bun:test";
import { ToolError } from "../../src/core/errors.ts";
import { LIMITS } from "../../src/core/limits.ts";
import * as languages from "../../src/syntax/index.ts";
import { refuseRegression, SyntaxGuard, type SyntaxReport } from "../../src/patch/syntax-guard.ts";

const guard = new SyntaxGuard();
type Args = Parameters<SyntaxGuard["inspect"]>;

async function reportOf(...args: Args): Promise<SyntaxReport> {
  return (await guard.inspect(...args)).report;
}

/** The guard as the write pipeline applies it: the report, or a syntax_regression refusal. */
async function checkSyntax(...args: Args): Promise<SyntaxReport> {
  return refuseRegression(args[0], await reportOf(...args));
}

async function refusal(run: () => Promise<unknown>): Promise<ToolError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}

describe("source languages", () => {
  const good = "export function f(a: number) {\n  return a + 1;\n}\n";

  test("a clean edit passes with its counts", async () => {
    const report = await checkSyntax("src/a.ts", "typescript", good, good.replace("a + 1", "a + 2"));
    expect(report).toEqual({ checked: true, language: "typescript", beforeErrors: 0, afterErrors: 0, newErrors: [] });
  });

  test("an edit that adds an error is refused with the new error's place", async () => {
    const broken = good.replace("return a + 1;", "return a + ;");
    const error = await refusal(() => checkSyntax("src/a.ts", "typescript", good, broken));
    expect(error.code).toBe("syntax_regression");
    expect(error.message).toContain("src/a.ts");
    expect(error.message).toContain("line 2");
    expect(error.details).toMatchObject({ language: "typescript", beforeErrors: 0, afterErrors: 1 });
    expect(error.details!.newErrors).toEqual([{ line: 2, column: 13, text: "", message: "missing \"identifier\"" }]);
  });

  test("the report says the same without refusing", async () => {
    const report = await reportOf("src/a.ts", "typescript", good, good.replace("(a: number)", "(a: number"));
    expect(report.checked).toBe(true);
    expect(report.afterErrors).toBeGreaterThan(0);
    expect(report.newErrors.length).toBeGreaterThan(0);
    expect(report.newErrors[0]!.line).toBe(1);
  });

  test("errors the original already had are tolerated and not listed as new, even when lines move", async () => {
    const before = "def f(:\n    pass\n\nx = 1\n";
    const after = "import os\n\ndef f(:\n    pass\n\nx = 2\n";
    const report = await checkSyntax("a.py", "python", before, after);
    expect(report.beforeErrors).toBe(1);
    expect(report.afterErrors).toBe(1);
    expect(report.newErrors).toEqual([]);
  });

  test("with errors before, only the added ones are listed", async () => {
    const before = "def f(:\n    pass\n";
    const after = "def f(:\n    pass\n\nprint(1\n";
    const error = await refusal(() => checkSyntax("a.py", "python", before, after));
    const newErrors = error.details!.newErrors as Array<{ line: number }>;
    expect(newErrors.length).toBe(1);
    expect(newErrors[0]!.line).toBeGreaterThanOrEqual(4);
  });

  test("fixing errors is always allowed", async () => {
    expect((await checkSyntax("a.go", "go", "package main\nfunc main() {\n", "package main\nfunc main() {}\n")).afterErrors).toBe(0);
  });

  test("a new file (no before) must be clean", async () => {
    expect((await checkSyntax("new.rs", "rust", undefined, "fn main() {}\n")).checked).toBe(true);
    expect((await refusal(() => checkSyntax("new.rs", "rust", undefined, "fn main() {\n"))).code).toBe("syntax_regression");
  });

  test("the listing is bounded", async () => {
    const after = Array.from({ length: LIMITS.patch.maxListedSyntaxErrors + 10 }, (_, index) => `let v${index} = (1 + ;`).join("\n");
    const report = await reportOf("a.ts", "typescript", "", after);
    expect(report.afterErrors).toBeGreaterThan(LIMITS.patch.maxListedSyntaxErrors);
    expect(report.newErrors.length).toBe(LIMITS.patch.maxListedSyntaxErrors);
  });
});

describe("statements", () => {
  test("a candidate's statements are remembered once read out, and asking again for them parses nothing", async () => {
    const before = "export const a = 1;\n";
    const after = `${before}\nexport function b() {\n  return 2;\n}\n// ${Date.now()}\n`;
    const first = await guard.inspect("s.ts", "typescript", before, after, { statements: true });
    expect(first.statements?.length).toBe(3);
    // Read out of the tree after the caller moved on.
    await new Promise((resolve) => setImmediate(resolve));
    expect(guard.knownStatements("typescript", after)?.length).toBe(3);
    const parses = [spyOn(languages, "parseTreeAsync"), spyOn(languages, "parseSourceAsync")];
    try {
      const again = await guard.inspect("s.ts", "typescript", before, after, { statements: true });
      expect(parses.map((spy) => spy.mock.calls.length)).toEqual([0, 0]);
      expect(Array.from({ length: again.statements?.length ?? 0 }, (_, index) => again.statements?.at(index).start)).toEqual(
        Array.from({ length: first.statements?.length ?? 0 }, (_, index) => first.statements?.at(index).start),
      );
    } finally {
      for (const spy of parses) spy.mockRestore();
    }
  });
});

describe("documents must parse", () => {
  test("JSON", async () => {
    expect((await checkSyntax("a.json", "json", "{\"a\": 1}\n", "{\"a\": 2}\n")).checked).toBe(true);
    const error = await refusal(() => checkSyntax("a.json", "json", "{\"a\": 1}\n", "{\n  \"a\": 2,\n}\n"));
    expect(error.code).toBe("syntax_regression");
    expect(error.message).toContain("not be valid JSON");
    expect((error.details!.newErrors as Array<{ line: number }>)[0]!.line).toBe(3);
  });

  test("JSONC accepts comments and trailing commas but not broken structure", async () => {
    expect((await checkSyntax("tsconfig.json", "jsonc", "{}\n", "{\n  // c\n  \"a\": [1,],\n}\n")).afterErrors).toBe(0);
    const error = await refusal(() => checkSyntax("tsconfig.json", "jsonc", "{}\n", "{\n  \"a\": [1\n}\n"));
    expect((error.details!.newErrors as Array<{ line: number }>)[0]!.line).toBe(3);
  });

  test("TOML", async () => {
    expect((await checkSyntax("a.toml", "toml", "a = 1\n", "a = 2\n[b]\nc = \"x\"\n")).afterErrors).toBe(0);
    const error = await refusal(() => checkSyntax("a.toml", "toml", "a = 1\n", "a = 1\nb = \n"));
    expect(error.details!.newErrors).toMatchObject([{ line: 2 }]);
  });

  test("YAML, every document of a stream", async () => {
    expect((await checkSyntax("a.yaml", "yaml", "a: 1\n", "a: 1\n---\nb: [1, 2]\n")).afterErrors).toBe(0);
    const error = await refusal(() => checkSyntax("a.yaml", "yaml", "a: 1\n", "a: 1\n---\nb: [1, 2\n"));
    expect(error.message).toContain("YAML");
    expect((error.details!.newErrors as Array<{ line: number }>)[0]!.line).toBeGreaterThanOrEqual(3);
  });

  test("YAML with many aliases is valid syntax (no alias-expansion limit here)", async () => {
    const aliases = Array.from({ length: LIMITS.document.maxYamlAliasCount + 50 }, (_, index) => `k${index}: *a`).join("\n");
    expect((await checkSyntax("a.yaml", "yaml", undefined, `base: &a [1, 2]\n${aliases}\n`)).afterErrors).toBe(0);
  });

  test("a document that did not parse before must still parse after, and the refusal says so", async () => {
    const error = await refusal(() => checkSyntax("a.json", "json", "{", "{ "));
    expect(error.message).toContain("did not parse as JSON either");
    expect((await reportOf("a.json", "json", "{", "{}")).afterErrors).toBe(0);
  });
});

describe("unchecked languages", () => {
  test("unknown language: checked false with a note", async () => {
    const report = await checkSyntax("notes.txt", null, "a", "b(");
    expect(report).toMatchObject({ checked: false, language: null, newErrors: [] });
    expect(report.note).toContain("not known");
  });

  test("a language without a parser: checked false with a note", async () => {
    const report = await checkSyntax("a.cob", "cobol" as languages.LanguageId, "a", "b(");
    expect(report.checked).toBe(false);
    expect(report.note).toContain("cobol");
  });

  test("a language whose parser did not load or failed is refused (syntax_unchecked), not passed unchecked", async () => {
    const spies = [
      spyOn(languages, "parseSourceAsync").mockResolvedValue(undefined),
      spyOn(languages, "syntaxTreeUnavailable").mockReturnValue("No such file or directory (os error 2)"),
    ];
    try {
      const report = await reportOf("c.py", "python", undefined, "def (((:\n");
      expect(report).toMatchObject({ checked: false, cannotCheck: expect.stringContaining("os error 2") });
      expect((await refusal(() => checkSyntax("c.py", "python", undefined, "def (((:\n"))).code).toBe("syntax_unchecked");
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    const crash = spyOn(languages, "parseSourceAsync").mockRejectedValue(new Error("parser crashed"));
    try {
      expect((await reportOf("d.py", "python", undefined, "x = 1\n")).cannotCheck).toContain("parser crashed");
      expect((await refusal(() => checkSyntax("d.py", "python", undefined, "x = 1\n"))).code).toBe("syntax_unchecked");
    } finally {
      crash.mockRestore();
    }
    // A language that never had a parser is still written unchecked.
    expect((await checkSyntax("a.cob", "cobol" as languages.LanguageId, "a", "b(")).checked).toBe(false);
  });

  test("markdown parses but never errs", async () => {
    expect((await checkSyntax("README.md", "markdown", "# a\n", "# a\n```\n")).checked).toBe(true);
  });
});

describe("statements", () => {
  const good = "export function g(a: number) {\n  return a * 3;\n}\n";

  test("asked for statements, it returns the candidate's top-level statements from the same parse", async () => {
    const candidate = `// lead\nimport { a } from "a";\n${good}export { b } from "b";\nexport const c = 1;\n`;
    const { report, statements } = await guard.inspect("src/s.ts", "typescript", undefined, candidate, { statements: true });
    expect(report.afterErrors).toBe(0);
    const read = Array.from({ length: statements?.length ?? 0 }, (_, index) => statements?.at(index));
    expect(read.map((statement) => [statement?.kind, statement?.namesModule, statement?.startLine])).toEqual([
      ["comment", false, 0],
      ["import_statement", true, 1],
      ["export_statement", false, 2],
      ["export_statement", true, 5],
      ["export_statement", false, 6],
    ]);
    const imported = statements?.at(1);
    expect(candidate.slice(imported?.start, imported?.end)).toBe("import { a } from \"a\";");
    // A text whose errors are remembered is parsed again when its statements are wanted.
    expect((await guard.inspect("src/s.ts", "typescript", undefined, candidate, { statements: true })).statements?.length).toBe(5);
    // Without the option nothing extra is computed.
    expect((await guard.inspect("src/s.ts", "typescript", undefined, `${candidate}\n`)).statements).toBeUndefined();
  });
});
