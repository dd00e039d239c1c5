/** file_patch with diagnostics: true reports the type errors a change introduces, and still writes. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { filePatchTool } from "../../src/tools/file-patch.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";
import { usePrivateStateDir } from "../support/state-dir.ts";

const SLOW = 120_000;
const MATH = "export function double(n: number): number {\n  return n * 2;\n}\n";
const USER = "import { double } from \"./math\";\nexport const four: number = double(2);\n";

let temp: TempDir;
let context: ToolContext;
usePrivateStateDir();

beforeAll(async () => {
  temp = await makeTempDir("ast-mcp-patch-diagnostics-");
  await temp.write("tsconfig.json", JSON.stringify({ compilerOptions: { strict: true, target: "ES2022", module: "ESNext", moduleResolution: "Bundler" } }));
  await temp.write("src/math.ts", MATH);
  await temp.write("src/user.ts", USER);
  await temp.write("notes.md", "# Notes\n");
  context = await makeContext([temp.dir], { snapshot: {} });
});
afterAll(async () => {
  context.services.typescript.disposeAll();
  await temp.cleanup();
});

const hashOf = async (name: string) => sha256Hex(await readFile(path.join(temp.dir, name)));

function patch(search: string, replace: string, extra: Record<string, unknown>) {
  return { patchStrategy: "aider_block", aiderBlocks: [{ search, replace }], ...extra };
}

describe("file_patch diagnostics", () => {
  test(
    "a change that breaks types is written and its new errors are reported, importers included",
    async () => {
      const entry = patch("export function double(n: number): number {", "export function double(n: string): number {", {
        expectedSha256: await hashOf("src/math.ts"),
        diagnostics: true,
      });
      const result = await runTool(filePatchTool, { files: { "src/math.ts": entry } }, context);
      expect(result.committed).toBe(true);
      expect(await readFile(path.join(temp.dir, "src/math.ts"), "utf8")).toContain("n: string");
      const report = result.files["src/math.ts"].typeErrors;
      expect(report.checked).toBe(true);
      expect(report.errorsBefore).toBe(0);
      expect(report.introduced.map((error: { path: string; line: number; code: number }) => `${error.path}:${error.line} ${error.code}`)).toEqual([
        "src/math.ts:2 2362",
        "src/user.ts:2 2345",
      ]);
      expect(report.note).toContain("1 importing file");
      expect(filePatchTool.render(result)).toContain("type errors introduced: 2");
      expect(filePatchTool.render(result)).toContain("src/user.ts:2:");
    },
    SLOW,
  );

  test(
    "a fix reports no new errors; without diagnostics nothing is checked",
    async () => {
      const fixed = await runTool(
        filePatchTool,
        { files: { "src/math.ts": patch("n: string", "n: number", { expectedSha256: await hashOf("src/math.ts"), diagnostics: true }) } },
        context,
      );
      expect(fixed.files["src/math.ts"].typeErrors).toMatchObject({ checked: true, introduced: [], errorsBefore: 2, errorsAfter: 0 });

      const plain = await runTool(filePatchTool, { files: { "src/math.ts": patch("n * 2", "n + n", { expectedSha256: await hashOf("src/math.ts") }) } }, context);
      expect(plain.files["src/math.ts"].typeErrors).toBeUndefined();
    },
    SLOW,
  );

  test(
    "previews report them too, and the committed receipt carries the same report",
    async () => {
      const before = await readFile(path.join(temp.dir, "src/user.ts"), "utf8");
      const preview = await runTool(
        filePatchTool,
        {
          files: {
            "src/user.ts": patch("export const four: number = double(2);", "export const four: number = double(\"2\");", {
              expectedSha256: await hashOf("src/user.ts"),
              diagnostics: true,
              preview: true,
            }),
          },
        },
        context,
      );
      expect(preview.committed).toBe(false);
      expect(await readFile(path.join(temp.dir, "src/user.ts"), "utf8")).toBe(before);
      const report = preview.files["src/user.ts"].typeErrors;
      expect(report.introduced.map((error: { code: number; line: number }) => [error.line, error.code])).toEqual([[2, 2345]]);

      const committed = await runTool(filePatchTool, { files: { "src/user.ts": { previewReceipt: preview.files["src/user.ts"].preview.previewReceipt } } }, context);
      expect(committed.committed).toBe(true);
      expect(committed.files["src/user.ts"].typeErrors).toEqual(report);
    },
    SLOW,
  );

  test(
    "files in other languages say they were not checked",
    async () => {
      const result = await runTool(
        filePatchTool,
        { files: { "notes.md": patch("# Notes", "# More notes", { expectedSha256: await hashOf("notes.md"), diagnostics: true }) } },
        context,
      );
      expect(result.committed).toBe(true);
      expect(result.files["notes.md"].typeErrors).toMatchObject({ checked: false, introduced: [] });
      expect(result.files["notes.md"].typeErrors.note).toContain("TypeScript and JavaScript");
    },
    SLOW,
  );
});
