/** The layouts of issue 16 through `callers` and the real index: the answers a user got as "0 callers". */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { callersTool } from "../../../src/tools/callers.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../../support/context.ts";

let cacheDir: string;
const temps: TempDir[] = [];
const previousCacheDir = process.env.AST_MCP_CACHE_DIR;

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  process.env.AST_MCP_CACHE_DIR = cacheDir;
});

afterAll(async () => {
  for (const temp of temps) await temp.cleanup();
  await rm(cacheDir, { recursive: true, force: true });
  if (previousCacheDir === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCacheDir;
});

async function tree(files: Record<string, string>, rootName?: string) {
  const temp = await makeTempDir("ast-mcp-layouts-");
  temps.push(temp);
  for (const [relative, content] of Object.entries(files)) await temp.write(rootName ? path.join(rootName, relative) : relative, content);
  return makeContext([rootName ? path.join(temp.dir, rootName) : temp.dir]);
}

type Call = { path: string; caller?: string };

test("callers of net/http.ListenAndServe in a Go source tree (module std) finds the calls in other packages of the tree", async () => {
  const context = await tree({
    "src/go.mod": "module std\n\ngo 1.19\n",
    "src/net/http/server.go": "package http\n\nfunc ListenAndServe(addr string) error {\n\treturn nil\n}\n",
    "src/net/http/triv.go": "package http\n\nfunc serveTriv() {\n\tListenAndServe(\":8080\")\n}\n",
    "src/database/sql/example_service_test.go": "package sql_test\n\nimport \"net/http\"\n\nfunc Example_openDBService() {\n\thttp.ListenAndServe(\":8080\")\n}\n",
    // src/go/build is a package of the tree, not build output.
    "src/go/build/build.go": "package build\n\nimport \"net/http\"\n\nfunc Import() {\n\thttp.ListenAndServe(\"x\")\n}\n",
  });
  try {
    const result = await runTool(callersTool, { symbol: "ListenAndServe", path: "src/net/http/server.go" }, context);
    expect(result.calls.map((call: Call) => `${call.path} ${call.caller}`).sort()).toEqual([
      "src/database/sql/example_service_test.go Example_openDBService",
      "src/go/build/build.go Import",
      "src/net/http/triv.go serveTriv",
    ]);
  } finally {
    context.services.indexes.closeAll();
  }
});

test("callers of get_random_string with the root set to the django package itself", async () => {
  const context = await tree(
    {
      "__init__.py": "",
      "utils/__init__.py": "",
      "utils/crypto.py": "def get_random_string(length):\n    return 'x' * length\n",
      "contrib/__init__.py": "",
      "contrib/auth/__init__.py": "",
      "contrib/auth/hashers.py": "from django.utils.crypto import get_random_string\n\n\ndef salt():\n    return get_random_string(12)\n",
    },
    "django",
  );
  try {
    const result = await runTool(callersTool, { symbol: "get_random_string" }, context);
    expect(result.calls.map((call: Call) => `${call.path} ${call.caller}`)).toEqual(["contrib/auth/hashers.py salt"]);
  } finally {
    context.services.indexes.closeAll();
  }
});
