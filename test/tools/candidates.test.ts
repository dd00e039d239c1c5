/**
 * Never a silent zero: where a name is written but no import resolves it to the target, callers and
 * impact list the occurrences apart from the calls, as unresolved candidates with the reason, and
 * say the answer is incomplete; deps and reverse_deps list the imports that did not resolve though
 * their path names a module of the tree. Real temp repositories, the real index and extractors.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { callersTool } from "../../src/tools/callers.ts";
import type { ToolContext } from "../../src/tools/contract.ts";
import { depsTool } from "../../src/tools/deps.ts";
import { impactTool } from "../../src/tools/impact.ts";
import { reverseDepsTool } from "../../src/tools/reverse-deps.ts";
import { makeContext, makeTempDir, runTool, type TempDir } from "../support/context.ts";

let cacheDir: string;
const previousCacheDir = process.env.AST_MCP_CACHE_DIR;
const opened: Array<{ temp: TempDir; context: ToolContext }> = [];

async function repo(files: Record<string, string>): Promise<ToolContext> {
  const temp = await makeTempDir("ast-mcp-candidates-");
  for (const [relative, content] of Object.entries(files)) await temp.write(relative, content);
  const context = await makeContext([temp.dir]);
  opened.push({ temp, context });
  return context;
}

beforeAll(async () => {
  cacheDir = await mkdtemp(path.join(tmpdir(), "ast-mcp-cache-"));
  process.env.AST_MCP_CACHE_DIR = cacheDir;
});

afterAll(async () => {
  for (const { temp, context } of opened) {
    context.services.indexes.closeAll();
    await temp.cleanup();
  }
  await rm(cacheDir, { recursive: true, force: true });
  if (previousCacheDir === undefined) delete process.env.AST_MCP_CACHE_DIR;
  else process.env.AST_MCP_CACHE_DIR = previousCacheDir;
});

type Candidate = { path: string; line: number; column: number; text: string; confidence: string; reason: string; detail: string; specifier?: string };

// A Go tree whose callers import the server package by a path that resolves outside the roots
// (a vendored copy under another module path): every call site is there, none resolves.
const GO: Record<string, string> = {
  "go.mod": "module example.com/m\n\ngo 1.21\n",
  "server/server.go": "package server\n\n// ListenAndServe serves.\nfunc ListenAndServe(addr string) error {\n\treturn nil\n}\n",
  "cmd/main.go": [
    "package main",
    "",
    "import \"github.com/acme/server\"",
    "",
    "func main() {",
    "\tserver.ListenAndServe(\":8080\")",
    "}",
    "",
  ].join("\n"),
  "cmd/alt/alt.go": [
    "package alt",
    "",
    "import \"github.com/acme/server\"",
    "",
    "var start = server.ListenAndServe",
    "",
    "func Run() error {",
    "\treturn start(\":1\")",
    "}",
    "",
  ].join("\n"),
  "lonely/lonely.go": "package lonely\n\nfunc Lonely() int {\n\treturn 1\n}\n",
};

// A Python package whose callers import the function through paths that do not resolve: a
// relative module that is gone, and a vendored package outside the roots.
const PYTHON: Record<string, string> = {
  "pkg/__init__.py": "",
  "pkg/crypto.py": "def get_random_string(length):\n    return 'x' * length\n",
  "pkg/views.py": "from .crypto_old import get_random_string\n\n\ndef view():\n    return get_random_string(12)\n",
  "pkg/forms.py": "from vendored.pkg.crypto import get_random_string\n\n\ndef form():\n    return get_random_string(8)\n",
  "pkg/models.py": "from pkg.crypto import get_random_string\n\n\ndef model():\n    return get_random_string(4)\n",
  "pkg/star.py": "from .gone import *\n\n\ndef starred():\n    return get_random_string(3)\n",
};

describe("callers: unresolved candidates", () => {
  test("Go: 0 resolved calls, the call sites listed as candidates with the import that did not resolve; incomplete", async () => {
    const context = await repo(GO);
    const result = await runTool(callersTool, { symbol: "ListenAndServe" }, context);
    expect(result.calls).toEqual([]);
    expect(result.counts).toEqual({ exact: 0, inferred: 0, ambiguous: 0 });
    const candidates = result.candidates as Candidate[];
    expect(candidates.map((candidate) => `${candidate.path}:${candidate.line} ${candidate.reason}`)).toEqual([
      "cmd/alt/alt.go:5 external_import",
      "cmd/main.go:6 external_import",
    ]);
    const main = candidates.find((candidate) => candidate.path === "cmd/main.go")!;
    expect(main).toMatchObject({ column: 2, text: "server.ListenAndServe(\":8080\")", confidence: "unresolved", specifier: "github.com/acme/server" });
    expect(main.detail).toContain("imports `github.com/acme/server` (line 3)");
    expect(main.detail).toContain("taken as an external module");
    expect(candidates[0]!.text).toBe("var start = server.ListenAndServe");
    expect(result.totalCandidates).toBe(2);
    expect(result.complete).toBe(false);
    expect(result.limits.some((limit: string) => limit.startsWith("candidates = 2:"))).toBe(true);
    const text = callersTool.render(result);
    expect(text).toContain("0 calls");
    expect(text).toContain("unresolved candidates (2, not counted as calls):");
    expect(text).toContain("cmd/main.go:6 server.ListenAndServe(\":8080\") [external_import `github.com/acme/server`]");
    expect(text).toContain("  external_import `github.com/acme/server`: imports `github.com/acme/server`, which resolved to no file under the roots");
    expect(text).toContain("the module path in go.mod (or go.work) may not match this tree");
  });

  test("Go: a name written nowhere else stays complete, with no candidates", async () => {
    const context = opened[0]!.context;
    const result = await runTool(callersTool, { symbol: "Lonely" }, context);
    expect(result.calls).toEqual([]);
    expect(result.candidates).toEqual([]);
    expect(result.totalCandidates).toBe(0);
    expect(result.complete).toBe(true);
    expect(result.limits).toEqual([]);
  });

  test("Python: the resolved call counted, the unresolved ones listed apart with the import graph's reason", async () => {
    const context = await repo(PYTHON);
    const result = await runTool(callersTool, { symbol: "get_random_string" }, context);
    expect(result.calls.map((call: { path: string; line: number; confidence: string }) => `${call.path}:${call.line} ${call.confidence}`)).toEqual(["pkg/models.py:5 exact"]);
    expect(result.counts.exact).toBe(1);
    const candidates = result.candidates as Candidate[];
    expect(candidates.map((candidate) => `${candidate.path}:${candidate.line} ${candidate.reason}`)).toEqual([
      "pkg/forms.py:5 external_import",
      "pkg/star.py:5 unbound",
      "pkg/views.py:5 unresolved_import",
    ]);
    expect(candidates.find((candidate) => candidate.path === "pkg/star.py")!.detail).toContain("the import `.gone` (line 1) did not resolve");
    const views = candidates.find((candidate) => candidate.path === "pkg/views.py")!;
    expect(views.detail).toContain("imports `.crypto_old` (line 1), which did not resolve: not_found");
    expect(views.text).toBe("return get_random_string(12)");
    expect(candidates.find((candidate) => candidate.path === "pkg/forms.py")!.specifier).toBe("vendored.pkg.crypto");
    expect(result.complete).toBe(false);
  });

  test("Python: with no resolved call the scan also finds the import lines naming the module and a value passed on, and the count of calls stays 0", async () => {
    const context = await repo({
      ...PYTHON,
      "pkg/models.py": "def model():\n    return 4\n",
      "pkg/hooks.py": "# get_random_string is wired below\nfrom .crypto import get_random_string\nHOOKS = {'rand': get_random_string}\n",
      "pkg/modules.py":
        "import get_random_string\nfrom . import crypto\n\n\ndef make(get_random_string=None):\n    log('get_random_string was called')\n    return get_random_string.make()  # not get_random_string\n",
    });
    const result = await runTool(callersTool, { symbol: "get_random_string" }, context);
    expect(result.calls).toEqual([]);
    expect((result.candidates as Candidate[]).map((candidate) => `${candidate.path}:${candidate.line} ${candidate.reason}`)).toEqual([
      "pkg/forms.py:1 external_import",
      "pkg/forms.py:5 external_import",
      "pkg/hooks.py:3 value",
      "pkg/star.py:5 unbound",
      "pkg/views.py:5 unresolved_import",
    ]);
    expect(result.counts).toEqual({ exact: 0, inferred: 0, ambiguous: 0 });
    expect(result.complete).toBe(false);
    const text = callersTool.render(result);
    expect(text).toContain("pkg/hooks.py:3 HOOKS = {'rand': get_random_string} [value]");
    expect(text).toContain("  value: named without a call the index resolved");
  });

  test("Go `module std`: every call site of the name is either a resolved call or a candidate, never missing", async () => {
    const context = await repo({
      "go.mod": "module std\n",
      "net/http/server.go": "package http\n\nfunc ListenAndServe(addr string) error {\n\treturn nil\n}\n",
      "net/http/triv.go": "package main\n\nimport \"net/http\"\n\nfunc main() {\n\thttp.ListenAndServe(\":8080\")\n}\n",
      "database/sql/example.go": "package sql\n\nimport \"net/http\"\n\nfunc Example() {\n\t_ = http.ListenAndServe(\":1\")\n}\n",
    });
    const result = await runTool(callersTool, { symbol: "ListenAndServe" }, context);
    const seen = [
      ...result.calls.map((call: { path: string; line: number }) => `${call.path}:${call.line}`),
      ...(result.candidates as Candidate[]).map((candidate) => `${candidate.path}:${candidate.line}`),
    ].sort();
    expect(seen).toEqual(["database/sql/example.go:6", "net/http/triv.go:6"]);
    expect(result.complete).toBe(result.candidates.length === 0);
  });

  test("Python root that is a package itself: every call site is either a resolved call or a candidate, never missing", async () => {
    const context = await repo({
      "__init__.py": "",
      "utils/__init__.py": "",
      "utils/crypto.py": "def get_random_string(length):\n    return 'x' * length\n",
      "views.py": "from django.utils.crypto import get_random_string\n\n\ndef view():\n    return get_random_string(12)\n",
    });
    const result = await runTool(callersTool, { symbol: "get_random_string" }, context);
    const seen = [
      ...result.calls.map((call: { path: string; line: number }) => `${call.path}:${call.line}`),
      ...(result.candidates as Candidate[]).filter((candidate) => candidate.line !== 1).map((candidate) => `${candidate.path}:${candidate.line}`),
    ];
    expect(seen).toEqual(["views.py:5"]);
    expect(result.complete).toBe(result.candidates.length === 0);
  });

  test("Python: the name in docstrings, in the target's own doctests and in __all__ is prose, not a candidate: 0 calls, complete", async () => {
    const context = await repo({
      "difflib.py": [
        "\"\"\"Helpers.",
        "",
        "Function get_close_matches(word, possibilities): close matches.",
        "\"\"\"",
        "",
        "__all__ = ['get_close_matches', 'ndiff']",
        "",
        "",
        "def get_close_matches(word, possibilities):",
        "    \"\"\"Close matches.",
        "",
        "    >>> get_close_matches('appel', ['ape', 'apple'])",
        "    \"\"\"",
        "    return []",
        "",
        "",
        "class Matcher:",
        "    \"\"\"See also get_close_matches() in this module.\"\"\"",
        "",
        "",
        "def ndiff():",
        "    return 1",
        "",
      ].join("\n"),
    });
    const result = await runTool(callersTool, { symbol: "get_close_matches" }, context);
    expect(result.calls).toEqual([]);
    expect(result.candidates).toEqual([]);
    expect(result.complete).toBe(true);
  });

  test("Python: `from a.b import module` names the submodule; `x.Name` and `module.x.Name` are another's member, `module.Name` through an import of the target's module a value", async () => {
    const context = await repo({
      "__init__.py": "",
      "log.py": "def Print(*msg):\n    pass\n\n\nclass Writer:\n    def Print(self):\n        pass\n",
      "execution.py": "from googlecloudsdk.core import log\n\n\ndef run():\n    log.Print('started')\n    log.status.Print('a member of status')\n",
      "status.py": "def report(status):\n    writer = status.Print\n    return writer\n",
      "hooks.py": "import log\n\nHANDLER = log.Print\n",
    });
    const result = await runTool(callersTool, { symbol: "log.py#Print" }, context);
    const candidates = result.candidates as Candidate[];
    expect(candidates.map((candidate) => `${candidate.path}:${candidate.line} ${candidate.reason}`)).toEqual(["execution.py:5 external_import", "hooks.py:3 value"]);
    expect(candidates[0]!.specifier).toBe("googlecloudsdk.core");
  });

  test("TypeScript: a parameter named like the target is not a candidate; the resolved answer stays complete", async () => {
    const context = await repo({
      "src/util.ts": "export function resolve(value: number): number {\n  return value;\n}\n",
      "src/use.ts": "import { resolve } from \"./util\";\n\nexport function use(): number {\n  return resolve(1);\n}\n",
      "src/wait.ts": "export function wait(): Promise<number> {\n  return new Promise((resolve) => resolve(1));\n}\n",
    });
    const result = await runTool(callersTool, { symbol: "resolve" }, context);
    expect(result.calls.map((call: { path: string; line: number }) => `${call.path}:${call.line}`)).toEqual(["src/use.ts:4"]);
    expect(result.candidates).toEqual([]);
    expect(result.complete).toBe(true);
  });

  test("TypeScript: a class written only as a type has no candidates: annotations call nothing", async () => {
    const context = await repo({
      "src/shape.ts": "export class Shape {\n  area(): number {\n    return 0;\n  }\n}\n",
      "src/use.ts": "import { Shape } from \"./shape\";\n\nexport function size(shape: Shape): number {\n  return shape.area();\n}\n",
    });
    const result = await runTool(callersTool, { symbol: "Shape" }, context);
    expect(result.calls).toEqual([]);
    expect(result.candidates).toEqual([]);
    expect(result.complete).toBe(true);
  });
});

describe("impact: unresolved candidates", () => {
  test("Go: impact of the function lists the candidates apart from its callers, incomplete", async () => {
    const context = opened[0]!.context;
    const result = await runTool(impactTool, { symbol: "ListenAndServe" }, context);
    expect(result.callers).toEqual([]);
    expect((result.candidates as Candidate[]).map((candidate) => `${candidate.path}:${candidate.line}`)).toEqual(["cmd/alt/alt.go:5", "cmd/main.go:6"]);
    expect(result.complete).toBe(false);
    expect(impactTool.render(result)).toContain("unresolved candidates (2, not counted as calls):");
  });

  test("Go: impact of the file says its importers through imports that did not resolve are left out, and where to list them", async () => {
    const context = opened[0]!.context;
    const result = await runTool(impactTool, { path: "server/server.go" }, context);
    expect(result.totalDependents).toBe(0);
    expect(result.complete).toBe(false);
    expect(result.limits).toContainEqual(expect.stringMatching(/^unresolvedImporters = 2: .*reverse_deps with path server\/server\.go/));
  });

  test("impact of a file nothing names stays complete", async () => {
    const context = opened[0]!.context;
    const result = await runTool(impactTool, { path: "lonely/lonely.go" }, context);
    expect(result.complete).toBe(true);
  });
});

describe("deps and reverse_deps: imports that did not resolve", () => {
  test("reverse_deps of the server file lists the importers whose path names it, instead of a silent 0", async () => {
    const context = opened[0]!.context;
    const result = await runTool(reverseDepsTool, { path: "server/server.go" }, context);
    expect(result.totalFiles).toBe(0);
    expect(result.unresolved.map((entry: { from: string; line: number; reason: string }) => `${entry.from}:${entry.line} ${entry.reason}`)).toEqual([
      "cmd/alt/alt.go:3 external",
      "cmd/main.go:3 external",
    ]);
    expect(result.complete).toBe(false);
    expect(reverseDepsTool.render(result)).toContain("\"github.com/acme/server\" external");
  });

  test("deps of a caller lists the external import that names a folder of the tree, incomplete", async () => {
    const context = opened[0]!.context;
    const result = await runTool(depsTool, { path: "cmd/main.go" }, context);
    expect(result.totalFiles).toBe(0);
    expect(result.unresolved.map((entry: { specifier: string; reason: string }) => `${entry.specifier} ${entry.reason}`)).toEqual(["github.com/acme/server external"]);
    expect(result.unresolved[0].detail).toContain("its path names server under the roots");
    expect(result.complete).toBe(false);
  });

  test("Go `module std`: deps of an importer names net/http either as a file reached or as an unresolved import, never a silent 0", async () => {
    const context = opened[3]!.context;
    const result = await runTool(depsTool, { path: "database/sql/example.go" }, context);
    const named = [...result.files.map((file: { path: string }) => file.path), ...result.unresolved.map((entry: { specifier: string }) => entry.specifier)];
    // Resolved, a Go import reaches every file of the package; unresolved, it is one named import.
    expect(named.length).toBeGreaterThan(0);
    for (const entry of named) expect(entry).toMatch(/^net\/http/);
    expect(result.complete).toBe(result.unresolved.length === 0);
    const reverse = await runTool(reverseDepsTool, { path: "net/http/server.go" }, context);
    const importers = [...reverse.files.map((file: { path: string }) => file.path), ...reverse.unresolved.map((entry: { from: string }) => entry.from)].sort();
    expect(importers).toEqual(["database/sql/example.go", "net/http/triv.go"]);
  });

  test("deps of a file whose relative import is missing says incomplete, naming it", async () => {
    const context = opened[1]!.context;
    const result = await runTool(depsTool, { path: "pkg/views.py" }, context);
    expect(result.unresolved.map((entry: { specifier: string; reason: string }) => `${entry.specifier} ${entry.reason}`)).toEqual([".crypto_old not_found"]);
    expect(result.complete).toBe(false);
    expect(result.limits.some((limit: string) => limit.startsWith("unresolved = 1:"))).toBe(true);
  });

  test("deps of a file whose imports all resolve or are plainly external stays complete", async () => {
    const context = opened[1]!.context;
    const result = await runTool(depsTool, { path: "pkg/models.py" }, context);
    expect(result.unresolved).toEqual([]);
    expect(result.complete).toBe(true);
  });
});
