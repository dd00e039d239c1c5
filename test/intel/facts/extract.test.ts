import { describe, expect, test } from "bun:test";
import { LIMITS } from "../../../src/core/limits.ts";
import { LANGUAGES, parseSource, parseTree } from "../../../src/syntax/index.ts";
import { extractFacts, hasFactExtractor, unknownExtractorRules } from "../../../src/intel/facts/extract.ts";
import { callFact } from "../../../src/intel/facts/engine.ts";

describe("extractFacts", () => {
  test("parses the text itself when no tree is given, and uses a given tree as is", () => {
    const text = "export function a() { b(); }\n";
    const own = extractFacts("typescript", text);
    const given = extractFacts("typescript", text, parseTree("typescript", text)!);
    expect(given).toEqual(own);
    expect(own.symbols.map((symbol) => symbol.name)).toEqual(["a"]);
    expect(own.calls).toMatchObject([{ callee: "b", caller: "a", line: 1, column: 23 }]);
  });

  test("counts syntax errors: all of them when it parses, ERROR regions with a given tree", () => {
    const broken = "function a() {\n  let = = 5;\n}\n\nclass B {\n  m() {}\n}\n";
    const own = extractFacts("typescript", broken);
    expect(own.parseErrors).toBe(parseSource("typescript", broken)!.errorCount);
    expect(own.parseErrors).toBe(1);
    expect(extractFacts("typescript", broken, parseTree("typescript", broken)!).parseErrors).toBe(1);
    // The rest of a broken file is still outlined.
    expect(own.symbols.map((symbol) => symbol.qualifiedName)).toEqual(["a", "B", "B.m"]);
    // A missing token is no ERROR node: only the full scan (no tree given) finds it.
    const missing = "function a() {\n  foo(;\n}\n";
    expect(extractFacts("typescript", missing).parseErrors).toBe(1);
    expect(extractFacts("typescript", missing, parseTree("typescript", missing)!).parseErrors).toBe(0);
  });

  test("languages without an extractor or parser give empty facts", () => {
    expect(hasFactExtractor("python")).toBe(true);
    expect(hasFactExtractor("cobol")).toBe(false);
    expect(extractFacts("cobol", "IDENTIFICATION DIVISION.")).toEqual({ language: "cobol", parseErrors: 0, symbols: [], imports: [], calls: [], exportedNames: [] });
  });

  test("every detected language has an extractor whose node kinds its grammar knows", () => {
    for (const language of LANGUAGES) {
      expect(hasFactExtractor(language)).toBe(true);
      expect({ language, unknown: unknownExtractorRules(language) }).toEqual({ language, unknown: [] });
    }
  });

  test("language ids are case-insensitive", () => {
    expect(extractFacts("Python", "def f():\n    pass\n").symbols.map((symbol) => symbol.name)).toEqual(["f"]);
  });

  test("calls: false leaves calls out but keeps the imports that calls make", () => {
    const script = "const a = require(\"a\");\nrequire(\"b\");\nasync function f() { await import(\"c\"); g(); new H(); }\n";
    const full = extractFacts("javascript", script);
    const lean = extractFacts("javascript", script, undefined, { calls: false });
    expect(full.calls.length).toBeGreaterThan(0);
    expect(lean.calls).toEqual([]);
    expect(lean.imports).toEqual(full.imports);
    expect(lean.imports.map((fact) => `${fact.kind}:${fact.specifier}`)).toEqual(["require:a", "require:b", "dynamic:c"]);
    expect(lean.symbols).toEqual(full.symbols);
    for (
      const [language, text, specifier] of [
        ["ruby", "require \"json\"\nputs 1\n", "json"],
        ["lua", "local x = require(\"m\")\nprint(x)\n", "m"],
        ["bash", "source ./env.sh\necho hi\n", "./env.sh"],
        ["python", "import os\nos.getcwd()\n", "os"],
      ] as const
    ) {
      const facts = extractFacts(language, text, undefined, { calls: false });
      expect(facts.calls).toEqual([]);
      expect(facts.imports.map((fact) => fact.specifier)).toEqual([specifier]);
    }
  });

  test("columns count UTF-16 code units, as JavaScript strings do", () => {
    const facts = extractFacts("typescript", "const s = 'é🌍世界'; f();\n'é🌍'; g();\n");
    expect(facts.calls.map((call) => [call.name, call.line, call.column])).toEqual([
      ["f", 1, 20],
      ["g", 2, 8],
    ]);
  });

  test("a chained call is placed at its name, on the line the name is on, in every language", () => {
    const ts = extractFacts("typescript", "z\n  .object({\n    a: 1,\n  })\n  .strict();\n");
    expect(ts.calls.map((call) => [call.name, call.line, call.column])).toEqual([
      ["strict", 5, 4],
      ["object", 2, 4],
    ]);
    const go = extractFacts("go", "package p\n\nfunc f() {\n\tb.\n\t\tRun()\n}\n");
    expect(go.calls.map((call) => [call.name, call.line, call.column])).toEqual([["Run", 5, 3]]);
    const py = extractFacts("python", "x = (a\n     .run())\n");
    expect(py.calls.map((call) => [call.name, call.line])).toEqual([["run", 2]]);
  });

  test("signatures are one line and bounded; the doc is the first sentence only", () => {
    const parameters = Array.from({ length: 60 }, (_, index) => `parameter${index}: number`).join(",\n  ");
    const text = `/**\n * Adds things up. Then more text\n * follows here.\n * @param x ignored\n */\nexport function sum(\n  ${parameters}\n): number {\n  return 0;\n}\n`;
    const symbol = extractFacts("typescript", text).symbols[0]!;
    expect(symbol.signature.length).toBeLessThanOrEqual(LIMITS.intel.facts.signatureChars);
    expect(symbol.signature.startsWith("function sum( parameter0: number, parameter1: number")).toBe(true);
    expect(symbol.signature.endsWith("…")).toBe(true);
    expect(symbol.doc).toBe("Adds things up.");
    expect(symbol).toMatchObject({ startLine: 6, endLine: 69 });
  });

  test("comments inside a declaration head are left out of its signature", () => {
    const facts = extractFacts("typescript", "export function f(\n  a: string, // the name\n  /* legacy */ b = \"http://x\",\n): void {}\n");
    expect(facts.symbols[0]!.signature).toBe("function f( a: string, b = \"http://x\", ): void");
  });

  test("a comment separated by a blank line, or trailing other code, is not documentation", () => {
    const facts = extractFacts("typescript", "/** Far away. */\n\nexport function a() {}\nconst x = 1; /** Trailing. */\nexport function b() {}\n");
    expect(facts.symbols.find((symbol) => symbol.name === "a")!.doc).toBeUndefined();
    expect(facts.symbols.find((symbol) => symbol.name === "b")!.doc).toBeUndefined();
  });

  test("long callee chains are cut from the front, keeping the called name", () => {
    const chain = Array.from({ length: 40 }, (_, index) => `step${index}()`).join(".");
    const facts = extractFacts("javascript", `${chain};\n`);
    const last = facts.calls.find((call) => call.name === "step39")!;
    expect(last.callee.length).toBeLessThanOrEqual(LIMITS.intel.facts.calleeChars);
    expect(last.callee.startsWith("…")).toBe(true);
    expect(last.callee.endsWith(".step39")).toBe(true);
    expect(facts.calls).toHaveLength(40);
  });

  test("callees the text cannot show are read from the tree; calls of no name are left out", () => {
    const facts = extractFacts("javascript", "handlers[kind](event);\n(function iife() { run(); })();\nobj?.method?.(1);\n(0, lib.fn)(2);\n");
    // `handlers[kind](…)`, the IIFE and `(0, lib.fn)(…)` call something no name identifies.
    expect(facts.calls.map((call) => [call.callee, call.name, call.line])).toEqual([
      ["run", "run", 2],
      ["obj?.method", "method", 3],
    ]);
  });

  test("document outlines stop at their key limit", () => {
    const keys = Array.from({ length: LIMITS.intel.facts.documentMaxKeys + 50 }, (_, index) => `"k${index}": ${index}`).join(",\n");
    const facts = extractFacts("json", `{\n${keys}\n}\n`);
    expect(facts.symbols).toHaveLength(LIMITS.intel.facts.documentMaxKeys);
    expect(facts.symbols[0]).toMatchObject({ name: "k0", startLine: 2, endLine: 2, kind: "key" });
  });

  test("a class expression in a function body and its members are local", () => {
    const facts = extractFacts("typescript", "export function make() {\n  class Inner {\n    run() { go(); }\n  }\n  return Inner;\n}\n");
    expect(facts.symbols.map((symbol) => [symbol.qualifiedName, symbol.local === true, symbol.exported])).toEqual([
      ["make", false, true],
      ["make.Inner", true, false],
      ["make.Inner.run", true, false],
    ]);
    expect(facts.calls).toMatchObject([{ name: "go", caller: "make.Inner.run" }]);
  });
});

