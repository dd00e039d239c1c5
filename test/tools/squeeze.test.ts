import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { LIMITS } from "../../src/core/limits.ts";
import { unsqueeze } from "../../src/intel/squeeze.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { squeezeTool } from "../../src/tools/squeeze.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;

beforeEach(async () => {
  temp = await makeTempDir();
  context = await makeContext([temp.dir]);
});
afterEach(async () => {
  await temp.cleanup();
});

function logLines(count: number): string[] {
  return Array.from(
    { length: count },
    (_, index) => (index % 10 === 9 ? "GET /health 200" : `12:00:${String(index % 60).padStart(2, "0")} worker-${index % 4} handled request ${index * 13} in ${index % 97}ms`),
  );
}

describe("squeeze tool", () => {
  test("squeezes a line range that unsqueezes to exactly those lines", async () => {
    const lines = logLines(100);
    await temp.write("app.log", `${lines.join("\r\n")}\r\n`);
    const result = await runTool(squeezeTool, { path: "app.log", startLine: 11, endLine: 60 }, context);
    expect(result).toMatchObject({ path: "app.log", startLine: 11, endLine: 60, totalLines: 100, complete: true });
    expect(unsqueeze(result.squeezed)).toBe(`${lines.slice(10, 60).join("\r\n")}\r\n`);
    expect(result.stats.templates).toBeGreaterThan(0);
    expect(result.stats.squeezedChars).toBeLessThan(result.stats.originalChars);
    const text = squeezeTool.render(squeezeTool.output.parse(result));
    expect(text).toContain("app.log L11-60 of 100");
    expect(text).toContain("§T1 ");
  });

  test("a result over the output limit stops at a line and the next call continues there", async () => {
    // Random words defeat every template, so the squeezed text is as long as the file.
    let seed = 7;
    const word = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed.toString(36);
    };
    const lines = Array.from({ length: 8000 }, () => `${word()} ${word()} ${word()}`);
    const text = `${lines.join("\n")}\n`;
    expect(text.length).toBeGreaterThan(LIMITS.intel.squeeze.maxOutputChars * 2);
    await temp.write("big.log", text);
    let rebuilt = "";
    let startLine = 1;
    let calls = 0;
    for (;;) {
      const result = await runTool(squeezeTool, { path: "big.log", startLine }, context);
      calls++;
      expect(result.squeezed.length).toBeLessThanOrEqual(LIMITS.intel.squeeze.maxOutputChars);
      rebuilt += unsqueeze(result.squeezed);
      if (result.complete) break;
      expect(result.limits[0]).toContain("maxOutputChars");
      expect(result.limits[0]).toContain(`startLine ${result.nextStartLine}`);
      expect(result.nextStartLine).toBe(result.endLine + 1);
      startLine = result.nextStartLine;
    }
    expect(calls).toBeGreaterThan(1);
    expect(rebuilt).toBe(text);
  });

  test("an empty file squeezes to an empty text; bad ranges and outside paths are refused", async () => {
    await temp.write("empty.log", "");
    const empty = await runTool(squeezeTool, { path: "empty.log" }, context);
    expect(empty).toMatchObject({ totalLines: 0, complete: true });
    expect(unsqueeze(empty.squeezed)).toBe("");
    await temp.write("short.log", "a\nb\n");
    expect((await failure(runTool(squeezeTool, { path: "short.log", startLine: 5 }, context))).code).toBe("invalid_range");
    expect((await failure(runTool(squeezeTool, { path: "short.log", startLine: 2, endLine: 1 }, context))).code).toBe("invalid_range");
    expect((await failure(runTool(squeezeTool, { path: "/etc/hostname" }, context))).code).toBe("path_outside_roots");
  });
});
