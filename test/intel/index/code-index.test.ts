import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { DEFAULT_RULES } from "../../../src/config/schema.ts";
import { LIMITS } from "../../../src/core/limits.ts";
import { lineCount } from "../../../src/intel/index/classify.ts";
import { DEFAULT_INDEX_SETTINGS } from "../../../src/intel/index/index.ts";
import { DEFAULT_SNAPSHOT_TIMING } from "../../../src/intel/index/snapshot-keeper.ts";
import { readBoundedSync, realTarget } from "../../../src/policy/open.ts";
import { splitLines } from "../../../src/text/index.ts";
import { Workspace } from "../../../src/policy/workspace.ts";
import { indexedPaths, makeIndexFixture, type IndexFixture } from "./fixture.ts";

let fixture: IndexFixture | undefined;

afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

async function setUp(options: Parameters<typeof makeIndexFixture>[0] = {}): Promise<IndexFixture> {
  fixture = await makeIndexFixture(options);
  return fixture;
}

describe("walk: ignore files, built-in skips and limits", () => {
  test("root and nested .gitignore files, negation, directory patterns and .git/info/exclude", async () => {
    const f = await setUp();
    await f.write(".gitignore", "*.gen.ts\nsecret/\n");
    await f.write("a.ts", "export function a() {}\n");
    await f.write("b.gen.ts", "export function b() {}\n");
    await f.write("sub/.gitignore", "!keep.gen.ts\n/local.ts\n");
    await f.write("sub/keep.gen.ts", "export function keep() {}\n");
    await f.write("sub/x.gen.ts", "export function x() {}\n");
    await f.write("sub/local.ts", "export function local() {}\n");
    await f.write("sub/deeper/local.ts", "export function deeperLocal() {}\n");
    await f.write("secret/s.ts", "export function s() {}\n");
    await f.write(".git/info/exclude", "excluded.ts\n");
    await f.write("excluded.ts", "export function excluded() {}\n");
    const index = f.index();
    const coverage = await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["a.ts", "sub/deeper/local.ts", "sub/keep.gen.ts"]);
    // b.gen.ts, sub/x.gen.ts, sub/local.ts, secret/, excluded.ts and .git/ are ignored.
    expect(coverage.skipped.ignored).toBe(6);
    expect(coverage.complete).toBe(true);
    expect(coverage.files).toBe(3);
  });

  test("dependency and build folders, minified bundles, binary and unknown files are skipped and counted", async () => {
    const f = await setUp();
    await f.write("src/app.ts", "export function app() {}\n");
    await f.write("node_modules/dep/index.js", "function dep() {}\n");
    await f.write("dist/out.js", "function out() {}\n");
    await f.write("build/b.js", "function b() {}\n");
    await f.write("target/t.rs", "fn t() {}\n");
    await f.write("vendor/v.go", "package v\n");
    await f.write("lib/app.min.js", "function m(){}\n");
    await f.write("lib/bundle.js", `${"var a=1;".repeat(2000)}\n${"var b=2;".repeat(2000)}\n`);
    await f.write("lib/binary.ts", Buffer.from([0x66, 0x00, 0x01, 0x02]));
    await f.write("NOTES", "just words\n");
    await f.write("image.png", Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    await f.write("bin/run", "#!/usr/bin/env node\nfunction run() {}\n");
    const index = f.index();
    const coverage = await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["bin/run", "src/app.ts"]);
    expect(index.get(f.path("bin/run"))?.language).toBe("javascript");
    expect(coverage.skipped.ignored).toBe(5);
    expect(coverage.skipped.minified).toBe(2);
    // NOTES and image.png by name, lib/binary.ts by content.
    expect(coverage.skipped.unsupported).toBe(3);
    expect(coverage.complete).toBe(true);
  });

  test("output folder names are skipped at the root or beside the manifest of a tool that writes them, not deeper in a tree (the Go tree's src/go/build, src/cmd/dist)", async () => {
    const f = await setUp();
    await f.write("src/go.mod", "module std\n");
    await f.write("src/go/build/build.go", "package build\nfunc Import() {}\n");
    await f.write("src/cmd/go.mod", "module cmd\n");
    await f.write("src/cmd/dist/main.go", "package main\nfunc main() {}\n");
    await f.write("src/cmd/vendor/golang.org/x/mod/mod.go", "package mod\n");
    await f.write("src/vendor/golang.org/x/net/idna/idna.go", "package idna\n");
    await f.write("web/package.json", "{}\n");
    await f.write("web/src/app.ts", "export function app() {}\n");
    await f.write("web/dist/app.js", "function app() {}\n");
    await f.write("web/coverage/lcov.js", "function lcov() {}\n");
    await f.write("tools/dist/tool.ts", "export function tool() {}\n");
    // .gitignore still hides one anywhere.
    await f.write(".gitignore", "/lib/target/\n");
    await f.write("lib/target/t.ts", "export function t() {}\n");
    const index = f.index();
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["src/cmd/dist/main.go", "src/go/build/build.go", "tools/dist/tool.ts", "web/package.json", "web/src/app.ts"]);

    // A manifest appearing makes the folder a project root: its dist/ leaves the index.
    await f.write("tools/package.json", "{}\n");
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["src/cmd/dist/main.go", "src/go/build/build.go", "tools/package.json", "web/package.json", "web/src/app.ts"]);
  });

  test("files over max_file_bytes and beyond max_files are counted and make the coverage incomplete", async () => {
    const f = await setUp();
    await f.write("b-big.ts", `export const data = "${"x".repeat(5000)}";\n`);
    for (const name of ["a", "c", "d", "e"]) await f.write(`${name}.ts`, `export function ${name}() {}\n`);
    const index = f.index({ settings: { maxFiles: 2, maxFileBytes: 2048 } });
    const coverage = await index.ensureFresh();
    // The first files in walk order are kept, whatever order the reads finish in; the place the
    // too-large file took goes to the next one.
    expect(indexedPaths(index)).toEqual(["a.ts", "c.ts"]);
    expect(coverage.skipped.tooLarge).toBe(1);
    expect(coverage.skipped.overLimit).toBe(2);
    expect(coverage.complete).toBe(false);
    expect(coverage.limits).toEqual(["index.max_files = 2", "index.max_file_bytes = 2048"]);

    // Room freed by a deletion goes to the next file in walk order.
    await f.remove("a.ts");
    const after = await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["c.ts", "d.ts"]);
    expect(after.skipped.overLimit).toBe(1);
  });

  test("paths the policy denies are counted, never read", async () => {
    const f = await setUp({ rules: [{ path: "private/**", read: "deny" }] });
    await f.write("open.ts", "export function open() {}\n");
    await f.write("private/hidden.ts", "export function hidden() {}\n");
    await f.write(".env", "TOKEN=1\n");
    const index = f.index();
    const coverage = await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["open.ts"]);
    expect(f.extracted.some((text) => text.includes("hidden"))).toBe(false);
    // private/hidden.ts and .env (a default secret rule).
    expect(coverage.skipped.denied).toBe(2);
  });

  test("links inside the roots are walked; links leading out are counted as denied and nothing outside is read", async () => {
    const f = await setUp();
    const outside = await mkdtemp(path.join(tmpdir(), "ast-mcp-outside-"));
    try {
      await writeFile(path.join(outside, "secret.ts"), "export function outsideSecret() {}\n");
      await f.write("src/lib/util.ts", "export function util() {}\n");
      await symlink("lib", f.path("src/alias"));
      await symlink(outside, f.path("src/out"));
      await symlink(path.join(outside, "secret.ts"), f.path("src/secret.ts"));
      const index = f.index();
      const coverage = await index.ensureFresh();
      // The aliased directory is the same real directory: its file is indexed once.
      expect(indexedPaths(index)).toEqual(["src/lib/util.ts"]);
      expect(coverage.skipped.denied).toBe(2);
      expect(f.extracted.some((text) => text.includes("outsideSecret"))).toBe(false);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("a file swapped for a link after the walk is not followed when it is read again", async () => {
    const f = await setUp();
    const outside = await mkdtemp(path.join(tmpdir(), "ast-mcp-outside-"));
    try {
      await writeFile(path.join(outside, "secret.ts"), "export function outsideSecret() {}\n");
      await f.write("a.ts", "export function a() {}\n");
      const index = f.index();
      await index.ensureFresh();
      expect(indexedPaths(index)).toEqual(["a.ts"]);
      await f.remove("a.ts");
      await symlink(path.join(outside, "secret.ts"), f.path("a.ts"));
      // Told it changed (as a watcher or a write would), the index reads the path itself again.
      index.notifyWritten([f.path("a.ts")]);
      await index.ensureFresh();
      expect(f.extracted.some((text) => text.includes("outsideSecret"))).toBe(false);
      expect(index.files().flatMap((file) => file.facts.symbols.map((symbol) => symbol.name))).not.toContain("outsideSecret");
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("the synchronous reader reads regular files only: never through a link, never a FIFO, nothing over the limit", async () => {
    const f = await setUp();
    // As the index reads a listing entry: by real path, through the policy's one reader.
    const readBytesNoFollowSync = (real: string, maxBytes: number, statsOnly = false) => readBoundedSync(realTarget(real, real), maxBytes, { statsOnly });
    const file = await f.write("a.ts", "export const a = 1;\n");
    const read = readBytesNoFollowSync(file, 1024);
    expect(typeof read === "object" && "bytes" in read ? read.bytes.toString() : read).toBe("export const a = 1;\n");
    expect(readBytesNoFollowSync(file, 4)).toMatchObject({ skipped: "tooLarge" });
    expect(readBytesNoFollowSync(file, 1024, true)).toMatchObject({ skipped: "statsOnly" });
    await symlink(file, f.path("link.ts"));
    expect(readBytesNoFollowSync(f.path("link.ts"), 1024)).toBe("gone");
    expect(readBytesNoFollowSync(f.path("missing.ts"), 1024)).toBe("gone");
    expect(readBytesNoFollowSync(f.root, 1024)).toBe("gone");
    execFileSync("mkfifo", [f.path("pipe.ts")]);
    expect(readBytesNoFollowSync(f.path("pipe.ts"), 1024)).toBe("gone");
  });

  test("line counts agree with splitLines for every kind of line end", () => {
    for (const text of ["", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\rb", "a\r", "\n\n", "a\r\n\rb\n\n", "x\r\r\n"]) {
      expect(lineCount(text)).toBe(splitLines(text).length);
    }
  });

  test("[languages] overrides decide before the file name", async () => {
    const f = await setUp();
    await f.write("view.tmpl", "function render() {}\n");
    await f.write("plain.txt", "function notCode() {}\n");
    const index = f.index({ settings: { languageOverrides: { "*.tmpl": "javascript" } } });
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["view.tmpl"]);
    expect(index.get(f.path("view.tmpl"))?.language).toBe("javascript");
  });

  test("reports progress and shares one refresh between concurrent callers", async () => {
    const f = await setUp();
    for (let i = 0; i < 12; i++) await f.write(`m${i}.ts`, `export function m${i}() {}\n`);
    const index = f.index();
    const seen: Array<[number, number]> = [];
    const [first, second] = await Promise.all([index.ensureFresh({ onProgress: (done, total) => seen.push([done, total]) }), index.ensureFresh()]);
    expect(first.files).toBe(12);
    expect(second.files).toBe(12);
    expect(f.extracted).toHaveLength(12);
    expect(seen.at(-1)).toEqual([12, 12]);
  });

  test("an aborted wait rejects while the build goes on for the next caller", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    const index = f.index();
    const controller = new AbortController();
    controller.abort();
    await expect(index.ensureFresh({ signal: controller.signal })).rejects.toThrow();
    expect((await index.ensureFresh()).files).toBe(1);
  });
});

describe("freshness: every answer reflects the disk", () => {
  test("changed, deleted and new files are picked up; unchanged files are not parsed again", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function alpha() {}\n");
    await f.write("b.ts", "export function beta() {}\n");
    const index = f.index();
    await index.ensureFresh();
    expect(f.extracted).toHaveLength(2);
    const generation = index.generation;

    await index.ensureFresh();
    expect(f.extracted).toHaveLength(2);
    expect(index.generation).toBe(generation);

    await f.write("a.ts", "export function alphaRenamed() {}\n");
    await f.remove("b.ts");
    await f.write("new/c.ts", "export function gamma() {}\n");
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["a.ts", "new/c.ts"]);
    expect(index.get(f.path("a.ts"))?.facts.symbols.map((symbol) => symbol.name)).toEqual(["alphaRenamed"]);
    expect(index.get(f.path("b.ts"))).toBeUndefined();
    expect(f.extracted).toHaveLength(4);
    expect(index.generation).toBeGreaterThan(generation);
    expect(index.stats().lastRefresh).toMatchObject({ reparsed: 2, removed: 1 });
  });

  test("a same-size edit with the old mtime restored is still seen (ctime), and a touch alone parses nothing", async () => {
    const f = await setUp();
    const file = await f.write("a.ts", "export function aaaa() {}\n");
    const index = f.index();
    await index.ensureFresh();
    const before = await stat(file);
    await writeFile(file, "export function bbbb() {}\n");
    await utimes(file, before.atime, before.mtime);
    await index.ensureFresh();
    expect(index.get(file)?.facts.symbols[0]?.name).toBe("bbbb");

    const parses = f.extracted.length;
    const now = new Date(Date.now() + 5000);
    await utimes(file, now, now);
    await index.ensureFresh();
    expect(f.extracted).toHaveLength(parses);
    expect(index.get(file)?.mtimeMs).toBe((await stat(file)).mtimeMs);
  });

  test("editing a .gitignore in place re-applies it to the tree below", async () => {
    const f = await setUp();
    await f.write(".gitignore", "# nothing yet\n");
    await f.write("pkg/gen/out.ts", "export function out() {}\n");
    await f.write("pkg/src.ts", "export function src() {}\n");
    const index = f.index();
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["pkg/gen/out.ts", "pkg/src.ts"]);
    await writeFile(f.path(".gitignore"), "gen/\n");
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["pkg/src.ts"]);
    await writeFile(f.path(".gitignore"), "gen/\n!pkg/gen/\n");
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["pkg/gen/out.ts", "pkg/src.ts"]);
  });

  test("a file that grows past the size limit leaves the index and comes back when it shrinks", async () => {
    const f = await setUp();
    const file = await f.write("a.ts", "export function small() {}\n");
    const index = f.index({ settings: { maxFileBytes: 1024 } });
    await index.ensureFresh();
    await writeFile(file, `export function big() {}\n//${"x".repeat(2000)}\n`);
    const coverage = await index.ensureFresh();
    expect(index.get(file)).toBeUndefined();
    expect(coverage.skipped.tooLarge).toBe(1);
    await writeFile(file, "export function small2() {}\n");
    await index.ensureFresh();
    expect(index.get(file)?.facts.symbols[0]?.name).toBe("small2");
  });

  test("a directory replaced by a file, and a removed directory, leave no stale entries", async () => {
    const f = await setUp();
    await f.write("d/x.ts", "export function x() {}\n");
    await f.write("e/y.ts", "export function y() {}\n");
    const index = f.index();
    await index.ensureFresh();
    await f.remove("d");
    await f.write("d", "not a dir\n");
    await f.remove("e");
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual([]);
    expect(index.stats().directories).toBe(1);
  });

  test("notifyWritten makes the next refresh re-read the paths, and commits through the write pipeline call it", async () => {
    const f = await setUp();
    const file = await f.write("a.ts", "export function a() {}\n");
    const { fileWriteTool } = await import("../../../src/tools/file-write.ts");
    const { runTool, makeContext } = await import("../../support/context.ts");
    const context = await makeContext([f.root]);
    // The index of the context's services: the one its write tools tell.
    const index = context.services.indexes.for(f.workspace, { cacheDir: f.cacheDir, watch: "off", settings: { ...DEFAULT_INDEX_SETTINGS, persist: false } });
    await index.ensureFresh();
    const notified: string[][] = [];
    const original = index.notifyWritten.bind(index);
    index.notifyWritten = (paths: readonly string[]) => {
      notified.push([...paths]);
      original(paths);
    };
    const sha = (await import("node:crypto")).createHash("sha256").update(await readFile(file)).digest("hex");
    const previous = process.env.AST_MCP_STATE_DIR;
    process.env.AST_MCP_STATE_DIR = path.join(f.cacheDir, "state");
    try {
      await runTool(fileWriteTool, { files: { "a.ts": { content: "export function written() {}\n", expectedSha256: sha } } }, context);
    } finally {
      if (previous === undefined) delete process.env.AST_MCP_STATE_DIR;
      else process.env.AST_MCP_STATE_DIR = previous;
    }
    expect(notified.flat()).toContain(file);
    await index.ensureFresh();
    expect(index.get(file)?.facts.symbols[0]?.name).toBe("written");
    context.services.indexes.closeAll();
  });
});

