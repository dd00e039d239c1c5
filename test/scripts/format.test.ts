import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";
import { formatFiles } from "../../scripts/format.ts";
import { makeTempDir } from "../support/context.ts";

describe("npm run format", () => {
  test("finds an unformatted file inside a directory, leaves a formatted one alone, and formats in place only when asked", async () => {
    const temp = await makeTempDir();
    try {
      const messy = await temp.write("nested/messy.ts", "const  x = {a:1}\n");
      await temp.write("nested/clean.ts", "export const y = 1;\n");
      await temp.write("nested/notes.md", "not   TypeScript\n");
      const relative = path.relative(path.resolve(import.meta.dir, "../.."), messy);
      expect(formatFiles([temp.dir])).toEqual([relative]);
      expect(readFileSync(messy, "utf8")).toBe("const  x = {a:1}\n");
      expect(formatFiles([temp.dir], true)).toEqual([relative]);
      expect(readFileSync(messy, "utf8")).toBe("const x = { a: 1 };\n");
      expect(formatFiles([temp.dir])).toEqual([]);
    } finally {
      await temp.cleanup();
    }
  });
});
