import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../../src/core/limits.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { fileCapabilitiesTool, fileHashTool, fileReadTool } from "../../src/tools/files.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;

const numbered = (count: number, terminator = "\n") => Array.from({ length: count }, (_, index) => `line ${index + 1}`).join(terminator) + terminator;

beforeAll(async () => {
  temp = await makeTempDir();
  await temp.write("src/a.ts", "export const a = 1;\nexport const b = 2;\n");
  await temp.write("long.txt", numbered(1000));
  await temp.write("crlf.txt", "one\r\ntwo\r\nthree");
  await temp.write("cr.txt", "one\rtwo\r");
  await temp.write("mixed.txt", "one\r\ntwo\nthree\n");
  await temp.write("bom.txt", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("héllo\nworld\n")]));
  await temp.write("utf16le.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("alpha\r\nbeta\r\n", "utf16le")]));
  await temp.write("utf16be.txt", Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("alpha\nbeta\n", "utf16le").swap16()]));
  await temp.write("tabs.go", "package main\n\nfunc main() {\n\tprintln(1)\n}\n");
  await temp.write("empty.txt", "");
  await temp.write("image.png", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]));
  await temp.write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  await temp.write("bin/tool", "#!/usr/bin/env python3\nprint('hi')\n");
  await temp.write("config.toml", "a = 1\n");
  await temp.write(".env", "SECRET=1\n");
  await temp.write("wide.txt", `${"x".repeat(100_000)}\nshort\n`);
  await mkdir(path.join(temp.dir, "folder"));
  context = await makeContext([temp.dir], { rules: [{ path: "src/**", write: "deny" }] });
});

afterAll(async () => {
  await temp.cleanup();
});

