/** The mutation tools through their handlers, over real temp directories and a private state directory. */
import { beforeEach, describe, expect, test } from "bun:test";
import { chmod, link, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { fileCapabilitiesTool } from "../../src/tools/files.ts";
import { fileChattrTool } from "../../src/tools/file-chattr.ts";
import { fileDeleteTool } from "../../src/tools/file-delete.ts";
import { filePatchTool } from "../../src/tools/file-patch.ts";
import { fileRenameTool } from "../../src/tools/file-rename.ts";
import { fileUndoTool } from "../../src/tools/file-undo.ts";
import { fileWriteTool } from "../../src/tools/file-write.ts";
import { createToolServices } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";
import { snapshot } from "../patch/commit-fixture.ts";

let temp: TempDir;
let context: ToolContext;
usePrivateStateDir();
beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir();
  context = await makeContext([temp.dir]);
});

const file = (name: string) => path.join(temp.dir, name);
const hashOf = async (name: string) => sha256Hex(await readFile(file(name)));

describe("file_write", () => {
  test("a refused new file leaves no directory made for it and no staged file", async () => {
    await temp.write("keep.ts", "export const keep = 1;\n");
    const repository = await snapshot(temp.dir);
    const refused = await failure(runTool(fileWriteTool, { files: { "deep/new/dir/broken.py": { content: "def broken(:\n    return 1\n", expectedSha256: null } } }, context));
    expect(refused.code).toBe("syntax_regression");
    expect(await snapshot(temp.dir)).toEqual(repository);
  });

  test("creates files with parents, exclusive create refuses an existing file", async () => {
    const result = await runTool(fileWriteTool, { files: { "src/new/deep.ts": { content: "export const x = 1;\n", expectedSha256: null } } }, context);
    expect(result.committed).toBe(true);
    expect(result.batchId).toBeString();
    expect(result.files["src/new/deep.ts"]).toMatchObject({ path: "src/new/deep.ts", change: "created", previousSha256: null });
    expect(await readFile(file("src/new/deep.ts"), "utf8")).toBe("export const x = 1;\n");
    expect(result.files["src/new/deep.ts"].sha256).toBe(await hashOf("src/new/deep.ts"));

    const again = await failure(runTool(fileWriteTool, { files: { "src/new/deep.ts": { content: "y", expectedSha256: null } } }, context));
    expect(again.code).toBe("stale_hash");
    expect(again.details?.currentSha256).toBe(await hashOf("src/new/deep.ts"));
  });

  test("replacing needs the current hash; a stale hash changes nothing", async () => {
    await temp.write("a.txt", "one\n");
    const missing = await failure(runTool(fileWriteTool, { files: { "a.txt": { content: "two\n" } } }, context));
    expect(missing.code).toBe("missing_hash");
    expect(missing.suggestedNextCall?.tool).toBe("file_hash");
    const stale = await failure(runTool(fileWriteTool, { files: { "a.txt": { content: "two\n", expectedSha256: "0".repeat(64) } } }, context));
    expect(stale.code).toBe("stale_hash");
    expect(stale.message).toContain("files[\"a.txt\"]");
    expect(await readFile(file("a.txt"), "utf8")).toBe("one\n");
    const ok = await runTool(fileWriteTool, { files: { "a.txt": { content: "two\n", expectedSha256: await hashOf("a.txt") } } }, context);
    expect(ok.files["a.txt"].change).toBe("modified");
    expect(await readFile(file("a.txt"), "utf8")).toBe("two\n");
  });

  test("an existing file keeps its BOM and CRLF style", async () => {
    await temp.write("w.txt", Buffer.from("\ufeffa\r\nb\r\n", "utf8"));
    await runTool(fileWriteTool, { files: { "w.txt": { content: "x\ny\n", expectedSha256: await hashOf("w.txt") } } }, context);
    expect(await readFile(file("w.txt"))).toEqual(Buffer.from("\ufeffx\r\ny\r\n", "utf8"));
  });

  test("one failing entry refuses the whole batch", async () => {
    await temp.write("keep.txt", "keep\n");
    const error = await failure(
      runTool(fileWriteTool, { files: { "fresh.txt": { content: "new\n", expectedSha256: null }, "keep.txt": { content: "changed\n", expectedSha256: "f".repeat(64) } } }, context),
    );
    expect(error.code).toBe("stale_hash");
    expect(await stat(file("fresh.txt")).catch(() => null)).toBeNull();
    expect(await readFile(file("keep.txt"), "utf8")).toBe("keep\n");
  });

  test("two keys naming the same file are refused", async () => {
    await temp.write("same.txt", "s\n");
    const sha = await hashOf("same.txt");
    const error = await failure(
      runTool(fileWriteTool, { files: { "same.txt": { content: "1", expectedSha256: sha }, [file("same.txt")]: { content: "2", expectedSha256: sha } } }, context),
    );
    expect(error.code).toBe("invalid_input");
    expect(await readFile(file("same.txt"), "utf8")).toBe("s\n");
  });

  test("the policy decides: guard rails and outside paths are refused", async () => {
    const denied = await failure(runTool(fileWriteTool, { files: { ".mcp.json": { content: "{}", expectedSha256: null } } }, context));
    expect(denied.code).toBe("path_denied");
    const outside = await failure(runTool(fileWriteTool, { files: { "../escape.txt": { content: "x", expectedSha256: null } } }, context));
    expect(outside.code).toBe("path_outside_roots");
  });

  test("a syntax regression is refused unless allowed", async () => {
    await temp.write("ok.ts", "export const a = 1;\n");
    const sha = await hashOf("ok.ts");
    const refused = await failure(runTool(fileWriteTool, { files: { "ok.ts": { content: "export const a = ;\n", expectedSha256: sha } } }, context));
    expect(refused.code).toBe("syntax_regression");
    expect(await readFile(file("ok.ts"), "utf8")).toBe("export const a = 1;\n");
    const allowed = await runTool(fileWriteTool, { files: { "ok.ts": { content: "export const a = ;\n", expectedSha256: sha, allowSyntaxErrors: true } } }, context);
    expect(allowed.files["ok.ts"].syntax.errorsAfter).toBeGreaterThan(0);
  });

  test("in a formatted repository a broken candidate is a syntax_regression, not format_failed; allowed, it is written unformatted", async () => {
    await temp.write("dprint.json", JSON.stringify({ indentWidth: 2 }));
    await temp.write("ok.ts", "export const a = 1;\n");
    const sha = await hashOf("ok.ts");
    const refused = await failure(runTool(fileWriteTool, { files: { "ok.ts": { content: "export const   a = ;\n", expectedSha256: sha } } }, context));
    expect(refused.code).toBe("syntax_regression");
    const allowed = await runTool(fileWriteTool, { files: { "ok.ts": { content: "export const   a = ;\n", expectedSha256: sha, allowSyntaxErrors: true } } }, context);
    expect(allowed.files["ok.ts"]).toMatchObject({ formatted: false, formatNote: "syntax errors allowed: not formatted" });
    expect(await readFile(file("ok.ts"), "utf8")).toBe("export const   a = ;\n");
    const fixed = await runTool(fileWriteTool, { files: { "ok.ts": { content: "export const   a = 2;\n", expectedSha256: await hashOf("ok.ts") } } }, context);
    // The broken original is not formatter-clean, so the fix is written as given.
    expect(fixed.files["ok.ts"].formatted).toBe(false);
  });

  test("broken JSON is refused", async () => {
    await temp.write("c.json", "{\"a\": 1}\n");
    const error = await failure(runTool(fileWriteTool, { files: { "c.json": { content: "{\"a\": }", expectedSha256: await hashOf("c.json") } } }, context));
    expect(error.code).toBe("syntax_regression");
  });
});

