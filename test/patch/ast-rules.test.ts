import { describe, expect, test } from "bun:test";
import { ToolError } from "../../src/core/errors.ts";
import { LIMITS } from "../../src/core/limits.ts";
import { applyAstRules, type AstRule } from "../../src/patch/ast-rules.ts";
import type { LanguageId } from "../../src/syntax/index.ts";

async function failure(run: () => Promise<unknown>): Promise<ToolError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}

describe("matching and counting", () => {
  test("every match is rewritten and counted", async () => {
    const text = "console.log(a);\nother();\nconsole.log(b, c);\n";
    const result = await applyAstRules(text, "typescript", [{ pattern: "console.log($$$ARGS)", fix: "logger.info($$$ARGS)", expectedMatches: 2 }]);
    expect(result.text).toBe("logger.info(a);\nother();\nlogger.info(b, c);\n");
    expect(result.rules).toEqual([
      {
        index: 0,
        language: "typescript",
        matches: [
          { startLine: 1, endLine: 1, column: 1, text: "console.log(a)" },
          { startLine: 3, endLine: 3, column: 1, text: "console.log(b, c)" },
        ],
        matchCount: 2,
        applied: 2,
      },
    ]);
  });

  test("a count mismatch lists every match and changes nothing", async () => {
    const text = "foo(1);\nfoo(\n  2,\n);\nfoo(3);\n";
    const error = await failure(() => applyAstRules(text, "typescript", [{ pattern: "foo($A)", fix: "bar($A)" }]));
    expect(error.code).toBe("match_count");
    expect(error.message).toContain("matched 3 times, expected 1");
    expect(error.details).toEqual({
      ruleIndex: 0,
      expected: 1,
      found: 3,
      listedAll: true,
      matches: [
        { startLine: 1, endLine: 1, column: 1, text: "foo(1)" },
        { startLine: 2, endLine: 4, column: 1, text: "foo(\n  2,\n)" },
        { startLine: 5, endLine: 5, column: 1, text: "foo(3)" },
      ],
    });
  });

  test("the listing is bounded, and long matched text is cut", async () => {
    const long = "x".repeat(LIMITS.patch.maxMatchTextChars * 2);
    const text = Array.from({ length: LIMITS.patch.maxListedMatches + 5 }, () => `foo(${long});`).join("\n");
    const error = await failure(() => applyAstRules(text, "typescript", [{ pattern: "foo($A)", fix: "bar($A)", expectedMatches: 3 }]));
    const details = error.details as { found: number; listedAll: boolean; matches: Array<{ text: string }> };
    expect(details.found).toBe(LIMITS.patch.maxListedMatches + 5);
    expect(details.listedAll).toBe(false);
    expect(details.matches.length).toBe(LIMITS.patch.maxListedMatches);
    expect(details.matches[0]!.text.length).toBe(LIMITS.patch.maxMatchTextChars);
  });

  test("\"all\" takes any positive count but not zero; 0 asserts absence", async () => {
    const text = "foo(1); foo(2); foo(3);\n";
    expect((await applyAstRules(text, "typescript", [{ pattern: "foo($A)", fix: "bar($A)", expectedMatches: "all" }])).text).toBe("bar(1); bar(2); bar(3);\n");
    const none = await failure(() => applyAstRules(text, "typescript", [{ pattern: "qux($A)", fix: "bar($A)", expectedMatches: "all" }]));
    expect(none.code).toBe("match_count");
    expect(none.details).toMatchObject({ found: 0, expected: "all" });
    const absent = await applyAstRules(text, "typescript", [{ pattern: "qux($A)", fix: "bar($A)", expectedMatches: 0 }]);
    expect(absent.text).toBe(text);
    expect(absent.rules[0]).toMatchObject({ matchCount: 0, applied: 0 });
    expect((await failure(() => applyAstRules(text, "typescript", [{ pattern: "foo($A)", fix: "x", expectedMatches: 0 }]))).code).toBe("match_count");
  });
});

