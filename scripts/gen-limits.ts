/**
 * Writes docs/limits.md, the published table of the caps in src/core/limits.ts: one row per key,
 * with its value and the doc comment above it (a key without one shares the comment of the key
 * before it). test/core/limits-table.test.ts fails when the file and LIMITS disagree.
 *
 *   npm run limits   (npx bun scripts/gen-limits.ts)
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { LIMITS } from "../src/core/limits.ts";

const ROOT = path.resolve(import.meta.dir, "..");
export const LIMITS_SOURCE = path.join(ROOT, "src/core/limits.ts");
export const LIMITS_TABLE = path.join(ROOT, "docs/limits.md");

export interface LimitRow {
  /** Dotted path under LIMITS, e.g. "stdio.maxFrameBytes". */
  key: string;
  value: string;
  meaning: string;
}

interface Section {
  /** Dotted path of the group ("" for the top level). */
  key: string;
  meaning: string;
  rows: LimitRow[];
}

/** Every leaf of LIMITS as [dotted key, value], in declaration order. */
export function limitKeys(node: unknown = LIMITS, prefix = ""): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [name, value] of Object.entries(node as Record<string, unknown>)) {
    const key = prefix === "" ? name : `${prefix}.${name}`;
    if (typeof value === "object" && value !== null) out.push(...limitKeys(value, key));
    else out.push([key, value]);
  }
  return out;
}

const KiB = 1024;
const MiB = 1024 * KiB;

export function formatValue(key: string, value: unknown): string {
  if (typeof value !== "number") return JSON.stringify(value);
  if (/Bytes$/.test(key)) {
    if (value >= MiB && value % MiB === 0) return `${value / MiB} MiB`;
    if (value >= KiB && value % KiB === 0) return `${value / KiB} KiB`;
  }
  return value.toLocaleString("en-US");
}

/** The `/** … *\/` comment just above a node, as one line (also read by gen-website for the configuration keys). */
export function docOf(node: ts.Node, text: string): string | undefined {
  const ranges = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const doc = ranges.filter((range) => text.startsWith("/**", range.pos)).at(-1);
  if (!doc) return undefined;
  return text
    .slice(doc.pos + 3, doc.end - 2)
    .split("\n")
    .map((line) => line.replace(/^\s*\*\s?/, "").trim())
    .filter((line) => line !== "")
    .join(" ");
}

function valueAt(key: string): unknown {
  return key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], LIMITS);
}

/** The sections of the table, read from the source's declarations and comments. */
export function limitSections(source = readFileSync(LIMITS_SOURCE, "utf8")): Section[] {
  const file = ts.createSourceFile(LIMITS_SOURCE, source, ts.ScriptTarget.Latest, true);
  let root: ts.ObjectLiteralExpression | undefined;
  file.forEachChild(function find(node) {
    if (ts.isVariableDeclaration(node) && node.name.getText() === "LIMITS" && node.initializer) {
      const init = ts.isAsExpression(node.initializer) ? node.initializer.expression : node.initializer;
      if (ts.isObjectLiteralExpression(init)) root = init;
    }
    node.forEachChild(find);
  });
  if (!root) throw new Error("LIMITS not found in src/core/limits.ts");
  const sections: Section[] = [];
  const walk = (object: ts.ObjectLiteralExpression, section: Section): void => {
    sections.push(section);
    let previous = "";
    for (const property of object.properties) {
      if (!ts.isPropertyAssignment(property)) continue;
      const name = property.name.getText();
      const key = section.key === "" ? name : `${section.key}.${name}`;
      const meaning = docOf(property, source);
      if (ts.isObjectLiteralExpression(property.initializer)) {
        walk(property.initializer, { key, meaning: meaning ?? "", rows: [] });
        continue;
      }
      previous = meaning ?? previous;
      section.rows.push({ key, value: formatValue(key, valueAt(key)), meaning: previous });
    }
  };
  walk(root, { key: "", meaning: "", rows: [] });
  return sections.filter((section) => section.rows.length > 0);
}

const escapeCell = (text: string): string => text.replaceAll("|", "\\|");

export function renderLimitsTable(source?: string): string {
  const lines = [
    "# Limits",
    "",
    "<!-- Generated from src/core/limits.ts by `npx bun scripts/gen-limits.ts`; do not edit by hand. -->",
    "",
    "The fixed caps ast-mcp enforces that a client or user can see. Defaults of configuration keys",
    "are listed with the configuration (`DEFAULT_CONFIG` in src/config/schema.ts); engine tuning lives",
    "beside its module. Keys are paths under `LIMITS`.",
  ];
  for (const section of limitSections(source)) {
    lines.push("", `## ${section.key === "" ? "General" : `\`${section.key}\``}`, "");
    if (section.meaning !== "") lines.push(section.meaning, "");
    lines.push("| key | value | meaning |", "| --- | --- | --- |");
    for (const row of section.rows) lines.push(`| \`${row.key}\` | ${escapeCell(row.value)} | ${escapeCell(row.meaning)} |`);
  }
  return `${lines.join("\n")}\n`;
}

/** The rows of a published table, read back as key → value cell. */
export function tableRows(markdown: string): Map<string, string> {
  return new Map([...markdown.matchAll(/^\| `([^`]+)` \| ([^|]*) \|/gm)].map((match) => [match[1]!, match[2]!]));
}

/** What is wrong with a published table against LIMITS: keys it lacks, rows naming no key, and rows with another value. */
export function tableProblems(markdown: string, keys: ReadonlyArray<[string, unknown]> = limitKeys()): string[] {
  const rows = tableRows(markdown);
  const problems: string[] = [];
  for (const [key, value] of keys) {
    const cell = rows.get(key);
    if (cell === undefined) problems.push(`missing: ${key}`);
    else if (cell !== formatValue(key, value)) problems.push(`stale value: ${key} is ${formatValue(key, value)}, the table says ${cell}`);
  }
  const known = new Set(keys.map(([key]) => key));
  for (const key of rows.keys()) if (!known.has(key)) problems.push(`stale row: ${key} is not a key of LIMITS`);
  return problems;
}

if (import.meta.main) {
  writeFileSync(LIMITS_TABLE, renderLimitsTable());
  console.log(`wrote ${path.relative(ROOT, LIMITS_TABLE)} (${limitKeys().length} keys)`);
}
