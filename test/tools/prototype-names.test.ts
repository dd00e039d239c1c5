/**
 * Every Object.prototype name as a file name, directory name, symbol name and argument key, through every
 * tool the server offers: maps keyed by such names must be Maps or null-prototype objects.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { access, readFile } from "node:fs/promises";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "../../src/server/mcp.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { makeContext, makeTempDir, type TempDir } from "../support/context.ts";
import { PROTOTYPE_NAMES, prototypeArguments } from "../support/prototype-names.ts";

let temp: TempDir;
let client: Client;

/** Source that imports, defines and calls the name, so it lands in every index table. */
function source(name: string): string {
  const other = name === "constructor" ? "hasOwnProperty" : "constructor";
  return `import { ${other} as y } from "./${other}";\nexport function ${name}() { return 1; }\nexport class K${name} { ${name}() { return y(); } }\n`;
}

beforeAll(async () => {
  temp = await makeTempDir();
  for (const name of PROTOTYPE_NAMES) {
    await temp.write(name, `${name}\n`);
    await temp.write(`src/${name}.ts`, source(name));
    await temp.write(`dirs/${name}/index.ts`, `export class C { ${name}() {} }\n`);
    await temp.write(`py/${name}.py`, `import ${name}\ndef ${name}():\n    ${name}()\n`);
    await temp.write(`html/${name}.html`, `<${name} src="x.js"></${name}>\n<h1>${name}</h1>\n`);
    await temp.write(`json/${name}.json`, JSON.stringify({ [name]: 1 }));
    await temp.write(`rename/${name}`, "r\n");
    await temp.write(`delete/${name}`, "d\n");
  }
  const { workspace, config } = await makeContext([temp.dir]);
  const server = createMcpServer({ snapshot: async () => config, workspaceFor: async () => workspace }, "prototype-names");
  client = new Client({ name: "test", version: "1" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
  await temp.cleanup();
});

async function call(name: string, args: unknown): Promise<{ error?: { code: string; hint: string }; result?: any }> {
  const answer = await client.callTool({ name, arguments: args as Record<string, unknown> });
  if (answer.isError) return { error: JSON.parse((answer.content as Array<{ text: string }>)[0]!.text).error };
  return { result: answer.structuredContent };
}

describe("prototype names", () => {
  test("the argument table covers every tool", () => {
    expect(Object.keys(prototypeArguments("x")).sort()).toEqual(TOOLS.map((tool) => tool.name).sort());
  });

  for (const name of PROTOTYPE_NAMES) {
    test(`${name}: no tool fails unexpectedly and the answers are about the named files`, async () => {
      const all = prototypeArguments(name);
      for (const tool of TOOLS) {
        const { error, result } = await call(tool.name, all[tool.name as keyof typeof all]);
        if (error) {
          expect({ tool: tool.name, code: error.code }).not.toEqual({ tool: tool.name, code: "internal_error" });
          expect(error.hint.length).toBeGreaterThan(0);
        }
        if (tool.name === "file_read") expect(JSON.stringify(result)).toContain(`"content":"${name}"`);
        if (tool.name === "file_hash") expect(JSON.stringify(result)).toContain(createHash("sha256").update(`${name}\n`).digest("hex"));
        if (tool.name === "map" || tool.name === "surface") expect(JSON.stringify(result)).toContain(name);
        if (tool.name === "index") expect(error).toBeUndefined();
      }
      expect(await readFile(path.join(temp.dir, "new", `${name}.txt`), "utf8")).toBe(`${name}\n`);
    });
  }

  test("__proto__ as an argument key is refused with a hint, and the other spelling works", async () => {
    const refused = await call("file_write", JSON.parse("{\"files\": {\"__proto__\": {\"content\": \"p\\n\"}}}"));
    expect(refused.error?.code).toBe("invalid_input");
    expect(refused.error?.hint).toContain("./__proto__");
    const written = await call("file_write", { files: { "proto/./__proto__": { content: "p\n" } } });
    expect(written.error).toBeUndefined();
    await access(path.join(temp.dir, "proto", "__proto__"));
  });
});
