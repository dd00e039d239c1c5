/**
 * What the model is told: the server's instructions, the guidance block and SKILL.md lead with the
 * reading tools, describe `run` as structural search (never as running commands), are generated
 * from the tool catalog (a renamed or removed tool fails here), and match the committed files.
 */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import {
  GUIDANCE_PATH,
  INSTRUCTIONS_PATH,
  renderGuidance,
  renderInstructions,
  renderInstructionsModule,
  renderSkill,
  SKILL_PATH,
  toolsInWhichTable,
} from "../../src/hosts/guide.ts";
import { guidanceTemplate, skillTemplateFiles } from "../../src/hosts/package-files.ts";
import { INSTRUCTIONS } from "../../src/server/instructions.ts";
import { TOOLS } from "../../src/tools/index.ts";

const ROOT = join(import.meta.dir, "..", "..");
const HINT = "out of date: run `npx bun scripts/gen-catalog.ts` and commit the result";
const READING_ORDER = ["digest", "map", "show", "search", "callers"];

const TEXTS: Array<[string, () => string]> = [
  ["the server's instructions", () => INSTRUCTIONS],
  ["the guidance block", () => guidanceTemplate()],
  ["SKILL.md", () => skillTemplateFiles().find((file) => file.relative === "SKILL.md")?.content ?? ""],
];

/** The sentences (or table rows) of a text that name the tool `run`. */
function sentencesNamingRun(text: string): string[] {
  return text.split(/(?<=[.!?])\s+|\n/).filter((sentence) => sentence.includes("`run`"));
}

describe("the model is pointed at the reading tools first", () => {
  for (const [label, text] of TEXTS) {
    test(`${label} names digest → map → show → search → callers in that order, before the writes`, () => {
      const body = text();
      const positions = READING_ORDER.map((name) => body.indexOf(`\`${name}\``));
      for (const [index, position] of positions.entries()) expect(position === -1 ? `${READING_ORDER[index]} missing` : "named").toBe("named");
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(positions[0] as number).toBeLessThan(body.indexOf("`file_patch`"));
    });

    test(`${label} describes run as structural search, never as running commands or tests`, () => {
      const sentences = sentencesNamingRun(text());
      expect(sentences.length).toBeGreaterThan(0);
      for (const sentence of sentences) {
        expect(sentence).toMatch(/structural|syntax-tree pattern/);
        expect(sentence).not.toMatch(/\b(commands?|tests?|shell|scripts?)\b/i);
      }
    });
  }
});

describe("generated from the tool catalog", () => {
  test("the committed SKILL.md, guidance block and instructions module match what the catalog renders", async () => {
    for (const [path, rendered] of [[SKILL_PATH, renderSkill(TOOLS)], [GUIDANCE_PATH, renderGuidance(TOOLS)], [INSTRUCTIONS_PATH, renderInstructionsModule(TOOLS)]] as const) {
      const committed = await readFile(join(ROOT, path), "utf8");
      expect(committed === rendered ? `${path} current` : `${path} ${HINT}`).toBe(`${path} current`);
    }
    expect(INSTRUCTIONS).toBe(renderInstructions(TOOLS).join(" "));
  });

  test("a removed or renamed tool fails the rendering, naming the tool", () => {
    for (const name of ["digest", "callers", "file_patch", "run"]) {
      const without = TOOLS.filter((tool) => tool.name !== name);
      expect(() => renderSkill(without)).toThrow(`"${name}"`);
      const renamed = TOOLS.map((tool) => (tool.name === name ? { ...tool, name: `${name}_v2` } : tool));
      expect(() => renderInstructions(renamed)).toThrow(`"${name}"`);
    }
  });

  test("the which-tool table places every tool of the catalog, and only those", () => {
    const placed = new Set(toolsInWhichTable());
    expect(TOOLS.map((tool) => tool.name).filter((name) => !placed.has(name))).toEqual([]);
    expect([...placed].filter((name) => !TOOLS.some((tool) => tool.name === name))).toEqual([]);
  });

  test("SKILL.md's front matter is YAML with the skill's name and a description hosts can show", () => {
    const skill = renderSkill(TOOLS);
    const front = /^---\n([\s\S]*?)\n---\n/.exec(skill)?.[1];
    expect(front).toBeDefined();
    const parsed = parseYaml(front as string) as { name: string; description: string };
    expect(parsed.name).toBe("ast-mcp");
    expect(parsed.description).toContain("digest a folder");
  });
});
