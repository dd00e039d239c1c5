/**
 * [languages].overrides decide a file's language everywhere, not only in the index: the write
 * path's syntax guard and structural rules, and file_capabilities, follow the same override.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/schema.ts";
import type { ConfigSnapshot } from "../../src/config/types.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { AnyTool, ToolContext } from "../../src/tools/contract.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, toolFailure, type TempDir } from "../support/context.ts";

const tool = (name: string): AnyTool => TOOLS.find((candidate) => candidate.name === name)!;

let temp: TempDir;

beforeEach(async () => {
  temp = await makeTempDir();
  await temp.write("views/page.tmpl", "const page = render(1);\n");
});

afterEach(async () => {
  await temp.cleanup();
});

async function contextWith(overrides: Record<string, string>): Promise<ToolContext> {
  const base = await makeContext([temp.dir]);
  const snapshot: ConfigSnapshot = { ...base.config, config: { ...base.config.config, languages: { ...DEFAULT_CONFIG.languages, overrides: overrides as never } } };
  return { ...base, config: snapshot };
}

const hashOf = async (relative: string) => sha256Hex(await readFile(path.join(temp.dir, relative)));

async function breakPage(context: ToolContext): Promise<unknown> {
  const aiderBlocks = [{ search: "render(1);", replace: "render(1;" }];
  return runTool(tool("file_patch"), { files: { "views/page.tmpl": { expectedSha256: await hashOf("views/page.tmpl"), patchStrategy: "aider_block", aiderBlocks } } }, context);
}

describe("language overrides", () => {
  test("file_capabilities reports the language an override gives a file, and the strategies that follow from it", async () => {
    const plain = (await runTool(tool("file_capabilities"), { filePaths: ["views/page.tmpl"] }, await contextWith({}))).files[0];
    expect(plain.language).toBeNull();
    expect(plain.patchStrategies).toEqual(["aider_block"]);
    const overridden = (await runTool(tool("file_capabilities"), { filePaths: ["views/page.tmpl"] }, await contextWith({ "*.tmpl": "javascript" }))).files[0];
    expect(overridden.language).toBe("javascript");
    expect(overridden.kind).toBe("source");
    expect(overridden.patchStrategies).toEqual(["aider_block", "ast"]);
  });

  test("file_patch's syntax guard parses an overridden file as its override's language", async () => {
    const refused = await toolFailure(breakPage(await contextWith({ "views/*.tmpl": "javascript" })));
    expect(refused.code).toBe("syntax_regression");
    expect(await readFile(path.join(temp.dir, "views/page.tmpl"), "utf8")).toBe("const page = render(1);\n");
  });

  test("without an override the same edit is plain text and goes through", async () => {
    await breakPage(await contextWith({}));
    expect(await readFile(path.join(temp.dir, "views/page.tmpl"), "utf8")).toBe("const page = render(1;\n");
  });

  test("document_query parses a file as the document format an override names", async () => {
    await temp.write("settings.conf", "name = \"demo\"\n");
    const refused = await toolFailure(runTool(tool("document_query"), { filePath: "settings.conf", selectors: ["/name"] }, await contextWith({})));
    expect(refused.code).toBe("unsupported_document");
    const queried = await runTool(tool("document_query"), { filePath: "settings.conf", selectors: ["/name"] }, await contextWith({ "*.conf": "toml" }));
    expect(queried.format).toBe("toml");
    expect(queried.results[0]).toMatchObject({ value: "demo" });
  });

  test("structural rules edit an overridden file in its override's language", async () => {
    const context = await contextWith({ "*.tmpl": "javascript" });
    const astRules = [{ pattern: "render($A)", fix: "draw($A)" }];
    await runTool(tool("file_patch"), { files: { "views/page.tmpl": { expectedSha256: await hashOf("views/page.tmpl"), patchStrategy: "ast", astRules } } }, context);
    expect(await readFile(path.join(temp.dir, "views/page.tmpl"), "utf8")).toBe("const page = draw(1);\n");
  });
});
