import { describe, expect, test } from "bun:test";
import { ToolError } from "../../src/core/errors.ts";
import { applyAiderBlocks, compactDiff, type AiderBlock, type AiderOptions } from "../../src/patch/aider.ts";
import { parseAiderText } from "../../src/patch/aider-parse.ts";

const LF: AiderOptions = { eol: "\n", fuzzy: false, fuzzyThreshold: 0.9 };
const CRLF: AiderOptions = { eol: "\r\n", fuzzy: false, fuzzyThreshold: 0.9 };
const FUZZY: AiderOptions = { eol: "\n", fuzzy: true, fuzzyThreshold: 0.8 };

function caught(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected a ToolError");
}

const apply = (text: string, blocks: AiderBlock[], options: AiderOptions = LF) => applyAiderBlocks(text, blocks, options);

describe("parseAiderText", () => {
  test("one block becomes whole-line search and replace texts", () => {
    const blocks = parseAiderText("<<<<<<< SEARCH\nold line\n=======\nnew line\n>>>>>>> REPLACE\n");
    expect(blocks).toEqual([{ search: "old line\n", replace: "new line\n" }]);
  });
  test("tolerates a filename line, fences, CRLF and several blocks", () => {
    const raw = [
      "src/app.ts",
      "```typescript",
      "<<<<<<< SEARCH",
      "a",
      "=======",
      "b",
      ">>>>>>> REPLACE",
      "```",
      "",
      "src/app.ts",
      "```",
      "<<<<<<< SEARCH",
      "=======",
      "appended",
      ">>>>>>> REPLACE",
      "```",
    ].join("\r\n");
    expect(parseAiderText(raw)).toEqual([
      { search: "a\n", replace: "b\n", filename: "src/app.ts" },
      { search: "", replace: "appended\n", filename: "src/app.ts" },
    ]);
  });
  test("an empty replace section deletes", () => {
    expect(parseAiderText("<<<<<<< SEARCH\nx\n=======\n>>>>>>> REPLACE")).toEqual([{ search: "x\n", replace: "" }]);
  });
  test("malformed text names the offending line", () => {
    const cases: Array<[string, number, string]> = [
      ["<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n", 3, "before the"],
      ["text\n=======\n", 2, "without an open"],
      ["<<<<<<< SEARCH\na\n=======\nb\n", 1, "not closed"],
      ["<<<<<<< SEARCH\na\n", 1, "no \"=======\""],
      ["<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE\n", 5, "second"],
      ["Here is my change:\nsrc/a.ts\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n", 1, "outside"],
      ["<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\ntrailing words\n", 6, "after the last"],
      ["<<<<<<< SEARCH\na\n<<<<<<< SEARCH\n", 3, "inside the block opened at line 1"],
    ];
    for (const [raw, line, fragment] of cases) {
      const error = caught(() => parseAiderText(raw));
      expect(error.code).toBe("invalid_input");
      expect(error.message).toContain(`line ${line}:`);
      expect(error.message).toContain(fragment);
      expect(error.details).toEqual({ line });
    }
  });
  test("text without any block is refused", () => {
    expect(caught(() => parseAiderText("just prose")).code).toBe("invalid_input");
    expect(caught(() => parseAiderText("")).message).toContain("no");
  });
});

