import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { cutToTokens, estimateTokens } from "../../src/helpers/tokens.ts";

const PROJECT = path.join(import.meta.dir, "..", "..");

function collect(dir: string, pattern: RegExp, max: number, out: string[] = []): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (out.length >= max) break;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) collect(full, pattern, max, out);
    else if (pattern.test(entry.name) && statSync(full).size < 200_000) out.push(full);
  }
  return out;
}

/** Sum of estimates over the sum of o200k counts for a corpus. */
function ratio(files: string[]): number {
  let estimated = 0;
  let actual = 0;
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    estimated += estimateTokens(text);
    actual += countTokens(text);
  }
  return estimated / actual;
}

describe("estimateTokens (calibrated against gpt-tokenizer o200k)", () => {
  const corpora: Record<string, string[]> = {
    "TypeScript (zod sources)": collect(path.join(PROJECT, "node_modules/zod/src"), /\.ts$/, 60),
    "TypeScript (this project)": collect(path.join(PROJECT, "src"), /\.ts$/, 60),
    "JavaScript (hono dist)": collect(path.join(PROJECT, "node_modules/hono/dist"), /\.js$/, 60),
    "Markdown (READMEs)": collect(path.join(PROJECT, "node_modules"), /^README\.md$/, 30),
    "JSON (package.json files)": collect(path.join(PROJECT, "node_modules"), /^package\.json$/, 30),
  };

  for (const [name, files] of Object.entries(corpora)) {
    test(`${name}: aggregate within 12% of o200k`, () => {
      expect(files.length).toBeGreaterThan(5);
      const r = ratio(files);
      expect(r).toBeGreaterThan(0.88);
      expect(r).toBeLessThan(1.12);
    });
  }

  test("small inputs", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("hello")).toBe(1);
    expect(estimateTokens("const x = 1;")).toBe(countTokens("const x = 1;"));
    // A long identifier costs more than a short one.
    expect(estimateTokens("getUserAccountSettingsFromRemoteStorageProvider")).toBeGreaterThan(3);
  });
});

describe("cutToTokens", () => {
  test("cuts at a line boundary within the budget", () => {
    const text = Array.from({ length: 100 }, (_, index) => `line number ${index} with some words`).join("\n");
    const cut = cutToTokens(text, 50);
    expect(cut.truncated).toBe(true);
    expect(cut.keptLines).toBeGreaterThan(0);
    expect(cut.keptLines).toBeLessThan(100);
    expect(cut.tokens).toBeLessThanOrEqual(50);
    expect(text.startsWith(cut.text)).toBe(true);
    expect(cut.text.split("\n")).toHaveLength(cut.keptLines);
  });

  test("returns the text whole when it fits, and cuts a single huge line by characters", () => {
    expect(cutToTokens("short", 10)).toMatchObject({ text: "short", truncated: false });
    const long = "word ".repeat(1000);
    const cut = cutToTokens(long, 20);
    expect(cut.truncated).toBe(true);
    expect(cut.keptLines).toBe(0);
    expect(cut.text.length).toBeGreaterThan(0);
    expect(estimateTokens(cut.text)).toBeLessThanOrEqual(20);
  });
});
