import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { LIMITS } from "../../src/core/limits.ts";
import {
  astGrepLanguageFor,
  collectGarbage,
  languageIdFromName,
  type LanguageId,
  LANGUAGES,
  packageRegistration,
  parseSource,
  patternExpandoFor,
  SCANNER_TOKENS,
  supportsSyntaxTree,
  TreeBudget,
} from "../../src/syntax/index.ts";
import { SNIPPETS } from "../intel/snippets.ts";

const REQUIRED: LanguageId[] = [
  "typescript",
  "tsx",
  "javascript",
  "html",
  "css",
  "python",
  "go",
  "rust",
  "java",
  "kotlin",
  "c",
  "cpp",
  "csharp",
  "ruby",
  "php",
  "swift",
  "scala",
  "lua",
  "bash",
  "elixir",
  "haskell",
  "dart",
  "sql",
  "json",
  "yaml",
  "toml",
  "markdown",
];

describe("language mapping", () => {
  test("every required language has a parser, and every detected language id is covered", () => {
    const supported = LANGUAGES.filter((id) => supportsSyntaxTree(id));
    for (const id of REQUIRED) expect(supported).toContain(id);
    expect(supported.sort()).toEqual([...LANGUAGES].sort());
  });

  test("built-in languages map to napi Lang names, the rest to their registered names", () => {
    expect(astGrepLanguageFor("typescript")).toBe("TypeScript");
    expect(astGrepLanguageFor("tsx")).toBe("Tsx");
    expect(astGrepLanguageFor("javascript")).toBe("JavaScript");
    expect(astGrepLanguageFor("html")).toBe("Html");
    expect(astGrepLanguageFor("css")).toBe("Css");
    expect(astGrepLanguageFor("python")).toBe("python");
    expect(astGrepLanguageFor("csharp")).toBe("csharp");
    expect(astGrepLanguageFor("jsonc")).toBe("json");
    expect(astGrepLanguageFor("Python")).toBe("python");
    expect(astGrepLanguageFor("cobol")).toBeUndefined();
    expect(supportsSyntaxTree("cobol")).toBe(false);
    expect(supportsSyntaxTree("rust")).toBe(true);
  });

  test("names a caller may type resolve to language ids", () => {
    expect(languageIdFromName("python")).toBe("python");
    expect(languageIdFromName("TypeScript")).toBe("typescript");
    expect(languageIdFromName("py")).toBe("python");
    expect(languageIdFromName(".rs")).toBe("rust");
    expect(languageIdFromName("jsx")).toBe("javascript");
    expect(languageIdFromName("klingon")).toBeUndefined();
    expect(languageIdFromName("a/b")).toBeUndefined();
    expect(languageIdFromName("")).toBeUndefined();
  });

  test("pattern expando characters come from the language packages", () => {
    expect(patternExpandoFor("typescript")).toBe("$");
    expect(patternExpandoFor("python")).toBe("µ");
    expect(patternExpandoFor("c")).toBe("_");
    expect(patternExpandoFor("cobol")).toBeUndefined();
  });

  test("several dynamic languages work side by side (napi keeps only the first registration)", () => {
    expect(parseSource("go", "package main\n")!.root.root().kind()).toBe("source_file");
    expect(parseSource("rust", "fn main() {}\n")!.root.root().kind()).toBe("source_file");
    expect(parseSource("python", "x = 1\n")!.root.root().kind()).toBe("module");
  });

  test("loading the language packages writes nothing to stdout", () => {
    const script = `import { parseSource } from ${JSON.stringify(join(import.meta.dir, "../../src/syntax/index.ts"))};
      const parsed = parseSource("markdown", "# hi\\n");
      process.stderr.write(String(parsed?.errorCount));`;
    const child = Bun.spawnSync([process.execPath, "-e", script], { env: { ...process.env, AST_MCP_LOG_LEVEL: "error" } });
    expect(child.stderr.toString()).toBe("0");
    expect(child.stdout.toString()).toBe("");
  });
});

