/** During the first build, callers and impact of a name answer from the files that mention it, and say the index is still building. */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/schema.ts";
import { extractFacts } from "../../src/intel/facts/extract.ts";
import { DEFAULT_INDEX_TUNING } from "../../src/intel/index/settings.ts";
import type { FactsExtractor } from "../../src/intel/index/index.ts";
import { callersTool } from "../../src/tools/callers.ts";
import { digestTool } from "../../src/tools/digest.ts";
import { openImportGraph } from "../../src/tools/graph-common.ts";
import { createToolServices } from "../../src/tools/index.ts";
import { searchTool } from "../../src/tools/search.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure } from "../support/context.ts";

let temp: TempDir | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const parsed: string[] = [];
/** The real extractor, slowed so the fixture's build takes seconds, counting what it parses. */
const slow: FactsExtractor = (language, text, tree, options) => {
  const until = performance.now() + 8;
  while (performance.now() < until) {
    // Extraction is synchronous main-thread work.
  }
  parsed.push(text);
  return extractFacts(language, text, tree, options);
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

/** A tree whose calls reach their targets directly, through an alias, an explicit re-export and an `export *` barrel. */
const CHAINS: Record<string, string> = {
  "lib/core.ts":
    "export function direct(): number {\n  return 1;\n}\n\nexport function aliased(): number {\n  return 2;\n}\n\nexport function viaBarrel(): number {\n  return 3;\n}\n\nexport function viaStar(): number {\n  return 4;\n}\n",
  "lib/index.ts": "export { viaBarrel } from \"./core\";\n",
  "lib/all.ts": "export * from \"./core\";\n",
  "use/a.ts": "import { direct, aliased as renamed } from \"../lib/core\";\n\nexport function a(): number {\n  return direct() + renamed();\n}\n",
  "use/b.ts":
    "import { viaBarrel } from \"../lib/index\";\nimport { viaStar } from \"../lib/all\";\n\nexport function b(): number {\n  return viaBarrel() + viaStar() + viaStar();\n}\n",
};

async function chainsRepo(slowBuild: boolean) {
  const dir = await makeTempDir();
  for (const [relative, text] of Object.entries(CHAINS)) {
    await mkdir(path.dirname(path.join(dir.dir, relative)), { recursive: true });
    await writeFile(path.join(dir.dir, relative), text);
  }
  for (let i = 0; i < 200; i++) {
    await mkdir(path.join(dir.dir, "a"), { recursive: true });
    await writeFile(path.join(dir.dir, "a", `filler${i}.ts`), `export function filler${i}(): number {\n  return ${i};\n}\n`);
  }
  const base = await makeContext([dir.dir]);
  const context = { ...base, config: { ...base.config, config: { ...base.config.config, index: { ...DEFAULT_CONFIG.index, persist: false } } } };
  const options = slowBuild ? { extract: slow, extractorVersion: "slow", watch: "off" as const, tuning: { focusAboveFiles: 100 } } : { watch: "off" as const };
  const index = context.services.indexes.forContext(context, options);
  return { dir, context, index };
}

type Call = { path: string; line: number; column: number; confidence: string; caller?: string };
const key = (call: Call) => `${call.path}:${call.line}:${call.column} ${call.caller ?? ""} ${call.confidence}`;

describe("the first-build answer agrees with the whole index", () => {
  test("every call it reports is one the whole index reports, with the same confidence; what it may miss, it says", async () => {
    const whole = await chainsRepo(false);
    try {
      await whole.index.ensureFresh();
      const found: Record<string, number> = {};
      for (const name of ["direct", "aliased", "viaBarrel", "viaStar"]) {
        const reference = await runTool(callersTool, { symbol: name }, whole.context);
        expect(reference.complete).toBe(true);
        const early = await chainsRepo(true);
        try {
          const answer = await runTool(callersTool, { symbol: name }, early.context);
          expect(early.index.built).toBe(false);
          const full = new Set(reference.calls.map(key));
          for (const call of answer.calls) expect(full.has(key(call))).toBe(true);
          // Fewer calls than the whole index only ever comes with the answer saying it is partial.
          if (answer.calls.length < reference.calls.length) expect(answer.complete).toBe(false);
          expect(answer.complete).toBe(false);
          found[name] = answer.calls.length;
        } finally {
          early.context.services.indexes.closeAll();
          await early.dir.cleanup();
        }
      }
      // The direct, aliased and explicitly re-exported calls are found before the build ends.
      expect(found).toMatchObject({ direct: 1, aliased: 1, viaBarrel: 1 });
    } finally {
      whole.context.services.indexes.closeAll();
      await whole.dir.cleanup();
    }
  });
});

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

  test("callers of a name during the first build tells how far it got: the literal scan, then the files it indexes, never going back, ending at its total", async () => {
    const { context, index } = await repo();
    const seen: Array<[number, number]> = [];
    const result = await runTool(callersTool, { symbol: "targetFn" }, { ...context, progress: (done: number, total: number) => void seen.push([done, total]) });
    expect(index.built).toBe(false);
    expect(result.calls).toHaveLength(2);
    // The build's lanes wait meanwhile, so what moves is the call's own work: one count per file scanned, then per file indexed.
    expect(seen.length).toBeGreaterThan(300);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThanOrEqual(seen[i - 1]![0]);
    const [done, total] = seen.at(-1)!;
    expect(done).toBe(total);
    expect(total).toBeGreaterThan(300);
  });

  test("a declaration not found while the index is still building is said to be provisional, and final once it is built", async () => {
    const { context, index } = await repo();
    const during = await toolFailure(runTool(callersTool, { symbol: "notDeclaredAnywhere" }, context));
    expect(during.code).toBe("symbol_not_found");
    expect(during.retryable).toBe(true);
    expect(during.message).toContain("still building");
    expect(index.built).toBe(false);
    await index.ensureFresh();
    const after = await toolFailure(runTool(callersTool, { symbol: "notDeclaredAnywhere" }, context));
    expect(after.code).toBe("symbol_not_found");
    expect(after.retryable).toBe(false);
  });

  test("the build waits while a call about a name builds its answer on the files it indexed first", async () => {
    const { context, index } = await repo();
    const during = await openImportGraph(context, { name: "targetFn" }, async (session) => {
      const before = parsed.length;
      // Long enough for the build's lanes to parse some twenty of the slow fillers, were they not waiting.
      await new Promise((resolve) => setTimeout(resolve, 150));
      return { files: session.graph.files().length, parsedMeanwhile: parsed.length - before };
    });
    // At most the files the build's lanes had in flight when the call began (they finish); no new one starts.
    expect(during.parsedMeanwhile).toBeLessThanOrEqual(DEFAULT_INDEX_TUNING.concurrency);
    expect(during.files).toBeLessThan(30);
    expect(index.built).toBe(false);
    await index.ensureFresh();
    expect(index.built).toBe(true);
  });

  test("a restart looks for the name in its snapshot's facts, indexes those files first, and answers as the whole index does", async () => {
    const { context } = await repo();
    const cacheDir = path.join(temp!.dir, "..", `${path.basename(temp!.dir)}-cache`);
    const persisting = { ...context, config: { ...context.config, config: { ...context.config.config, index: { ...DEFAULT_CONFIG.index, persist: true } } } };
    const first = createToolServices();
    const built = first.indexes.forContext(persisting, { cacheDir, watch: "off" });
    await built.ensureFresh();
    await built.saveSnapshot();
    first.indexes.closeAll();
    const later = { ...persisting, services: createToolServices() };
    const index = later.services.indexes.forContext(later, { cacheDir, extract: slow, watch: "off", tuning: { focusAboveFiles: 100 } });
    parsed.length = 0;
    try {
      const result = await runTool(callersTool, { symbol: "targetFn" }, later);
      // Nothing parsed: the files mentioning the name were found in the snapshot's text of their facts and taken from it.
      expect(parsed).toEqual([]);
      expect(index.built).toBe(false);
      expect(result.complete).toBe(false);
      expect(result.limits.join(" ")).toContain("mention \"targetFn\"");
      await index.ensureFresh();
      const whole = await runTool(callersTool, { symbol: "targetFn" }, later);
      expect(whole.complete).toBe(true);
      expect(result.calls).toEqual(whole.calls);
    } finally {
      later.services.indexes.closeAll();
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  test("a restart's search answers from the search index the last session saved, showing only files whose content is as saved", async () => {
    const { context } = await repo();
    const write = async (relative: string, text: string) => {
      await mkdir(path.dirname(path.join(temp!.dir, relative)), { recursive: true });
      await writeFile(path.join(temp!.dir, relative), text);
    };
    await write("time/duration.ts", "/** Parses a duration such as 1h30m. */\nexport function parseDuration(text: string): number {\n  return Number.parseFloat(text);\n}\n");
    await write("time/later.ts", "/** Parses a duration later. */\nexport function parseDurationLater(text: string): number {\n  return 2;\n}\n");
    const cacheDir = path.join(temp!.dir, "..", `${path.basename(temp!.dir)}-cache`);
    const persisting = { ...context, config: { ...context.config, config: { ...context.config.config, index: { ...DEFAULT_CONFIG.index, persist: true } } } };
    const first = createToolServices();
    const built = first.indexes.forContext(persisting, { cacheDir, watch: "off" });
    await built.ensureFresh();
    await first.search.indexFor(built).refresh();
    await first.search.indexFor(built).persist();
    await built.saveSnapshot();
    first.indexes.closeAll();
    // Changed since: its saved chunks no longer hold. So do a hundred others, which the restart must parse again.
    await write("time/later.ts", "export function unrelated(): number {\n  return 3;\n}\n");
    for (let i = 0; i < 100; i++) await write(`a/filler${String(i).padStart(3, "0")}.ts`, `export function filler${i}(): number {\n  return ${i + 1};\n}\n`);
    const later = { ...persisting, services: createToolServices() };
    const index = later.services.indexes.forContext(later, { cacheDir, extract: slow, watch: "off" });
    try {
      parsed.length = 0;
      // The build starts as a server's background build would; the search comes while it walks.
      const building = index.ensureFresh();
      const result = await runTool(searchTool, { query: "parse duration" }, later);
      // The build waited: of the hundred changed fillers, at most those its lanes had in flight were parsed before the answer.
      expect(parsed.filter((text) => text.includes("filler")).length).toBeLessThanOrEqual(DEFAULT_INDEX_TUNING.concurrency);
      expect(index.built).toBe(false);
      expect(result.complete).toBe(false);
      expect(result.limits.join(" ")).toContain("the last session saved");
      expect(result.results[0]).toMatchObject({ path: "time/duration.ts", symbol: "parseDuration" });
      expect(result.results[0].snippet.text).toContain("parseDuration");
      expect(result.results.map((hit: { path: string }) => hit.path)).not.toContain("time/later.ts");
      await building;
      const whole = await runTool(searchTool, { query: "parse duration" }, later);
      expect(whole.complete).toBe(true);
      expect(whole.results[0]).toMatchObject({ path: "time/duration.ts", symbol: "parseDuration", startLine: result.results[0].startLine });
    } finally {
      later.services.indexes.closeAll();
      await rm(cacheDir, { recursive: true, force: true });
    }
  });

  test("search during the first build ranks one pass over the files' texts instead of waiting, and says how it ranked", async () => {
    const { context, index } = await repo();
    await mkdir(path.join(temp!.dir, "time"), { recursive: true });
    await writeFile(
      path.join(temp!.dir, "time", "duration.ts"),
      "/** Parses a duration such as 1h30m. */\nexport function parseDuration(text: string): number {\n  return Number.parseFloat(text);\n}\n",
    );
    await writeFile(path.join(temp!.dir, "time", "other.ts"), "export function parseOther(): number {\n  return 1;\n}\n");
    await writeFile(path.join(temp!.dir, "time", "notes.ts"), "// the end of the day, the start of the night, and the rest of it\nexport const notes = 0;\n");
    const seen: Array<[number, number]> = [];
    const result = await runTool(searchTool, { query: "parse duration" }, { ...context, progress: (done: number, total: number) => void seen.push([done, total]) });
    expect(index.built).toBe(false);
    // The pass reports how far it got, ending at its total.
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.at(-1)![0]).toBe(seen.at(-1)![1]);
    expect(parsed.length).toBeLessThan(30);
    expect(result.complete).toBe(false);
    expect(result.limits.join(" ")).toContain("one pass over");
    expect(result.results[0].path).toBe("time/duration.ts");
    // What it keeps: every result holds a query term.
    for (const hit of result.results) expect(hit.snippet.text.toLowerCase()).toMatch(/parse|duration/);
    // A path narrows what the pass ranks.
    const scoped = await runTool(searchTool, { query: "parse", path: "a" }, context);
    expect(index.built).toBe(false);
    expect(scoped.results.length).toBe(0);
    expect(scoped.indexed.files).toBe(300);
    // A concept query's function words rank nothing: a file full of "the" and "of" is no answer.
    const prose = await runTool(searchTool, { query: "parse the duration of a text" }, context);
    expect(index.built).toBe(false);
    expect(prose.mode).toBe("concept");
    expect(prose.results[0].path).toBe("time/duration.ts");
    expect(prose.results.map((hit: { path: string }) => hit.path)).not.toContain("time/notes.ts");
    await index.ensureFresh();
    const whole = await runTool(searchTool, { query: "parse duration" }, context);
    expect(whole.complete).toBe(true);
    expect(whole.results[0].path).toBe("time/duration.ts");
  });

  test("digest of a folder during the first build is whole for that folder, and the same once the index is built", async () => {
    const { context, index } = await repo();
    const result = await runTool(digestTool, { paths: ["use"] }, context);
    expect(result.complete).toBe(true);
    expect(JSON.stringify(result)).toContain("one");
    expect(index.built).toBe(false);
    expect(parsed.length).toBeLessThan(60);
    await index.ensureFresh();
    expect(await runTool(digestTool, { paths: ["use"] }, context)).toEqual(result);
    // Its outline was taken without calls and not kept: the build indexed the folder whole.
    const callers = await runTool(callersTool, { symbol: "targetFn" }, context);
    expect(callers.calls.map((call: { caller: string; confidence: string }) => `${call.caller} ${call.confidence}`).sort()).toEqual(["one exact", "two exact"]);
  });
});