describe("exact matching", () => {
  test("replaces a unique substring and reports its lines", () => {
    const result = apply("one\ntwo\nthree\n", [{ search: "two\n", replace: "TWO\n" }]);
    expect(result.text).toBe("one\nTWO\nthree\n");
    expect(result.applied).toEqual([{ index: 0, matcher: "exact", startLine: 2, endLine: 2 }]);
  });
  test("a partial-line search replaces only the fragment", () => {
    const result = apply("const total = price * quantity;\n", [{ search: "price * quantity", replace: "price * quantity * (1 + tax)" }]);
    expect(result.text).toBe("const total = price * quantity * (1 + tax);\n");
    expect(result.applied[0]).toMatchObject({ matcher: "exact", startLine: 1, endLine: 1 });
  });
  test("$&, $1 and $$ in the replacement stay literal", () => {
    const result = apply("let a = 1;\n", [{ search: "1", replace: "'$& $1 $$ $`'" }]);
    expect(result.text).toBe("let a = '$& $1 $$ $`';\n");
  });
  test("duplicate anchors are ambiguous and list both ranges", () => {
    const text = "function a() {\n  return 1;\n}\nfunction b() {\n  return 1;\n}\n";
    const error = caught(() => apply(text, [{ search: "  return 1;\n}\n", replace: "  return 2;\n}\n" }]));
    expect(error.code).toBe("ambiguous_match");
    expect(error.details).toMatchObject({ matcher: "exact", totalCandidates: 2, candidates: [{ startLine: 2, endLine: 3 }, { startLine: 5, endLine: 6 }] });
    expect(error.message).toContain("lines 2-3, 5-6");
  });
  test("many candidates are listed up to the limit with the total count", () => {
    const error = caught(() => apply("x\n".repeat(80), [{ search: "x", replace: "y" }]));
    expect(error.details).toMatchObject({ totalCandidates: 80 });
    expect((error.details as { candidates: unknown[] }).candidates).toHaveLength(50);
    expect(error.message).toContain("and 30 more");
  });
  test("overlapping occurrences count as separate places", () => {
    expect(caught(() => apply("aaa\n", [{ search: "aa", replace: "b" }])).code).toBe("ambiguous_match");
  });
  test("a unique exact fragment wins even when whole-line matching would be ambiguous", () => {
    // Stage 2 would see two equal lines ("x = 1" ignoring trailing spaces); stage 1 decides alone.
    const result = apply("x = 1  \nx = 1\n", [{ search: "x = 1  ", replace: "x = 2" }]);
    expect(result.text).toBe("x = 2\nx = 1\n");
    expect(result.applied[0]!.matcher).toBe("exact");
  });
  test("a search ending a line keeps the line break when the replacement lacks one", () => {
    expect(apply("a\nb\nc\n", [{ search: "b\n", replace: "B" }]).text).toBe("a\nB\nc\n");
  });
  test("inserted text takes the file's line endings", () => {
    const result = apply("a\r\nb\r\n", [{ search: "a", replace: "x\ny" }], CRLF);
    expect(result.text).toBe("x\r\ny\r\nb\r\n");
  });
});

describe("whitespace-insensitive matching", () => {
  test("trailing spaces in the file do not stop a whole-line match", () => {
    const result = apply("if (x) {   \n  go();\t\n}\n", [{ search: "if (x) {\n  go();\n}\n", replace: "if (y) {\n  stop();\n}\n" }]);
    expect(result.text).toBe("if (y) {\n  stop();\n}\n");
    expect(result.applied[0]).toEqual({ index: 0, matcher: "whitespace", startLine: 1, endLine: 3 });
  });
  test("trailing spaces in the search do not stop a match either", () => {
    const result = apply("alpha\nbeta\n", [{ search: "alpha  \nbeta \n", replace: "gamma\n" }]);
    expect(result.text).toBe("gamma\n");
  });
  test("an LF search matches a CRLF file and the result stays CRLF", () => {
    const text = "line one\r\nline two\r\nline three\r\n";
    const result = apply(text, [{ search: "line one\nline two\n", replace: "first\nsecond\nextra\n" }], CRLF);
    expect(result.text).toBe("first\r\nsecond\r\nextra\r\nline three\r\n");
    expect(result.applied[0]!.matcher).toBe("whitespace");
  });
  test("a CRLF search matches an LF file", () => {
    const result = apply("a\nb\nc\n", [{ search: "a\r\nb\r\n", replace: "z\r\n" }]);
    expect(result.text).toBe("z\nc\n");
  });
  test("a multi-line search with fragment ends matches when only line breaks differ", () => {
    const text = "const x = compute(\r\n  first,\r\n  second);\r\n";
    const result = apply(text, [{ search: "compute(\n  first,\n  sec", replace: "calc(\n  one,\n  sec" }], CRLF);
    expect(result.text).toBe("const x = calc(\r\n  one,\r\n  second);\r\n");
    expect(result.applied[0]).toMatchObject({ matcher: "whitespace", startLine: 1, endLine: 3 });
  });
  test("duplicates at the whitespace stage are ambiguous", () => {
    const error = caught(() => apply("end  \nmiddle\nend\t\n", [{ search: "end\n", replace: "END\n" }]));
    expect(error.code).toBe("ambiguous_match");
    expect(error.details).toMatchObject({ matcher: "whitespace", candidates: [{ startLine: 1, endLine: 1 }, { startLine: 3, endLine: 3 }] });
  });
  test("an empty replacement deletes the whole lines, also the last one without a newline", () => {
    expect(apply("a\nb  \nc\n", [{ search: "b\n", replace: "" }]).text).toBe("a\nc\n");
    expect(apply("a\nb  ", [{ search: "b\n", replace: "" }]).text).toBe("a");
  });
});

