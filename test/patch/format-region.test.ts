import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseTree, topLevelStatements, type TopLevelStatements } from "../../src/syntax/index.ts";
import { Formatters } from "../../src/patch/format.ts";
import { changedSpan, changedStatementRegion } from "../../src/patch/format-region.ts";
import { random } from "../support/random.ts";

function statementsOf(text: string, language: "typescript" | "tsx" | "javascript" = "typescript"): TopLevelStatements {
  const root = parseTree(language, text);
  if (!root) throw new Error("no parser");
  return topLevelStatements(root);
}

const ORIGINAL = [
  "// Header comment.",
  "import { b, a } from \"./m.ts\";",
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
      return found &&
        `${text.slice(0, found.index)}( ${found[1]} , extraArgumentNumberOne, extraArgumentNumberTwo, extraArgumentNumberThree )${
          text.slice((found.index ?? 0) + found[0].length)
        }`;
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

  for (
    const [name, config] of [
      ["default settings", "{}"],
      ["a narrow, semicolon-free, single-quote config", JSON.stringify({ lineWidth: 72, typescript: { semiColons: "asi", quoteStyle: "alwaysSingle", trailingCommas: "never" } })],
    ] as const
  ) {
    test(`${name}: identical on edits of this project's sources`, { timeout: 30_000 }, async () => {
      const formatters = await Formatters.load({ firstRootReal: root, dprintConfig: config, external: [], enabled: true });
      let compared = 0;
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
      }
      // The comparison really exercised statement formatting, not only the whole-file fallback.
      expect(compared).toBe(30);
    });
  }
});