describe("metavariables", () => {
  test("single metavariables are substituted, also twice and reordered", async () => {
    expect((await applyAstRules("x = a + b;\n", "typescript", [{ pattern: "$A + $B", fix: "$B + $A" }])).text).toBe("x = b + a;\n");
    expect((await applyAstRules("f(g(x));\n", "typescript", [{ pattern: "f($ARG)", fix: "[$ARG, $ARG]" }])).text).toBe("[g(x), g(x)];\n");
  });

  test("$$$ captures keep their original text, separators and comments included, and may be empty", async () => {
    const text = "foo(1,  /* c */ 2,\n  three); foo();\n";
    const result = await applyAstRules(text, "typescript", [{ pattern: "foo($$$ARGS)", fix: "bar($$$ARGS)", expectedMatches: 2 }]);
    expect(result.text).toBe("bar(1,  /* c */ 2,\n  three); bar();\n");
  });

  test("$$$ captures next to single ones", async () => {
    const text = "call(first, second, third);\n";
    expect((await applyAstRules(text, "typescript", [{ pattern: "call($A, $$$REST)", fix: "call($$$REST, $A)" }])).text).toBe("call(second, third, first);\n");
  });

  test("$NAMEs the pattern does not define stay literal and are reported", async () => {
    const result = await applyAstRules("echo \"$1\"\n", "bash", [{ pattern: "echo $A", fix: "printf \"%s %s\\n\" $A \"$HOME\"" }]);
    expect(result.text).toBe("printf \"%s %s\\n\" \"$1\" \"$HOME\"\n");
    expect(result.rules[0]!.literalVariables).toEqual(["HOME"]);
  });

  test("an empty fix deletes the match", async () => {
    expect((await applyAstRules("debugger; go();\n", "javascript", [{ pattern: "debugger", fix: "" }])).text).toBe("; go();\n");
  });
});

describe("rule order and nesting", () => {
  test("each rule runs on the text the previous one produced", async () => {
    const rules: AstRule[] = [
      { pattern: "foo($A)", fix: "bar($A)" },
      // Only exists after the first rule.
      { pattern: "bar($A)", fix: "baz($A, 0)" },
    ];
    const result = await applyAstRules("foo(1);\n", "typescript", rules);
    expect(result.text).toBe("baz(1, 0);\n");
    expect(result.rules.map((report) => report.matchCount)).toEqual([1, 1]);
  });

  test("a later rule's failure names its index", async () => {
    const error = await failure(() => applyAstRules("foo(1);\n", "typescript", [{ pattern: "foo($A)", fix: "bar($A)" }, { pattern: "foo($A)", fix: "x" }]));
    expect(error.code).toBe("match_count");
    expect(error.message).toContain("rules[1]");
  });

  test("nested matches are all rewritten, inside out, and counted", async () => {
    const result = await applyAstRules("foo(foo(foo(1)), foo(2));\n", "typescript", [{ pattern: "foo($$$A)", fix: "bar($$$A)", expectedMatches: 4 }]);
    expect(result.text).toBe("bar(bar(bar(1)), bar(2));\n");
    expect(result.rules[0]).toMatchObject({ matchCount: 4, applied: 4 });
  });

  test("a fix that drops its capture drops the nested matches, which are not counted as applied", async () => {
    const result = await applyAstRules("foo(foo(1));\n", "typescript", [{ pattern: "foo($A)", fix: "baz()", expectedMatches: 2 }]);
    expect(result.text).toBe("baz();\n");
    expect(result.rules[0]).toMatchObject({ matchCount: 2, applied: 1 });
  });

  test("the fix's own output is never matched again (a swap does not undo itself)", async () => {
    const result = await applyAstRules("x = (a + b) + c;\n", "typescript", [{ pattern: "$A + $B", fix: "$B + $A", expectedMatches: 2 }]);
    expect(result.text).toBe("x = c + (b + a);\n");
    expect(result.rules[0]).toMatchObject({ matchCount: 2, applied: 2 });
  });
});

