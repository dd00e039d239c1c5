/** A pathologically deep tree is cut at the index's depth limit, and the answer says so. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../../../src/core/limits.ts";
import { indexTool } from "../../../src/tools/index-tool.ts";
import { mapTool } from "../../../src/tools/map.ts";
import { fileReadTool } from "../../../src/tools/files.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../../support/context.ts";

const MAX = LIMITS.intel.index.maxDirectoryDepth;
/** Deep enough that an uncut walk takes seconds (its cost grows faster than the depth). */
const DEPTH = 400;
let temp: TempDir;
let deepest = "";

beforeAll(async () => {
  temp = await makeTempDir();
  await writeFile(path.join(temp.dir, "top.ts"), "export const top = 1;\n");
  let dir = temp.dir;
  const segments: string[] = [];
  for (let level = 1; level <= DEPTH; level++) {
    dir = path.join(dir, "d");
    segments.push("d");
    await mkdir(dir);
    // One file at the last level walked and one just below it.
    if (level === MAX || level === MAX + 1) await writeFile(path.join(dir, `at${level}.ts`), `export const at${level} = 1;\n`);
  }
  await writeFile(path.join(dir, "bottom.ts"), "export const bottom = 1;\n");
  deepest = [...segments, "bottom.ts"].join("/");
});

afterAll(async () => {
  await temp.cleanup();
});

describe("directory depth", () => {
  test("the index walks to the limit, reports the cut, and path tools still reach deeper files", async () => {
    const context = await makeContext([temp.dir]);
    const stats = await runTool(indexTool, { stats: true }, context);
    expect(stats.files).toBe(2); // top.ts and the file at the last level walked
    expect(stats.complete).toBe(false);
    expect(stats.skipped.tooDeep).toBe(1);
    expect(stats.limits).toEqual([expect.stringContaining(`directory depth ${MAX}`)]);

    const map = JSON.stringify(await runTool(mapTool, { paths: ["."] }, context));
    expect(map).toContain(`at${MAX}.ts`);
    expect(map).not.toContain(`at${MAX + 1}.ts`);

    const read = await runTool(fileReadTool, { files: [{ filePath: deepest }] }, context);
    expect(read.files[0].content).toBe("export const bottom = 1;");
  });
});
