import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { symlink } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../../src/core/errors.ts";
import { findImporters } from "../../src/intel/import-scan.ts";
import type { Workspace } from "../../src/policy/workspace.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { makeContext, makeTempDir, type TempDir } from "../support/context.ts";

const REPO: Record<string, string> = {
  // ---- JS / TS; target src/lib/util.ts
  "src/lib/util.ts": "export const x = 1;\n",
  "src/lib/index.ts": "export * from \"./util\";\n",
  "src/app.ts": "import { x } from \"./lib/util.js\";\nconsole.log(x);\n",
  "src/lazy.tsx": "export const load = () => import(\"./lib/util\");\n",
  "src/legacy.cjs": "const util = require(\"./lib/util\");\n",
  "src/template.js": "const util = require(`./lib/util`);\n",
  "src/explicit.mts": "export { x } from \"./lib/util.ts\";\n",
  "src/typed.ts": "import type { x } from \"./lib/util\";\n",
  "src/ts-require.ts": "import util = require(\"./lib/util\");\n",
  "src/nested/deep.jsx": "import { x } from \"../lib/util\";\nexport const A = () => <b>{x}</b>;\n",
  "src/uses-index.ts": "import { x } from \"./lib\";\n",
  "src/comment-only.ts": "// see ./lib/util for details\nexport {};\n",
  "src/string-only.ts": "export const where = \"./lib/util\";\n",
  "src/resolve-only.js": "require.resolve(\"./lib/util\");\n",
  "src/computed.js": "const name = 'util';\nimport(`./lib/${name}`);\n",
  "src/elsewhere.ts": "import { util } from \"../other/util\";\n",
  "src/package-import.ts": "import util from \"util\";\n",
  "node_modules/pkg/index.js": "require(\"../../src/lib/util\");\n",
  "dist/app.js": "require(\"../src/lib/util\");\n",
  // Both both.ts and both/index.ts exist: "./both" is both.ts.
  "src/both.ts": "export const b = 1;\n",
  "src/both/index.ts": "export const c = 1;\n",
  "src/use-both.ts": "import { b } from \"./both\";\n",
  "src/use-both-index.ts": "import { c } from \"./both/index.js\";\n",
  // Non-script targets are imported too.
  "src/styles.css": "a { color: red; }\n",
  "src/main.tsx": "import \"./styles.css\";\n",
  "src/data.json": "{}\n",
  "src/config.js": "module.exports = require(\"./data\");\n",

  // ---- Python; target pkg/mod.py
  "pkg/__init__.py": "from .mod import thing\n",
  "pkg/mod.py": "thing = 1\n",
  "pkg/user.py": "from . import mod\n",
  "pkg/sub/__init__.py": "",
  "pkg/sub/deep.py": "from ..mod import thing\n",
  "pkg/sub/parent.py": "from .. import other\n",
  "top.py": "import os, pkg.mod as m\n",
  "top2.py": "from pkg import mod\n",
  "top3.py": "from pkg.mod import thing\n",
  "unrelated.py": "import os  # mod is mentioned only here\n",
  "scripts/helper.py": "VALUE = 1\n",
  "scripts/run.py": "import helper\n",
  "src/spkg/__init__.py": "",
  "src/spkg/m.py": "",
  "app.py": "import spkg.m\n",
  "venv/lib/site.py": "import pkg.mod\n",

  // ---- Go: an import names a whole package; targets gopkg/a.go (its package has another file) and gosolo/only.go
  "go.mod": "module example.com/m\n",
  "gopkg/a.go": "package gopkg\n",
  "gopkg/b.go": "package gopkg\n",
  "gosolo/only.go": "package gosolo\n",
  "main.go": "package main\n\nimport (\n\t\"example.com/m/gopkg\"\n\t\"example.com/m/gosolo\"\n)\n",
};

let temp: TempDir;
let workspace: Workspace;
let context: ToolContext;

beforeAll(async () => {
  temp = await makeTempDir("ast-mcp-imports-");
  for (const [relative, content] of Object.entries(REPO)) await temp.write(relative, content);
  context = await makeContext([temp.dir], { rules: [{ path: "private/**", read: "deny" }] });
  workspace = context.workspace;
});

