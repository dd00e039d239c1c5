import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../../src/core/limits.ts";
import { ToolError } from "../../src/core/errors.ts";
import { jsonBytes } from "../../src/helpers/json-value.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { documentQueryTool } from "../../src/tools/document.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;

beforeAll(async () => {
  temp = await makeTempDir();
  await temp.write(
    "package.json",
    JSON.stringify({ name: "demo", scripts: { build: "tsc" }, "a/b": 1, "m~n": 2, list: [10, 20, { deep: true }], nothing: null }, null, 2),
  );
  await temp.write(
    "tsconfig.json",
    `// TypeScript settings
{
  /* block comment */
  "compilerOptions": {
    "strict": true, // trailing comment
    "paths": { "@/*": ["src/*"], },
  },
}
`,
  );
  await temp.write("settings.jsonc", "{ \"editor\": { \"tabSize\": 2 } // note\n}\n");
  await temp.write(
    "Cargo.toml",
    `[package]
name = "demo"
version = "0.1.0"
released = 1979-05-27
big = 9007199254740993

[dependencies]
serde = { version = "1", features = ["derive"] }
`,
  );
  await temp.write("compose.yaml", "services:\n  web:\n    image: nginx\n    ports:\n      - '80:80'\n");
  await temp.write("multi.yml", "first: 1\n---\nsecond: 2\n");
  await temp.write("broken.json", "{\n  \"a\": 1,\n  \"b\": }\n");
  await temp.write("broken.jsonc", "{ \"a\": 1 /* unterminated\n");
  await temp.write("broken.toml", "[a]\nx = \n");
  await temp.write("broken.yaml", "a: [1, 2\nb: 3\n");
  await temp.write("notes.txt", "plain\n");
  await temp.write("bom.json", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("{\"ok\": true}")]));
  await temp.write("big.json", JSON.stringify({ text: "z".repeat(LIMITS.document.maxValueBytes * 2), small: 1 }));
  await temp.write("empty.yaml", "");
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  await temp.cleanup();
});

const query = (filePath: string, selectors: string[]) => runTool(documentQueryTool, { filePath, selectors }, context);