describe("rule configuration", () => {
  const goSource = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"a\", 1)\n\tfmt.Println()\n}\n";

  test("a Go call fragment parses as something else on its own; the miss says how to fix it", async () => {
    const error = await failure(() => applyAstRules(goSource, "go", [{ pattern: "fmt.Println($$$A)", fix: "log.Print($$$A)", expectedMatches: "all" }]));
    expect(error.code).toBe("match_count");
    expect(error.hint).toContain("selector");
  });

  test("selector picks the node inside the pattern's context", async () => {
    const result = await applyAstRules(goSource, "go", [
      { pattern: "func t() { fmt.Println($$$A) }", selector: "call_expression", fix: "log.Print($$$A)", expectedMatches: 2 },
    ]);
    expect(result.text).toBe("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tlog.Print(\"a\", 1)\n\tlog.Print()\n}\n");
    expect(result.rules[0]!.matches.map((match) => match.startLine)).toEqual([6, 7]);
  });

  test("constraints filter matches by their metavariables", async () => {
    const result = await applyAstRules("foo(1); foo(x); foo(22);\n", "typescript", [
      { pattern: "foo($A)", fix: "bar($A)", constraints: { A: { regex: "^[0-9]+$" } }, expectedMatches: 2 },
    ]);
    expect(result.text).toBe("bar(1); foo(x); bar(22);\n");
  });

  test("lang overrides the file's language, by id or extension", async () => {
    expect((await applyAstRules("print(1)\n", null, [{ pattern: "print($A)", fix: "log($A)", lang: "python" }])).text).toBe("log(1)\n");
    expect((await applyAstRules("print(1)\n", "markdown", [{ pattern: "print($A)", fix: "log($A)", lang: ".py" }])).text).toBe("log(1)\n");
  });

  const invalid: Array<[string, AstRule[], LanguageId | null, string]> = [
    ["unknown lang", [{ pattern: "a", fix: "b", expectedMatches: 0 }, { pattern: "a", fix: "b", lang: "klingon" }], "typescript", "rules[1].lang"],
    ["file language unknown", [{ pattern: "a", fix: "b" }], null, "rules[0].lang"],
    ["pattern that does not parse", [{ pattern: "foo(", fix: "bar" }], "typescript", "rules[0].pattern"],
    ["empty pattern", [{ pattern: "  ", fix: "bar" }], "typescript", "rules[0].pattern"],
    ["pattern of several nodes", [{ pattern: "a b c", fix: "bar" }], "typescript", "rules[0].pattern"],
    ["unknown selector kind", [{ pattern: "foo($A)", fix: "bar", selector: "no_such_kind" }], "typescript", "rules[0].selector"],
    ["bad constraint regex", [{ pattern: "foo($A)", fix: "bar", constraints: { A: { regex: "(" } } }], "typescript", "rules[0].constraints"],
    ["constraint not a rule", [{ pattern: "foo($A)", fix: "bar", constraints: { A: { regexx: "a" } } }], "typescript", "rules[0]"],
    ["negative expectedMatches", [{ pattern: "foo($A)", fix: "bar", expectedMatches: -1 }], "typescript", "rules[0].expectedMatches"],
  ];
  for (const [name, rules, language, field] of invalid) {
    test(`invalid_input: ${name}`, async () => {
      const error = await failure(() => applyAstRules("foo(1);\n", language, rules));
      expect(error.code).toBe("invalid_input");
      expect(error.message).toStartWith(field);
    });
  }

  test("too many rules", async () => {
    const rules = Array.from({ length: LIMITS.patch.maxAstRules + 1 }, () => ({ pattern: "a", fix: "b", expectedMatches: 0 }));
    expect((await failure(() => applyAstRules("a;\n", "typescript", rules))).code).toBe("too_many_items");
  });
});

