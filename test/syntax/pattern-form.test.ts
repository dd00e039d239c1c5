/**
 * run's patterns in every language with a prebuilt parser: the common call and selector shapes find
 * what grep finds in a small file of that language, whatever form the pattern had to run in.
 */
import { describe, expect, test } from "bun:test";
import { isToolError } from "../../src/core/errors.ts";
import { bracketProblem, compileQuery, type LanguageId, matchText, patternForm, supportsSyntaxTree } from "../../src/syntax/index.ts";

interface Case {
  /** A small file of the language with calls in the usual places (statements, returns, arguments). */
  source: string;
  /** Pattern → the text grep would look for: each occurrence is one match. */
  patterns: Record<string, string>;
}

const CASES: Partial<Record<LanguageId, Case>> = {
  go: {
    source:
      "package main\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\nfunc f(x int) error {\n\tif x > 0 {\n\t\treturn fmt.Errorf(\"bad %d: %w\", x, errors.New(\"inner\"))\n\t}\n\terr := errors.New(\"boom\")\n\tfmt.Println(err)\n\tdefer fmt.Println(\"done\")\n\ts.method(x)\n\tgo s.method(1)\n\treturn fmt.Errorf(\"plain\")\n}\n",
    patterns: { "fmt.Errorf($$$A)": "fmt.Errorf(", "errors.New($A)": "errors.New(", "fmt.Println($A)": "fmt.Println(", "s.method($A)": "s.method(" },
  },
  typescript: {
    source:
      "import { Option } from \"effect\";\nexport function f(x: number) {\n  if (Option.isNone(x)) return Option.none(1, 2);\n  obj.method(x);\n  const y = obj.method(Option.none(3));\n  return y;\n}\n",
    patterns: { "Option.none($$$A)": "Option.none(", "obj.method($A)": "obj.method(", "Option.isNone($X)": "Option.isNone(" },
  },
  tsx: {
    source: "export function F(x: number) {\n  Option.none(1, 2);\n  return <div>{obj.method(x)}</div>;\n}\n",
    patterns: { "Option.none($$$A)": "Option.none(", "obj.method($A)": "obj.method(" },
  },
  javascript: {
    source: "function f(x) {\n  path.join(a, b);\n  return obj.method(path.join(x));\n}\nobj.method(1);\n",
    patterns: { "path.join($$$A)": "path.join(", "obj.method($A)": "obj.method(" },
  },
  python: {
    source: "import os\n\ndef f(x):\n    p = os.path.join(x, 'a')\n    obj.method(p)\n    return obj.method(os.path.join(x))\n",
    patterns: { "os.path.join($$$A)": "os.path.join(", "obj.method($A)": "obj.method(" },
  },
  rust: {
    source: "fn f(x: i32) -> Foo {\n    let v = Foo::new(x, 2);\n    obj.method(x);\n    if x > 0 { return Foo::new(1, obj.method(v)); }\n    Foo::new(0, 0)\n}\n",
    patterns: { "Foo::new($$$A)": "Foo::new(", "obj.method($A)": "obj.method(" },
  },
  java: {
    source: "class A {\n  int f(int x) {\n    System.out.println(x);\n    obj.method(x);\n    int y = obj.method(System.out.println(\"a\", \"b\"));\n    return y;\n  }\n}\n",
    patterns: { "System.out.println($$$A)": "System.out.println(", "obj.method($A)": "obj.method(" },
  },
  kotlin: {
    source: "fun f(x: Int): Int {\n    Foo.bar(x, 2)\n    obj.method(x)\n    val y = obj.method(Foo.bar(1))\n    return y\n}\n",
    patterns: { "Foo.bar($$$A)": "Foo.bar(", "obj.method($A)": "obj.method(" },
  },
  c: {
    source: "int f(int x) {\n  printf(\"%d\\n\", x);\n  obj.method(x);\n  int y = obj.method(printf(\"a\"));\n  return printf(\"%d %d\", x, y);\n}\n",
    patterns: { "printf($$$A)": "printf(", "obj.method($A)": "obj.method(" },
  },
  cpp: {
    source: "int f(int x) {\n  std::printf(\"%d\\n\", x);\n  obj.method(x);\n  auto y = obj.method(std::printf(\"a\"));\n  return y;\n}\n",
    patterns: { "std::printf($$$A)": "std::printf(", "obj.method($A)": "obj.method(" },
  },
  csharp: {
    source: "class A {\n  int F(int x) {\n    Console.WriteLine(x);\n    obj.Method(x);\n    var y = obj.Method(Console.WriteLine(\"a\", \"b\"));\n    return y;\n  }\n}\n",
    patterns: { "Console.WriteLine($$$A)": "Console.WriteLine(", "obj.Method($A)": "obj.Method(" },
  },
  ruby: {
    source: "def f(x)\n  File.join(x, 'a')\n  obj.method(x)\n  y = obj.method(File.join(x))\n  y\nend\n",
    patterns: { "File.join($$$A)": "File.join(", "obj.method($A)": "obj.method(" },
  },
  php: {
    source: "<?php\nfunction f($x) {\n  Foo::bar($x, 2);\n  $obj->method($x);\n  $y = $obj->method(Foo::bar(1));\n  return $y;\n}\n",
    patterns: { "Foo::bar($$$A)": "Foo::bar(", "$obj->method($A)": "$obj->method(" },
  },
  swift: {
    source: "func f(x: Int) -> Int {\n    Foo.bar(x, 2)\n    obj.method(x)\n    let y = obj.method(Foo.bar(1))\n    return y\n}\n",
    patterns: { "Foo.bar($$$A)": "Foo.bar(", "obj.method($A)": "obj.method(" },
  },
  scala: {
    source: "object A {\n  def f(x: Int): Int = {\n    Foo.bar(x, 2)\n    obj.method(x)\n    val y = obj.method(Foo.bar(1))\n    y\n  }\n}\n",
    patterns: { "Foo.bar($$$A)": "Foo.bar(", "obj.method($A)": "obj.method(" },
  },
  lua: {
    source: "local function f(x)\n  string.format(\"%d\", x)\n  obj:method(x)\n  local y = obj:method(string.format(\"a\"))\n  return y\nend\n",
    patterns: { "string.format($$$A)": "string.format(", "obj:method($A)": "obj:method(" },
  },
  dart: {
    source: "void f(int x) {\n  Foo.bar(x, 2);\n  obj.method(x);\n  Foo.bar(1);\n}\n",
    patterns: { "Foo.bar($$$A)": "Foo.bar(", "obj.method($A)": "obj.method(" },
  },
  elixir: {
    source: "defmodule A do\n  def f(x) do\n    Enum.map(x, fn y -> y end)\n    obj.method(x)\n    obj.method(Enum.map(x, &(&1)))\n  end\nend\n",
    patterns: { "Enum.map($$$A)": "Enum.map(", "obj.method($A)": "obj.method(" },
  },
  bash: {
    source: "f() {\n  echo \"$1\"\n  git commit -m \"$1\"\n}\necho hi\n",
    patterns: { "echo $A": "echo ", "git commit $$$A": "git commit" },
  },
  haskell: {
    source: "module A where\nf m = Map.insert 1 2 (Map.insert 3 4 m)\ng k m = Map.lookup k m\n",
    patterns: { "Map.insert $A $B $C": "Map.insert", "Map.lookup $K $M": "Map.lookup" },
  },
};