describe("parseSource", () => {
  for (const [id, snippet] of Object.entries(SNIPPETS)) {
    test(`${id}: a valid snippet has no errors${snippet.broken ? ", a broken one errs on its line" : ""}`, () => {
      const valid = parseSource(id, snippet.valid);
      expect(valid).toBeDefined();
      expect(valid!.errors).toEqual([]);
      expect(valid!.errorCount).toBe(0);
      if (snippet.broken === "") return;
      const broken = parseSource(id, snippet.broken)!;
      expect(broken.errorCount).toBeGreaterThanOrEqual(1);
      expect(broken.errors.length).toBe(broken.errorCount);
      expect(broken.errors[0]!.line).toBe(snippet.brokenLine);
    });
  }

  test("errors in a CR-only text are located on its lines, as file_read numbers them", () => {
    const broken = parseSource("javascript", "const a = 1;\r\rconst b = (2;\r")!;
    expect(broken.errorCount).toBeGreaterThanOrEqual(1);
    expect(broken.errors[0]).toMatchObject({ line: 3, endLine: 3 });
    expect(broken.errors[0]!.column).toBeGreaterThan(1);
  });

  test("markdown accepts arbitrary text, so it never reports errors", () => {
    expect(parseSource("markdown", "# T\n\n```js\nunclosed\n> quote\n>\n- a\n\n  b\n")!.errorCount).toBe(0);
  });

  test("unknown languages have no parser", () => {
    expect(parseSource("cobol", "IDENTIFICATION DIVISION.")).toBeUndefined();
  });

  test("a token the parser had to assume counts as a missing error", () => {
    const parsed = parseSource("typescript", "let a = 1;\nlet b = (1 + 2;\n")!;
    expect(parsed.root.root().findAll({ rule: { kind: "ERROR" } })).toEqual([]);
    expect(parsed.errors).toEqual([{ line: 2, column: 15, endLine: 2, text: "", kind: "missing", expected: ")" }]);
  });

  test("empty scanner tokens are not errors (markdown continuations, an empty script)", () => {
    expect(parseSource("markdown", "> a\n>\n> b\n\n- x\n\n  y\n")!.errorCount).toBe(0);
    expect(parseSource("html", "<script></script><style></style>\n")!.errorCount).toBe(0);
  });

  test("columns count UTF-16 code units after non-ASCII text", () => {
    const parsed = parseSource("typescript", "const s = 'é 🌍 世界'; let x = (1 + 2;\n")!;
    // "const s = 'é 🌍 世界'; " is 21 UTF-16 code units (the globe is a surrogate pair), "let x = (1 + 2" 14 more.
    expect(parsed.errors).toEqual([{ line: 1, column: 36, endLine: 1, text: "", kind: "missing", expected: ")" }]);
  });

  test("errors inside a broken region count once, and the shown text is bounded", () => {
    const longBroken = `def f(x:\n    return [${"1, ".repeat(200)}(\n`;
    const parsed = parseSource("python", longBroken)!;
    expect(parsed.errorCount).toBe(parsed.errors.length);
    for (const error of parsed.errors) expect(error.text.length).toBeLessThanOrEqual(LIMITS.patch.maxErrorTextChars);
    const starts = parsed.errors.map((error) => [error.line, error.column]);
    expect(starts).toEqual([...starts].sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!));
  });

  test("an empty text parses without errors", () => {
    for (const id of ["typescript", "python", "json", "yaml"]) expect(parseSource(id, "")!.errorCount).toBe(0);
  });
});

describe("scanner token table", () => {
  // Recomputes, from each package's grammar.json, the named tokens its external scanner makes
  // (under their own names or aliases); the table must follow grammar upgrades.
  const require = createRequire(import.meta.url);
  const table = SCANNER_TOKENS;

  function scannerTokens(grammar: { externals?: Array<{ type: string; name?: string }>; rules: Record<string, unknown> }): string[] {
    const externals = new Set((grammar.externals ?? []).filter((entry) => entry.type === "SYMBOL").map((entry) => entry.name!));
    const names = new Set<string>([...externals].filter((name) => !name.startsWith("_")));
    const visit = (node: unknown) => {
      if (node === null || typeof node !== "object") return;
      const record = node as { type?: string; value?: string; named?: boolean; content?: { type?: string; name?: string } };
      if (record.type === "ALIAS" && record.named && record.content?.type === "SYMBOL" && externals.has(record.content.name!)) names.add(record.value!);
      for (const child of Object.values(node)) visit(child);
    };
    visit(grammar.rules);
    return [...names].sort();
  }

  for (const id of REQUIRED) {
    const language = astGrepLanguageFor(id);
    if (language === undefined || /^[A-Z]/.test(language)) continue;
    test(`${language} matches its grammar.json`, () => {
      const packageDir = dirname(require.resolve(`@ast-grep/lang-${language}/package.json`));
      const grammarPath = join(packageDir, "src", "grammar.json");
      if (!existsSync(grammarPath)) return;
      const grammar = JSON.parse(readFileSync(grammarPath, "utf8"));
      expect([...(table[language] ?? [])].sort()).toEqual(scannerTokens(grammar));
    });
  }
});

describe("registering the lang packages without requiring them", () => {
  const require = createRequire(import.meta.url);
  for (const id of REQUIRED) {
    const language = astGrepLanguageFor(id);
    if (language === undefined || /^[A-Z]/.test(language)) continue;
    test(`${language}: the written-out registration equals the package's exports`, () => {
      const exported = require(`@ast-grep/lang-${language}`) as Record<string, unknown>;
      const { libraryPath, ...rest } = packageRegistration(language);
      expect(libraryPath).toBe(exported.libraryPath as string);
      const { libraryPath: _ignored, treeSitterPackage: _build, ...expected } = exported;
      expect(rest).toEqual(expected as typeof rest);
    });
  }

  test("limitDynamicLanguages: a process registers only the named grammars, and only before the first registration", async () => {
    const script = `
      import { limitDynamicLanguages, supportsSyntaxTree, parseSource } from ${JSON.stringify(join(import.meta.dir, "../../src/syntax/index.ts"))};
      const before = limitDynamicLanguages(["bash"]);
      const answer = { before, bash: supportsSyntaxTree("bash"), python: supportsSyntaxTree("python"), typescript: supportsSyntaxTree("typescript"),
        errors: parseSource("bash", "echo hi > out.txt").errorCount, after: limitDynamicLanguages(["python"]), pythonAfter: supportsSyntaxTree("python") };
      console.log(JSON.stringify(answer));
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    const output = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    expect(JSON.parse(output)).toEqual({ before: true, bash: true, python: false, typescript: true, errors: 0, after: false, pythonAfter: false });
  });
});

describe("TreeBudget", () => {
  test("asks for one collection each time its budget of parsed bytes is spent", () => {
    expect(collectGarbage()).toBe(true);
    const budget = new TreeBudget(100);
    budget.add(60);
    expect(budget.collections).toBe(0);
    budget.add(60);
    expect(budget.collections).toBe(1);
    budget.add(99);
    expect(budget.collections).toBe(1);
    budget.add(250);
    expect(budget.collections).toBe(2);
  });
});
