/** Receipts survive the text cap: a preview whose diffs pass it still shows every receipt in its text. */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../../src/core/limits.ts";
import { sha256Hex } from "../../src/helpers/hash.ts";
import { capText } from "../../src/helpers/text-cap.ts";
import type { AnyTool } from "../../src/tools/contract.ts";
import { filePatchTool } from "../../src/tools/file-patch.ts";
import { runTool } from "../../src/tools/run.ts";
import { runTool as call } from "../support/context.ts";
import { useRunFixture } from "./run-fixture.ts";

const fx = useRunFixture("render-test");

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
    await fx.temp.write(`w/f${file}.ts`, `${body}\n`);
  }
  return names;
}

describe("receipts and the text cap", () => {
  test("a multi-file file_patch preview whose diffs pass the text cap keeps every receipt in the text", async () => {
    const names = await wideFiles(4);
    const files: Record<string, unknown> = {};
    for (const name of names) {
      files[name] = {
        expectedSha256: sha256Hex(await readFile(path.join(fx.temp.dir, name))),
        patchStrategy: "ast",
        astRules: [{ pattern: "legacy($$$A)", fix: "modern($$$A)", expectedMatches: "all" }],
        preview: true,
      };
    }
    const result = await call(filePatchTool, { files }, fx.context);
    const rendered = filePatchTool.render(result);
    expect(rendered.length).toBeGreaterThan(LIMITS.output.maxTextChars);
    const text = hostText(filePatchTool, result);
    expect(text).toContain("output cut");
    for (const name of names) expect(text).toContain(`${name}: previewReceipt=${result.files[name].preview.previewReceipt}`);
  });

  test("a run preview whose listing and diffs pass the text cap keeps its receipt in the text", async () => {
    await wideFiles(6);
    const result = await call(runTool, { pattern: "legacy($$$A)", rewrite: "modern($$$A)" }, fx.context);
    expect(result.previewReceipt).toMatch(/^rcpt_/);
    expect(runTool.render(result).length).toBeGreaterThan(LIMITS.output.maxTextChars);
    const text = hostText(runTool, result);
    expect(text).toContain("output cut");
    expect(text).toContain(`previewReceipt=${result.previewReceipt}`);
  });
});