function occurrences(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe("run patterns in every language with a prebuilt parser", () => {
  for (const [language, { source, patterns }] of Object.entries(CASES) as Array<[LanguageId, Case]>) {
    test.if(supportsSyntaxTree(language))(`${language}: the call and selector shapes find what grep finds`, async () => {
      for (const [pattern, needle] of Object.entries(patterns)) {
        const compiled = compileQuery({ pattern }, language);
        expect({ pattern, problem: compiled.patternProblem }).toEqual({ pattern, problem: undefined });
        const found = await matchText(source, compiled);
        expect({ pattern, count: found.count }).toEqual({ pattern, count: occurrences(source, needle) });
        // What a file must contain to be parsed at all is still in every file that matches.
        for (const literal of compiled.literals) expect(source).toContain(literal);
      }
    });
  }
});

describe("the form a pattern runs in", () => {
  test("a Go call runs as the call inside a function body, and says so", () => {
    const form = patternForm({ pattern: "fmt.Errorf($$$A)" }, "go");
    expect(form).toMatchObject({ pattern: "func _() { fmt.Errorf($$$A) }", selector: "call_expression" });
    expect(form.note).toContain("type_conversion_expression");
    expect(form.note).toContain("selector \"call_expression\"");
  });

  test("a pattern that already matches where it is written runs as given, without a note", () => {
    expect(patternForm({ pattern: "console.log($$$A)" }, "typescript")).toEqual({ pattern: "console.log($$$A)" });
    expect(patternForm({ pattern: "func $F($$$P) error { $$$B }" }, "go")).toEqual({ pattern: "func $F($$$P) error { $$$B }" });
    expect(patternForm({ pattern: "def $F($$$A):\n    $$$B" }, "python")).toEqual({ pattern: "def $F($$$A):\n    $$$B" });
  });

  test("a pattern's form is worked out once per language and pattern, and only the last 64 are kept", () => {
    const first = patternForm({ pattern: "fmt.Errorf($$$A)" }, "go");
    // Asked again (a preview, then its write): the very form worked out before, nothing parsed again.
    expect(patternForm({ pattern: "fmt.Errorf($$$A)" }, "go")).toBe(first);
    // Another language is another form.
    expect(patternForm({ pattern: "fmt.Errorf($$$A)" }, "typescript")).not.toBe(first);
    for (let index = 0; index < 64; index++) patternForm({ pattern: `call${index}($A)` }, "go");
    const again = patternForm({ pattern: "fmt.Errorf($$$A)" }, "go");
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });

  test("a given selector is the caller's choice", () => {
    expect(patternForm({ pattern: "func t() { fmt.Println($$$) }", selector: "call_expression" }, "go")).toEqual({
      pattern: "func t() { fmt.Println($$$) }",
      selector: "call_expression",
    });
  });

  test("a pattern that parses nowhere names where it breaks, 1-based inside the pattern", () => {
    const form = patternForm({ pattern: "Option.isNone($X" }, "typescript");
    expect(form.problem).toMatchObject({ line: 1, column: 14 });
    expect(form.problem?.message).toContain("line 1, column 17");
    expect(bracketProblem("a(\n  b]")).toMatchObject({ line: 2, column: 4 });
    // Asked only when nothing parses: a Rust lifetime is no quote to trip on, and PHP's text reading does not hide a bracket.
    expect(patternForm({ pattern: "fn $F<'a>(x: &'a str) { $$$B }" }, "rust").problem).toBeUndefined();
    expect(patternForm({ pattern: "f($A" }, "php").problem).toMatchObject({ fatal: true, line: 1, column: 2 });
    expect(bracketProblem("f(\")\", ')')")).toBeUndefined();
  });

  test("compiling such a pattern keeps the problem for the caller; a napi refusal becomes the position", () => {
    const compiled = compileQuery({ pattern: "Option.isNone($X" }, "typescript");
    expect(compiled.problem).toMatchObject({ line: 1, column: 14, fatal: true });
    // Dart's napi refuses the bare fragment ("Multiple AST nodes"); the refusal names the position instead.
    let refused: unknown;
    try {
      compileQuery({ pattern: "foo(" }, "dart");
    } catch (error) {
      refused = error;
    }
    expect(isToolError(refused) && refused.code).toBe("invalid_input");
    expect(String((refused as Error).message)).toContain("line 1, column 4");
  });

  test("patterns that ran as given before still find what they found, and fragments find more", async () => {
    const cases: Array<[LanguageId, string, string, number]> = [
      ["csharp", "using System;\nclass A { }\n", "using $N;", 1],
      ["c", "int f(int x) { if (x) return 1; return x; }\n", "if ($C) $S", 1],
      ["c", "int f(int x) { return x; }\n", "int $F($$$P) { $$$B }", 1],
      ["java", "class A { int f() { return 1; } }\n", "class $C { $$$B }", 1],
      ["java", "class A { void f(int x) { if (x > 0) { g(); } } }\n", "if ($C) { $$$B }", 1],
      ["rust", "impl Foo for Bar { fn f(&self) {} }\n", "impl $T for $U { $$$B }", 1],
      ["go", "package m\ntype S struct{ A int }\nfunc f() { x := 1 }\n", "type $T struct{ $$$F }", 1],
      ["go", "package m\nfunc f() { x := 1; y := g() }\n", "$X := $Y", 2],
      ["typescript", "class K { private x: number = 1; }\n", "private $F: $T = $V", 1],
      ["php", "<?php\nfunction f($x) { echo $x; return $x; }\n", "return $A;", 1],
    ];
    for (const [language, source, pattern, expected] of cases) {
      const compiled = compileQuery({ pattern }, language);
      expect({ language, pattern, problem: compiled.patternProblem, count: (await matchText(source, compiled)).count }).toEqual({
        language,
        pattern,
        problem: undefined,
        count: expected,
      });
    }
  });

  test("a pattern that parses nowhere but that ast-grep accepts runs as given, its problem not fatal", async () => {
    const compiled = compileQuery({ pattern: "@Override" }, "java");
    expect(compiled.problem).toMatchObject({ fatal: false, line: 1, column: 1 });
    expect((await matchText("class A { @Override public String toString() { return \"\"; } }\n", compiled)).count).toBe(1);
  });

  test("no literal of the pre-filter comes from inside a metavariable where $ is the language's own", () => {
    expect(compileQuery({ pattern: "echo $A" }, "bash").literals).toEqual(["echo"]);
    expect(compileQuery({ pattern: "$obj->method($A)" }, "php").literals.sort()).toEqual(["method", "obj"]);
  });
});
