/**
 * The syntax guard's local check (a parse of an edit's statements and their neighbours) against a
 * parse of the whole candidate, over random edits of this project's own sources: whenever the local
 * check answers, the whole file has no errors and the same top-level statements.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SgNode } from "@ast-grep/napi";
import { parseSource, type TopLevelStatement, topLevelStatements } from "../../src/syntax/index.ts";
import { type AstRule, applyAstRules, statementsThatCanMatch } from "../../src/patch/ast-rules.ts";
import { localStatements, SyntaxGuard } from "../../src/patch/syntax-guard.ts";
import { random } from "../support/random.ts";

function statementsOf(language: string, text: string): { errors: number; statements: TopLevelStatement[] } {
  const parsed = parseSource(language, text)!;
  const list = topLevelStatements(parsed.root);
  return { errors: parsed.errorCount, statements: Array.from({ length: list.length }, (_, index) => list.at(index)) };
}

/** Texts that change how neighbouring statements end, or break the file, when put in the wrong place. */
const SNIPPETS = [
  "let x = b",
  "\n/re/.test(s);\n",
  "\n(foo)();\n",
  "\n[1, 2].forEach(f);\n",
  "`open template",
  "/* open comment",
  "}",
  "{",
  "x = 1;",
  "\nfunction added(): void {}\n",
  "\nconst arrow = () =>",
  "a\n++b",
  "let y = (",
  "\nexport const z = 2;\n",
  "\n// a comment\n",
  "<",
  ".member",
  "\n@decorator\n",
  "\nclass Added { m() { return 1; } }\n",
  "",
];

const SOURCE_DIR = path.join(import.meta.dir, "..", "..", "src", "patch");

describe("local syntax check", () => {
  test("answers only where the whole parse agrees: no errors and the same statements", () => {
    const next = random(7);
    const files = readdirSync(SOURCE_DIR).filter((name) => name.endsWith(".ts")).sort().slice(0, 8);
    let answered = 0;
    let errorFree = 0;
    for (const name of files) {
      const before = readFileSync(path.join(SOURCE_DIR, name), "utf8");
      const original = statementsOf("typescript", before);
      expect(original.errors).toBe(0);
      const statements = original.statements;
      for (let round = 0; round < 40; round++) {
        const kind = next();
        const target = statements[Math.floor(next() * statements.length)]!;
        const other = statements[Math.floor(next() * statements.length)]!;
        let after: string;
        if (kind < 0.25) after = before.slice(0, target.start) + before.slice(other.start, other.end) + before.slice(target.end);
        else if (kind < 0.4) after = before.slice(0, target.start) + before.slice(target.end);
        else if (kind < 0.8) {
          const snippet = SNIPPETS[Math.floor(next() * SNIPPETS.length)]!;
          const at = next() < 0.5 ? target.end : target.start + Math.floor(next() * (target.end - target.start));
          after = before.slice(0, at) + snippet + before.slice(at);
        } else {
          const at = target.start + Math.floor(next() * (target.end - target.start));
          after = before.slice(0, at) + String.fromCharCode(32 + Math.floor(next() * 90)) + before.slice(at + 1);
        }
        const whole = statementsOf("typescript", after);
        const local = localStatements("typescript", before, after, statements);
        if (whole.errors === 0) errorFree++;
        if (local === undefined) continue;
        answered++;
        expect({ name, round, errors: whole.errors }).toEqual({ name, round, errors: 0 });
        expect(local).toEqual(whole.statements);
      }
    }
    console.log(`local check answered ${answered} of ${errorFree} error-free edits`);
    // The check must answer for many error-free edits (these are adversarial; plain edits do better), or it saves nothing.
    expect(answered).toBeGreaterThan(errorFree * 0.3);
  });

  test("a statement whose end moves with the new text sends the guard to the whole parse", () => {
    // `let a = b` followed by a line starting with `(`: the two become one call expression.
    const before = "let a = b\nconsole.log(1);\nexport const c = 1;\n";
    const after = "let a = b\n(f)();\nconsole.log(1);\nexport const c = 1;\n";
    const { statements } = statementsOf("typescript", before);
    expect(localStatements("typescript", before, after, statements)).toBeUndefined();
    // A regular expression after such a statement reads as a division: an error the window alone would not show.
    const broken = "let a = b\n/re/.test(s);\nconsole.log(1);\nexport const c = 1;\n";
    expect(statementsOf("typescript", broken).errors).toBeGreaterThan(0);
    expect(localStatements("typescript", before, broken, statements)).toBeUndefined();
  });

  test("a change that could open or close a token running past the window sends the guard to the whole parse", () => {
    const tail = Array.from({ length: 12 }, (_, index) => `\nexport function f${index}(): number {\n  return ${index};\n}\n`).join("");
    const before = `/** Renders "a". */\nexport function a(): void {}\n\n/** Renders "b". */\nexport function b(): void {}\n${tail}`;
    const { statements } = statementsOf("typescript", before);
    // `*/` → `H/`: cut at the window's end the comment reads as a regular expression; in the file it runs on to the next `*/`.
    const opened = before.replace("\"a\". */", "\"a\". H/");
    expect(statementsOf("typescript", opened).statements.length).toBeLessThan(statements.length);
    expect(localStatements("typescript", before, opened, statements)).toBeUndefined();
    // A hashbang is valid only first in a file, however it looks in a window.
    expect(localStatements("typescript", before, before.replace("\n\n/**", "\n\n#!/usr/bin/env node\n/**"), statements)).toBeUndefined();
    // Template literals, backslashes and (in files that may hold JSX) angle brackets likewise.
    expect(localStatements("typescript", before, before.replace("(): void {}", "(): void { `x`; }"), statements)).toBeUndefined();
    expect(localStatements("typescript", before, before.replace("(): void {}", "(): void { \"a\\nb\"; }"), statements)).toBeUndefined();
    expect(localStatements("tsx", before, before.replace("(): void {}", "(): void { <p />; }"), statements)).toBeUndefined();
    // A plain edit of the same place is checked locally.
    expect(localStatements("typescript", before, before.replace("(): void {}", "(): void { return; }"), statements)).toEqual(
      statementsOf("typescript", before.replace("(): void {}", "(): void { return; }")).statements,
    );
  });

  test("the guard's verdict through the local check equals the whole parse's, and a later edit starts from it", async () => {
    const lines = ["const seen: string[] = [];"];
    for (let index = 0; index < 40; index++) lines.push("", `export function fn${index}(input: string): string {`, `  return input + "${index}";`, "}");
    const before = `${lines.join("\n")}\n`;
    const guard = new SyntaxGuard();
    // The first inspection parses the whole original and keeps its statements for the next edit.
    await guard.inspect("a.ts", "typescript", undefined, before, { statements: true });
    await new Promise((resolve) => setImmediate(resolve));
    const after = before.replace("return input + \"7\";", "return input + \"seven\";");
    const checked = guard.localChecks;
    const inspection = await guard.inspect("a.ts", "typescript", before, after, { statements: true });
    expect(guard.localChecks).toBe(checked + 1);
    expect(inspection.report).toMatchObject({ checked: true, beforeErrors: 0, afterErrors: 0, newErrors: [] });
    const whole = statementsOf("typescript", after).statements;
    expect(Array.from({ length: inspection.statements!.length }, (_, index) => inspection.statements!.at(index))).toEqual(whole);
    // A broken edit of the checked candidate still gets every error located by the whole parse.
    const broken = after.replace("return input + \"9\";", "return input + (;");
    const refused = await guard.inspect("a.ts", "typescript", after, broken, { statements: true });
    expect(refused.report.afterErrors).toBeGreaterThan(0);
    expect(guard.localChecks).toBe(checked + 1);
    expect(refused.report.newErrors[0]!.line).toBe(broken.slice(0, broken.indexOf("(;")).split("\n").length);
  });
});

