/** The run tool through its handler, over real temp directories and a private state directory. */
import { describe, expect, test } from "bun:test";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { listBatches } from "../../src/patch/journal.ts";
import { runTool } from "../../src/tools/run.ts";
import { runTool as call } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";
import { useRunFixture } from "./run-fixture.ts";

const fx = useRunFixture("run-test");

const read = (name: string) => readFile(path.join(fx.temp.dir, name), "utf8");

async function logFixture(): Promise<void> {
  await fx.temp.write("src/a.ts", "export function a(x: number) {\n  console.log(\"a\", x);\n  return x;\n}\n");
  await fx.temp.write("src/b.ts", "export function b() {\n  console.log(\"b\");\n  console.log(\"b\", 2, 3);\n}\n");
  await fx.temp.write("src/c.ts", "export const c = 1;\n");
  await fx.temp.write("tools/d.py", "def d():\n    print('d')\n");
}

describe("run: search", () => {
  test("lists matches with 1-based positions and captures across files", async () => {
    await logFixture();
    const result = await call(runTool, { pattern: "console.log($$$ARGS)" }, fx.context);
    expect(result.mode).toBe("search");
    expect(result.matchCount).toBe(3);
    expect(result.files.matched).toBe(2);
    expect(result.languages).toContain("typescript");
    expect(result.matches[0]).toEqual({ path: "src/a.ts", startLine: 2, endLine: 2, column: 3, endColumn: 22, text: "console.log(\"a\", x)", captures: { ARGS: "\"a\", x" } });
    expect(result.matches.map((match: { path: string; startLine: number }) => `${match.path}:${match.startLine}`)).toEqual(["src/a.ts:2", "src/b.ts:2", "src/b.ts:3"]);
    expect(result.complete).toBe(true);
    const text = runTool.render(runTool.output.parse(result));
    expect(text).toContain("3 matches in 2 files");
    expect(text).toContain("2:3 console.log(\"a\", x)  {ARGS=\"\\\"a\\\", x\"}");
  });

  test("the literal pre-filter skips files that cannot match before parsing", async () => {
    for (let index = 0; index < 8; index++) await fx.temp.write(`lib/f${index}.ts`, `export const v${index} = compute(${index});\n`);
    await fx.temp.write("lib/user.ts", "export async function load() {\n  return fetchUser(42);\n}\n");
    // The literal in a comment passes the filter, but the parse finds no call.
    await fx.temp.write("lib/doc.ts", "// call fetchUser(id) to load\nexport const none = 0;\n");
    const result = await call(runTool, { pattern: "fetchUser($ID)", lang: "typescript" }, fx.context);
    expect(result.literals).toEqual(["fetchUser"]);
    expect(result.files).toMatchObject({ considered: 10, ruledOut: 8, parsed: 2, matched: 1 });
    expect(result.matches[0]).toMatchObject({ path: "lib/user.ts", startLine: 2, captures: { ID: "42" } });
  });

  test("paths, glob and lang narrow the scope; an explicit file the index skips is searched", async () => {
    await logFixture();
    await fx.temp.write(".gitignore", "vendor/\n");
    await fx.temp.write("vendor/v.ts", "console.log(\"vendored\");\n");
    const all = await call(runTool, { pattern: "console.log($$$ARGS)" }, fx.context);
    expect(all.matches.map((match: { path: string }) => match.path)).not.toContain("vendor/v.ts");
    const globbed = await call(runTool, { pattern: "console.log($$$ARGS)", glob: "src/a.*" }, fx.context);
    expect(globbed.matchCount).toBe(1);
    const named = await call(runTool, { pattern: "console.log($$$ARGS)", paths: ["vendor/v.ts", "src/b.ts"] }, fx.context);
    expect(named.matches.map((match: { path: string }) => match.path)).toEqual(["src/b.ts", "src/b.ts", "vendor/v.ts"]);
    // A named file of no known language is parsed as the given lang.
    await fx.temp.write("snippet.txt", "console.log(\"from text\");\n");
    const forced = await call(runTool, { pattern: "console.log($$$ARGS)", lang: "typescript", paths: ["snippet.txt"] }, fx.context);
    expect(forced.matches.map((match: { path: string }) => match.path)).toEqual(["snippet.txt"]);
    const python = await call(runTool, { pattern: "print($A)", lang: "py" }, fx.context);
    expect(python).toMatchObject({ languages: ["python"], matchCount: 1 });
    expect(python.matches[0]).toMatchObject({ path: "tools/d.py", captures: { A: "'d'" } });
  });

  test("files the policy hides are never read; paths outside the roots are refused", async () => {
    fx.context = await fx.contextFor({ rules: [{ path: "private/**", read: "deny" }] });
    await fx.temp.write("private/p.ts", "console.log(\"secret\");\n");
    await fx.temp.write("open.ts", "console.log(\"open\");\n");
    const result = await call(runTool, { pattern: "console.log($A)" }, fx.context);
    expect(result.matches.map((match: { path: string }) => match.path)).toEqual(["open.ts"]);
    expect((await failure(call(runTool, { pattern: "console.log($A)", paths: ["private/p.ts"] }, fx.context))).code).toBe("path_denied");
    expect((await failure(call(runTool, { pattern: "console.log($A)", paths: ["/etc"] }, fx.context))).code).toBe("path_outside_roots");
  });

  test("bad input is refused with the field named", async () => {
    await logFixture();
    expect((await failure(call(runTool, { pattern: "foo($A)", lang: "klingon" }, fx.context))).message).toContain("lang");
    expect((await failure(call(runTool, { pattern: "foo($A)", lang: "typescript", selector: "no_such_kind" }, fx.context))).message).toContain("selector");
    expect((await failure(call(runTool, {}, fx.context))).message).toContain("pattern");
    expect((await failure(call(runTool, { pattern: "foo($A)", rewrite: "bar($A)", write: true }, fx.context))).message).toContain("expectedMatches");
    const counted = await failure(call(runTool, { pattern: "console.log($$$ARGS)", expectedMatches: 2 }, fx.context));
    expect(counted.code).toBe("match_count");
    expect(counted.details).toMatchObject({ expected: 2, found: 3 });
  });

  test("reports progress that never goes back, and stops when cancelled", async () => {
    await logFixture();
    const seen: Array<[number, number]> = [];
    const withProgress = { ...fx.context, progress: (done: number, total: number) => seen.push([done, total]) };
    await call(runTool, { pattern: "console.log($$$ARGS)" }, withProgress);
    expect(seen.length).toBeGreaterThan(0);
    for (let index = 1; index < seen.length; index++) expect(seen[index]![0]).toBeGreaterThanOrEqual(seen[index - 1]![0]);
    const last = seen[seen.length - 1]!;
    expect(last[0]).toBe(last[1]);
    const controller = new AbortController();
    controller.abort();
    await expect(call(runTool, { pattern: "console.log($$$ARGS)" }, { ...fx.context, signal: controller.signal })).rejects.toThrow();
  });
});