describe("document_query", () => {
  test("JSON: values, nested keys, array indices, the whole document, and the file hash", async () => {
    const result = await query("package.json", ["/name", "/scripts/build", "/list/1", "/list/2/deep", "/nothing", ""]);
    const bytes = await readFile(path.join(temp.dir, "package.json"));
    expect(result).toMatchObject({ path: "package.json", format: "json", documents: 1, note: null, sha256: createHash("sha256").update(bytes).digest("hex") });
    expect(result.results.map((item: { value: unknown }) => item.value)).toEqual(["demo", "tsc", 20, true, null, JSON.parse(bytes.toString())]);
    expect(result.results.map((item: { type: string }) => item.type)).toEqual(["string", "string", "number", "boolean", "null", "object"]);
    expect(result.results.every((item: { found: boolean; truncated: boolean }) => item.found && !item.truncated)).toBe(true);
    expect(result).toMatchObject({ complete: true, limits: [] });
  });

  test("~0 and ~1 escapes select keys containing ~ and /", async () => {
    const result = await query("package.json", ["/a~1b", "/m~0n"]);
    expect(result.results.map((item: { value: unknown }) => item.value)).toEqual([1, 2]);
  });

  test("missing keys and indices report where the path stops", async () => {
    const result = await query("package.json", ["/scripts/test", "/list/3", "/list/-", "/name/0"]);
    expect(result.results[0]).toMatchObject({ found: false, type: null, existingPrefix: "/scripts", availableKeys: ["build"] });
    expect(result.results[0].value).toBeUndefined();
    expect(result.results[1]).toMatchObject({ found: false, existingPrefix: "/list", arrayLength: 3 });
    expect(result.results[2]).toMatchObject({ found: false, existingPrefix: "/list" });
    expect(result.results[3]).toMatchObject({ found: false, existingPrefix: "/name" });
  });

  test("a bad selector fails alone", async () => {
    const result = await query("package.json", ["name", "/name", "/x~2"]);
    expect(result.results[0]).toMatchObject({ selector: "name", found: false, error: { code: "invalid_selector" } });
    expect(result.results[1]).toMatchObject({ found: true, value: "demo" });
    expect(result.results[2].error.code).toBe("invalid_selector");
  });

  test("JSONC with comments and trailing commas (tsconfig.json by name, .jsonc by extension)", async () => {
    const tsconfig = await query("tsconfig.json", ["/compilerOptions/strict", "/compilerOptions/paths/@~1*/0"]);
    expect(tsconfig.format).toBe("jsonc");
    expect(tsconfig.results.map((item: { value: unknown }) => item.value)).toEqual([true, "src/*"]);
    const settings = await query("settings.jsonc", ["/editor/tabSize"]);
    expect(settings.results[0].value).toBe(2);
  });

  test("TOML: tables, inline tables, dates and big integers", async () => {
    const result = await query("Cargo.toml", ["/package/name", "/dependencies/serde/features", "/package/released", "/package/big"]);
    expect(result.format).toBe("toml");
    expect(result.results[0].value).toBe("demo");
    expect(result.results[1]).toMatchObject({ type: "array", value: ["derive"] });
    expect(result.results[2]).toMatchObject({ type: "datetime", value: "1979-05-27" });
    expect(result.results[3]).toMatchObject({ type: "bigint", value: "9007199254740993" });
  });

  test("YAML, and multi-document files use the first document and say so", async () => {
    const compose = await query("compose.yaml", ["/services/web/image", "/services/web/ports/0"]);
    expect(compose).toMatchObject({ format: "yaml", documents: 1, note: null });
    expect(compose.results.map((item: { value: unknown }) => item.value)).toEqual(["nginx", "80:80"]);
    const multi = await query("multi.yml", ["/first", "/second"]);
    expect(multi.documents).toBe(2);
    expect(multi.note).toContain("first");
    expect(multi.results[0].value).toBe(1);
    expect(multi.results[1].found).toBe(false);
  });

  test("an empty YAML file has a null root", async () => {
    const result = await query("empty.yaml", [""]);
    expect(result.documents).toBe(0);
    expect(result.results[0]).toMatchObject({ found: true, type: "null", value: null });
  });

  test("a UTF-8 BOM does not break JSON", async () => {
    expect((await query("bom.json", ["/ok"])).results[0].value).toBe(true);
  });

  test("large values are cut within the limit and say so", async () => {
    const result = await query("big.json", ["/text", "/small"]);
    const text = result.results[0];
    expect(text.truncated).toBe(true);
    expect(text.bytes).toBe(LIMITS.document.maxValueBytes * 2 + 2);
    expect(jsonBytes(text.value)).toBeLessThanOrEqual(LIMITS.document.maxValueBytes);
    expect(text.value).toMatch(/^z+$/);
    expect(result.results[1]).toMatchObject({ value: 1, truncated: false });
    expect(result.complete).toBe(false);
    expect(result.limits).toEqual([expect.stringContaining(`document.maxValueBytes = ${LIMITS.document.maxValueBytes}`)]);
    expect(result.limits[0]).toContain("\"/text\"");
    expect(documentQueryTool.render(result)).toContain(`cut from ${LIMITS.document.maxValueBytes * 2 + 2} bytes`);
  });

  test("many large selections share the output limit", async () => {
    const result = await query("big.json", Array.from({ length: 10 }, () => "/text"));
    const total = result.results.reduce((sum: number, item: { value: unknown }) => sum + jsonBytes(item.value), 0);
    expect(total).toBeLessThanOrEqual(LIMITS.output.maxTextChars);
    expect(result.results.every((item: { truncated: boolean }) => item.truncated)).toBe(true);
    expect(documentQueryTool.render(result).length).toBeLessThanOrEqual(LIMITS.output.maxTextChars);
  });

  const parseFailure = async (filePath: string): Promise<ToolError> => {
    try {
      await query(filePath, ["/a"]);
    } catch (error) {
      if (error instanceof ToolError) return error;
      throw error;
    }
    throw new Error(`${filePath} parsed`);
  };

  test("parse errors carry line and column for each format", async () => {
    const json = await parseFailure("broken.json");
    expect(json.code).toBe("parse_error");
    expect(json.details).toMatchObject({ line: 3, column: 8 });
    expect(json.message).toContain("line 3, column 8");

    const jsonc = await parseFailure("broken.jsonc");
    expect(jsonc.code).toBe("parse_error");
    expect(jsonc.details?.line).toBe(1);

    const toml = await parseFailure("broken.toml");
    expect(toml.code).toBe("parse_error");
    expect(toml.details?.line).toBe(2);

    const yaml = await parseFailure("broken.yaml");
    expect(yaml.code).toBe("parse_error");
    expect(yaml.details).toMatchObject({ line: 2, column: 1 });
    expect(yaml.message).not.toContain("\n");
  });

  test("unsupported extensions, missing files and denied paths throw", async () => {
    await expect(query("notes.txt", ["/a"])).rejects.toMatchObject({ code: "unsupported_document" });
    await expect(query("missing.json", ["/a"])).rejects.toMatchObject({ code: "file_not_found" });
    await expect(query("../outside.json", ["/a"])).rejects.toMatchObject({ code: "path_outside_roots" });
  });

  test("documents over the size limit are not parsed", async () => {
    await temp.write("huge.json", `[${" ".repeat(LIMITS.document.maxFileBytes)}]`);
    await expect(query("huge.json", [""])).rejects.toMatchObject({ code: "file_too_large" });
  });

  test("schema: strict, at least one selector, at most the selector limit", () => {
    expect(documentQueryTool.input.safeParse({ filePath: "a.json", selectors: ["/a"], format: "json" }).success).toBe(false);
    expect(documentQueryTool.input.safeParse({ filePath: "a.json", selectors: [] }).success).toBe(false);
    expect(documentQueryTool.input.safeParse({ filePath: "a.json", selectors: Array.from({ length: LIMITS.document.maxSelectors + 1 }, () => "") }).success).toBe(false);
  });

  test("render is line per selector, not JSON", async () => {
    const result = await query("package.json", ["/name", "/nope", "bad"]);
    const text = documentQueryTool.render(result);
    expect(text).toContain("/name = \"demo\" (string)");
    expect(text).toContain("/nope: not found");
    expect(text).toContain("bad: error invalid_selector");
    expect(() => JSON.parse(text)).toThrow();
  });
});
