/** file_rename updateImports and file_delete's graph-based reference check, over real temp directories. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { sha256Hex } from "../../src/helpers/hash.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { fileDeleteTool } from "../../src/tools/file-delete.ts";
import { fileRenameTool } from "../../src/tools/file-rename.ts";
import { fileUndoTool } from "../../src/tools/file-undo.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";
import { toolFailure as failure } from "../support/context.ts";

let temp: TempDir;
let context: ToolContext;
let stateDir: string;
let cacheDir: string;
const previous = { state: process.env.AST_MCP_STATE_DIR, cache: process.env.AST_MCP_CACHE_DIR };

beforeAll(async () => {
  stateDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-state-"));
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  process.env.AST_MCP_STATE_DIR = stateDir;
  process.env.AST_MCP_CACHE_DIR = cacheDir;
});
afterAll(async () => {
  context?.services.indexes.closeAll();
  await temp?.cleanup();
  for (const [name, value] of [["AST_MCP_STATE_DIR", previous.state], ["AST_MCP_CACHE_DIR", previous.cache]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(stateDir, { recursive: true, force: true });
  await rm(cacheDir, { recursive: true, force: true });
});
beforeEach(async () => {
  context?.services.indexes.closeAll();
  await temp?.cleanup();
  temp = await makeTempDir("ast-mcp-rename-");
  context = await makeContext([temp.dir]);
});

const read = (name: string) => readFile(path.join(temp.dir, name), "utf8");
const hashOf = async (name: string) => sha256Hex(await readFile(path.join(temp.dir, name)));

describe("file_rename updateImports", () => {
  test("rewrites every importer's specifier in its own style, in the same batch; undo restores all", async () => {
    await temp.write("src/lib/util.ts", "export const u = 1;\n");
    await temp.write("src/app.ts", "import { u } from './lib/util';\nexport const v = u;\n");
    await temp.write("src/deep/x.ts", "import { u } from \"../lib/util.js\";\nexport const w = u;\n");
    await temp.write("src/lazy.ts", "export const load = () => import(`./lib/util`);\n");
    await temp.write("src/untouched.ts", "export const other = 1;\n");
    const result = await runTool(
      fileRenameTool,
      { files: { "src/lib/util.ts": { destination: "src/core/util.ts", expectedSha256: await hashOf("src/lib/util.ts") } }, updateImports: true },
      context,
    );
    expect(result.committed).toBe(true);
    expect(Object.keys(result.files).sort()).toEqual(["src/app.ts", "src/deep/x.ts", "src/lazy.ts", "src/lib/util.ts"]);
    expect(result.files["src/app.ts"]).toMatchObject({ path: "src/app.ts", change: "modified" });
    expect(result.files["src/app.ts"].sha256).toBe(await hashOf("src/app.ts"));
    expect(await read("src/app.ts")).toBe("import { u } from './core/util';\nexport const v = u;\n");
    expect(await read("src/deep/x.ts")).toBe("import { u } from \"../core/util.js\";\nexport const w = u;\n");
    expect(await read("src/lazy.ts")).toBe("export const load = () => import(`./core/util`);\n");
    expect(await read("src/untouched.ts")).toBe("export const other = 1;\n");

    await runTool(fileUndoTool, { batchId: result.batchId }, context);
    expect(await read("src/app.ts")).toBe("import { u } from './lib/util';\nexport const v = u;\n");
    expect(await read("src/lib/util.ts")).toBe("export const u = 1;\n");
  });

  test("Python: absolute and relative imports follow the module", async () => {
    await temp.write("pkg/__init__.py", "");
    await temp.write("pkg/mod.py", "thing = 1\n");
    await temp.write("pkg/user.py", "from .mod import thing\n");
    await temp.write("main.py", "from pkg.mod import thing\nimport pkg.mod as m\n");
    await temp.write("pkg/sub/__init__.py", "");
    await runTool(fileRenameTool, { files: { "pkg/mod.py": { destination: "pkg/sub/mod.py", expectedSha256: await hashOf("pkg/mod.py") } }, updateImports: true }, context);
    expect(await read("pkg/user.py")).toBe("from .sub.mod import thing\n");
    expect(await read("main.py")).toBe("from pkg.sub.mod import thing\nimport pkg.sub.mod as m\n");
  });

  test("specifiers it cannot carry over are named on the renamed file, not guessed", async () => {
    await temp.write("tsconfig.json", "{ \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@lib/*\": [\"lib/*\"] } } }\n");
    await temp.write("lib/util.ts", "export const u = 1;\n");
    await temp.write("src/app.ts", "import { u } from \"@lib/util\";\nexport const v = u;\n");
    const result = await runTool(fileRenameTool, {
      files: { "lib/util.ts": { destination: "lib/tools/util.ts", expectedSha256: await hashOf("lib/util.ts") } },
      updateImports: true,
    }, context);
    expect(result.files["lib/util.ts"].importNotes).toEqual([
      "src/app.ts:1 not updated: @lib/util is not a relative specifier (tsconfig paths, package names and aliases are left as they are)",
    ]);
    expect(await read("src/app.ts")).toBe("import { u } from \"@lib/util\";\nexport const v = u;\n");
    expect(fileRenameTool.render(result)).toContain("imports: src/app.ts:1 not updated");
  });

  test("the moved file's own relative imports are named with the specifier they now need", async () => {
    await temp.write("src/a.ts", "import { b } from './b';\nexport const a = b;\n");
    await temp.write("src/b.ts", "export const b = 1;\n");
    const result = await runTool(fileRenameTool, { files: { "src/a.ts": { destination: "lib/a.ts", expectedSha256: await hashOf("src/a.ts") } }, updateImports: true }, context);
    expect(result.files["src/a.ts"].importNotes).toEqual(["its own import \"./b\" (line 1) now needs \"../src/b\"; patch the moved file"]);
  });

  test("without updateImports only the file moves", async () => {
    await temp.write("a.ts", "export const a = 1;\n");
    await temp.write("b.ts", "import { a } from './a';\n");
    const result = await runTool(fileRenameTool, { files: { "a.ts": { destination: "c.ts", expectedSha256: await hashOf("a.ts") } } }, context);
    expect(Object.keys(result.files)).toEqual(["a.ts"]);
    expect(await read("b.ts")).toBe("import { a } from './a';\n");
  });
});

describe("file_delete reference check", () => {
  test("an importer through tsconfig paths keeps the file alive; the check refreshes after edits", async () => {
    await temp.write("tsconfig.json", "{ \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@lib/*\": [\"lib/*\"] } } }\n");
    await temp.write("lib/util.ts", "export const u = 1;\n");
    await temp.write("src/app.ts", "import { u } from \"@lib/util\";\nexport const v = u;\n");
    const sha = await hashOf("lib/util.ts");
    const refused = await failure(runTool(fileDeleteTool, { files: { "lib/util.ts": { expectedSha256: sha } } }, context));
    expect(refused.code).toBe("referenced_file");
    expect(refused.details?.importers).toEqual(["src/app.ts"]);
    await temp.write("src/app.ts", "export const v = 1;\n");
    const deleted = await runTool(fileDeleteTool, { files: { "lib/util.ts": { expectedSha256: sha } } }, context);
    expect(deleted.files["lib/util.ts"].change).toBe("deleted");
  });
});
