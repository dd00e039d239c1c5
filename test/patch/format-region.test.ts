import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseTree, topLevelStatements, type TopLevelStatement, type TopLevelStatements } from "../../src/intel/languages.ts";
import { Formatters } from "../../src/patch/format.ts";
import { changedSpan, changedStatementRegion, sameRegion, statementsAfterEdit } from "../../src/patch/format-region.ts";
import { random } from "../support/random.ts";

function statementsOf(text: string, language: "typescript" | "tsx" | "javascript" = "typescript"): TopLevelStatements {
  const root = parseTree(language, text);
  if (!root) throw new Error("no parser");
  return topLevelStatements(root);
}

const ORIGINAL = [
  "// Header comment.",
  'import { b, a } from "./m.ts";',
  "",
  "const one = 1;",
  "",
  "/** Leads into two. */",
  "export function two(): number {",
  "  return 2;",
  "} // trails two",
  "",
  "export const three = 3;",
  "",
].join("\n");

describe("changedStatementRegion", () => {
  test("the changed span comes from the common prefix and suffix", () => {
    expect(changedSpan("abcXdef", "abcYYdef")).toEqual({ start: 3, end: 5 });
    expect(changedSpan("aaaa", "aaaaa")).toEqual({ start: 4, end: 5 });
    expect(changedSpan("abc", "ac")).toEqual({ start: 1, end: 1 });
  });

  test("the changed span equals a character-by-character comparison on random pairs", () => {
    const plain = (original: string, candidate: string) => {
      const shorter = Math.min(original.length, candidate.length);
      let prefix = 0;
      while (prefix < shorter && original[prefix] === candidate[prefix]) prefix++;
      let suffix = 0;
      while (suffix < shorter - prefix && original[original.length - 1 - suffix] === candidate[candidate.length - 1 - suffix]) suffix++;
      return { start: prefix, end: candidate.length - suffix };
    };
    const next = random(7);
    // Few letters, so repeats make prefix and suffix compete for the same characters.
    const text = (length: number) => Array.from({ length }, () => "ab\né"[Math.floor(next() * 4)]).join("");
    for (let round = 0; round < 2000; round++) {
      const original = text(Math.floor(next() * 40));
      const at = Math.floor(next() * (original.length + 1));
      const candidate = original.slice(0, at) + text(Math.floor(next() * 4)) + original.slice(at + Math.floor(next() * 4));
      expect(changedSpan(original, candidate)).toEqual(plain(original, candidate));
    }
  });

  test("an edit inside one statement selects it with its leading and same-line trailing comments", () => {
    const candidate = ORIGINAL.replace("return 2;", "return 2+0;");
    const region = changedStatementRegion(ORIGINAL, candidate, statementsOf(candidate));
    expect(region && candidate.slice(region.start, region.end)).toBe("/** Leads into two. */\nexport function two(): number {\n  return 2+0;\n} // trails two");
    expect(region).toMatchObject({ firstLine: 6, lastLine: 9 });
  });

  test("a change in the gap between statements brings in the statements on both sides", () => {
    const candidate = ORIGINAL.replace("} // trails two\n\nexport const", "} // trails two\n\n\n\nexport const");
    const region = changedStatementRegion(ORIGINAL, candidate, statementsOf(candidate));
    expect(region && candidate.slice(region.start, region.end)).toStartWith("/** Leads into two. */");
    expect(region && candidate.slice(region.start, region.end)).toEndWith("export const three = 3;");
  });

  test("an edit next to an import group, in the file header or trailer, or with ignore comments is refused", () => {
    const nearImport = ORIGINAL.replace("const one = 1;", "const one = 10;");
    expect(changedStatementRegion(ORIGINAL, nearImport, statementsOf(nearImport))).toBeUndefined();
    const header = `\n${ORIGINAL}`;
    expect(changedStatementRegion(ORIGINAL, header, statementsOf(header))).toBeUndefined();
    const trailer = `${ORIGINAL}\n\n`;
    expect(changedStatementRegion(ORIGINAL, trailer, statementsOf(trailer))).toBeUndefined();
    const ignored = ORIGINAL.replace("export const three = 3;", "// dprint-ignore\nexport const three   = 3;");
    expect(changedStatementRegion(ORIGINAL, ignored, statementsOf(ignored))).toBeUndefined();
    const crlf = ORIGINAL.replaceAll("\n", "\r\n");
    const crlfEdit = crlf.replace("return 2;", "return 3;");
    expect(changedStatementRegion(crlf, crlfEdit, statementsOf(crlfEdit))).toBeUndefined();
    expect(changedStatementRegion(ORIGINAL, ORIGINAL, statementsOf(ORIGINAL))).toBeUndefined();
  });
});