describe("indentation-insensitive matching", () => {
  const fileWithSpaces = [
    "class Cart {",
    "    total() {",
    "        let sum = 0;",
    "        for (const item of this.items) {",
    "            sum += item.price;",
    "        }",
    "        return sum;",
    "    }",
    "}",
    "",
  ].join("\n");

  test("a search shifted by 4 spaces matches and the replacement is shifted back", () => {
    const search = ["    for (const item of this.items) {", "        sum += item.price;", "    }", ""].join("\n");
    const replace = ["    for (const item of this.items) {", "        if (item.free) continue;", "        sum += item.price;", "    }", ""].join("\n");
    const result = apply(fileWithSpaces, [{ search, replace }]);
    expect(result.applied[0]).toEqual({ index: 0, matcher: "indentation", startLine: 4, endLine: 6 });
    expect(result.text).toBe(
      [
        "class Cart {",
        "    total() {",
        "        let sum = 0;",
        "        for (const item of this.items) {",
        "            if (item.free) continue;",
        "            sum += item.price;",
        "        }",
        "        return sum;",
        "    }",
        "}",
        "",
      ].join("\n"),
    );
  });

  test("a space-indented search matches a tab-indented file and the replacement gets tabs", () => {
    const file = "func main() {\n\tif ok {\n\t\tprintln(1)\n\t}\n}\n";
    const search = "  if ok {\n    println(1)\n  }\n";
    const replace = "  if ok {\n    println(1)\n    if more {\n      println(2)\n    }\n  }\n";
    const result = apply(file, [{ search, replace }]);
    expect(result.applied[0]!.matcher).toBe("indentation");
    expect(result.text).toBe("func main() {\n\tif ok {\n\t\tprintln(1)\n\t\tif more {\n\t\t\tprintln(2)\n\t\t}\n\t}\n}\n");
  });

  test("a tab-indented search matches a space-indented file and the replacement gets spaces", () => {
    const file = "def f():\n    if x:\n        return 1\n    return 2\n";
    const search = "\tif x:\n\t\treturn 1\n";
    const replace = "\tif x:\n\t\tlog()\n\t\treturn 1\n";
    const result = apply(file, [{ search, replace }]);
    expect(result.text).toBe("def f():\n    if x:\n        log()\n        return 1\n    return 2\n");
  });

  test("a single-line search takes the file's indentation unit from the rest of the file", () => {
    const tabbed = "fn a() {\n\tlet x = 1;\n}\n";
    const result = apply(tabbed, [{ search: "    let x = 1;\n", replace: "    let x = 1;\n    if x {\n        y();\n    }\n" }]);
    expect(result.applied[0]!.matcher).toBe("indentation");
    expect(result.text).toBe("fn a() {\n\tlet x = 1;\n\tif x {\n\t\ty();\n\t}\n}\n");
    const twoSpaces = "a:\n  b = 1\n  c = 2\nd:\n  e = 3\n";
    const second = apply(twoSpaces, [{ search: "    b = 1\n", replace: "    b = 1\n    if b:\n        f()\n" }]);
    expect(second.text).toBe("a:\n  b = 1\n  if b:\n    f()\n  c = 2\nd:\n  e = 3\n");
  });

  test("a search without indentation that occurs inside a line is an exact fragment match", () => {
    // Documented: stage 1 takes fragments literally, so no re-indentation happens.
    const result = apply("\tlet x = 1;\n", [{ search: "let x = 1;", replace: "let x = 2;" }]);
    expect(result).toEqual({ text: "\tlet x = 2;\n", applied: [{ index: 0, matcher: "exact", startLine: 1, endLine: 1 }] });
  });

  test("replacement lines shallower than the search lose whole file units", () => {
    const tabbed = "class A {\n\tm() {\n\t\tif (x) {\n\t\t\ty();\n\t\t}\n\t}\n}\n";
    const search = "    if (x) {\n        y();\n    }\n";
    const replace = "    if (x) {\n        y();\n    }\n}\nfunction extra() {\n    z();\n";
    expect(apply(tabbed, [{ search, replace }]).text).toBe("class A {\n\tm() {\n\t\tif (x) {\n\t\t\ty();\n\t\t}\n\t}\n\tfunction extra() {\n\t\tz();\n\t}\n}\n");
    const spaced = "def a():\n        if x:\n            y()\n";
    expect(apply(spaced, [{ search: "    if x:\n        y()\n", replace: "    if x:\n        y()\nz()\n" }]).text).toBe("def a():\n        if x:\n            y()\n    z()\n");
  });

  test("a different relative structure does not match at the indentation stage", () => {
    const file = "if a:\n    b()\nc()\n";
    const error = caught(() => apply(file, [{ search: "if a:\nb()\nc()\n", replace: "x\n" }]));
    expect(error.code).toBe("no_match");
  });

  test("duplicates at the indentation stage are ambiguous, never resolved by fuzzy", () => {
    const file = "  one\n    two\n\tone\n\t\ttwo\n";
    const error = caught(() => apply(file, [{ search: "one\n  two\n", replace: "x\n" }], FUZZY));
    expect(error.code).toBe("ambiguous_match");
    expect(error.details).toMatchObject({ matcher: "indentation", candidates: [{ startLine: 1, endLine: 2 }, { startLine: 3, endLine: 4 }] });
  });
});