afterAll(async () => {
  context.services.indexes.closeAll();
  await temp.cleanup();
});

async function importersOf(relative: string, options: Parameters<typeof findImporters>[2] = {}): Promise<string[]> {
  return findImporters(await workspace.resolve(relative, "delete"), context, options);
}

describe("JS and TS importers", () => {
  test("every import form with a relative specifier, and nothing else", async () => {
    expect(await importersOf("src/lib/util.ts")).toEqual([
      "src/app.ts",
      "src/explicit.mts",
      "src/lazy.tsx",
      "src/legacy.cjs",
      "src/lib/index.ts",
      "src/nested/deep.jsx",
      "src/template.js",
      "src/ts-require.ts",
      "src/typed.ts",
    ]);
  });

  test("an index file is imported through its folder", async () => {
    expect(await importersOf("src/lib/index.ts")).toEqual(["src/uses-index.ts"]);
  });

  test("a file beats the folder index of the same name", async () => {
    expect(await importersOf("src/both.ts")).toEqual(["src/use-both.ts"]);
    expect(await importersOf("src/both/index.ts")).toEqual(["src/use-both-index.ts"]);
  });

  test("stylesheets and JSON imported by scripts count", async () => {
    expect(await importersOf("src/styles.css")).toEqual(["src/main.tsx"]);
    expect(await importersOf("src/data.json")).toEqual(["src/config.js"]);
  });

  test("a file nobody imports has no importers", async () => {
    expect(await importersOf("src/app.ts")).toEqual([]);
  });
});

describe("Python importers", () => {
  test("relative and absolute imports of a module", async () => {
    expect(await importersOf("pkg/mod.py")).toEqual(["pkg/__init__.py", "pkg/sub/deep.py", "pkg/user.py", "top.py", "top2.py", "top3.py"]);
  });

  test("a package's __init__ is imported by `from . import` and `from pkg import`", async () => {
    expect(await importersOf("pkg/__init__.py")).toEqual(["pkg/sub/parent.py", "pkg/user.py", "top2.py"]);
  });

  test("absolute imports also resolve from src/ and from the importer's own folder", async () => {
    expect(await importersOf("src/spkg/m.py")).toEqual(["app.py"]);
    expect(await importersOf("scripts/helper.py")).toEqual(["scripts/run.py"]);
  });
});

describe("Go", () => {
  test("a package import counts for a file only when the package has no other file", async () => {
    expect(await importersOf("gopkg/a.go")).toEqual([]);
    expect(await importersOf("gosolo/only.go")).toEqual(["main.go"]);
  });
});

describe("the walk", () => {
  test("folders denied for read are not searched", async () => {
    await temp.write("private/secret.ts", "import \"../src/both\";\n");
    try {
      expect(await importersOf("src/both.ts")).toEqual(["src/use-both.ts"]);
    } finally {
      await temp.write("private/secret.ts", "");
    }
  });

  test("symlinked folders are searched once, under their real path", async () => {
    await symlink(path.join(temp.dir, "src/nested"), path.join(temp.dir, "src/nested-link"));
    expect(await importersOf("src/lib/util.ts")).toContain("src/nested/deep.jsx");
    expect((await importersOf("src/lib/util.ts")).filter((item) => item.includes("deep.jsx"))).toEqual(["src/nested/deep.jsx"]);
  });

  test("more files than maxFiles is refused, never a partial answer", async () => {
    const error = await importersOf("src/lib/util.ts", { maxFiles: 5 }).catch((caught) => caught);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).code).toBe("too_many_items");
    expect((error as ToolError).hint).toContain("force");
  });

  test("an aborted signal stops the scan", async () => {
    const controller = new AbortController();
    controller.abort(new Error("cancelled by test"));
    await expect(importersOf("src/lib/util.ts", { signal: controller.signal })).rejects.toThrow("cancelled by test");
  });

  test("a folder is not a file with importers", async () => {
    expect(await findImporters(await workspace.resolve("src/lib", "read"), context)).toEqual([]);
  });
});
