/** During the first build, callers and impact of a name answer from the files that mention it, and say the index is still building. */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/schema.ts";
import { extractFacts } from "../../src/intel/facts/extract.ts";
import type { FactsExtractor } from "../../src/intel/index/index.ts";
import { callersTool } from "../../src/tools/callers.ts";
import { digestTool } from "../../src/tools/digest.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

let temp: TempDir | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const parsed: string[] = [];
/** The real extractor, slowed so the fixture's build takes seconds, counting what it parses. */
const slow: FactsExtractor = (language, text, tree) => {
  const until = performance.now() + 8;
  while (performance.now() < until) {
    // Extraction is synchronous main-thread work.
  }
  parsed.push(text);
  return extractFacts(language, text, tree);
};

async function repo() {
  temp = await makeTempDir();
  const write = async (relative: string, text: string) => {
    await mkdir(path.dirname(path.join(temp!.dir, relative)), { recursive: true });
    await writeFile(path.join(temp!.dir, relative), text);
  };
  for (let i = 0; i < 300; i++) await write(`a/filler${String(i).padStart(3, "0")}.ts`, `export function filler${i}(): number {\n  return ${i};\n}\n`);
  await write("lib/target.ts", "export function targetFn(x: number): number {\n  return x + 1;\n}\n");
  await write("use/one.ts", "import { targetFn } from \"../lib/target\";\n\nexport function one(): number {\n  return targetFn(1);\n}\n");
  await write("use/two.ts", "import { targetFn } from \"../lib/target\";\n\nexport function two(): number {\n  return targetFn(2);\n}\n");
  const base = await makeContext([temp.dir]);
  const context = { ...base, config: { ...base.config, config: { ...base.config.config, index: { ...DEFAULT_CONFIG.index, persist: false } } } };
  // The index the tools will get, made first with the slow extractor.
  // Focusing on a name pays from a few hundred files left here (the default waits for fewer than 2,000 to finish).
  const index = context.services.indexes.forContext(context, { extract: slow, extractorVersion: "slow", watch: "off", tuning: { focusAboveFiles: 100 } });
  parsed.length = 0;
  return { context, index };
}

describe("answer first through the tools", () => {
  test("callers of a name during the first build: the calls from the files that mention it, marked as partial", async () => {
    const { context, index } = await repo();
    const result = await runTool(callersTool, { symbol: "targetFn" }, context);
    expect(result.calls.map((call: { caller: string; confidence: string }) => `${call.caller} ${call.confidence}`).sort()).toEqual(["one exact", "two exact"]);
    expect(result.complete).toBe(false);
    expect(result.limits.join(" ")).toContain("mention \"targetFn\"");
    expect(index.built).toBe(false);
    // The three files that mention the name, and what the build's lanes had in flight; not the 300 others.
    expect(parsed.length).toBeLessThan(30);
    await index.ensureFresh();
    const whole = await runTool(callersTool, { symbol: "targetFn" }, context);
    expect(whole.complete).toBe(true);
    expect(whole.calls).toHaveLength(2);
  });

  test("digest of a folder during the first build is whole for that folder", async () => {
    const { context, index } = await repo();
    const result = await runTool(digestTool, { paths: ["use"] }, context);
    expect(result.complete).toBe(true);
    expect(JSON.stringify(result)).toContain("one");
    expect(index.built).toBe(false);
    expect(parsed.length).toBeLessThan(60);
    await index.ensureFresh();
  });
});