describe("single files", () => {
  test("load() answers for files the walk leaves out, and text() refuses a file that changed", async () => {
    const f = await setUp();
    await f.write("node_modules/dep/index.ts", "export function dep() {}\n");
    await f.write("a.ts", "export function a() {}\n");
    const index = f.index();
    const resolved = await f.workspace.resolve("node_modules/dep/index.ts", "read");
    const { file, text } = await index.load(resolved);
    expect(file.display).toBe("node_modules/dep/index.ts");
    expect(file.facts.symbols.map((symbol) => symbol.name)).toEqual(["dep"]);
    expect(text).toBe("export function dep() {}\n");
    expect(index.files()).toEqual([]);

    await index.ensureFresh();
    const a = index.get(f.path("a.ts"))!;
    expect(await index.text(a)).toBe("export function a() {}\n");
    await f.write("a.ts", "export function changed() {}\n");
    await expect(index.text(a)).rejects.toMatchObject({ code: "stale_hash" });
    await index.ensureFresh();
    expect(index.get(f.path("a.ts"))?.facts.symbols[0]?.name).toBe("changed");
  });

  test("load() refuses files without a parser with a hint", async () => {
    const f = await setUp();
    await f.write("notes.txt", "words\n");
    const index = f.index();
    await expect(index.load(await f.workspace.resolve("notes.txt", "read"))).rejects.toMatchObject({ code: "invalid_input" });
  });
});

