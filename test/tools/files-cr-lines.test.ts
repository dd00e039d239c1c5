/**
 * Every tool numbers lines the same way: "\n", "\r\n" and a lone "\r" each end a line. A file with
 * old Mac line ends (CR only) once had its functions on line 1 in `map` while `file_read` put them
 * further down; both now come from the one line table in src/text/lines.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AnyTool, ToolContext } from "../../src/tools/contract.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

const tool = (name: string): AnyTool => TOOLS.find((candidate) => candidate.name === name)!;
const SOURCE = ["// header", "", "/** Says hello. */", "function greet() {", "  return 1;", "}", ""];

let temp: TempDir;
let context: ToolContext;

beforeAll(async () => {
  temp = await makeTempDir();
  await temp.write("cr.js", SOURCE.join("\r"));
  await temp.write("lf.js", SOURCE.join("\n"));
  await temp.write("crlf.js", SOURCE.join("\r\n"));
  context = await makeContext([temp.dir]);
});

afterAll(async () => {
  await temp.cleanup();
});

describe("line numbers agree across tools whatever the line ends", () => {
  for (const name of ["cr.js", "lf.js", "crlf.js"]) {
    test(`${name}: map puts the function where file_read reads it, with its doc comment`, async () => {
      const mapped = await runTool(tool("map"), { paths: [name] }, context);
      const greet = mapped.files[0].symbols.find((symbol: { name: string }) => symbol.name === "greet");
      expect(greet).toMatchObject({ startLine: 4, endLine: 6, doc: "Says hello." });
      expect(mapped.files[0].lines).toBe(6);
      const read = (await runTool(tool("file_read"), { files: [{ filePath: name, startLine: greet.startLine, endLine: greet.endLine }] }, context)).files[0];
      expect(read.content).toBe("function greet() {\n  return 1;\n}");
    });

    test(`${name}: run reports a match on the line file_read reads it from`, async () => {
      const found = await runTool(tool("run"), { pattern: "return $A", paths: [name] }, context);
      expect(found.matches).toHaveLength(1);
      expect(found.matches[0]).toMatchObject({ startLine: 5, endLine: 5, column: 3, text: "return 1;" });
    });
  }
});