describe("run: rewrite", () => {
  test("a preview shows per-file diffs and one receipt, and writes nothing", async () => {
    await logFixture();
    const before = await read("src/b.ts");
    const preview = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)" }, fx.context);
    expect(preview.mode).toBe("preview");
    expect(preview.matchCount).toBe(3);
    expect(preview.changes.map((change: { path: string; matches: number }) => [change.path, change.matches])).toEqual([
      ["src/a.ts", 1],
      ["src/b.ts", 2],
    ]);
    expect(preview.changes[1].diff).toContain("+  logger.info(\"b\", 2, 3);");
    expect(preview.changes[1].diff).toContain("-  console.log(\"b\", 2, 3);");
    expect(preview.previewReceipt).toMatch(/^rcpt_/);
    expect(await read("src/b.ts")).toBe(before);
  });

  test("a preview whose diffs pass the run's diff budget says so in limits; a small one is complete", async () => {
    const calls = Array.from({ length: 400 }, (_, index) => `console.log("line ${index} of a file long enough to pass the diff budget");`).join("\n");
    for (let file = 0; file < 6; file++) await fx.temp.write(`big/f${file}.ts`, `${calls}\n`);
    const preview = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)", paths: ["big"] }, fx.context);
    expect(preview.changes.some((change: { diffTruncated?: boolean }) => change.diffTruncated)).toBe(true);
    expect(preview.complete).toBe(false);
    expect(preview.limits.some((limit: string) => limit.startsWith("intel.run.maxDiffBytesPerFile"))).toBe(true);
    await logFixture();
    const small = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)", paths: ["src"] }, fx.context);
    expect([small.complete, small.limits]).toEqual([true, []]);
  });

  test("a rewrite previewed in one stateless request is committed from another by its receipt alone", async () => {
    await logFixture();
    const services = fx.context.services;
    const previewing = await fx.contextFor({ services, stateless: true, sessionId: "req_preview" });
    const preview = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)" }, previewing);
    services.closeSession(previewing.sessionId); // the server ends every stateless request this way
    const committing = await fx.contextFor({ services, stateless: true, sessionId: "req_commit" });
    const committed = await call(runTool, { previewReceipt: preview.previewReceipt }, committing);
    expect(committed.changes.map((change: { path: string }) => change.path)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(await read("src/a.ts")).toContain("logger.info(\"a\", x);");
    const legacy = await fx.contextFor({ services });
    const used = await failure(call(runTool, { previewReceipt: preview.previewReceipt }, legacy));
    expect(used.details?.reason).toBe("used");
  });

  test("committing the receipt writes every file as one batch", async () => {
    await logFixture();
    const preview = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)" }, fx.context);
    const committed = await call(runTool, { previewReceipt: preview.previewReceipt }, fx.context);
    expect(committed.mode).toBe("commit");
    expect(committed.batchId).toBeString();
    expect(committed.changes.map((change: { path: string }) => change.path)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(await read("src/a.ts")).toBe("export function a(x: number) {\n  logger.info(\"a\", x);\n  return x;\n}\n");
    expect(await read("src/b.ts")).toBe("export function b() {\n  logger.info(\"b\");\n  logger.info(\"b\", 2, 3);\n}\n");
    const batches = await listBatches({ sessionId: fx.context.sessionId });
    expect(batches.find((batch) => batch.batchId === committed.batchId)).toBeDefined();
    // The receipt is used up, and the index already sees the new content.
    expect((await failure(call(runTool, { previewReceipt: preview.previewReceipt }, fx.context))).code).toBe("receipt_invalid");
    expect((await call(runTool, { pattern: "logger.info($$$ARGS)" }, fx.context)).matchCount).toBe(3);
  });

  test("a receipt whose files changed since the preview is refused and writes nothing", async () => {
    await logFixture();
    const preview = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)" }, fx.context);
    await writeFile(path.join(fx.temp.dir, "src/b.ts"), "export function b() {\n  console.log(\"changed\");\n}\n");
    const stale = await failure(call(runTool, { previewReceipt: preview.previewReceipt }, fx.context));
    expect(stale.code).toBe("stale_hash");
    expect(stale.message).toContain("src/b.ts");
    expect(await read("src/a.ts")).toContain("console.log");
    expect(await read("src/b.ts")).toContain("console.log(\"changed\")");
  });

  test("write: true needs the exact total of matches across files", async () => {
    await logFixture();
    const wrong = await failure(call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)", write: true, expectedMatches: 2 }, fx.context));
    expect(wrong.code).toBe("match_count");
    expect(wrong.details).toMatchObject({ expected: 2, found: 3, files: [{ path: "src/a.ts", matches: 1 }, { path: "src/b.ts", matches: 2 }] });
    expect(await read("src/a.ts")).toContain("console.log");
    const written = await call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS)", write: true, expectedMatches: 3 }, fx.context);
    expect(written.mode).toBe("write");
    expect(written.batchId).toBeString();
    expect(await read("src/a.ts")).toContain("logger.info(\"a\", x)");
    expect(await read("src/b.ts")).not.toContain("console.log");
  });

  test("nested matches and metavariables rewrite like file_patch", async () => {
    await fx.temp.write("n.ts", "const v = wrap(wrap(1)) + wrap(2);\n");
    const written = await call(runTool, { pattern: "wrap($A)", rewrite: "box($A)", write: true, expectedMatches: 3 }, fx.context);
    expect(written.changes[0]).toMatchObject({ matches: 3, applied: 3 });
    expect(await read("n.ts")).toBe("const v = box(box(1)) + box(2);\n");
  });

  test("a rewrite that breaks the syntax of one file refuses the whole run", async () => {
    await logFixture();
    const broken = await failure(call(runTool, { pattern: "console.log($$$ARGS)", rewrite: "logger.info($$$ARGS", write: true, expectedMatches: 3 }, fx.context));
    expect(broken.code).toBe("syntax_regression");
    expect(await read("src/a.ts")).toContain("console.log");
    expect(await read("src/b.ts")).toContain("console.log");
  });

  test("more files than one ordinary batch holds are written as one journaled batch", async () => {
    for (let index = 0; index < 60; index++) await fx.temp.write(`many/m${index}.ts`, `export const m${index} = legacy(${index});\n`);
    const written = await call(runTool, { pattern: "legacy($N)", rewrite: "modern($N)", write: true, expectedMatches: 60 }, fx.context);
    expect(written.changes).toHaveLength(60);
    expect(await read("many/m59.ts")).toBe("export const m59 = modern(59);\n");
    const batches = await listBatches({ sessionId: fx.context.sessionId });
    expect(batches.filter((batch) => batch.batchId === written.batchId)).toHaveLength(1);
  });
});