describe("other languages and offsets", () => {
  test("Python", async () => {
    const text = "import logging\n\ndef f(x):\n    print(x)\n    print('done', x)\n";
    const result = await applyAstRules(text, "python", [{ pattern: "print($$$ARGS)", fix: "logging.info($$$ARGS)", expectedMatches: 2 }]);
    expect(result.text).toBe("import logging\n\ndef f(x):\n    logging.info(x)\n    logging.info('done', x)\n");
  });

  test("Rust", async () => {
    const text = "fn main() {\n    let v = parse(s).unwrap();\n    let w = v.get(0).unwrap();\n}\n";
    const result = await applyAstRules(text, "rust", [{ pattern: "$X.unwrap()", fix: "$X.expect(\"checked\")", expectedMatches: 2 }]);
    expect(result.text).toBe("fn main() {\n    let v = parse(s).expect(\"checked\");\n    let w = v.get(0).expect(\"checked\");\n}\n");
  });

  test("non-ASCII text before and inside matches keeps offsets exact (UTF-16)", async () => {
    const text = "const s = 'é 🌍 世界'; foo('🌍', 2);\n// ü\nfoo(\"世界\");\n";
    const result = await applyAstRules(text, "typescript", [{ pattern: "foo($$$A)", fix: "bar($$$A)", expectedMatches: 2 }]);
    expect(result.text).toBe("const s = 'é 🌍 世界'; bar('🌍', 2);\n// ü\nbar(\"世界\");\n");
    expect(result.rules[0]!.matches).toEqual([
      { startLine: 1, endLine: 1, column: 22, text: "foo('🌍', 2)" },
      { startLine: 3, endLine: 3, column: 1, text: "foo(\"世界\")" },
    ]);
  });

  test("CRLF text keeps its line endings around rewrites", async () => {
    const result = await applyAstRules("foo(1);\r\nfoo(2);\r\n", "javascript", [{ pattern: "foo($A)", fix: "bar($A)", expectedMatches: 2 }]);
    expect(result.text).toBe("bar(1);\r\nbar(2);\r\n");
  });

  test("matches in CR-only, LF and CRLF text are reported on the same lines", async () => {
    for (const eol of ["\r", "\n", "\r\n"]) {
      const text = ["let a = 1;", "foo(1);", "", "  foo(2,", "  3);"].join(eol) + eol;
      const result = await applyAstRules(text, "javascript", [{ pattern: "foo($$$A)", fix: "bar($$$A)", expectedMatches: 2 }]);
      expect(result.rules[0]!.matches.map(({ startLine, endLine, column }) => ({ startLine, endLine, column }))).toEqual([
        { startLine: 2, endLine: 2, column: 1 },
        { startLine: 4, endLine: 5, column: 3 },
      ]);
      const refused = await applyAstRules(text, "javascript", [{ pattern: "foo($$$A)", fix: "bar($$$A)", expectedMatches: 1 }]).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ToolError);
      expect((refused as ToolError).message).toContain("matches at 2:1, 4:3");
    }
  });
});

describe("rules in sequence", () => {
  test("each rule applies to the previous one's result, and a wrong count refuses the whole set", async () => {
    const text = "const a = f(1);\nconst b = f(f(2));\nlet c = g(3);\n";
    const rules: AstRule[] = [
      { pattern: "f($A)", fix: "h($A)", expectedMatches: "all" },
      { pattern: "g($X)", fix: "k($X, 0)" },
      { pattern: "let $N = $V", fix: "const $N = $V", lang: "ts" },
    ];
    const result = await applyAstRules(text, "typescript", rules);
    expect(result.text).toBe("const a = h(1);\nconst b = h(h(2));\nconst c = k(3, 0)\n");
    expect(result.rules.map((rule) => rule.applied)).toEqual([3, 1, 1]);
    const wrongCount: AstRule[] = [{ pattern: "f($A)", fix: "h($A)", expectedMatches: 1 }];
    expect((await failure(() => applyAstRules(text, "typescript", wrongCount))).code).toBe("match_count");
  });
});