describe("file_patch", () => {
  test("Aider blocks on a CRLF, tab-indented file keep every untouched byte", async () => {
    const original = "function f() {\r\n\tif (a) {\r\n\t\treturn 1;\r\n\t}\r\n\treturn 2;\r\n}\r\n// tail\r\n";
    await temp.write("f.js", original);
    const result = await runTool(
      filePatchTool,
      {
        files: {
          "f.js": {
            expectedSha256: await hashOf("f.js"),
            patchStrategy: "aider_block",
            aiderBlocks: [{ search: "\t\treturn 1;\n", replace: "\t\treturn 10;\n\t\t// $& stays literal\n" }],
          },
        },
      },
      context,
    );
    const after = await readFile(file("f.js"), "utf8");
    // split/join, not String.replace: "$&" must stay literal in the expectation too.
    expect(after).toBe(original.split("\t\treturn 1;\r\n").join("\t\treturn 10;\r\n\t\t// $& stays literal\r\n"));
    expect(result.files["f.js"].matches[0]).toMatchObject({ block: 0, startLine: 3, endLine: 3 });
    expect(result.files["f.js"].sha256).toBe(sha256Hex(Buffer.from(after)));
  });

  test("raw Aider text is accepted", async () => {
    await temp.write("r.txt", "alpha\nbeta\n");
    const raw = "r.txt\n<<<<<<< SEARCH\nbeta\n=======\ngamma\n>>>>>>> REPLACE\n";
    await runTool(filePatchTool, { files: { "r.txt": { expectedSha256: await hashOf("r.txt"), patchStrategy: "aider_block", aiderBlocks: raw } } }, context);
    expect(await readFile(file("r.txt"), "utf8")).toBe("alpha\ngamma\n");
  });

  test("an ambiguous anchor lists every candidate and changes nothing", async () => {
    await temp.write("d.txt", "x = 1\ny = 2\nx = 1\n");
    const error = await failure(
      runTool(filePatchTool, {
        files: { "d.txt": { expectedSha256: await hashOf("d.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "x = 1\n", replace: "x = 3\n" }] } },
      }, context),
    );
    expect(error.code).toBe("ambiguous_match");
    expect(JSON.stringify(error.details)).toContain("3");
    expect(await readFile(file("d.txt"), "utf8")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  test("an empty search creates a new file", async () => {
    const result = await runTool(filePatchTool, {
      files: { "notes/new.md": { expectedSha256: null, patchStrategy: "aider_block", aiderBlocks: [{ search: "", replace: "# Title\n" }] } },
    }, context);
    expect(result.files["notes/new.md"].change).toBe("created");
    expect(await readFile(file("notes/new.md"), "utf8")).toBe("# Title\n");
  });

  test("structural rules rewrite every match and check the count", async () => {
    await temp.write("s.ts", "console.log(a);\nconst b = 1;\nconsole.log(b, c);\n");
    const sha = await hashOf("s.ts");
    const mismatch = await failure(
      runTool(filePatchTool, { files: { "s.ts": { expectedSha256: sha, patchStrategy: "ast", astRules: [{ pattern: "console.log($$$A)", fix: "logger.info($$$A)" }] } } }, context),
    );
    expect(mismatch.code).toBe("match_count");
    const result = await runTool(
      filePatchTool,
      { files: { "s.ts": { expectedSha256: sha, patchStrategy: "ast", astRules: [{ pattern: "console.log($$$A)", fix: "logger.info($$$A)", expectedMatches: 2 }] } } },
      context,
    );
    expect(await readFile(file("s.ts"), "utf8")).toBe("logger.info(a);\nconst b = 1;\nlogger.info(b, c);\n");
    expect(result.files["s.ts"].rules[0]).toMatchObject({ rule: 0, matched: 2, applied: 2 });
  });

  test("preview writes nothing; its receipt commits exactly the reviewed candidate, once", async () => {
    await temp.write("p.txt", "old line\n");
    const sha = await hashOf("p.txt");
    const preview = await runTool(filePatchTool, {
      files: { "p.txt": { expectedSha256: sha, patchStrategy: "aider_block", aiderBlocks: [{ search: "old line\n", replace: "new line\n" }], preview: true } },
    }, context);
    expect(preview.committed).toBe(false);
    expect(preview.batchId).toBeNull();
    expect(await readFile(file("p.txt"), "utf8")).toBe("old line\n");
    const facts = preview.files["p.txt"].preview;
    expect(facts.diff).toContain("-old line");
    expect(facts.diff).toContain("+new line");
    expect(facts.candidateSha256).toBe(sha256Hex(Buffer.from("new line\n")));

    const committed = await runTool(filePatchTool, { files: { "p.txt": { previewReceipt: facts.previewReceipt } } }, context);
    expect(committed.files["p.txt"].sha256).toBe(facts.candidateSha256);
    expect(await readFile(file("p.txt"), "utf8")).toBe("new line\n");
    const reused = await failure(runTool(filePatchTool, { files: { "p.txt": { previewReceipt: facts.previewReceipt } } }, context));
    expect(reused.code).toBe("receipt_invalid");
  });

  test("a preview whose diff is cut to its budget says so in limits; a whole one is complete", async () => {
    await temp.write("big.txt", "x\n");
    await temp.write("small.txt", "a\n");
    const huge = Array.from({ length: 20_000 }, (_, index) => `line ${index} of a long replacement\n`).join("");
    const block = (search: string, replace: string) => ({ patchStrategy: "aider_block", aiderBlocks: [{ search, replace }], preview: true });
    const preview = await runTool(filePatchTool, {
      files: { "big.txt": { expectedSha256: await hashOf("big.txt"), ...block("x\n", huge) }, "small.txt": { expectedSha256: await hashOf("small.txt"), ...block("a\n", "b\n") } },
    }, context);
    expect(preview.files["big.txt"].preview.diffTruncated).toBe(true);
    expect(preview.complete).toBe(false);
    expect(preview.limits).toHaveLength(1);
    expect(preview.limits[0]).toStartWith("big.txt: preview diff cut");
    const whole = await runTool(fileWriteTool, { files: { "small.txt": { content: "b\n", expectedSha256: await hashOf("small.txt") } } }, context);
    expect([whole.complete, whole.limits]).toEqual([true, []]);
  });

  test("a receipt whose source changed after the preview is refused as stale", async () => {
    await temp.write("q.txt", "v1\n");
    const preview = await runTool(
      filePatchTool,
      { files: { "q.txt": { expectedSha256: await hashOf("q.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "v1\n", replace: "v2\n" }], preview: true } } },
      context,
    );
    await writeFile(file("q.txt"), "someone else\n");
    const error = await failure(runTool(filePatchTool, { files: { "q.txt": { previewReceipt: preview.files["q.txt"].preview.previewReceipt } } }, context));
    expect(error.code).toBe("stale_hash");
    expect(await readFile(file("q.txt"), "utf8")).toBe("someone else\n");
    const foreign = await runTool(
      filePatchTool,
      { files: { "q.txt": { expectedSha256: await hashOf("q.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "someone else\n", replace: "x\n" }], preview: true } } },
      context,
    );
    const other = { ...context, sessionId: "another-session" };
    const stolen = await failure(runTool(filePatchTool, { files: { "q.txt": { previewReceipt: foreign.files["q.txt"].preview.previewReceipt } } }, other));
    expect(stolen.code).toBe("receipt_invalid");
    expect(stolen.details?.reason).toBe("foreign_session");
  });

  test("entry shape errors name the field", async () => {
    await temp.write("e.txt", "e\n");
    const noStrategy = await failure(runTool(filePatchTool, { files: { "e.txt": { expectedSha256: await hashOf("e.txt") } } }, context));
    expect(noStrategy.code).toBe("invalid_input");
    expect(noStrategy.message).toContain("patchStrategy");
    const mixed = await failure(
      runTool(
        filePatchTool,
        {
          files: {
            "e.txt": { expectedSha256: await hashOf("e.txt"), patchStrategy: "aider_block", aiderBlocks: [{ search: "e", replace: "f" }], preview: true },
            "g.txt": { expectedSha256: null, patchStrategy: "aider_block", aiderBlocks: [{ search: "", replace: "g" }] },
          },
        },
        context,
      ),
    );
    expect(mixed.code).toBe("invalid_input");
  });

  test("a batch is planned several entries at a time; the first failing entry in order refuses it; results keep entry order", async () => {
    const names = Array.from({ length: 20 }, (_, index) => `m${String(index).padStart(2, "0")}.ts`);
    for (const [index, name] of names.entries()) await temp.write(name, `export const value${index} = ${index};\n`);
    const entry = async (name: string, index: number) => ({
      expectedSha256: await hashOf(name),
      patchStrategy: "aider_block",
      aiderBlocks: [{ search: ` = ${index};`, replace: ` = ${index + 100};` }],
    });
    const files: Record<string, unknown> = {};
    for (const [index, name] of names.entries()) files[name] = await entry(name, index);
    files["m12.ts"] = { ...(files["m12.ts"] as object), aiderBlocks: [{ search: "not in the file", replace: "x" }] };
    files["m05.ts"] = { ...(files["m05.ts"] as object), expectedSha256: "0".repeat(64) };
    const error = await failure(runTool(filePatchTool, { files }, context));
    expect(error.code).toBe("stale_hash");
    expect(error.message).toContain("files[\"m05.ts\"]");
    for (const [index, name] of names.entries()) expect(await readFile(file(name), "utf8")).toBe(`export const value${index} = ${index};\n`);

    const fine: Record<string, unknown> = {};
    for (const [index, name] of [...names.entries()].reverse()) fine[name] = await entry(name, index);
    const result = await runTool(filePatchTool, { files: fine }, context);
    expect(Object.keys(result.files)).toEqual([...names].reverse());
    for (const [index, name] of names.entries()) {
      expect(await readFile(file(name), "utf8")).toBe(`export const value${index} = ${index + 100};\n`);
      expect(result.files[name].sha256).toBe(await hashOf(name));
    }
  });

  /** Runs `body` with services that trust a repository formatter config by its stat signature at once (no settle time). */
  async function withoutSettleTime(body: () => Promise<void>): Promise<void> {
    const saved = context;
    context = await makeContext([temp.dir], { services: createToolServices({ formatterSettleMs: 0 }) });
    try {
      await body();
    } finally {
      context = saved;
    }
  }

  test("a dprint.json changed between calls is read again", () =>
    withoutSettleTime(async () => {
      await temp.write("dprint.json", JSON.stringify({ indentWidth: 4 }));
      await temp.write("clean.ts", "export function f() {\n    return 1;\n}\n");
      const patch = async (from: string, to: string) =>
        runTool(
          filePatchTool,
          { files: { "clean.ts": { expectedSha256: await hashOf("clean.ts"), patchStrategy: "aider_block", aiderBlocks: [{ search: from, replace: to }] } } },
          context,
        );
      expect((await patch("return 1;", "return   2;")).files["clean.ts"].formatted).toBe(true);
      expect(await readFile(file("clean.ts"), "utf8")).toBe("export function f() {\n    return 2;\n}\n");
      // Under the new config (indentWidth 2) the file is no longer formatter-clean, so it is left as it is.
      await temp.write("dprint.json", JSON.stringify({ indentWidth: 2, lineWidth: 80 }));
      const second = await patch("return 2;", "return   3;");
      expect(second.files["clean.ts"].formatted).toBe(false);
      expect(await readFile(file("clean.ts"), "utf8")).toBe("export function f() {\n    return   3;\n}\n");
    }));

  test("a dprint.json the policy denies is not read, even right after a session that could read it", () =>
    withoutSettleTime(async () => {
      await temp.write("dprint.json", JSON.stringify({ indentWidth: 4 }));
      await temp.write("clean.ts", "export function f() {\n    return 1;\n}\n");
      const patch = async (using: typeof context, from: string, to: string) =>
        runTool(
          filePatchTool,
          { files: { "clean.ts": { expectedSha256: await hashOf("clean.ts"), patchStrategy: "aider_block", aiderBlocks: [{ search: from, replace: to }] } } },
          using,
        );
      expect((await patch(context, "return 1;", "return 2;")).files["clean.ts"].formatted).toBe(true);
      const denied = await makeContext([temp.dir], { rules: [{ path: "dprint.json", read: "deny" }], services: context.services });
      // Without the repository's config, dprint's defaults (indentWidth 2) apply: the original is not clean under them.
      const second = await patch(denied, "return 2;", "return   3;");
      expect(second.files["clean.ts"].formatted).toBe(false);
      expect(await readFile(file("clean.ts"), "utf8")).toBe("export function f() {\n    return   3;\n}\n");
    }));

  test("formatting happens in a repository with dprint.json, only for formatter-clean files", async () => {
    await temp.write("dprint.json", JSON.stringify({ indentWidth: 4, typescript: { quoteStyle: "alwaysSingle" } }));
    await temp.write("clean.ts", "export function f() {\n    return 'a';\n}\n");
    await temp.write("messy.ts", "export function g(){return \"b\"}\n");
    const formatted = await runTool(
      filePatchTool,
      {
        files: {
          "clean.ts": { expectedSha256: await hashOf("clean.ts"), patchStrategy: "aider_block", aiderBlocks: [{ search: "    return 'a';\n", replace: "    return   \"z\" ;\n" }] },
        },
      },
      context,
    );
    expect(formatted.files["clean.ts"].formatted).toBe(true);
    expect(await readFile(file("clean.ts"), "utf8")).toBe("export function f() {\n    return 'z';\n}\n");
    const untouched = await runTool(
      filePatchTool,
      { files: { "messy.ts": { expectedSha256: await hashOf("messy.ts"), patchStrategy: "aider_block", aiderBlocks: [{ search: "\"b\"", replace: "\"c\"" }] } } },
      context,
    );
    expect(untouched.files["messy.ts"].formatted).toBe(false);
    expect(untouched.files["messy.ts"].formatNote).toContain("clean");
    expect(await readFile(file("messy.ts"), "utf8")).toBe("export function g(){return \"c\"}\n");
  });

  test("an edit of a clean script formats only the statements it changed; next to imports, the whole file", async () => {
    await temp.write("dprint.json", JSON.stringify({ indentWidth: 2 }));
    const clean = "import { a } from \"./a.ts\";\n\nexport const one = a;\n\nexport function two() {\n  return 2;\n}\n\nexport const three = 3;\n";
    await temp.write("s.ts", clean);
    const patch = async (search: string, replace: string) =>
      (await runTool(filePatchTool, { files: { "s.ts": { expectedSha256: await hashOf("s.ts"), patchStrategy: "aider_block", aiderBlocks: [{ search, replace }] } } }, context))
        .files["s.ts"];
    const inside = await patch("  return 2;\n", "  return   [2,3] ;\n");
    expect(inside).toMatchObject({ formatted: true });
    expect(inside.formatNote).toContain("lines 5-7, the changed statements");
    expect(await readFile(file("s.ts"), "utf8")).toBe(clean.replace("return 2;", "return [2, 3];"));
    const nearImport = await patch("export const one = a;", "export const one   = a;");
    expect(nearImport.formatted).toBe(true);
    expect(nearImport.formatNote).not.toContain("changed statements");
    expect(await readFile(file("s.ts"), "utf8")).toBe(clean.replace("return 2;", "return [2, 3];"));
  });
});

describe("file_rename, file_delete, file_chattr", () => {
  test("rename never overwrites and creates parents", async () => {
    await temp.write("from.txt", "f\n");
    await temp.write("taken.txt", "t\n");
    const sha = await hashOf("from.txt");
    const refused = await failure(runTool(fileRenameTool, { files: { "from.txt": { destination: "taken.txt", expectedSha256: sha } } }, context));
    expect(refused.code).toBe("destination_exists");
    const moved = await runTool(fileRenameTool, { files: { "from.txt": { destination: "moved/to.txt", expectedSha256: sha } } }, context);
    expect(moved.files["from.txt"]).toMatchObject({ path: "moved/to.txt", change: "renamed", renamedFrom: "from.txt", sha256: sha });
    expect(await readFile(file("moved/to.txt"), "utf8")).toBe("f\n");
    expect(await stat(file("from.txt")).catch(() => null)).toBeNull();
  });

  test("delete refuses a file other files import, unless forced; empty parents are removed", async () => {
    await temp.write("lib/util.ts", "export const u = 1;\n");
    await temp.write("app.ts", "import { u } from './lib/util';\nconsole.log(u);\n");
    const sha = await hashOf("lib/util.ts");
    const refused = await failure(runTool(fileDeleteTool, { files: { "lib/util.ts": { expectedSha256: sha } } }, context));
    expect(refused.code).toBe("referenced_file");
    expect(refused.message).toContain("app.ts");
    const deleted = await runTool(fileDeleteTool, { files: { "lib/util.ts": { expectedSha256: sha, force: true } } }, context);
    expect(deleted.files["lib/util.ts"]).toMatchObject({ change: "deleted", sha256: null, previousSha256: sha });
    expect(await stat(file("lib")).catch(() => null)).toBeNull();
    expect(await stat(temp.dir)).toBeTruthy();
  });

  test("chattr sets modes and refuses hard-linked files", async () => {
    await temp.write("run.sh", "#!/bin/sh\necho hi\n");
    await chmod(file("run.sh"), 0o644);
    const result = await runTool(fileChattrTool, { files: { "run.sh": { chmod: "+x", expectedSha256: await hashOf("run.sh") } } }, context);
    expect(result.files["run.sh"].mode).toBe("755");
    expect((await stat(file("run.sh"))).mode & 0o777).toBe(0o755);
    await link(file("run.sh"), file("hard.sh"));
    const refused = await failure(runTool(fileChattrTool, { files: { "run.sh": { chmod: "600", expectedSha256: await hashOf("run.sh") } } }, context));
    expect(refused.code).toBe("path_denied");
    const bad = await failure(runTool(fileChattrTool, { files: { "run.sh": { chmod: "4755", expectedSha256: await hashOf("run.sh") } } }, context));
    expect(bad.code).toBe("invalid_input");
  });
});

describe("file_undo", () => {
  test("undoes the session's last batch, and refuses when a file changed since", async () => {
    await temp.write("u.txt", "before\n");
    await runTool(
      fileWriteTool,
      { files: { "u.txt": { content: "after\n", expectedSha256: await hashOf("u.txt") }, "made.txt": { content: "m\n", expectedSha256: null } } },
      context,
    );
    const undone = await runTool(fileUndoTool, {}, context);
    expect(undone.committed).toBe(true);
    expect(await readFile(file("u.txt"), "utf8")).toBe("before\n");
    expect(await stat(file("made.txt")).catch(() => null)).toBeNull();

    const second = await runTool(fileWriteTool, { files: { "u.txt": { content: "third\n", expectedSha256: await hashOf("u.txt") } } }, context);
    await writeFile(file("u.txt"), "edited by someone\n");
    const conflict = await failure(runTool(fileUndoTool, { batchId: second.batchId }, context));
    expect(conflict.code).toBe("undo_conflict");
    expect(conflict.message).toContain("u.txt");
    expect(await readFile(file("u.txt"), "utf8")).toBe("edited by someone\n");
  });
});

describe("file_capabilities", () => {
  test("reports the patch strategies each file supports", async () => {
    await temp.write("code.py", "print(1)\n");
    await temp.write("plain.txt", "text\n");
    await temp.write("blob.bin", Buffer.from([0, 1, 2]));
    const result = await runTool(fileCapabilitiesTool, { filePaths: ["code.py", "plain.txt", "blob.bin"] }, context);
    expect(result.files[0].patchStrategies).toEqual(["aider_block", "ast"]);
    expect(result.files[1].patchStrategies).toEqual(["aider_block"]);
    expect(result.files[2].patchStrategies).toEqual([]);
  });
});
