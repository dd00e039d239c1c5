/** Paths that are not well-formed Unicode are refused: as UTF-8 a lone surrogate becomes U+FFFD, so several inputs would name one file. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdir } from "node:fs/promises";
import { findLoneSurrogate } from "../../src/helpers/path-text.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { fileHashTool, fileReadTool } from "../../src/tools/files.ts";
import { WRITE_TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, type TempDir, toolFailure } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;
const fileWrite = WRITE_TOOLS.find((tool) => tool.name === "file_write")!;

beforeAll(async () => {
  temp = await makeTempDir();
  await temp.write("\ufffd.ts", "export const replaced = 1;\n");
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  await temp.cleanup();
});

describe("lone surrogates in paths", () => {
  test("are found, and proper pairs are not", () => {
    expect(findLoneSurrogate("a/😀.ts")).toBe(-1);
    expect(findLoneSurrogate("\ud800.ts")).toBe(0);
    expect(findLoneSurrogate("a\udc00")).toBe(1);
    expect(findLoneSurrogate("😀\ud83d")).toBe(2);
  });

  for (const name of ["\ud800.ts", "\udfff.ts", "dir\ud83d/x.ts"]) {
    test(`${JSON.stringify(name)} is refused with invalid_path by reads and writes`, async () => {
      for (
        const [tool, args] of [
          [fileReadTool, { files: [{ filePath: name }] }],
          [fileHashTool, { filePaths: [name] }],
          [fileWrite, { files: { [name]: { content: "x\n" } } }],
        ] as const
      ) {
        let error;
        try {
          const result = await runTool(tool, args, context);
          // Batch tools may answer per entry; the entry must carry the refusal.
          expect(JSON.stringify(result)).toContain("invalid_path");
          continue;
        } catch (caught) {
          error = caught;
        }
        const failure = await toolFailure(Promise.reject(error));
        expect(failure.code).toBe("invalid_path");
        expect(failure.hint).toContain("well-formed Unicode");
      }
      // Nothing was written under the replacement name or any other.
      expect((await readdir(temp.dir)).sort()).toEqual(["\ufffd.ts"]);
    });
  }
});