describe("TypeScript re-export lists", () => {
  test("a doc comment with braces inside an export list leaves the exported name as written", () => {
    const doc = "  /**\n   * Binds {@link Do} into scope.\n   * @example\n   * const x = { a: 1 }\n   */\n";
    const reexport = extractFacts("typescript", `export {\n${doc}  let_ as let,\n  // other } too\n  other\n} from "./Function.js"\n`);
    expect(reexport.exportedNames).toEqual([
      { name: "let", line: 1, from: "./Function.js", local: "let_" },
      { name: "other", line: 1, from: "./Function.js" },
    ]);
    expect(reexport.imports).toEqual([{
      specifier: "./Function.js",
      kind: "reexport",
      names: [{ local: "let", imported: "let_" }, { local: "other", imported: "other" }],
      line: 1,
    }]);
    const local = extractFacts("typescript", `const let_ = 1;\nexport {\n${doc}  let_ as let\n};\n`);
    expect(local.exportedNames).toEqual([{ name: "let", line: 2, local: "let_" }]);
  });

  test("an export list whose docs run past 4000 characters is still read to its end", () => {
    const facts = extractFacts("typescript", `const a = 1;\nexport {\n  /** ${"long text ".repeat(600)} */\n  a as b\n};\n`);
    expect(facts.exportedNames).toEqual([{ name: "b", line: 2, local: "a" }]);
  });

  test("comment markers inside a module specifier are kept", () => {
    const facts = extractFacts("typescript", `import { /* x } */ a } from "https://example.com//mod.js";\nexport { b } from "./a//b.js";\n`);
    expect(facts.imports).toEqual([
      { specifier: "https://example.com//mod.js", kind: "import", names: [{ local: "a", imported: "a" }], line: 1 },
      { specifier: "./a//b.js", kind: "reexport", names: [{ local: "b", imported: "b" }], line: 2 },
    ]);
  });
});

