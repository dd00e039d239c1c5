/** Answer first, index behind: a call waits for its own files, or for a deadline, not for the whole first build. */
import { afterEach, describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FactsExtractor } from "../../../src/intel/index/index.ts";
import { DEFAULT_SNAPSHOT_TIMING } from "../../../src/intel/index/snapshot-keeper.ts";
import { type IndexFixture, makeIndexFixture } from "./fixture.ts";

let fixture: IndexFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** The counted extractor, made slow enough that a build of the fixture takes a while. */
function slowExtractor(f: IndexFixture, msPerFile: number): FactsExtractor {
  return (language, text, tree, options) => {
    const until = performance.now() + msPerFile;
    while (performance.now() < until) {
      // Busy: extraction is synchronous work on the main thread.
    }
    return f.extract(language, text, tree, options);
  };
}

/** `files` files under a/, then 20 under z/ (last in walk order). */
async function tree(files: number) {
  const f = (fixture = await makeIndexFixture());
  for (let i = 0; i < files; i++) await f.write(`a/f${String(i).padStart(3, "0")}.ts`, `export function f${i}() {}\n`);
  for (let i = 0; i < 20; i++) await f.write(`z/own${i}.ts`, `export function own${i}() {}\n`);
  return f;
}

describe("answer first", () => {
  test("a folder's files are indexed ahead of the first build, and the call does not wait for the rest", async () => {
    const f = await tree(150);
    const index = f.index({ extract: slowExtractor(f, 5) });
    const coverage = await index.ensureScope({ dirs: [f.path("z")] });
    for (let i = 0; i < 20; i++) expect(index.get(f.path(`z/own${i}.ts`))?.facts.symbols[0]?.name).toBe(`own${i}`);
    // The call's own files, plus at most the build's lanes in flight when it arrived: the build waits meanwhile.
    expect(f.extracted.length).toBeLessThanOrEqual(20 + 4);
    expect(index.built).toBe(false);
    // Its files are whole, so the answer is complete for them.
    expect(coverage.complete).toBe(true);
    await index.ensureFresh();
    expect(index.built).toBe(true);
    expect(f.extracted.length).toBe(170);
    expect(index.files()).toHaveLength(170);
  });

  test("a folder's outline during the first build is taken without calls and kept by nobody: the build indexes its files whole", async () => {
    const f = await tree(150);
    for (let i = 0; i < 5; i++) await f.write(`z/uses${i}.ts`, `import { own${i} } from "./own${i}";\nexport function uses${i}() {\n  own${i}();\n}\n`);
    const index = f.index({ extract: slowExtractor(f, 5) });
    const outline = await index.outlineAhead(f.path("z"));
    if (!outline) throw new Error("expected an outline during the first build");
    const expected = [...Array.from({ length: 20 }, (_, i) => `own${i}`), ...Array.from({ length: 5 }, (_, i) => `uses${i}`)];
    expect(outline.files.map((file) => file.facts.symbols[0]?.name).sort()).toEqual(expected.sort());
    expect(outline.coverage.complete).toBe(true);
    const uses = outline.files.find((file) => file.relative === "z/uses0.ts");
    expect(uses?.facts.imports.map((fact) => fact.specifier)).toEqual(["./own0"]);
    expect(outline.files.every((file) => file.facts.calls.length === 0)).toBe(true);
    // Kept by nobody: the index does not hold them until the build reaches them, and the build waited meanwhile.
    expect(index.get(f.path("z/uses0.ts"))).toBeUndefined();
    expect(index.built).toBe(false);
    expect(f.extracted.length).toBeLessThanOrEqual(25 + 4);
    await index.ensureFresh();
    expect(index.get(f.path("z/uses0.ts"))?.facts.calls.map((call) => call.name)).toEqual(["own0"]);
    expect(index.files()).toHaveLength(175);
  });

  test("no outline is taken on the side once the index is built", async () => {
    const f = await tree(10);
    const index = f.index();
    await index.ensureFresh();
    expect(await index.outlineAhead(f.path("z"))).toBeUndefined();
  });

  test("a file the build is parsing when a call needs it is parsed once, for both", async () => {
    const f = await tree(40);
    const index = f.index({ extract: slowExtractor(f, 5) });
    // The build starts with a/, the very folder the call asks for: its first files are in flight.
    await index.ensureScope({ dirs: [f.path("a")] });
    // The call waited for those too: none of its files is missing from its answer.
    for (let i = 0; i < 40; i++) expect(index.get(f.path(`a/f${String(i).padStart(3, "0")}.ts`))).toBeDefined();
    await index.ensureFresh();
    expect(f.extracted.length).toBe(60);
    expect(new Set(f.extracted).size).toBe(60);
  });

  for (const when of ["before the walk is done", "once the walk is done"] as const) {
    test(`the file a scoped call is about comes first, and a deadline cuts only the others (${when})`, async () => {
      const f = await tree(150);
      const index = f.index({ extract: slowExtractor(f, 5) });
      if (when === "once the walk is done") await index.ensureFresh({ deadlineMs: 100 });
      const about = f.path("z/own19.ts");
      const others = Array.from({ length: 60 }, (_, i) => f.path(`a/f${String(i + 80).padStart(3, "0")}.ts`));
      const coverage = await index.ensureScope({ files: others, first: [about] }, { deadlineMs: 0 });
      expect(coverage.complete).toBe(false);
      expect(index.get(about)?.facts.symbols[0]?.name).toBe("own19");
      await index.ensureFresh();
    });
  }

  test("a call for a file the build is parsing right now waits for that parse", async () => {
    const f = await tree(40);
    const index = f.index({ extract: slowExtractor(f, 5) });
    const first = f.path("a/f000.ts");
    await index.ensureScope({ files: [first] });
    expect(index.get(first)?.facts.symbols[0]?.name).toBe("f0");
    await index.ensureFresh();
  });

  test("past its deadline a call answers from the files indexed so far and says the index is still building", async () => {
    const f = await tree(150);
    const index = f.index({ extract: slowExtractor(f, 5) });
    const coverage = await index.ensureFresh({ deadlineMs: 50 });
    expect(coverage.complete).toBe(false);
    const building = coverage.limits.find((limit) => limit.startsWith("index still building"));
    const [, done, total] = /\((\d+) of (\d+) files processed\)/.exec(building ?? "") ?? [];
    expect(Number(done)).toBeLessThan(Number(total));
    // The build goes on; a later call without a deadline gets the whole tree.
    const whole = await index.ensureFresh();
    expect(whole.complete).toBe(true);
    expect(whole.limits).toEqual([]);
    expect(index.files()).toHaveLength(170);
  });

  test("a folder too big for the deadline is answered partly, saying so", async () => {
    const f = await tree(150);
    const index = f.index({ extract: slowExtractor(f, 5) });
    const coverage = await index.ensureScope({ dirs: [f.path("a")] }, { deadlineMs: 60 });
    expect(coverage.complete).toBe(false);
    expect(coverage.limits.some((limit) => limit.startsWith("index still building"))).toBe(true);
    await index.ensureFresh();
    expect(index.files()).toHaveLength(170);
  });

  test("a folder's files are indexed before the walk reaches the rest of the tree", async () => {
    const f = (fixture = await makeIndexFixture());
    // Many folders ahead of the one asked for, in walk order.
    for (let i = 0; i < 150; i++) await f.write(`a${String(i).padStart(3, "0")}/x.ts`, `export const x${i} = ${i};\n`);
    for (let i = 0; i < 5; i++) await f.write(`z/deep/own${i}.ts`, `export function own${i}() {}\n`);
    const index = f.index();
    const coverage = await index.ensureScope({ dirs: [f.path("z/deep")] });
    expect(coverage.complete).toBe(true);
    for (let i = 0; i < 5; i++) expect(index.get(f.path(`z/deep/own${i}.ts`))?.facts.symbols[0]?.name).toBe(`own${i}`);
    expect(index.covers(f.path("z/deep"))).toBe(true);
    // The walk had not listed the whole tree yet: it knows no file count to process.
    expect(index.progress.total).toBe(0);
    await index.ensureFresh();
    expect(index.files()).toHaveLength(155);
    // Each file was parsed once, whether the call or the build got to it.
    expect(new Set(f.extracted).size).toBe(f.extracted.length);
  });

  test("listing a folder ahead leaves every other folder to the walk, its siblings too", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write("p/q/scope/f.ts", "export function f() {}\n");
    await f.write("p/q/sibling/g.ts", "export function g() {}\n");
    await f.write("p/other/h.ts", "export function h() {}\n");
    await f.write("top.ts", "export function top() {}\n");
    const index = f.index();
    await index.ensureScope({ dirs: [f.path("p/q/scope")] });
    await index.ensureFresh();
    expect(index.files().map((file) => file.relative).sort()).toEqual(["p/other/h.ts", "p/q/scope/f.ts", "p/q/sibling/g.ts", "top.ts"]);
  });

  test("a folder listed ahead keeps the ignore rules above it, and an ignored folder is left to the walk", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write(".gitignore", "*.gen.ts\nskipped/\n");
    await f.write("z/kept.ts", "export function kept() {}\n");
    await f.write("z/made.gen.ts", "export function made() {}\n");
    await f.write("skipped/s.ts", "export function s() {}\n");
    const index = f.index();
    await index.ensureScope({ dirs: [f.path("z")] });
    expect(index.get(f.path("z/kept.ts"))).toBeDefined();
    expect(index.get(f.path("z/made.gen.ts"))).toBeUndefined();
    await index.ensureScope({ dirs: [f.path("skipped")] });
    expect(index.covers(f.path("skipped"))).toBe(false);
    await index.ensureFresh();
    expect(index.files().map((file) => file.relative)).toEqual(["z/kept.ts"]);
  });

  test("files indexed ahead of the walk take their place in the max_files cut, which stays in walk order", async () => {
    const f = await tree(10);
    const index = f.index({ settings: { maxFiles: 10 } });
    await index.ensureScope({ dirs: [f.path("z")] });
    const coverage = await index.ensureFresh();
    expect(index.files().map((file) => file.relative)).toEqual(Array.from({ length: 10 }, (_, i) => `a/f${String(i).padStart(3, "0")}.ts`));
    expect(coverage.skipped.overLimit).toBe(20);
  });

  // A full save writes the index; a session that ends before one leaves the files appended after it, their heads naming the same names.
  for (const leftBy of ["a full save", "appends alone"] as const) {
    test(`on a restart after ${leftBy}, files are looked for in the names the snapshot holds of their facts before the walk ends, and what that leaves out is said`, async () => {
      const f = (fixture = await makeIndexFixture());
      for (let i = 0; i < 40; i++) await f.write(`a${i}/filler.ts`, `export const filler${i} = ${i};\n`);
      await f.write("calls.ts", "export function caller() {\n  return targetFn();\n}\n");
      await f.write("comment.ts", "export const other = 1;\n\n// targetFn is mentioned here only, in a trailing comment\n");
      // Named in a doc sentence only: a fact's text, not a name a call resolves through.
      await f.write("doc.ts", "/** Works like targetFn, only later. */\nexport function later() {}\n");
      await f.write("reexport.ts", "export { targetFn as renamedFn } from \"./calls\";\n");
      await f.write("changed.ts", "export const later = 1;\n");
      const first = f.index({ settings: { persist: true }, tuning: { snapshot: { ...DEFAULT_SNAPSHOT_TIMING, appendEveryMs: 0 } } });
      await first.ensureFresh();
      if (leftBy === "a full save") await first.saveSnapshot();
      else await first.flushSnapshot();
      const saved = await readFile(first.stats().snapshot.path!, "utf8");
      // After a full save every file is in the index (the last line); appended, almost all come after it.
      expect(saved.trimEnd().split("\n").at(-1)!.startsWith("[[")).toBe(leftBy === "a full save");
      f.registry.closeAll();
      await f.write("changed.ts", "export const later = targetFn;\n");
      await f.write("added.ts", "export const added = targetFn;\n");
      const index = f.index({ settings: { persist: true } });
      const found = await index.filesMentioning(["targetFn"]);
      // The comment is in no fact, the doc sentence names nothing; a file changed or added since to mention it is not in the snapshot.
      expect(found.files.map((real) => path.relative(f.root, real)).sort()).toEqual(["calls.ts", "reexport.ts"]);
      expect(found.unseen).toContain("added since the last session, or changed to mention it");
      // The walk had not ended: it knows no file count to process yet.
      expect(index.progress.total).toBe(0);
      await index.ensureFresh();
      expect(index.files()).toHaveLength(46);
    });
  }

  test("on a restart, a file whose old facts mention the name is indexed from its bytes as they are now, and a path outside the roots is never taken", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write("renamed.ts", "export function caller() {\n  return targetFn();\n}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const snapshotFile = first.stats().snapshot.path!;
    f.registry.closeAll();
    // A line for a file outside the root, as a hand-made snapshot could hold.
    const lines = (await readFile(snapshotFile, "utf8")).split("\n");
    const line = lines.find((text) => text.includes("renamed.ts"))!;
    const outside = path.join(path.dirname(f.root), "outside-the-root.ts");
    lines.push(line.replace(JSON.stringify(f.path("renamed.ts")), JSON.stringify(outside)));
    await writeFile(snapshotFile, lines.join("\n"));
    await f.write("renamed.ts", "export function caller() {\n  return otherFn();\n}\n");
    const index = f.index({ settings: { persist: true } });
    const { files } = await index.filesMentioning(["targetFn"]);
    expect(files).toEqual([f.path("renamed.ts")]);
    await index.ensureScope({ files });
    expect(index.get(f.path("renamed.ts"))!.facts.calls.map((call) => call.name)).toEqual(["otherFn"]);
    await index.ensureFresh();
  });

  test("once built, a scoped call is an ordinary refresh", async () => {
    const f = await tree(5);
    const index = f.index();
    await index.ensureFresh();
    await f.write("z/own0.ts", "export function renamed() {}\n");
    const coverage = await index.ensureScope({ dirs: [f.path("a")] });
    expect(coverage.complete).toBe(true);
    expect(index.get(f.path("z/own0.ts"))?.facts.symbols[0]?.name).toBe("renamed");
  });
});