describe("no_match and fuzzy matching", () => {
  const file = [
    "export function loadUser(id: string) {",
    "  const user = db.users.find(id);",
    "  if (!user) throw new Error('missing');",
    "  return user;",
    "}",
    "",
    "export function saveUser(user: User) {",
    "  db.users.save(user);",
    "}",
    "",
  ].join("\n");
  const nearMiss = "  const user = db.user.find(id);\n  if (!user) throw new Error('missing');\n";

  test("a near miss without fuzzy reports the nearest lines and a character diff", () => {
    const error = caught(() => apply(file, [{ search: nearMiss, replace: "x\n" }]));
    expect(error.code).toBe("no_match");
    const nearest = (error.details as { nearest: { startLine: number; endLine: number; similarity: number; text: string; diff: string } }).nearest;
    expect(nearest.startLine).toBe(2);
    expect(nearest.endLine).toBe(3);
    expect(nearest.similarity).toBeGreaterThan(0.95);
    expect(nearest.text).toBe("  const user = db.users.find(id);\n  if (!user) throw new Error('missing');");
    expect(nearest.diff).toContain("db.user+[s].find");
    expect(error.message).toContain("lines 2-3");
    expect(error.message).toContain("+[s]");
  });

  test("the diff shows what is only in the search as -[...]", () => {
    expect(compactDiff("return  value;", "return value;")).toBe("return -[ ]value;");
    expect(compactDiff("a\tb", "a b")).toBe("a-[\\t]+[ ]b");
  });

  test("fuzzy on applies the unique best window and reports its similarity", () => {
    const result = apply(file, [{ search: nearMiss, replace: "  const user = db.users.get(id);\n  if (!user) return null;\n" }], FUZZY);
    expect(result.applied[0]).toMatchObject({ matcher: "fuzzy", startLine: 2, endLine: 3 });
    expect(result.applied[0]!.similarity).toBeGreaterThan(0.95);
    expect(result.text).toContain("export function loadUser(id: string) {\n  const user = db.users.get(id);\n  if (!user) return null;\n  return user;\n}");
  });

  test("fuzzy below the threshold is still no_match", () => {
    const error = caught(() => apply(file, [{ search: "  const account = storage.accounts.lookup(key);\n", replace: "x\n" }], FUZZY));
    expect(error.code).toBe("no_match");
    expect(error.message).toContain("below the fuzzy threshold");
  });

  test("two windows within 0.02 of each other are ambiguous under fuzzy", () => {
    const twins = "alpha(1);\nbeta(1);\nalpha(2);\nbeta(2);\n";
    const error = caught(() => apply(twins, [{ search: "alpha(3);\nbeta(3);\n", replace: "x\n" }], { ...FUZZY, fuzzyThreshold: 0.7 }));
    expect(error.code).toBe("ambiguous_match");
    expect(error.details).toMatchObject({ matcher: "fuzzy", candidates: [{ startLine: 1, endLine: 2 }, { startLine: 3, endLine: 4 }] });
  });

  test("a runner-up within the margin is ambiguous; one further away is not", () => {
    const long = "const configuration = loadConfiguration(environmentName, overrides);";
    const oneOff = long.replace("overrides", "overridez");
    const twoOff = long.replace("overrides", "overrizez");
    const nearRival = `${oneOff}\n// separator line that is long enough to not matter here\n${twoOff}\n`;
    const near = caught(() => apply(nearRival, [{ search: `${long}\n`, replace: "x\n" }], FUZZY));
    expect(near.code).toBe("ambiguous_match");
    expect((near.details as { candidates: unknown[] }).candidates).toHaveLength(2);
    const farRival = "alpha(3);\nbeta(1);\nalpha(1);\nbeta(1);\n";
    const result = apply(farRival, [{ search: "alpha(3);\nbeta(3);\n", replace: "gamma();\n" }], FUZZY);
    expect(result.text).toBe("gamma();\nalpha(1);\nbeta(1);\n");
    expect(result.applied[0]).toMatchObject({ matcher: "fuzzy", startLine: 1, endLine: 2, similarity: 0.941 });
  });

  test("fuzzy re-indents the replacement to the matched window", () => {
    const tabbed = "function f() {\n\tif (ready) {\n\t\tstart(1);\n\t}\n}\n";
    const result = apply(tabbed, [{ search: "  if (ready) {\n    start(l);\n  }\n", replace: "  if (ready) {\n    start(2);\n  }\n" }], FUZZY);
    expect(result.applied[0]!.matcher).toBe("fuzzy");
    expect(result.text).toBe("function f() {\n\tif (ready) {\n\t\tstart(2);\n\t}\n}\n");
  });

  test("text too different for a character diff shows the file's lines instead", () => {
    const other = Array.from({ length: 12 }, (_, line) => `completely different content number ${line}`).join("\n");
    const error = caught(() => apply(file, [{ search: `${other}\n`, replace: "x\n" }]));
    expect(error.code).toBe("no_match");
    expect(error.message).toContain("differ too much");
    expect(error.message).toContain("export function");
    expect((error.details as { nearest: { diff: unknown } }).nearest.diff).toBeNull();
  });

  test("the nearest window is found far into a large, repetitive file", () => {
    const lines = Array.from({ length: 3000 }, (_, line) => `  const value${line % 97} = compute(${line}, "item-${line % 13}");`);
    const big = `${lines.join("\n")}\n`;
    const target = lines.slice(2400, 2410);
    const damaged = target.map((line, position) => (position === 4 ? line.replace("compute", "compte") : line));
    const error = caught(() => apply(big, [{ search: `${damaged.join("\n")}\n`, replace: "x\n" }]));
    expect(error.details).toMatchObject({ nearest: { startLine: 2401, endLine: 2410 } });
    const result = apply(big, [{ search: `${damaged.join("\n")}\n`, replace: "  replaced();\n" }], FUZZY);
    expect(result.applied[0]).toMatchObject({ matcher: "fuzzy", startLine: 2401, endLine: 2410 });
    expect(result.text).toBe(`${[...lines.slice(0, 2400), "  replaced();", ...lines.slice(2410)].join("\n")}\n`);
  });

  test("an empty file has no nearest text", () => {
    const error = caught(() => apply("", [{ search: "x\n", replace: "y\n" }]));
    expect(error.code).toBe("no_match");
    expect(error.details).toMatchObject({ nearest: null });
  });
});