function listOf(statements: TopLevelStatements): TopLevelStatement[] {
  return Array.from({ length: statements.length }, (_, index) => statements.at(index));
}

describe("statementsAfterEdit", () => {
  const original = statementsOf(ORIGINAL);

  test("an edit inside a statement keeps every statement, each where the candidate's parse puts it", () => {
    for (const candidate of [ORIGINAL.replace("return 2;", "return 2 + 40;\n  // more\n"), ORIGINAL.replace("const one = 1;", "const one = [\n  1,\n];")]) {
      const assumed = listOf(statementsAfterEdit(listOf(original), ORIGINAL, candidate));
      const actual = listOf(statementsOf(candidate));
      expect(assumed.map(({ start, end, startLine, endLine }) => ({ start, end, startLine, endLine }))).toEqual(actual.map(({ start, end, startLine, endLine }) => ({ start, end, startLine, endLine })));
    }
  });

  test("statements an edit joins become one, spanning them in the candidate; later ones shift by lines and characters", () => {
    const candidate = ORIGINAL.replace("  return 2;\n} // trails two\n\nexport const three = 3;", "  return 3;\n}");
    const assumed = listOf(statementsAfterEdit(listOf(original), ORIGINAL, candidate));
    const joined = assumed.at(-1) as TopLevelStatement;
    expect(candidate.slice(joined.start, joined.end)).toBe("export function two(): number {\n  return 3;\n}");
    expect(joined.endLine).toBe(candidate.slice(0, joined.end).split("\n").length - 1);
    const shifted = listOf(statementsAfterEdit(listOf(original), ORIGINAL, `// one more line\n${ORIGINAL}`)).at(-1) as TopLevelStatement;
    const last = listOf(original).at(-1) as TopLevelStatement;
    expect(shifted).toMatchObject({ start: last.start + 17, end: last.end + 17, startLine: last.startLine + 1 });
  });

  test("a view equal to the statements shifted one by one, on random edits of this project's sources", () => {
    // The plain reading of the rule: each statement wholly before, wholly after, or touched by the change.
    const reference = (statements: readonly TopLevelStatement[], before: string, after: string): TopLevelStatement[] => {
      const changed = changedSpan(before, after);
      const shift = after.length - before.length;
      const originalEnd = changed.end - shift;
      const lines = (text: string, start: number, end: number) => text.slice(start, end).split("\n").length - 1;
      const lineShift = lines(after, changed.start, changed.end) - lines(before, changed.start, originalEnd);
      const changeLine = lines(after, 0, changed.start);
      const changeEndLine = changeLine + lines(after, changed.start, changed.end);
      const result: TopLevelStatement[] = [];
      let touched: TopLevelStatement | undefined;
      let touchedAt = -1;
      for (const statement of statements) {
        if (statement.end <= changed.start) result.push(statement);
        else if (statement.start >= originalEnd) result.push({ ...statement, start: statement.start + shift, end: statement.end + shift, startLine: statement.startLine + lineShift, endLine: statement.endLine + lineShift });
        else {
          const endsAfter = statement.end >= originalEnd;
          const end = endsAfter ? statement.end + shift : changed.end;
          const endLine = endsAfter ? statement.endLine + lineShift : changeEndLine;
          if (touched === undefined) touchedAt = result.length;
          touched = touched
            ? { ...touched, end, endLine, kind: "statement", namesModule: touched.namesModule || statement.namesModule }
            : statement.start <= changed.start
              ? { ...statement, end, endLine }
              : { ...statement, start: changed.start, startLine: changeLine, end, endLine };
        }
      }
      if (touched !== undefined) result.splice(touchedAt, 0, touched);
      return result;
    };
    const next = random(20261130);
    const sources = readdirSync(path.join(import.meta.dir, "../../src/patch")).filter((name) => name.endsWith(".ts")).map((name) => readFileSync(path.join(import.meta.dir, "../../src/patch", name), "utf8"));
    let cases = 0;
    for (const text of sources) {
      const statements = listOf(statementsOf(text));
      for (let round = 0; round < 20; round++) {
        // Edits that begin or end exactly at a statement's edge, and anywhere.
        const edge = () => {
          const statement = statements[Math.floor(next() * statements.length)] as TopLevelStatement;
          return next() < 0.5 ? statement.start : statement.end;
        };
        const start = next() < 0.3 ? edge() : Math.floor(next() * text.length);
        const end = next() < 0.3 ? Math.max(start, edge()) : start + Math.floor(next() * (next() < 0.8 ? 40 : 2000));
        const length = end - start;
        const inserted = ["", "x", "\n", "\n\n// c\n", "const q = 1;\n"][Math.floor(next() * 5)] as string;
        const candidate = text.slice(0, start) + inserted + text.slice(start + length);
        if (candidate === text) continue;
        expect(listOf(statementsAfterEdit(statements, text, candidate))).toEqual(reference(statements, text, candidate));
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(200);
  });

  test("sameRegion compares the regions the two statement lists select", () => {
    const candidate = ORIGINAL.replace("return 2;", "return 20;");
    expect(sameRegion(ORIGINAL, candidate, statementsAfterEdit(listOf(original), ORIGINAL, candidate), statementsOf(candidate))).toBe(true);
    const gap = ORIGINAL.replace("} // trails two\n", "} // trails two\n\nexport const between = 0;\n");
    const assumedGap = statementsAfterEdit(listOf(original), ORIGINAL, gap);
    expect(sameRegion(ORIGINAL, gap, assumedGap, statementsOf(gap))).toBe(changedStatementRegion(ORIGINAL, gap, assumedGap)?.start === changedStatementRegion(ORIGINAL, gap, statementsOf(gap))?.start && changedStatementRegion(ORIGINAL, gap, assumedGap)?.end === changedStatementRegion(ORIGINAL, gap, statementsOf(gap))?.end);
    expect(sameRegion(ORIGINAL, candidate, statementsAfterEdit(listOf(original), ORIGINAL, candidate), undefined)).toBe(false);
  });
});

/**
 * The promise behind statement formatting: for a formatter-clean original, formatting the
 * changed statements alone gives exactly what formatting the whole candidate gives. Checked on
 * this project's own sources (made clean first) under two configurations, with edits of every
 * shape an agent makes: inside statements, between them, new statements, comments, blank lines.
 */
describe("statement formatting equals whole-file formatting", () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), "ast-mcp-format-region-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const sources: string[] = [];
  (function walk(dir: string) {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".ts")) sources.push(full);
    }
  })(path.join(import.meta.dir, "../../src"));

  let seed = 20261130;
  const pick = (count: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % count;
  };
  const at = (text: string, pattern: RegExp) => {
    const found = [...text.matchAll(pattern)];
    return found.length === 0 ? undefined : (found[pick(found.length)] as RegExpMatchArray);
  };
  const EDITS: Array<(text: string) => string | undefined> = [
    (text) => {
      const found = at(text, / = /g);
      return found && `${text.slice(0, found.index)}=${text.slice((found.index ?? 0) + 3)}`;
    },
    (text) => {
      const found = at(text, /\n/g);
      return found && `${text.slice(0, found.index)}\n\n\n${text.slice(found.index)}`;
    },
    (text) => {
      const found = at(text, /\n {2}[a-z]/g);
      return found && `${text.slice(0, found.index)}\n  const   zz = [1,2,  3] ;${text.slice(found.index)}`;
    },
    (text) => {
      const found = at(text, /\n/g);
      return found && `${text.slice(0, found.index)}\n// an added comment${text.slice(found.index)}`;
    },
    (text) => {
      const found = at(text, /\n(export )?function /g);
      return found && `${text.slice(0, found.index)}\nfunction added(a:number,b : string){ return a+ b.length }${text.slice(found.index)}`;
    },
    (text) => {
      const found = at(text, /\(([a-z]+)\)/g);
      return found && `${text.slice(0, found.index)}( ${found[1]} , extraArgumentNumberOne, extraArgumentNumberTwo, extraArgumentNumberThree )${text.slice((found.index ?? 0) + found[0].length)}`;
    },
    (text) => {
      const found = at(text, /\n\n/g);
      return found && `${text.slice(0, found.index)}\n${text.slice((found.index ?? 0) + 2)}`;
    },
    (text) => {
      const found = at(text, /;\n/g);
      return found && `${text.slice(0, found.index)}\n${text.slice((found.index ?? 0) + 2)}`;
    },
    (text) => {
      const found = at(text, /\n\}/g);
      return found && `${text.slice(0, found.index)} // trailing${text.slice(found.index)}`;
    },
  ];

  for (const [name, config] of [
    ["default settings", "{}"],
    ["a narrow, semicolon-free, single-quote config", JSON.stringify({ lineWidth: 72, typescript: { semiColons: "asi", quoteStyle: "alwaysSingle", trailingCommas: "never" } })],
  ] as const) {
    test(`${name}: identical on edits of this project's sources`, { timeout: 30_000 }, async () => {
      const formatters = await Formatters.load({ firstRootReal: root, readDprintConfig: async () => config, external: [], enabled: true });
      let compared = 0;
      let agreed = 0;
      for (const [index, source] of sources.entries()) {
        const text = readFileSync(source, "utf8");
        // Files up to 16k characters, until 30 edits were formatted by statement, keep the test quick.
        if (compared >= 30) break;
        if (text.length > 16_000) continue;
        const target = path.join(root, "src", `f${index}.ts`);
        const whole = await formatters.formatCandidate(target, undefined, text, "write_unformatted");
        const original = whole.text;
        // Only a formatter-clean original is ever formatted by statement.
        if (!whole.formatted || (await formatters.formatCandidate(target, original, original, "write_unformatted")).text !== original) continue;
        const candidate = (EDITS[pick(EDITS.length)] as (text: string) => string | undefined)(original);
        if (candidate === undefined || candidate === original) continue;
        const statements = statementsOf(candidate);
        const expected = await formatters.formatCandidate(target, original, candidate, "write_unformatted");
        const actual = await formatters.formatCandidate(target, original, candidate, "write_unformatted", statements);
        expect({ source, text: actual.text }).toEqual({ source, text: expected.text });
        if (actual.reason.includes("the changed statements")) compared++;
        // Formatting ahead of the parse, from the original's statements: wherever the candidate's parse agrees on the region, the text is the same.
        const assumed = statementsAfterEdit(listOf(statementsOf(original)), original, candidate);
        if (sameRegion(original, candidate, assumed, statements)) {
          agreed++;
          expect({ source, ahead: (await formatters.formatCandidate(target, original, candidate, "write_unformatted", assumed)).text }).toEqual({ source, ahead: expected.text });
        }
      }
      // The original's statements predict the candidate's region for most edits, so committing ahead pays.
      expect(agreed).toBeGreaterThanOrEqual(Math.floor(compared * 0.8));
      // The comparison really exercised statement formatting, not only the whole-file fallback.
      expect(compared).toBe(30);
    });
  }
});
