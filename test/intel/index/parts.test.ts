/** The parts the code index is made of, each on its own: classification, the walked tree, the registry, snapshot timing. */
import { afterEach, describe, expect, test } from "bun:test";
import { lstatSync } from "node:fs";
import { stat } from "node:fs/promises";
import { classifySource } from "../../../src/intel/index/classify.ts";
import { IndexRegistry } from "../../../src/intel/index/index.ts";
import { DEFAULT_SNAPSHOT_TIMING } from "../../../src/intel/index/snapshot-keeper.ts";
import { Freshness } from "../../../src/intel/index/freshness.ts";
import { type FileState, IndexTree, signatureOf } from "../../../src/intel/index/tree.ts";
import { LanguageDetector } from "../../../src/syntax/index.ts";
import { indexedPaths, makeIndexFixture, type IndexFixture } from "./fixture.ts";

let fixture: IndexFixture | undefined;

afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

describe("classification of a file's bytes", () => {
  const detector = new LanguageDetector({ "*.tpl": "typescript" });

  test("binary, invalid text, no parser, minified and source are told apart", () => {
    expect(classifySource(Buffer.from([0x61, 0x00, 0x62]), "a.ts", detector, true)).toEqual({ kind: "binary" });
    expect(classifySource(Buffer.from([0x61, 0xff, 0xfe, 0x62]), "a.ts", detector, true).kind).toBe("undecodable");
    expect(classifySource(Buffer.from("some words\n"), "notes.unknownext", detector, true).kind).toBe("no_parser");
    const bundle = Buffer.from(`${"var a=1;".repeat(200)}\n`.repeat(4));
    expect(classifySource(bundle, "bundle.js", detector, true)).toEqual({ kind: "minified" });
    // A file asked for by path is parsed even when it looks like a bundle.
    expect(classifySource(bundle, "bundle.js", detector, false).kind).toBe("source");
  });

  test("overrides decide the language before the name, and a shebang decides for a file without an extension", () => {
    expect(classifySource(Buffer.from("export const a = 1;\n"), "page.tpl", detector, true)).toMatchObject({ kind: "source", language: "typescript" });
    expect(classifySource(Buffer.from("#!/usr/bin/env python3\nprint(1)\n"), "bin/tool", detector, true)).toMatchObject({ kind: "source", language: "python" });
  });
});

describe("the walked tree", () => {
  test("walks one directory of a root on its own, with the ignore chain it inherits, and parses nothing", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write(".gitignore", "*.gen.ts\n");
    await f.write("a.ts", "export const a = 1;\n");
    await f.write("sub/b.ts", "export const b = 1;\n");
    await f.write("sub/c.gen.ts", "export const c = 1;\n");
    await f.write("sub/deep/d.ts", "export const d = 1;\n");
    const detector = new LanguageDetector({});
    const tree = new IndexTree({ workspace: () => f.workspace, detector: () => detector, watcher: () => undefined });
    const pending = new Set<FileState>();
    await tree.fullScan(pending);
    expect([...pending].map((state) => state.relative).sort()).toEqual([".gitignore", "a.ts", "sub/b.ts", "sub/deep/d.ts"]);
    expect(tree.coverage({ persist: false, maxFiles: 10, maxFileBytes: 1024, languageOverrides: {} })).toMatchObject({ complete: true, files: 0, skipped: { ignored: 1 } });
    // A second pass over one subdirectory alone finds the new file there and nothing else.
    await f.write("sub/e.ts", "export const e = 1;\n");
    const again = new Set<FileState>();
    await tree.rescanDirectories([f.path("sub")], again, false);
    expect([...again].map((state) => state.relative)).toEqual(["sub/e.ts"]);
    expect(f.extracted).toEqual([]);
  });
});

describe("freshness", () => {
  test("without a watcher, a sweep of stats finds a changed file, a new one, and a path written through ast-mcp", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write("a.ts", "export const a = 1;\n");
    await f.write("b.ts", "export const b = 1;\n");
    const detector = new LanguageDetector({});
    const tree = new IndexTree({ workspace: () => f.workspace, detector: () => detector, watcher: () => undefined });
    const freshness = new Freshness(tree, { watch: "off", fullCheckIntervalMs: 60_000, maxWatchedDirectories: 10 });
    freshness.startFullWalk();
    const first = new Set<FileState>();
    await tree.fullScan(first);
    freshness.fullWalkDone();
    // As the index does after processing: each file's signature is what it read.
    for (const state of first) state.signature = signatureOf(lstatSync(state.real));
    const unchanged = new Set<FileState>();
    await freshness.collect(unchanged);
    expect(unchanged.size).toBe(0);
    await f.write("a.ts", "export const a = 22;\n");
    await f.write("c.ts", "export const c = 1;\n");
    freshness.noteWritten(f.path("b.ts"));
    const changed = new Set<FileState>();
    await freshness.collect(changed);
    expect(freshness.last).toBe("stat");
    expect([...changed].map((state) => state.relative).sort()).toEqual(["a.ts", "b.ts", "c.ts"]);
  });
});

describe("the registry", () => {
  test("each registry holds its own indexes, and closing one leaves the other's open", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write("a.ts", "export const a = 1;\n");
    const other = new IndexRegistry();
    const mine = f.index();
    const theirs = other.for(f.workspace, { cacheDir: f.cacheDir, watch: "off", extract: f.extract });
    expect(theirs).not.toBe(mine);
    other.closeAll();
    expect(theirs.closed).toBe(true);
    expect(mine.closed).toBe(false);
    await mine.ensureFresh();
    expect(indexedPaths(mine)).toEqual(["a.ts"]);
    expect(other.for(f.workspace, { cacheDir: f.cacheDir, watch: "off" })).not.toBe(theirs);
    other.closeAll();
  });

  test("noteCommitted reaches the indexes of the registry", async () => {
    const f = (fixture = await makeIndexFixture());
    const index = f.index();
    const told: string[] = [];
    index.notifyWritten = (paths) => {
      for (const real of paths) told.push(real);
    };
    f.registry.noteCommitted([f.path("a.ts")]);
    expect(told).toEqual([f.path("a.ts")]);
  });

  test("beyond its limit, the least recently used index is closed", async () => {
    const f = (fixture = await makeIndexFixture());
    const small = new IndexRegistry({ maxIndexes: 1 });
    const first = small.for(f.workspace, { watch: "off" });
    const second = await makeIndexFixture();
    try {
      small.for(second.workspace, { watch: "off" });
      expect(first.closed).toBe(true);
    } finally {
      small.closeAll();
      await second.cleanup();
    }
  });
});

describe("snapshot timing is an option", () => {
  test("with a short idle time the snapshot is written soon after the build", async () => {
    const f = (fixture = await makeIndexFixture());
    await f.write("a.ts", "export const a = 1;\n");
    const index = f.index({
      settings: { persist: true },
      tuning: { snapshot: { ...DEFAULT_SNAPSHOT_TIMING, minIntervalMs: 0, idleMs: 20, idleUtilization: 1, maxDelayMs: 1000 } },
    });
    await index.ensureFresh();
    const deadline = Date.now() + 1500;
    while (index.stats().snapshot.savedAt === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(index.stats().snapshot.savedAt).toBeDefined();
    const saved = index.stats().snapshot.path;
    expect(saved).toBeDefined();
    expect((await stat(saved!)).size).toBeGreaterThan(0);
  });
});