describe("callFact", () => {
  test("splits qualifier and name, dropping explicit type arguments", () => {
    expect(callFact("this.repo.save", 1, 1, "A.b")).toEqual({ callee: "this.repo.save", name: "save", qualifier: "this.repo", line: 1, column: 1, caller: "A.b" });
    expect(callFact("iter.collect::<Vec<_>>", 2, 3, undefined)).toMatchObject({ name: "collect", qualifier: "iter" });
    expect(callFact("Foo::new", 1, 1, undefined)).toMatchObject({ name: "new", qualifier: "Foo" });
    expect(callFact("$this->db->query", 1, 1, undefined)).toMatchObject({ name: "query", qualifier: "$this->db" });
    expect(callFact("App\\format_name", 1, 1, undefined)).toMatchObject({ name: "format_name", qualifier: "App" });
    expect(callFact("user.save!", 1, 1, undefined)).toMatchObject({ name: "save!", qualifier: "user" });
    expect(callFact("(a || b)", 1, 1, undefined)).toBeUndefined();
  });
});

describe("type bindings (what a file says of its values' types)", () => {
  const bound = (language: string, source: string) =>
    (extractFacts(language, source).bindings ?? []).map((binding) =>
      `${binding.scope ?? "(module)"} ${binding.name}: ${binding.call ? "call " : binding.value ? "value " : ""}${binding.type} @${binding.line}`
    );

  test("Go: declared types, composite literals, new, assertions, call results, other values and func literal parameters, in their function; a plain = in a function changes no static type; a name no call is made on is left out", () => {
    const source = [
      "package p",
      "var Form = formBinding{}",
      "func (s *Server) Run(a *Foo) {",
      "\tvar buf bytes.Buffer",
      "\tx := &Foo{A: 1}",
      "\ty, err := pkg.NewFoo(1)",
      "\tz := new(Bar)",
      "\tn := node.(*ast.Heading)",
      "\tb := Form",
      "\tx = Foo(y)",
      "\tx += 1",
      "\tgo func(c *Context) { c.Next() }(nil)",
      "\tunused := Foo{}",
      "\tvar w Writer = x",
      "\tw.Flush()",
      "\tbuf.Reset(); x.A(); y.A(); z.A(); n.A(); b.A()",
      "}",
    ].join("\n");
    expect(bound("go", source)).toEqual([
      "(module) Form: formBinding @2",
      "Server.Run buf: bytes.Buffer @4",
      "Server.Run x: Foo @5",
      "Server.Run y: call pkg.NewFoo @6",
      "Server.Run z: Bar @7",
      "Server.Run n: *ast.Heading @8",
      "Server.Run b: value Form @9",
      "Server.Run c: *Context @12",
      "Server.Run w: Writer @14",
    ]);
  });

  test("Python: annotations, call results and other values; self attributes belong to the class; class bodies bind nothing; a name no call is made on is left out", () => {
    const source = [
      "shared = Store()",
      "class Box(Base):",
      "    size = compute()",
      "    def __init__(self):",
      "        self.store = models.Store()",
      "    def fill(self, other):",
      "        item: Item = other.pick()",
      "        alias = self.store",
      "        unused = Box()",
      "        item.put(alias.get())",
      "",
    ].join("\n");
    expect(bound("python", source)).toEqual([
      "(module) shared: call Store @1",
      "Box self.store: call models.Store @5",
      "Box.fill item: Item @7",
      "Box.fill alias: value self.store @8",
    ]);
  });

  test("a pass without calls records no bindings", () => {
    expect(extractFacts("go", "package p\nfunc f() { x := Foo{}; x.A() }\n", undefined, { calls: false }).bindings).toBeUndefined();
  });
});