describe("file_hash", () => {
  test("equals node crypto over the raw bytes, with the size", async () => {
    const result = await runTool(fileHashTool, { filePaths: ["src/a.ts", "image.png", "empty.txt"] }, context);
    for (const [index, name] of ["src/a.ts", "image.png", "empty.txt"].entries()) {
      const bytes = await readFile(path.join(temp.dir, name));
      expect(result.files[index]).toEqual({ path: name, sha256: createHash("sha256").update(bytes).digest("hex"), size: bytes.length });
    }
  });

  test("large files stream through the hash and match node crypto", async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 0x5a);
    big[12345] = 0x00;
    await temp.write("big.bin", big);
    const result = await runTool(fileHashTool, { filePaths: ["big.bin"] }, context);
    expect(result.files[0]).toEqual({ path: "big.bin", sha256: createHash("sha256").update(big).digest("hex"), size: big.length });
  });

  test("both sides of the synchronous small-file read agree with node crypto (and file_read reads both whole)", async () => {
    for (const size of [LIMITS.read.syncIoBytes, LIMITS.read.syncIoBytes + 1]) {
      const bytes = Buffer.alloc(size, 0x61);
      bytes[size - 1] = 0x0a;
      await temp.write(`edge-${size}.txt`, bytes);
      const hashed = await runTool(fileHashTool, { filePaths: [`edge-${size}.txt`] }, context);
      expect(hashed.files[0]).toEqual({ path: `edge-${size}.txt`, sha256: createHash("sha256").update(bytes).digest("hex"), size });
      const read = await runTool(fileReadTool, { files: [{ filePath: `edge-${size}.txt` }] }, context);
      expect(read.files[0].sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
  });

  test("absolute paths come back in display form", async () => {
    const result = await runTool(fileHashTool, { filePaths: [path.join(temp.dir, "src/a.ts")] }, context);
    expect(result.files[0].path).toBe("src/a.ts");
  });

  test("one missing file among present ones fails alone", async () => {
    const result = await runTool(fileHashTool, { filePaths: ["src/a.ts", "missing.txt", "folder", "../outside.txt", "long.txt"] }, context);
    expect(result.files).toHaveLength(5);
    expect(result.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(result.files[1]).toMatchObject({ path: "missing.txt", error: { code: "file_not_found", retryable: false } });
    expect(result.files[1].error.hint.length).toBeGreaterThan(0);
    expect(result.files[2].error.code).toBe("not_a_file");
    expect(result.files[3].error.code).toBe("path_outside_roots");
    expect(result.files[4].sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test("special files are not read (a FIFO would block)", async () => {
    const fifo = path.join(temp.dir, "pipe");
    if (spawnSync("mkfifo", [fifo]).status !== 0) return;
    const result = await runTool(fileHashTool, { filePaths: ["pipe"] }, context);
    expect(result.files[0].error.code).toBe("not_a_file");
  });

  test("an aborted call stops instead of reporting per-item errors", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runTool(fileHashTool, { filePaths: ["src/a.ts"] }, { ...context, signal: controller.signal })).rejects.toThrow();
  });

  test("read-denied files are refused by the policy", async () => {
    const result = await runTool(fileHashTool, { filePaths: [".env"] }, context);
    expect(result.files[0].error.code).toBe("path_denied");
  });

  test("schema: unknown fields, empty and oversized batches are rejected", () => {
    expect(fileHashTool.input.safeParse({ filePaths: ["a"], extra: true }).success).toBe(false);
    expect(fileHashTool.input.safeParse({ filePaths: [] }).success).toBe(false);
    expect(fileHashTool.input.safeParse({ filePaths: Array.from({ length: LIMITS.batchPaths + 1 }, () => "a") }).success).toBe(false);
    expect(fileHashTool.input.safeParse({ filePaths: Array.from({ length: LIMITS.batchPaths }, () => "a") }).success).toBe(true);
  });

  test("render lists hash, size and path, not JSON", async () => {
    const result = await runTool(fileHashTool, { filePaths: ["src/a.ts", "missing.txt"] }, context);
    const text = fileHashTool.render(result);
    expect(text).toContain(`${result.files[0].sha256}  40 bytes  src/a.ts`);
    expect(text).toContain("missing.txt: error file_not_found");
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe("file_read", () => {
  const read = async (request: Record<string, unknown>) => (await runTool(fileReadTool, { files: [request] }, context)).files[0];

  test("whole small file with metadata and whole-file hash", async () => {
    const item = await read({ filePath: "src/a.ts" });
    const bytes = await readFile(path.join(temp.dir, "src/a.ts"));
    expect(item).toEqual({
      path: "src/a.ts",
      sha256: createHash("sha256").update(bytes).digest("hex"),
      size: bytes.length,
      encoding: "utf-8",
      bom: false,
      lineEnding: "lf",
      usesTabs: false,
      finalNewline: true,
      totalLines: 2,
      startLine: 1,
      endLine: 2,
      content: "export const a = 1;\nexport const b = 2;",
      hasMore: false,
      nextStartLine: null,
      truncated: false,
      limitedBy: null,
      cutLine: null,
    });
  });

  test("explicit inclusive range; the hash still covers the whole file", async () => {
    const item = await read({ filePath: "long.txt", startLine: 10, endLine: 12 });
    expect(item.content).toBe("line 10\nline 11\nline 12");
    expect(item).toMatchObject({ startLine: 10, endLine: 12, totalLines: 1000, hasMore: true, nextStartLine: 13, truncated: false, limitedBy: null });
    expect(item.sha256).toBe(createHash("sha256").update(await readFile(path.join(temp.dir, "long.txt"))).digest("hex"));
  });

  test("default range is bounded by the default line count", async () => {
    const item = await read({ filePath: "long.txt" });
    expect(item.endLine).toBe(LIMITS.read.defaultMaxLines);
    expect(item).toMatchObject({ hasMore: true, nextStartLine: LIMITS.read.defaultMaxLines + 1, truncated: true, limitedBy: "maxLines" });
    const next = await read({ filePath: "long.txt", startLine: item.nextStartLine });
    expect(next.content.split("\n")[0]).toBe(`line ${LIMITS.read.defaultMaxLines + 1}`);
  });

  test("the call says it is incomplete, naming each cut file, its limit and where to continue", async () => {
    const whole = await runTool(fileReadTool, { files: [{ filePath: "src/a.ts" }, { filePath: "long.txt", startLine: 10, endLine: 12 }] }, context);
    expect(whole).toMatchObject({ complete: true, limits: [] });
    const cut = await runTool(fileReadTool, { files: [{ filePath: "src/a.ts" }, { filePath: "long.txt" }, { filePath: "long.txt", maxBytes: 20 }] }, context);
    expect(cut.complete).toBe(false);
    expect(cut.limits).toEqual([
      `long.txt: read.defaultMaxLines = ${LIMITS.read.defaultMaxLines}; call again with startLine ${LIMITS.read.defaultMaxLines + 1}`,
      "long.txt: maxBytes = 20; call again with startLine 4",
    ]);
    expect(fileReadTool.render(cut)).toContain(`incomplete: ${cut.limits.join("; ")}`);
  });

  test("endLine past the end is clamped", async () => {
    const item = await read({ filePath: "long.txt", startLine: 999, endLine: 5000 });
    expect(item).toMatchObject({ startLine: 999, endLine: 1000, content: "line 999\nline 1000", hasMore: false, nextStartLine: null, limitedBy: null });
  });

  test("maxBytes stops at the last whole line that fits", async () => {
    const item = await read({ filePath: "long.txt", maxBytes: 20 });
    // "line 1\nline 2\nline 3" is 20 bytes.
    expect(item).toMatchObject({ content: "line 1\nline 2\nline 3", endLine: 3, nextStartLine: 4, truncated: true, limitedBy: "maxBytes" });
  });

  test("a line longer than maxBytes is cut and says so", async () => {
    const item = await read({ filePath: "wide.txt", maxBytes: 1000 });
    expect(item.content).toBe("x".repeat(1000));
    expect(item).toMatchObject({ endLine: 1, cutLine: { line: 1, keptChars: 1000, totalChars: 100_000 }, nextStartLine: 2, truncated: true });
  });

  test("startLine beyond the end and endLine before startLine are invalid_range", async () => {
    expect((await read({ filePath: "src/a.ts", startLine: 3 })).error.code).toBe("invalid_range");
    expect((await read({ filePath: "src/a.ts", startLine: 2, endLine: 1 })).error.code).toBe("invalid_range");
  });

  test("an empty file reads as zero lines", async () => {
    const item = await read({ filePath: "empty.txt" });
    expect(item).toMatchObject({ totalLines: 0, startLine: 1, endLine: 0, content: "", hasMore: false, finalNewline: false, lineEnding: "none" });
    expect((await read({ filePath: "empty.txt", startLine: 2 })).error.code).toBe("invalid_range");
  });

  test("CRLF without final newline", async () => {
    const item = await read({ filePath: "crlf.txt" });
    expect(item).toMatchObject({ lineEnding: "crlf", finalNewline: false, totalLines: 3, content: "one\ntwo\nthree" });
  });

  test("CR and mixed line endings", async () => {
    expect(await read({ filePath: "cr.txt" })).toMatchObject({ lineEnding: "cr", totalLines: 2, content: "one\ntwo" });
    expect(await read({ filePath: "mixed.txt" })).toMatchObject({ lineEnding: "mixed", totalLines: 3 });
  });

  test("UTF-8 BOM is reported and not part of the content", async () => {
    expect(await read({ filePath: "bom.txt" })).toMatchObject({ encoding: "utf-8-bom", bom: true, content: "héllo\nworld" });
  });

  test("UTF-16 by BOM, both byte orders", async () => {
    expect(await read({ filePath: "utf16le.txt" })).toMatchObject({ encoding: "utf-16le", bom: true, lineEnding: "crlf", content: "alpha\nbeta" });
    expect(await read({ filePath: "utf16be.txt" })).toMatchObject({ encoding: "utf-16be", bom: true, lineEnding: "lf", content: "alpha\nbeta" });
  });

  test("tab indentation", async () => {
    expect((await read({ filePath: "tabs.go" })).usesTabs).toBe(true);
    expect((await read({ filePath: "src/a.ts" })).usesTabs).toBe(false);
  });

  test("binary files and invalid UTF-8 are refused", async () => {
    expect((await read({ filePath: "image.png" })).error.code).toBe("binary_file");
    const invalid = await read({ filePath: "latin1.txt" });
    expect(invalid.error.code).toBe("unsupported_encoding");
    expect(invalid.error.message).toContain("unknown");
  });

  test("a NUL byte far into a file makes it binary for file_read and file_capabilities, as for the write path", async () => {
    await temp.write("late-nul.log", Buffer.concat([Buffer.from("x\n".repeat(10_000)), Buffer.from([0x00]), Buffer.from("tail\n")]));
    expect((await read({ filePath: "late-nul.log" })).error.code).toBe("binary_file");
    const capabilities = (await runTool(fileCapabilitiesTool, { filePaths: ["late-nul.log"] }, context)).files[0];
    expect(capabilities).toMatchObject({ kind: "binary", readModes: [] });
  });

  test("per-file errors in a batch leave the other files intact", async () => {
    const result = await runTool(fileReadTool, { files: [{ filePath: "src/a.ts" }, { filePath: "nope.ts" }, { filePath: "crlf.txt", startLine: 2, endLine: 2 }] }, context);
    expect(result.files[0].content).toContain("export const a");
    expect(result.files[1]).toMatchObject({ path: "nope.ts", error: { code: "file_not_found" } });
    expect(result.files[2].content).toBe("two");
  });

  test("the output limit is shared by the batch and continues exactly", async () => {
    const wideLine = "y".repeat(200);
    await temp.write("wide-lines.txt", `${Array.from({ length: 400 }, () => wideLine).join("\n")}\n`);
    const result = await runTool(
      fileReadTool,
      { files: [{ filePath: "wide-lines.txt", maxBytes: LIMITS.read.maxBytesCeiling }, { filePath: "wide-lines.txt", maxBytes: LIMITS.read.maxBytesCeiling }] },
      context,
    );
    const [first, second] = result.files;
    expect(first.limitedBy).toBe("outputLimit");
    expect(first.hasMore).toBe(true);
    expect(first.nextStartLine).toBe(first.endLine + 1);
    expect(second.limitedBy).toBe("outputLimit");
    expect(second.endLine).toBe(second.startLine - 1);
    expect(second.content).toBe("");
    const text = fileReadTool.render(result);
    expect(text.length).toBeLessThanOrEqual(LIMITS.output.maxTextChars);
    expect(text).not.toContain("output cut");
    expect(text).toContain(`continue with startLine ${first.nextStartLine}`);
  });

  test("schema: strict items, 1-based lines, maxBytes ceiling", () => {
    expect(fileReadTool.input.safeParse({ files: [{ filePath: "a", bogus: 1 }] }).success).toBe(false);
    expect(fileReadTool.input.safeParse({ files: [{ filePath: "a" }], extra: 1 }).success).toBe(false);
    expect(fileReadTool.input.safeParse({ files: [{ filePath: "a", startLine: 0 }] }).success).toBe(false);
    expect(fileReadTool.input.safeParse({ files: [{ filePath: "a", maxBytes: LIMITS.read.maxBytesCeiling + 1 }] }).success).toBe(false);
    expect(fileReadTool.input.safeParse({ files: [{ path: "a" }] }).success).toBe(false);
  });

  test("render shows numbered lines and a continuation hint, not JSON", async () => {
    const result = await runTool(fileReadTool, { files: [{ filePath: "long.txt", startLine: 9, endLine: 11 }, { filePath: "nope.ts" }] }, context);
    const text = fileReadTool.render(result);
    expect(text).toContain("   9| line 9");
    expect(text).toContain("  10| line 10");
    expect(text).toContain("  11| line 11");
    expect(text).toContain("lines 9-11 of 1000");
    expect(text).toContain("continue with startLine 12");
    expect(text).toContain("nope.ts: error file_not_found");
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe("file_capabilities", () => {
  const capabilities = async (filePath: string) => (await runTool(fileCapabilitiesTool, { filePaths: [filePath] }, context)).files[0];

  test("a source file: kind, language, encoding, modes and policy with rules", async () => {
    const item = await capabilities("src/a.ts");
    expect(item).toMatchObject({
      path: "src/a.ts",
      size: 40,
      kind: "source",
      language: "typescript",
      encoding: "utf-8",
      bom: false,
      lineEnding: "lf",
      readModes: ["text"],
      patchStrategies: ["aider_block", "ast"],
      notes: [],
    });
    expect(item.policy.read.allowed).toBe(true);
    expect(item.policy.write).toMatchObject({ allowed: false, code: "path_denied", rule: { path: "src/**", source: "user:/test/ast-mcp.toml", access: "deny" } });
    expect(item.policy.delete.allowed).toBe(true);
  });

  test("documents get the document read mode", async () => {
    expect(await capabilities("config.toml")).toMatchObject({ kind: "document", language: "toml", readModes: ["text", "document"] });
  });

  test("shebang detection for extensionless scripts", async () => {
    expect(await capabilities("bin/tool")).toMatchObject({ kind: "source", language: "python" });
  });

  test("binary, UTF-16 and undecodable files", async () => {
    expect(await capabilities("image.png")).toMatchObject({ kind: "binary", encoding: null, lineEnding: null, readModes: [] });
    expect(await capabilities("utf16le.txt")).toMatchObject({ kind: "text", encoding: "utf-16le", bom: true, lineEnding: "crlf", readModes: ["text"] });
    const latin1 = await capabilities("latin1.txt");
    expect(latin1).toMatchObject({ kind: "text", encoding: "unknown", lineEnding: null, readModes: [] });
    expect(latin1.notes[0]).toContain("invalid UTF-8");
  });

  test("per-item errors", async () => {
    const result = await runTool(fileCapabilitiesTool, { filePaths: ["src/a.ts", "missing.ts", ".env"] }, context);
    expect(result.files[0].language).toBe("typescript");
    expect(result.files[1].error.code).toBe("file_not_found");
    expect(result.files[2].error.code).toBe("path_denied");
  });

  test("schema rejects unknown fields", () => {
    expect(fileCapabilitiesTool.input.safeParse({ filePaths: ["a"], mode: "x" }).success).toBe(false);
  });

  test("render is compact text with the policy", async () => {
    const result = await runTool(fileCapabilitiesTool, { filePaths: ["src/a.ts"] }, context);
    const text = fileCapabilitiesTool.render(result);
    expect(text).toContain("src/a.ts: source typescript");
    expect(text).toContain("write denied (path_denied) by \"src/**\"");
    expect(() => JSON.parse(text)).toThrow();
  });
});

describe("readToEndSync (the one synchronous whole-descriptor read)", () => {
  test("a file larger than its stat said is read whole up to the limit, and refused past it", async () => {
    const { openSync, closeSync } = await import("node:fs");
    const { readToEndSync } = await import("../../src/policy/open.ts");
    const bytes = Buffer.from("x".repeat(5000));
    await temp.write("grown.txt", bytes);
    const readWith = (expected: number, max: number) => {
      const fd = openSync(path.join(temp.dir, "grown.txt"), "r");
      try {
        return readToEndSync(fd, expected, max);
      } finally {
        closeSync(fd);
      }
    };
    // As if a stat had seen 10 bytes before the file grew to 5,000.
    expect(readWith(10, 10_000)?.equals(bytes)).toBe(true);
    expect(readWith(10, 4_999)).toBeUndefined();
    expect(readWith(5_000, 5_000)?.length).toBe(5_000);
  });

  test("through a scratch, reads reuse one buffer up to its limit; a grown file still reads whole; past the limit a read gets its own", async () => {
    const { openSync, closeSync } = await import("node:fs");
    const { ReadScratch, readToEndSync } = await import("../../src/policy/open.ts");
    const small = Buffer.from("a".repeat(3000));
    const other = Buffer.from("b".repeat(2000));
    const large = Buffer.from("c".repeat(200_000));
    await temp.write("small.txt", small);
    await temp.write("other.txt", other);
    await temp.write("large.txt", large);
    const scratch = new ReadScratch(100_000);
    const readWith = (name: string, expected: number) => {
      const fd = openSync(path.join(temp.dir, name), "r");
      try {
        return readToEndSync(fd, expected, 1_000_000, scratch);
      } finally {
        closeSync(fd);
      }
    };
    const first = readWith("small.txt", 3000)!;
    expect(first.equals(small)).toBe(true);
    const second = readWith("other.txt", 2000)!;
    expect(second.equals(other)).toBe(true);
    // The same memory: the first read's bytes are gone once the second is made.
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBe(first.byteOffset);
    // Stat said 10 bytes; the scratch grows while the read goes on.
    const grown = readWith("small.txt", 10)!;
    expect(grown.equals(small)).toBe(true);
    const big = readWith("large.txt", 200_000)!;
    expect(big.equals(large)).toBe(true);
    expect(big.buffer).not.toBe(first.buffer);
    // The big read did not replace the shared buffer.
    expect(readWith("other.txt", 2000)!.buffer).toBe(readWith("small.txt", 3000)!.buffer);
  });
});