describe("structural rules on the statements that can match", () => {
  test("find exactly the matches a parse of the whole file finds, with the same positions", async () => {
    const files = readdirSync(SOURCE_DIR).filter((name) => name.endsWith(".ts")).sort().slice(0, 10);
    let used = 0;
    let tried = 0;
    for (const name of files) {
      const text = readFileSync(path.join(SOURCE_DIR, name), "utf8");
      const { statements } = statementsOf("typescript", text);
      const whole = parseSource("typescript", text)!.root.root();
      // Callees of this file: patterns whose literal is a name called here (often in a few statements only).
      const callees = [...new Set([...text.matchAll(/\b([a-z][A-Za-z0-9]{3,})\(/g)].map((match) => match[1]!))].slice(0, 12);
      for (const callee of callees) {
        for (const pattern of [`${callee}($$$ARGS)`, `${callee}($A)`, `await ${callee}($$$ARGS)`]) {
          tried++;
          const parts = statementsThatCanMatch("typescript", text, statements, { pattern, fix: "x" });
          if (parts === undefined) continue;
          used++;
          const where = (node: SgNode, offset = 0, line = 0) =>
            `${node.range().start.index + offset}-${node.range().end.index + offset}:${node.range().start.line + line}:${node.range().start.column}:${node.text()}`;
          const found = parts.flatMap((part) => part.root.root().findAll({ rule: { pattern } }).map((node) => where(node, part.offset, part.line)));
          expect({ pattern, found }).toEqual({ pattern, found: whole.findAll({ rule: { pattern } }).map((node) => where(node)) });
        }
      }
    }
    expect(used).toBeGreaterThan(tried * 0.3);
  });

  test("a rewrite through them equals one through a whole parse, and the first rule of a file checked moments ago uses them", async () => {
    const lines = ["const seen: string[] = [];"];
    for (let index = 0; index < 40; index++) lines.push("", `export function fn${index}(input: string): string {`, `  return track("fn${index}", ${index});`, "}");
    const text = `${lines.join("\n")}\n`;
    const rules: AstRule[] = [{ pattern: "track(\"fn7\", $N)", fix: "track(\"fn7\", $N + 1)" }];
    const expected = await applyAstRules(text, "typescript", rules);
    const { statements } = statementsOf("typescript", text);
    expect(statementsThatCanMatch("typescript", text, statements, rules[0]!)?.length).toBe(1);
    // Kept by the guard's whole parse of the text, as after a write.
    const guard = new SyntaxGuard();
    await guard.inspect("a.ts", "typescript", undefined, text, { statements: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await applyAstRules(text, "typescript", rules, guard)).toEqual(expected);
    expect(expected.text).toContain("track(\"fn7\", 7 + 1)");
  });
});