describe("ordering and appending", () => {
  test("the second block sees the first block's result and reports lines in it", () => {
    const result = apply("a\nb\nc\n", [
      { search: "a\n", replace: "a1\na2\na3\n" },
      { search: "a3\nb\n", replace: "B\n" },
    ]);
    expect(result.text).toBe("a1\na2\nB\nc\n");
    expect(result.applied).toEqual([
      { index: 0, matcher: "exact", startLine: 1, endLine: 1 },
      { index: 1, matcher: "exact", startLine: 3, endLine: 4 },
    ]);
  });
  test("parsed Aider text applies to a CRLF file and keeps it CRLF", () => {
    const blocks = parseAiderText("app.py\n```python\n<<<<<<< SEARCH\ndef run():\n    return 1\n=======\ndef run():\n    return 2\n>>>>>>> REPLACE\n```\n");
    const result = apply("import os\r\n\r\ndef run():\r\n    return 1\r\n", blocks, CRLF);
    expect(result.text).toBe("import os\r\n\r\ndef run():\r\n    return 2\r\n");
    expect(result.applied[0]).toEqual({ index: 0, matcher: "whitespace", startLine: 3, endLine: 4 });
  });
  test("a failing later block names its position", () => {
    const error = caught(() => apply("a\nb\n", [{ search: "a\n", replace: "x\n" }, { search: "a\n", replace: "y\n" }]));
    expect(error.code).toBe("no_match");
    expect(error.message).toStartWith("Block 2:");
    expect(error.details).toMatchObject({ block: 1 });
  });
  test("an empty search appends, adding a line break when the file lacks a final one", () => {
    expect(apply("last", [{ search: "", replace: "added\n" }])).toEqual({ text: "last\nadded\n", applied: [{ index: 0, matcher: "append", startLine: 2, endLine: 2 }] });
    expect(apply("last\r\n", [{ search: "", replace: "one\ntwo\n" }], CRLF).text).toBe("last\r\none\r\ntwo\r\n");
    expect(apply("", [{ search: "", replace: "first\n" }]).text).toBe("first\n");
  });
});

describe("byte fidelity", () => {
  test("bytes outside the edited region are untouched", () => {
    const before = "// héllo 🌍\r\n\tkeep  \r\nold value\r\nmixed\nend without newline";
    const result = apply(before, [{ search: "old value", replace: "new value" }], CRLF);
    expect(result.text).toBe("// héllo 🌍\r\n\tkeep  \r\nnew value\r\nmixed\nend without newline");
  });
  test("a whole-line edit keeps the neighbouring lines' own terminators in a mixed file", () => {
    const before = "one\r\ntwo  \nthree\r\n";
    const result = apply(before, [{ search: "two\n", replace: "2a\n2b\n" }], CRLF);
    expect(result.text).toBe("one\r\n2a\r\n2b\nthree\r\n");
  });
});