describe("persisted snapshot", () => {
  test("a new process reuses the facts of unchanged files and parses changed ones", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    await f.write("b.ts", "export function b() {}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const snapshotFile = first.stats().snapshot.path!;
    expect(snapshotFile.startsWith(f.cacheDir)).toBe(true);
    expect((await stat(snapshotFile)).mode & 0o777).toBe(0o600);
    expect((await stat(path.dirname(snapshotFile))).mode & 0o777).toBe(0o700);
    first.close();

    await f.write("b.ts", "export function bChanged() {}\n");
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    expect(second).not.toBe(first);
    await second.ensureFresh();
    expect(f.extracted).toEqual(["export function bChanged() {}\n"]);
    expect(second.stats().snapshot).toMatchObject({ loaded: true, reused: 1 });
    expect(second.stats().lastBuild).toMatchObject({ parsed: 1, fromSnapshot: 1 });
    expect(second.get(f.path("a.ts"))?.facts.symbols[0]?.name).toBe("a");
  });

  test("another extractor version or a corrupt file makes the snapshot unusable", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const snapshotFile = first.stats().snapshot.path!;
    first.close();

    f.extracted.length = 0;
    const other = f.index({ settings: { persist: true }, extractorVersion: "another" });
    await other.ensureFresh();
    expect(other.stats().snapshot.loaded).toBe(false);
    expect(f.extracted).toHaveLength(1);
    other.close();

    await writeFile(snapshotFile, "not a snapshot");
    f.extracted.length = 0;
    const third = f.index({ settings: { persist: true } });
    await third.ensureFresh();
    expect(third.stats().snapshot.loaded).toBe(false);
    expect(f.extracted).toHaveLength(1);
    third.close();

    // Cut short by a crash mid-append: the lines appended whole before the cut are used, the rest is parsed again.
    const fourth = f.index({ settings: { persist: true } });
    await fourth.ensureFresh();
    await fourth.saveSnapshot();
    fourth.close();
    const saved = (await readFile(snapshotFile)).length;
    for (let i = 0; i < 400; i++) await f.write(`many/m${i}.ts`, `export function m${i}() { return ${"1 + ".repeat(i % 7)}${i}; }\n`);
    const appending = f.index({ settings: { persist: true } });
    await appending.ensureFresh();
    await appending.flushSnapshot();
    appending.close();
    const whole = await readFile(snapshotFile);
    await writeFile(snapshotFile, whole.subarray(0, saved + Math.floor((whole.length - saved) * 0.8)));
    f.extracted.length = 0;
    const fifth = f.index({ settings: { persist: true } });
    await fifth.ensureFresh();
    expect(fifth.stats().snapshot.loaded).toBe(true);
    expect(f.extracted.length).toBeGreaterThan(0);
    expect(f.extracted.length).toBeLessThan(401);
    expect(fifth.stats().lastBuild).toMatchObject({ parsed: f.extracted.length, fromSnapshot: 401 - f.extracted.length });
    expect(fifth.files()).toHaveLength(401);
  });

  test("a line torn by a crash mid-append costs only its own file, and the next append starts a line of its own", async () => {
    const f = await setUp();
    for (const name of ["a", "b"]) await f.write(`${name}.ts`, `export function ${name}() {}\n`);
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const snapshotFile = first.stats().snapshot.path!;
    first.close();
    const saved = await readFile(snapshotFile);
    // A new file, appended after the index by the next build; then that line is torn inside its head, no newline after it.
    await f.write("c.ts", "export function c() {}\n");
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    await second.flushSnapshot();
    second.close();
    const appended = await readFile(snapshotFile);
    expect(appended.length).toBeGreaterThan(saved.length);
    await writeFile(snapshotFile, appended.subarray(0, saved.length + 12));
    f.extracted.length = 0;
    const third = f.index({ settings: { persist: true } });
    await third.ensureFresh();
    expect(f.extracted).toEqual(["export function c() {}\n"]);
    expect(third.stats().lastBuild).toMatchObject({ parsed: 1, fromSnapshot: 2 });
    // Its parse is appended after the torn line; nothing rewrites the file before it closes.
    await third.flushSnapshot();
    third.close();
    f.extracted.length = 0;
    const fourth = f.index({ settings: { persist: true } });
    await fourth.ensureFresh();
    expect(f.extracted).toEqual([]);
    expect(fourth.stats().lastBuild).toMatchObject({ parsed: 0, fromSnapshot: 3 });
    fourth.close();
  });

  test("facts come back from the snapshot as they were extracted: docs, parents, heritage, locals, qualifiers, callers, imports and re-exports", async () => {
    const f = await setUp();
    await f.write(
      "rich.ts",
      [
        "import def, { one as uno, two } from \"./other.js\";",
        "import * as all from \"./all.js\";",
        "export { uno as renamed } from \"./other.js\";",
        "export * from \"./star.js\";",
        "/** A base. */",
        "export class Base {}",
        "/** Holds things; the second sentence is dropped. */",
        "export class Box extends Base implements Sized {",
        "  size(): number {",
        "    const inner = () => helper.count(this.items);",
        "    return inner() + uno(two(def())) + all.x();",
        "  }",
        "}",
        "function helper() {}",
        "",
      ].join("\n"),
    );
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const before = first.get(f.path("rich.ts"))!.facts;
    first.close();
    // Every optional field is there to be carried.
    expect(before.symbols.some((symbol) => symbol.doc && symbol.parent === undefined)).toBe(true);
    expect(before.symbols.some((symbol) => symbol.parent === "Box")).toBe(true);
    expect(before.symbols.some((symbol) => symbol.heritage?.length)).toBe(true);
    expect(before.calls.some((call) => call.qualifier !== undefined && call.caller !== undefined)).toBe(true);
    expect(before.exportedNames.some((entry) => entry.from !== undefined && entry.local !== undefined)).toBe(true);
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(f.extracted).toEqual([]);
    expect(second.get(f.path("rich.ts"))!.facts).toEqual(before);
  });

  test("the types a file binds to its values come back from the snapshot as extracted: call results, declared types, other values, scopes", async () => {
    const f = await setUp();
    await f.write(
      "typed.py",
      [
        "shared = Store()",
        "",
        "class Box:",
        "    def __init__(self):",
        "        self.store = Store()",
        "",
        "    def size(self, limit: int):",
        "        count: Counter = None",
        "        other = count",
        "        return other.total()",
        "",
      ].join("\n"),
    );
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const before = first.get(f.path("typed.py"))!.facts;
    first.close();
    expect(before.bindings).toEqual([
      { name: "shared", type: "Store", call: true, line: 1 },
      { name: "self.store", type: "Store", call: true, line: 5, scope: "Box" },
      { name: "count", type: "Counter", line: 8, scope: "Box.size" },
      { name: "other", type: "count", value: true, line: 9, scope: "Box.size" },
    ]);
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(f.extracted).toEqual([]);
    expect(second.get(f.path("typed.py"))!.facts).toEqual(before);
  });

  test("a snapshot line whose facts do not decode costs that file alone: it is parsed again, the others are reused", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() { return b(); }\n");
    await f.write("b.ts", "export function b() {}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const snapshotFile = first.stats().snapshot.path!;
    first.close();
    // Facts spoilt in place (same length, so every other place in the file holds): not JSON any more.
    const whole = await readFile(snapshotFile, "utf8");
    const lineStart = whole.indexOf(`[${JSON.stringify(f.path("a.ts"))}`);
    const bodyStart = whole.indexOf("\t", lineStart) + 1;
    await writeFile(snapshotFile, `${whole.slice(0, bodyStart)}{${whole.slice(bodyStart + 1)}`);
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(f.extracted).toEqual(["export function a() { return b(); }\n"]);
    expect(second.stats().lastBuild).toMatchObject({ parsed: 1, fromSnapshot: 1 });
    expect(second.get(f.path("a.ts"))!.facts.calls.map((call) => call.name)).toEqual(["b"]);
    await second.flushSnapshot();
    second.close();
    // A hand-made line appended after the index (a later line wins): a string reference past its table, and a call row cut short.
    const lines = (await readFile(snapshotFile, "utf8")).split("\n");
    const line = lines.find((text) => text.startsWith(`[${JSON.stringify(f.path("b.ts"))}`))!;
    const body = JSON.parse(line.slice(line.indexOf("\t") + 1));
    body[4] = [999, 0, -1, 1];
    await writeFile(snapshotFile, `${lines.join("\n")}\n${line.slice(0, line.indexOf("\t"))}\t${JSON.stringify(body)}\n`);
    f.extracted.length = 0;
    const third = f.index({ settings: { persist: true } });
    await third.ensureFresh();
    expect(f.extracted).toEqual(["export function b() {}\n"]);
    expect(third.stats().lastBuild).toMatchObject({ parsed: 1, fromSnapshot: 1 });
  });

  test("a file whose facts are larger than a read chunk comes back whole", async () => {
    const f = await setUp();
    const many = Array.from({ length: 6_000 }, (_, i) => `export function name${i}(argument${i}: number) { return argument${i}; }`).join("\n");
    await f.write("big.ts", `${many}\n`);
    await f.write("small.ts", "export function small() {}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    const before = first.get(f.path("big.ts"))!.facts;
    first.close();
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(f.extracted).toEqual([]);
    expect(second.get(f.path("big.ts"))!.facts).toEqual(before);
    expect(JSON.stringify(before).length).toBeGreaterThan(3 * 256 * 1024);
  });

  test("a process that ends right after its first answer leaves a snapshot the next one reads without parsing", async () => {
    const f = await setUp();
    for (let i = 0; i < 30; i++) await f.write(`src/f${i}.ts`, `export function f${i}() {}\n`);
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    // What a shutdown does: no idle time, one flush.
    await first.flushSnapshot();
    first.close();
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(f.extracted).toEqual([]);
    expect(second.stats().lastBuild).toMatchObject({ parsed: 0, fromSnapshot: 30 });
  });

  test("files are appended to the snapshot while the build runs, so a build cut short still leaves them", async () => {
    const f = await setUp();
    for (let i = 0; i < 200; i++) await f.write(`src/f${i}.ts`, `export function f${i}() {}\n`);
    let parses = 0;
    const first = f.index({
      settings: { persist: true },
      tuning: { snapshot: { ...DEFAULT_SNAPSHOT_TIMING, appendEveryMs: 0 } },
      // The process ends (the index closes, nothing is flushed) three quarters through the build.
      extract: (language, text, tree) => {
        if (++parses === 150) first.close();
        return f.extract(language, text, tree);
      },
    });
    await first.ensureFresh().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(second.stats().snapshot.loaded).toBe(true);
    expect(second.stats().lastBuild!.fromSnapshot).toBeGreaterThan(0);
    expect(second.stats().lastBuild!.fromSnapshot).toBeLessThan(150);
    expect(second.files()).toHaveLength(200);
  });

  test("a file whose stats changed in ctime alone is read again; its facts come from the snapshot only if its bytes match", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    await f.write("b.ts", "export function b() {}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    await first.saveSnapshot();
    first.close();
    const target = f.path("b.ts");
    const before = await stat(target);
    // Same size, same mtime, new bytes: only ctime tells.
    await writeFile(target, "export function c() {}\n");
    await utimes(target, before.atime, before.mtime);
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(f.extracted).toEqual(["export function c() {}\n"]);
    expect(second.get(f.path("b.ts"))?.facts.symbols[0]?.name).toBe("c");
    expect(second.get(f.path("a.ts"))?.facts.symbols[0]?.name).toBe("a");
  });

  test("the snapshot is written on its own once the index is idle, and read back by the next process", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    const first = f.index({ settings: { persist: true } });
    await first.ensureFresh();
    for (let waited = 0; first.stats().snapshot.savedAt === undefined && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(first.stats().snapshot.savedAt).toBeDefined();
    first.close();
    f.extracted.length = 0;
    const second = f.index({ settings: { persist: true } });
    await second.ensureFresh();
    expect(second.stats().snapshot).toMatchObject({ loaded: true, reused: 1 });
    expect(f.extracted).toEqual([]);
  });

  test("saving prunes old snapshots of other roots and dead temp files, keeping its own", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    const dir = path.join(f.cacheDir, "index");
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const old = new Date(Date.now() - 2 * 60 * 60_000);
    for (let i = 0; i < LIMITS.intel.index.maxSnapshots + 4; i++) {
      const file = path.join(dir, `${String(i).padStart(32, "0")}.jsonl`);
      await writeFile(file, "x");
      await utimes(file, old, new Date(old.getTime() + i * 1000));
    }
    const staleTemp = path.join(dir, "abc.jsonl.0123456789ab.tmp");
    // A snapshot of the compressed layout before format 5, however new: never read again.
    const legacy = path.join(dir, `${"f".repeat(32)}.json.gz`);
    await writeFile(legacy, "x");
    await writeFile(staleTemp, "x");
    await utimes(staleTemp, old, old);
    const index = f.index({ settings: { persist: true } });
    await index.ensureFresh();
    await index.saveSnapshot();
    const left = await readdir(dir);
    expect(left).toHaveLength(LIMITS.intel.index.maxSnapshots);
    expect(left).toContain(path.basename(index.stats().snapshot.path!));
    expect(left).not.toContain(path.basename(staleTemp));
    expect(left).not.toContain(path.basename(legacy));
    // The newest of the others survive.
    expect(left).toContain(`${String(LIMITS.intel.index.maxSnapshots + 3).padStart(32, "0")}.jsonl`);
    expect(left).not.toContain(`${"0".padStart(32, "0")}.jsonl`);
  });

  test("a cache directory inside the workspace is refused", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    const index = f.index({ settings: { persist: true }, cacheDir: f.path(".cache-here") });
    await index.ensureFresh();
    await index.saveSnapshot();
    expect(index.stats().snapshot.problem).toContain("inside the workspace root");
    await expect(stat(f.path(".cache-here"))).rejects.toThrow();
  });
});

describe("registry", () => {
  test("one index per set of roots; a new policy generation re-walks with the new rules", async () => {
    const f = await setUp();
    await f.write("a.ts", "export function a() {}\n");
    await f.write("b.ts", "export function b() {}\n");
    const index = f.index({ policyGeneration: 1 });
    expect(f.index({ policyGeneration: 1 })).toBe(index);
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["a.ts", "b.ts"]);
    // The disk is unchanged; only the rules are new.
    const stricter = await Workspace.create({
      workspace: { roots: [f.root] },
      paths: [...DEFAULT_RULES, { path: "b.ts", read: "deny", source: "user:/test/ast-mcp.toml" }],
    });
    expect(f.registry.for(stricter, { policyGeneration: 1 })).toBe(index);
    await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["a.ts", "b.ts"]);
    f.registry.for(stricter, { policyGeneration: 2 });
    const coverage = await index.ensureFresh();
    expect(indexedPaths(index)).toEqual(["a.ts"]);
    expect(coverage.skipped.denied).toBe(1);
  });
});
