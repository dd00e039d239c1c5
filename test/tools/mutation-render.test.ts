/** Receipts survive the text cap: a preview whose diffs pass it still shows every receipt in its text. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { LIMITS } from "../../src/core/limits.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { capText } from "../../src/helpers/text-cap.ts";
import type { FileFacts } from "../../src/intel/facts/types.ts";
import type { CodeIndex } from "../../src/intel/index/index.ts";
import type { AnyTool, ToolContext } from "../../src/tools/contract.ts";
import { filePatchTool } from "../../src/tools/file-patch.ts";
import { runTool } from "../../src/tools/run.ts";
import { makeContext, makeTempDir, runTool as call, type TempDir } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

let temp: TempDir;
let context: ToolContext;
let index: CodeIndex | undefined;
let cacheDir: string;
usePrivateStateDir();

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
});
afterAll(async () => {
  index?.close();
  await temp?.cleanup();
  await rm(cacheDir, { recursive: true, force: true });
});
const noFacts = (language: string): FileFacts => ({ language, parseErrors: 0, symbols: [], imports: [], calls: [], exportedNames: [] });

beforeEach(async () => {
  await temp?.cleanup();
  temp = await makeTempDir();
  context = await makeContext([temp.dir]);
  context.config = { ...context.config, config: { ...context.config.config, index: { ...context.config.config.index, persist: false } } };
  index?.close();
  index = context.services.indexes.forContext(context, { cacheDir, watch: "off", extract: noFacts, extractorVersion: "render-test" });
});

/** The text a host sees: the tool's rendering under the server's text cap (as src/server/mcp.ts sends it). */
function hostText(tool: AnyTool, result: unknown): string {
  return capText(tool.render(result as never), LIMITS.output.maxTextChars);
}

/** Files whose every line holds a call, long enough that their diffs together pass the text cap. */
async function wideFiles(count: number): Promise<string[]> {
  const names: string[] = [];
  const body = Array.from({ length: 300 }, (_, line) => `legacy(${line}, "a line long enough that the diff of this file alone is large");`).join("\n");
  for (let file = 0; file < count; file++) {
    names.push(`w/f${file}.ts`);
    await temp.write(`w/f${file}.ts`, `${body}\n`);
  }
  return names;
}

describe("receipts and the text cap", () => {
  test("a multi-file file_patch preview whose diffs pass the text cap keeps every receipt in the text", async () => {
    const names = await wideFiles(4);
    const files: Record<string, unknown> = {};
    for (const name of names) {
      files[name] = {
        expectedSha256: sha256Hex(await readFile(path.join(temp.dir, name))),
        patchStrategy: "ast",
        astRules: [{ pattern: "legacy($$$A)", fix: "modern($$$A)", expectedMatches: "all" }],
        preview: true,
      };
    }
    const result = await call(filePatchTool, { files }, context);
    const rendered = filePatchTool.render(result);
    expect(rendered.length).toBeGreaterThan(LIMITS.output.maxTextChars);
    const text = hostText(filePatchTool, result);
    expect(text).toContain("output cut");
    for (const name of names) expect(text).toContain(`${name}: previewReceipt=${result.files[name].preview.previewReceipt}`);
  });

  test("a run preview whose listing and diffs pass the text cap keeps its receipt in the text", async () => {
    await wideFiles(6);
    const result = await call(runTool, { pattern: "legacy($$$A)", rewrite: "modern($$$A)" }, context);
    expect(result.previewReceipt).toMatch(/^rcpt_/);
    expect(runTool.render(result).length).toBeGreaterThan(LIMITS.output.maxTextChars);
    const text = hostText(runTool, result);
    expect(text).toContain("output cut");
    expect(text).toContain(`previewReceipt=${result.previewReceipt}`);
  });
});
