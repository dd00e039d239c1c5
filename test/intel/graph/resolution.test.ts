/** Module resolution through the import graph, one rule at a time, over real temp directories. */
import { afterAll, afterEach, beforeAll, describe, expect, mock, spyOn, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ConfigFiles, graphFs } from "../../../src/intel/graph/config-files.ts";
import { FileTable } from "../../../src/intel/graph/file-table.ts";
import { GoResolver } from "../../../src/intel/graph/go.ts";
import { ImportGraph } from "../../../src/intel/graph/import-graph.ts";
import { FakeIndex, imp, makeRepo, type Repo, sym } from "./fixture.ts";

function targets(graph: ImportGraph, repo: Repo, from: string): Record<string, string[]> {
  const result: Record<string, string[]> = {};
  for (const edge of graph.dependenciesOf(repo.real(from))) {
    (result[edge.specifier] ??= []).push(path.relative(repo.root, edge.to));
  }
  return result;
}

function unresolvedOf(graph: ImportGraph, repo: Repo, from: string): Record<string, string> {
  return Object.fromEntries(graph.unresolvedOf(repo.real(from)).map((entry) => [entry.specifier, entry.reason]));
}

function via(graph: ImportGraph, repo: Repo, from: string, specifier: string): string | undefined {
  return graph.dependenciesOf(repo.real(from)).find((edge) => edge.specifier === specifier)?.via;
}

afterEach(() => {
  mock.restore();
});

describe("TypeScript and JavaScript", () => {
  let repo: Repo;
  let graph: ImportGraph;

  beforeAll(async () => {
    repo = await makeRepo({
      "src/util.ts": "export const u = 1;\n",
      "src/esm.mts": "",
      "src/common.cts": "",
      "src/lib/index.ts": "",
      "src/both.ts": "",
      "src/both/index.ts": "",
      "src/view.tsx": "",
      "src/data.json": "{}",
      "src/styles.css": "a{}",
      "src/app.ts": {
        imports: [
          imp("./util"),
          imp("./util.js", "import", [], 2),
          imp("./esm.mjs", "import", [], 3),
          imp("./common.cjs", "require", [], 4),
          imp("./lib", "import", [], 5),
          imp("./both", "import", [], 6),
          imp("./both/index.js", "import", [], 7),
          imp("./view.jsx", "dynamic", [], 8),
          imp("./data.json", "import", [], 9),
          imp("./styles.css?inline", "import", [], 10),
          imp("./missing", "import", [], 11),
          imp("../../../../../../../../etc/passwd", "import", [], 12),
          imp("/etc/hosts", "import", [], 13),
          imp("./lib/${name}", "dynamic", [], 14),
          imp("react", "import", [], 15),
          imp("react/jsx-runtime", "import", [], 16),
          imp("@scope/pkg/sub/path", "import", [], 17),
          imp("node:fs", "import", [], 18),
          imp("path", "require", [], 19),
        ],
      },
      "src/other.ts": { imports: [imp("react"), imp("./util", "reexport", [["*", "*"]])] },
    });
    graph = await ImportGraph.for(repo.index, repo.workspace);
  });
  afterAll(() => repo.cleanup());

  test("relative specifiers: extensions, NodeNext .js → .ts (.mjs → .mts, .cjs → .cts), index files, file before folder", () => {
    expect(targets(graph, repo, "src/app.ts")).toEqual({
      "./util": ["src/util.ts"],
      "./util.js": ["src/util.ts"],
      "./esm.mjs": ["src/esm.mts"],
      "./common.cjs": ["src/common.cts"],
      "./lib": ["src/lib/index.ts"],
      "./both": ["src/both.ts"],
      "./both/index.js": ["src/both/index.ts"],
      "./view.jsx": ["src/view.tsx"],
      "./data.json": ["src/data.json"],
      "./styles.css?inline": ["src/styles.css"],
    });
    expect(via(graph, repo, "src/app.ts", "./util")).toBe("relative");
  });

  test("unresolved specifiers carry a reason", () => {
    expect(unresolvedOf(graph, repo, "src/app.ts")).toEqual({
      "./missing": "not_found",
      "../../../../../../../../etc/passwd": "outside_roots",
      "/etc/hosts": "outside_roots",
      "./lib/${name}": "unsupported",
    });
  });

  test("external packages are counted per package, builtins flagged", () => {
    expect(graph.externalsOf(repo.real("src/app.ts"))).toEqual([
      { package: "react", builtin: false, files: 1, imports: 2 },
      { package: "@scope/pkg", builtin: false, files: 1, imports: 1 },
      { package: "node:fs", builtin: true, files: 1, imports: 1 },
      { package: "node:path", builtin: true, files: 1, imports: 1 },
    ]);
    expect(graph.externals()[0]).toEqual({ package: "react", builtin: false, files: 2, imports: 3 });
  });

  test("dependents are the reverse edges", () => {
    const importers = graph.dependentsOf(repo.real("src/util.ts")).map((edge) => `${path.relative(repo.root, edge.from)}:${edge.line}`);
    expect(importers.sort()).toEqual(["src/app.ts:1", "src/app.ts:2", "src/other.ts:1"]);
  });
});

test("a specifier naming a file a policy rule hides is denied, not missing", async () => {
  const repo = await makeRepo({ "src/app.ts": { imports: [imp("../private/secret"), imp("./gone")] }, "src/x.py": { imports: [imp("..private.keys", "import", ["k"])] } }, {
    rules: [{ path: "private/**", read: "deny" }],
  });
  try {
    // The index never holds denied files; on disk it exists.
    await repo.temp.write("private/secret.ts", "export const s = 1;\n");
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(unresolvedOf(graph, repo, "src/app.ts")).toEqual({ "../private/secret": "denied", "./gone": "not_found" });
    expect(unresolvedOf(graph, repo, "src/x.py")).toEqual({ "..private.keys": "denied" });
  } finally {
    await repo.cleanup();
  }
});

describe("tsconfig paths and baseUrl", () => {
  let repo: Repo;
  const outside = "/nonexistent-ast-mcp-outside";

  beforeAll(async () => {
    repo = await makeRepo({
      // JSONC: comments and trailing commas, as tsconfig files are written.
      "tsconfig.base.json": `{
        // shared settings
        "compilerOptions": {
          "baseUrl": ".",
          "paths": { "@lib/*": ["libs/*/src", "libs/*/fallback"], "@config": ["config/main.ts"], },
        },
      }`,
      "apps/web/tsconfig.json": `{ "extends": "../../tsconfig.base.json", "compilerOptions": { "strict": true } }`,
      "apps/api/tsconfig.json": `{ "extends": ["../../tsconfig.base.json", "./tsconfig.paths.json"] }`,
      "apps/api/tsconfig.paths.json": `{ "compilerOptions": { "paths": { "~/*": ["./src/*"] } } }`,
      "apps/escape/tsconfig.json":
        `{ "extends": "${outside}/tsconfig.json", "compilerOptions": { "paths": { "@x/*": ["${outside}/x/*"], "@up/*": ["../../../../../../../../../tmp/*"] } } }`,
      "apps/pkg/tsconfig.json": `{ "extends": "@acme/tsconfig/base.json" }`,
      "apps/pkg/node_modules/@acme/tsconfig/base.json": `{ "compilerOptions": { "paths": { "#shared/*": ["../../../../../shared/*"] } } }`,
      "shared/thing.ts": "",
      "libs/core/src/index.ts": "",
      "libs/extra/fallback/index.ts": "",
      "config/main.ts": "",
      "utils/strings.ts": "",
      "apps/web/src/main.ts": { imports: [imp("@lib/core"), imp("@lib/extra"), imp("@config"), imp("utils/strings"), imp("@lib/none")] },
      "apps/api/src/deep/server.ts": { imports: [imp("~/deep/routes"), imp("@lib/core")] },
      "apps/api/src/deep/routes.ts": "",
      "apps/escape/src/main.ts": { imports: [imp("@x/secret"), imp("@up/anything"), imp("lodash")] },
      "apps/pkg/src/main.ts": { imports: [imp("#shared/thing")] },
    });
  });
  afterAll(() => repo.cleanup());

  test("paths from an extended config resolve relative to its baseUrl; baseUrl alone resolves bare names", async () => {
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(targets(graph, repo, "apps/web/src/main.ts")).toEqual({
      "@lib/core": ["libs/core/src/index.ts"],
      "@lib/extra": ["libs/extra/fallback/index.ts"],
      "@config": ["config/main.ts"],
      "utils/strings": ["utils/strings.ts"],
    });
    expect(via(graph, repo, "apps/web/src/main.ts", "@lib/core")).toBe("tsconfig_paths");
    expect(via(graph, repo, "apps/web/src/main.ts", "utils/strings")).toBe("base_url");
    // A mapped name that matches no file falls through to a package.
    expect(graph.externalsOf(repo.real("apps/web/src/main.ts")).map((entry) => entry.package)).toEqual(["@lib/none"]);
  });

  test("an extends array: the later config's paths replace the earlier's, relative to the inherited baseUrl", async () => {
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    // "~/*" → "./src/*" relative to baseUrl (the repository root), not to apps/api: no file there.
    expect(targets(graph, repo, "apps/api/src/deep/server.ts")).toEqual({});
    expect(graph.externalsOf(repo.real("apps/api/src/deep/server.ts")).map((entry) => entry.package).sort()).toEqual(["@lib/core", "~"]);
  });

  test("extends by package name is looked up in node_modules folders inside the roots", async () => {
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(targets(graph, repo, "apps/pkg/src/main.ts")).toEqual({ "#shared/thing": ["shared/thing.ts"] });
  });

  test("steering outside the roots is reported as outside_roots and never probed", async () => {
    const fresh = await makeRepo({});
    try {
      for (
        const [relative, content] of Object.entries({
          "apps/escape/tsconfig.json": await readFile(repo.real("apps/escape/tsconfig.json"), "utf8"),
        })
      ) await fresh.add(relative, content);
      await fresh.add("apps/escape/src/main.ts", { imports: [imp("@x/secret"), imp("@up/anything"), imp("lodash")] });
      const touched: string[] = [];
      const readSpy = spyOn(graphFs, "readFile");
      const statSpy = spyOn(graphFs, "lstat");
      const resolveSpy = spyOn(fresh.workspace, "resolve");
      const graph = await ImportGraph.for(fresh.index, fresh.workspace);
      for (const spy of [readSpy, statSpy, resolveSpy]) for (const callArgs of spy.mock.calls) touched.push(String(callArgs[0]));
      expect(touched.length).toBeGreaterThan(0);
      expect(touched.filter((touchedPath) => !touchedPath.startsWith(fresh.root))).toEqual([]);
      expect(unresolvedOf(graph, fresh, "apps/escape/src/main.ts")).toEqual({ "@x/secret": "outside_roots", "@up/anything": "outside_roots" });
      expect(graph.configProblems().map((problem) => problem.reason)).toEqual(["outside_roots"]);
      expect(graph.externalsOf(fresh.real("apps/escape/src/main.ts")).map((entry) => entry.package)).toEqual(["lodash"]);
    } finally {
      await fresh.cleanup();
    }
  });
});

describe("package.json exports, imports and workspace packages", () => {
  let repo: Repo;
  let graph: ImportGraph;

  beforeAll(async () => {
    repo = await makeRepo({
      "package.json": JSON.stringify({ name: "monorepo", private: true, workspaces: ["packages/*", "!packages/ignored"] }),
      "pnpm-workspace.yaml": "packages:\n  - 'tools/*'\n",
      "packages/a/package.json": JSON.stringify({
        name: "@acme/a",
        exports: {
          ".": { types: "./dist/index.d.ts", import: "./dist/index.mjs", require: "./dist/index.cjs" },
          "./feature": { require: "./src/feature-cjs.ts", import: "./src/feature-esm.ts", default: "./src/feature-default.ts" },
          "./node-only": { browser: "./src/browser.ts", node: "./src/node.ts" },
          "./internal/*": null,
          "./utils/*": "./src/utils/*.ts",
          "./escape": "../../../../../../../../../etc/passwd",
        },
        imports: { "#internal/*": "./src/internal/*.ts", "#dep": "lodash" },
      }),
      "packages/a/src/index.ts": "",
      "packages/a/src/feature-cjs.ts": "",
      "packages/a/src/feature-esm.ts": "",
      "packages/a/src/feature-default.ts": "",
      "packages/a/src/browser.ts": "",
      "packages/a/src/node.ts": "",
      "packages/a/src/utils/str.ts": "",
      "packages/a/src/internal/secret.ts": "",
      "packages/a/src/use-imports.ts": { imports: [imp("#internal/secret"), imp("#dep"), imp("#nothing")] },
      "packages/b/package.json": JSON.stringify({ name: "b-plain", main: "./lib/main.js" }),
      "packages/b/src/main.ts": "",
      "packages/b/src/extra.ts": "",
      "packages/ignored/package.json": JSON.stringify({ name: "ignored-pkg", main: "index.js" }),
      "packages/ignored/index.js": "",
      "tools/cli/package.json": JSON.stringify({ name: "cli-tool", source: "./src/cli.ts" }),
      "tools/cli/src/cli.ts": "",
      "src/app.ts": {
        imports: [
          imp("@acme/a"),
          imp("@acme/a/feature", "import", [], 2),
          imp("@acme/a/utils/str", "import", [], 4),
          imp("@acme/a/node-only", "import", [], 5),
          imp("@acme/a/internal/secret", "import", [], 6),
          imp("@acme/a/escape", "import", [], 7),
          imp("b-plain", "import", [], 8),
          imp("b-plain/src/extra", "import", [], 9),
          imp("cli-tool", "import", [], 10),
          imp("ignored-pkg", "import", [], 11),
        ],
      },
      "src/legacy.cjs": { imports: [imp("@acme/a/feature", "require")] },
    });
    graph = await ImportGraph.for(repo.index, repo.workspace);
  });
  afterAll(() => repo.cleanup());

  test("exports: conditions in key order for import vs require, patterns, built output mapped to source", () => {
    expect(targets(graph, repo, "src/app.ts")).toEqual({
      "@acme/a": ["packages/a/src/index.ts"],
      "@acme/a/feature": ["packages/a/src/feature-esm.ts"],
      "@acme/a/utils/str": ["packages/a/src/utils/str.ts"],
      "@acme/a/node-only": ["packages/a/src/node.ts"],
      "b-plain": ["packages/b/src/main.ts"],
      "b-plain/src/extra": ["packages/b/src/extra.ts"],
      "cli-tool": ["tools/cli/src/cli.ts"],
    });
    expect(targets(graph, repo, "src/legacy.cjs")).toEqual({ "@acme/a/feature": ["packages/a/src/feature-cjs.ts"] });
    expect(via(graph, repo, "src/app.ts", "@acme/a")).toBe("package_exports");
    expect(via(graph, repo, "src/app.ts", "b-plain")).toBe("workspace_package");
  });

  test("null exports and targets outside the roots are unresolved; excluded workspace folders are external", () => {
    expect(unresolvedOf(graph, repo, "src/app.ts")).toEqual({ "@acme/a/internal/secret": "not_found", "@acme/a/escape": "outside_roots" });
    expect(graph.externalsOf(repo.real("src/app.ts")).map((entry) => entry.package)).toEqual(["ignored-pkg"]);
  });

  test("imports: #specifiers from the nearest package.json, including bare re-targets", () => {
    expect(targets(graph, repo, "packages/a/src/use-imports.ts")).toEqual({ "#internal/secret": ["packages/a/src/internal/secret.ts"] });
    expect(via(graph, repo, "packages/a/src/use-imports.ts", "#internal/secret")).toBe("package_imports");
    expect(graph.externalsOf(repo.real("packages/a/src/use-imports.ts")).map((entry) => entry.package)).toEqual(["lodash"]);
    expect(unresolvedOf(graph, repo, "packages/a/src/use-imports.ts")).toEqual({ "#nothing": "not_found" });
  });
});

describe("Python", () => {
  let repo: Repo;
  let graph: ImportGraph;

  beforeAll(async () => {
    repo = await makeRepo({
      "pkg/__init__.py": { imports: [imp(".mod", "import", ["thing"])] },
      "pkg/mod.py": "",
      "pkg/user.py": { imports: [imp(".", "import", ["mod"]), imp("..outside_pkg", "import", ["x"])] },
      "pkg/sub/__init__.py": "",
      "pkg/sub/deep.py": { imports: [imp("..mod", "import", ["thing"]), imp("...", "import", ["top"])] },
      "top.py": { imports: [imp("pkg.mod", "import", [["m", "pkg.mod"]]), imp("os"), imp("requests"), imp("pkg", "import", ["mod"])] },
      "src/spkg/__init__.py": "",
      "src/spkg/m.py": "",
      "app.py": { imports: [imp("spkg.m"), imp("nspkg.leaf")] },
      "nspkg/leaf.py": "",
      "services/api/handlers/__init__.py": "",
      "services/api/handlers/users.py": { imports: [imp("handlers.util", "import", ["x"])] },
      "services/api/handlers/util.py": "",
      "services/a/common/__init__.py": "",
      "services/b/common/__init__.py": "",
      "scripts/run.py": { imports: [imp("common")] },
      "climb.py": { imports: [imp("...secrets", "import", ["key"])] },
    });
    graph = await ImportGraph.for(repo.index, repo.workspace);
  });
  afterAll(() => repo.cleanup());

  test("relative imports climb one folder per extra dot; `from . import x` depends on the submodule", () => {
    expect(targets(graph, repo, "pkg/__init__.py")).toEqual({ ".mod": ["pkg/mod.py"] });
    expect(targets(graph, repo, "pkg/user.py")).toEqual({ ".": ["pkg/__init__.py", "pkg/mod.py"] });
    expect(unresolvedOf(graph, repo, "pkg/user.py")).toEqual({ "..outside_pkg": "not_found" });
    expect(targets(graph, repo, "pkg/sub/deep.py")).toEqual({ "..mod": ["pkg/mod.py"], "...": ["top.py"] });
    expect(via(graph, repo, "pkg/sub/deep.py", "..mod")).toBe("python_relative");
  });

  test("absolute imports from the roots, src/ layouts, namespace packages and package roots", () => {
    expect(targets(graph, repo, "top.py")).toEqual({ "pkg.mod": ["pkg/mod.py"], pkg: ["pkg/__init__.py", "pkg/mod.py"] });
    expect(targets(graph, repo, "app.py")).toEqual({ "spkg.m": ["src/spkg/m.py"], "nspkg.leaf": ["nspkg/leaf.py"] });
    expect(targets(graph, repo, "services/api/handlers/users.py")).toEqual({ "handlers.util": ["services/api/handlers/util.py"] });
  });

  test("stdlib and third-party modules are external; two top-level packages of one name are ambiguous", () => {
    expect(graph.externalsOf(repo.real("top.py"))).toEqual([
      { package: "os", builtin: true, files: 1, imports: 1 },
      { package: "requests", builtin: false, files: 1, imports: 1 },
    ]);
    const [entry] = graph.unresolvedOf(repo.real("scripts/run.py"));
    expect(entry?.reason).toBe("ambiguous");
    expect(entry?.candidates?.map((candidate) => path.relative(repo.root, candidate)).sort()).toEqual(["services/a/common/__init__.py", "services/b/common/__init__.py"]);
  });

  test("relative imports that climb out of the roots are outside_roots", () => {
    expect(unresolvedOf(graph, repo, "climb.py")).toEqual({ "...secrets": "outside_roots" });
  });
});

describe("Python layouts", () => {
  test("a root that is itself a package is imported by its folder's name (root django/: from django.utils.crypto import …)", async () => {
    const repo = await makeRepo(
      {
        "__init__.py": "",
        "utils/__init__.py": "",
        "utils/crypto.py": "",
        "contrib/__init__.py": "",
        "contrib/auth/__init__.py": "",
        "contrib/auth/hashers.py": {
          imports: [imp("django.utils.crypto", "import", ["get_random_string"]), imp("django.utils", "import", ["crypto"]), imp("django"), imp("djangoish.x")],
        },
      },
      { rootName: "django" },
    );
    try {
      expect(path.basename(repo.root)).toBe("django");
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "contrib/auth/hashers.py")).toEqual({
        "django.utils.crypto": ["utils/crypto.py"],
        "django.utils": ["utils/__init__.py", "utils/crypto.py"],
        django: ["__init__.py"],
      });
      expect(graph.externalsOf(repo.real("contrib/auth/hashers.py"))).toEqual([{ package: "djangoish", builtin: false, files: 1, imports: 1 }]);
      expect(graph.dependentsOf(repo.real("utils/crypto.py")).map((edge) => path.relative(repo.root, edge.from))).toEqual(["contrib/auth/hashers.py", "contrib/auth/hashers.py"]);
    } finally {
      await repo.cleanup();
    }
  });

  test("pyproject.toml setuptools: package-dir renames a package, packages.find where adds folders (namespace packages too); src/ still works", async () => {
    const repo = await makeRepo({
      "pyproject.toml":
        "[project]\nname = \"acme\"\n\n[tool.setuptools]\npackage-dir = { \"acme\" = \"lib/acme_impl\", \"\" = \"src\" }\n\n[tool.setuptools.packages.find]\nwhere = [\"src\", \"plugins\"]\n",
      "lib/acme_impl/__init__.py": "",
      "lib/acme_impl/core.py": "",
      "src/widgets/__init__.py": "",
      "src/widgets/button.py": "",
      "plugins/ns/tool.py": "",
      "app/main.py": { imports: [imp("acme.core"), imp("acme", "import", ["core"]), imp("ns.tool"), imp("widgets.button")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "app/main.py")).toEqual({
        "acme.core": ["lib/acme_impl/core.py"],
        acme: ["lib/acme_impl/__init__.py", "lib/acme_impl/core.py"],
        "ns.tool": ["plugins/ns/tool.py"],
        "widgets.button": ["src/widgets/button.py"],
      });
    } finally {
      await repo.cleanup();
    }
  });

  test("a subpackage placed elsewhere wins over the folder of the package above it, whichever was declared first", async () => {
    const repo = await makeRepo({
      "pyproject.toml": "[tool.setuptools.package-dir]\n\"acme\" = \"lib/acme\"\n\"acme.plugins\" = \"extra/plugins\"\n",
      "lib/acme/__init__.py": "",
      "lib/acme/plugins/__init__.py": "",
      "lib/acme/plugins/tool.py": "",
      "extra/plugins/__init__.py": "",
      "extra/plugins/tool.py": "",
      "app/main.py": { imports: [imp("acme.plugins.tool"), imp("acme")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "app/main.py")).toEqual({ "acme.plugins.tool": ["extra/plugins/tool.py"], acme: ["lib/acme/__init__.py"] });
    } finally {
      await repo.cleanup();
    }
  });

  test("poetry's packages (include, from) and hatch's wheel packages win over another folder of the same name", async () => {
    const repo = await makeRepo({
      "svc/pyproject.toml": "[tool.poetry]\nname = \"svc\"\npackages = [{ include = \"svc_core\", from = \"lib\" }]\n",
      "svc/lib/svc_core/__init__.py": "",
      "examples/svc_core/__init__.py": "",
      "tool/pyproject.toml": "[tool.hatch.build.targets.wheel]\npackages = [\"source/hatched\"]\n",
      "tool/source/hatched/__init__.py": "",
      "tool/source/hatched/m.py": "",
      "old/hatched/__init__.py": "",
      "old/hatched/m.py": "",
      "scripts/run.py": { imports: [imp("svc_core"), imp("hatched.m")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      // Without the declarations both names are ambiguous (two top-level packages each).
      expect(unresolvedOf(graph, repo, "scripts/run.py")).toEqual({});
      expect(targets(graph, repo, "scripts/run.py")).toEqual({ svc_core: ["svc/lib/svc_core/__init__.py"], "hatched.m": ["tool/source/hatched/m.py"] });
    } finally {
      await repo.cleanup();
    }
  });

  test("setup.cfg: package_dir (= src, and a renamed package), packages = find: with where, and a listed packages line", async () => {
    const repo = await makeRepo({
      "legacy/setup.py": "",
      "legacy/setup.cfg":
        "[metadata]\nname = legacy\n\n[options]\npackage_dir =\n    = src\n    extra = third/extra_impl\npackages = find:\n\n[options.packages.find]\nwhere = src\n",
      "legacy/src/oldpkg/__init__.py": "",
      "other/oldpkg/__init__.py": "",
      "legacy/third/extra_impl/__init__.py": "",
      "legacy/third/extra_impl/x.py": "",
      "flat/setup.cfg": "[options]\npackages = flatpkg, flatpkg.sub\n",
      "flat/flatpkg/__init__.py": "",
      "misc/flatpkg/__init__.py": "",
      "scripts/use.py": { imports: [imp("oldpkg"), imp("extra.x"), imp("flatpkg")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(unresolvedOf(graph, repo, "scripts/use.py")).toEqual({});
      expect(targets(graph, repo, "scripts/use.py")).toEqual({
        oldpkg: ["legacy/src/oldpkg/__init__.py"],
        "extra.x": ["legacy/third/extra_impl/x.py"],
        flatpkg: ["flat/flatpkg/__init__.py"],
      });
    } finally {
      await repo.cleanup();
    }
  });
});

describe("Go", () => {
  test("module path from go.mod; a package is every non-test file of its folder; replace to a local folder", async () => {
    const repo = await makeRepo({
      "go.mod":
        "module example.com/app // the app\n\ngo 1.22\n\nreplace example.com/lib => ./third_party/lib\nreplace (\n  example.com/gone v1.0.0 => ../../../../../../../outside\n)\n",
      "internal/util/a.go": "",
      "internal/util/b.go": "",
      "internal/util/a_test.go": "",
      "third_party/lib/lib.go": "",
      "cmd/main.go": {
        imports: [
          imp("example.com/app/internal/util"),
          imp("fmt"),
          imp("net/http"),
          imp("github.com/pkg/errors/sub"),
          imp("example.com/lib"),
          imp("example.com/app/nothing"),
          imp("example.com/gone/x"),
        ],
      },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "cmd/main.go")).toEqual({
        "example.com/app/internal/util": ["internal/util/a.go", "internal/util/b.go"],
        "example.com/lib": ["third_party/lib/lib.go"],
      });
      expect(via(graph, repo, "cmd/main.go", "example.com/lib")).toBe("go_module");
      expect(unresolvedOf(graph, repo, "cmd/main.go")).toEqual({ "example.com/app/nothing": "not_found", "example.com/gone/x": "outside_roots" });
      expect(graph.externalsOf(repo.real("cmd/main.go"))).toEqual([
        { package: "fmt", builtin: true, files: 1, imports: 1 },
        { package: "net/http", builtin: true, files: 1, imports: 1 },
        { package: "github.com/pkg/errors", builtin: false, files: 1, imports: 1 },
      ]);
    } finally {
      await repo.cleanup();
    }
  });
  test("every importer of a Go package gets one shared list of its files; a file of the package that imports it links to the others only", async () => {
    const repo = await makeRepo({
      "go.mod": "module example.com/app\n",
      "util/a.go": "",
      "util/b.go": { imports: [imp("example.com/app/util")] },
      "cmd/main.go": { imports: [imp("example.com/app/util")] },
      "cmd/other.go": { imports: [imp("fmt"), imp("example.com/app/util", "import", [], 2)] },
    });
    try {
      const resolver = new GoResolver({ table: new FileTable(repo.index.files()), configs: new ConfigFiles(repo.workspace) });
      const first = await resolver.resolve(repo.index.get(repo.real("cmd/main.go"))!, imp("example.com/app/util"));
      const second = await resolver.resolve(repo.index.get(repo.real("cmd/other.go"))!, imp("example.com/app/util", "import", [], 2));
      expect(first.kind === "file" && second.kind === "file" && first.targets === second.targets).toBe(true);

      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "util/b.go")).toEqual({ "example.com/app/util": ["util/a.go"] });
      expect(graph.dependentsOf(repo.real("util/a.go")).map((edge) => `${path.relative(repo.root, edge.from)}:${edge.line}`)).toEqual([
        "util/b.go:1",
        "cmd/main.go:1",
        "cmd/other.go:2",
      ]);
      expect(graph.dependentsOf(repo.real("util/b.go")).map((edge) => path.relative(repo.root, edge.from))).toEqual(["cmd/main.go", "cmd/other.go"]);
      expect(graph.predecessors(repo.real("util/b.go")).map((real) => path.relative(repo.root, real))).toEqual(["cmd/main.go", "cmd/other.go"]);
      expect(graph.successors(repo.real("cmd/other.go")).map((real) => path.relative(repo.root, real))).toEqual(["util/a.go", "util/b.go"]);
      // The whole package is named, so each edge of the statement reaches other files too; b.go's only edge does not.
      expect(graph.dependenciesOf(repo.real("cmd/main.go")).map((edge) => graph.sharesPackage(edge))).toEqual([true, true]);
      expect(graph.dependenciesOf(repo.real("util/b.go")).map((edge) => graph.sharesPackage(edge))).toEqual([false]);
    } finally {
      await repo.cleanup();
    }
  });
});

describe("Go workspaces", () => {
  test("go.work use folders (a block and a single line) make each module's packages resolvable from the others", async () => {
    const repo = await makeRepo({
      "go.work": "go 1.22\n\nuse (\n  ./api // the API\n  ./shared\n)\nuse ./tools\n",
      "api/go.mod": "module example.com/api\n",
      "api/server/server.go": { imports: [imp("example.com/shared/auth"), imp("example.com/tools/gen"), imp("example.com/unused/x")] },
      "shared/go.mod": "module example.com/shared\n",
      "shared/auth/auth.go": "",
      "tools/go.mod": "module example.com/tools\n",
      "tools/gen/gen.go": "",
      // Not listed in go.work and never prepared: its module is unknown, so its path is an external module.
      "unused/go.mod": "module example.com/unused\n",
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "api/server/server.go")).toEqual({ "example.com/shared/auth": ["shared/auth/auth.go"], "example.com/tools/gen": ["tools/gen/gen.go"] });
      expect(graph.externalsOf(repo.real("api/server/server.go"))).toEqual([{ package: "example.com/unused/x", builtin: false, files: 1, imports: 1 }]);
      // Resolved alone (only its own go.mod prepared), the file still sees the workspace's modules.
      const file = repo.index.get(repo.real("api/server/server.go"))!;
      const alone = await graph.importsOf({ ...file, sha256: "changed" });
      expect(alone.edges.map((edge) => path.relative(repo.root, edge.to))).toEqual(["shared/auth/auth.go", "tools/gen/gen.go"]);
    } finally {
      await repo.cleanup();
    }
  });
});

describe("Go source tree (module std)", () => {
  test("dotless import paths are packages of the tree: net/http is the folder src/net/http, for std, cmd and the tree's other folders", async () => {
    const repo = await makeRepo({
      "src/go.mod": "module std\n\ngo 1.19\n",
      "src/net/http/server.go": "",
      "src/net/http/server_test.go": "",
      "src/strings/strings.go": "",
      "src/database/sql/example_service_test.go": {
        imports: [imp("net/http"), imp("strings"), imp("nosuch/pkg"), imp("golang.org/x/net/idna"), imp("strings/../../test/fixedbugs")],
      },
      "src/cmd/go.mod": "module cmd\n\ngo 1.19\n",
      "src/cmd/go/internal/base/base.go": "",
      "src/cmd/go/main.go": { imports: [imp("cmd/go/internal/base"), imp("strings")] },
      "test/fixedbugs/issue1.go": { imports: [imp("strings"), imp("os")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "src/database/sql/example_service_test.go")).toEqual({ "net/http": ["src/net/http/server.go"], strings: ["src/strings/strings.go"] });
      expect(via(graph, repo, "src/database/sql/example_service_test.go", "net/http")).toBe("go_module");
      // Inside the tree a standard package that is not there is missing, not the toolchain's.
      // A path that climbs out of the standard library's folder reaches nothing, not another folder of the tree.
      expect(unresolvedOf(graph, repo, "src/database/sql/example_service_test.go")).toEqual({ "nosuch/pkg": "not_found", "strings/../../test/fixedbugs": "not_found" });
      expect(graph.externalsOf(repo.real("src/database/sql/example_service_test.go"))).toEqual([{ package: "golang.org/x/net", builtin: false, files: 1, imports: 1 }]);
      expect(targets(graph, repo, "src/cmd/go/main.go")).toEqual({ "cmd/go/internal/base": ["src/cmd/go/internal/base/base.go"], strings: ["src/strings/strings.go"] });
      // GOROOT/test has no go.mod: its files import the tree's standard library too; what the tree lacks stays the toolchain's.
      expect(targets(graph, repo, "test/fixedbugs/issue1.go")).toEqual({ strings: ["src/strings/strings.go"] });
      expect(graph.externalsOf(repo.real("test/fixedbugs/issue1.go"))).toEqual([{ package: "os", builtin: true, files: 1, imports: 1 }]);
      expect(graph.dependentsOf(repo.real("src/net/http/server.go")).map((edge) => path.relative(repo.root, edge.from))).toEqual(["src/database/sql/example_service_test.go"]);
    } finally {
      await repo.cleanup();
    }
  });

  test("a file of src/cmd resolves standard packages on its own, with the tree below the root", async () => {
    const repo = await makeRepo({
      "go/src/go.mod": "module std\n",
      "go/src/strings/strings.go": "",
      "go/src/cmd/go.mod": "module cmd\n",
      "go/src/cmd/go/main.go": { imports: [imp("strings")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      const file = repo.index.get(repo.real("go/src/cmd/go/main.go"))!;
      // A changed file is resolved alone (fresh resolvers, only its own go.mod prepared).
      const imports = await graph.importsOf({ ...file, sha256: "changed" });
      expect(imports.edges.map((edge) => path.relative(repo.root, edge.to))).toEqual(["go/src/strings/strings.go"]);
    } finally {
      await repo.cleanup();
    }
  });

  test("a nested go.mod that says module std (a testdata tree) serves only the files below it, not the workspace or the real tree", async () => {
    const repo = await makeRepo({
      "go.mod": "module example.com/m\n",
      "main.go": { imports: [imp("strings")] },
      "testdata/go.mod": "module std\n",
      "testdata/strings/strings.go": "",
      "testdata/fake/fake.go": { imports: [imp("strings")] },
      "goroot/src/go.mod": "module std\n",
      "goroot/src/strings/strings.go": "",
      "goroot/src/net/net.go": { imports: [imp("strings")] },
      "goroot/src/cmd/go/testdata/std/go.mod": "module std\n",
      "goroot/src/cmd/go/testdata/std/strings/strings.go": "",
      "goroot/test/issue1.go": { imports: [imp("strings")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      // The normal module's "strings" stays the toolchain's, whichever go.mod was read last.
      expect(targets(graph, repo, "main.go")).toEqual({});
      expect(graph.externalsOf(repo.real("main.go"))).toEqual([{ package: "strings", builtin: true, files: 1, imports: 1 }]);
      expect(targets(graph, repo, "testdata/fake/fake.go")).toEqual({ strings: ["testdata/strings/strings.go"] });
      // A Go tree keeps its own standard library (the folder above src/ is the tree: GOROOT/test uses it too).
      expect(targets(graph, repo, "goroot/src/net/net.go")).toEqual({ strings: ["goroot/src/strings/strings.go"] });
      expect(targets(graph, repo, "goroot/test/issue1.go")).toEqual({ strings: ["goroot/src/strings/strings.go"] });
    } finally {
      await repo.cleanup();
    }
  });

  test("the same tree under an ordinary module path still treats dotless paths as the toolchain's", async () => {
    const repo = await makeRepo({
      "go.mod": "module example.com/m\n",
      "strings/strings.go": "",
      "main.go": { imports: [imp("strings"), imp("example.com/m/strings")] },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "main.go")).toEqual({ "example.com/m/strings": ["strings/strings.go"] });
      expect(graph.externalsOf(repo.real("main.go"))).toEqual([{ package: "strings", builtin: true, files: 1, imports: 1 }]);
    } finally {
      await repo.cleanup();
    }
  });
});

describe("Rust", () => {
  test("mod declarations, crate/self/super paths, groups, workspace crates and external crates", async () => {
    const repo = await makeRepo({
      "Cargo.toml": "[package]\nname = \"my-crate\"\nversion = \"0.1.0\"\n",
      "src/lib.rs": {
        imports: [
          imp("a", "mod"),
          imp("c", "mod"),
          imp("missing", "mod"),
          imp("crate::{a::b::Thing, c::D}", "use"),
          imp("std::io::Read", "use"),
          imp("serde::Serialize", "use"),
          imp("helper_crate::api::run", "use"),
        ],
      },
      "src/a.rs": { imports: [imp("b", "mod"), imp("self::b::Thing", "use"), imp("super::c::D", "use")] },
      "src/a/b.rs": { imports: [imp("super::super::c", "use"), imp("super::Other", "use"), imp("crate::Top", "use")] },
      "src/c/mod.rs": { imports: [imp("super::a::b", "use")] },
      "src/main.rs": { imports: [imp("my_crate::a", "use")] },
      "helper/Cargo.toml": "[package]\nname = \"helper-crate\"\n",
      "helper/src/lib.rs": { imports: [imp("api", "mod")] },
      "helper/src/api.rs": "",
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "src/lib.rs")).toEqual({
        a: ["src/a.rs"],
        c: ["src/c/mod.rs"],
        "crate::{a::b::Thing, c::D}": ["src/a/b.rs", "src/c/mod.rs"],
        "helper_crate::api::run": ["helper/src/api.rs"],
      });
      expect(unresolvedOf(graph, repo, "src/lib.rs")).toEqual({ missing: "not_found" });
      expect(graph.externalsOf(repo.real("src/lib.rs")).map((entry) => `${entry.package}:${entry.builtin}`)).toEqual(["std:true", "serde:false"]);
      expect(targets(graph, repo, "src/a.rs")).toEqual({ b: ["src/a/b.rs"], "self::b::Thing": ["src/a/b.rs"], "super::c::D": ["src/c/mod.rs"] });
      expect(targets(graph, repo, "src/a/b.rs")).toEqual({ "super::super::c": ["src/c/mod.rs"], "super::Other": ["src/a.rs"], "crate::Top": ["src/lib.rs"] });
      expect(targets(graph, repo, "src/c/mod.rs")).toEqual({ "super::a::b": ["src/a/b.rs"] });
      expect(targets(graph, repo, "src/main.rs")).toEqual({ "my_crate::a": ["src/a.rs"] });
    } finally {
      await repo.cleanup();
    }
  });
});

describe("Java and Kotlin", () => {
  test("imports name the file of the declaring package, wherever it sits; wildcards name the package", async () => {
    const repo = await makeRepo({
      "core/src/main/java/com/acme/model/User.java": { content: "/* header */\npackage com.acme.model;\n\npublic class User {}\n", symbols: [sym("User", { kind: "class" })] },
      "core/src/main/java/com/acme/model/Role.java": { content: "package com.acme.model;\npublic enum Role {}\n", symbols: [sym("Role", { kind: "enum" })] },
      "core/src/main/kotlin/Helpers.kt": { content: "package com.acme.util\n\nfun slugify(text: String) = text\n", symbols: [sym("slugify")] },
      "app/src/Main.java": {
        content: "package com.acme.app;\n",
        imports: [
          imp("com.acme.model.User"),
          imp("com.acme.model.*"),
          imp("com.acme.model", "import", [["*", "*"]], 2),
          imp("com.acme.util.slugify"),
          imp("com.acme.model.User.Builder"),
          imp("java.util.List"),
          imp("org.junit.Test"),
          imp("com.acme.model.Missing"),
        ],
      },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace, { readHead: async (file) => readFile(file.real, "utf8") });
      expect(targets(graph, repo, "app/src/Main.java")).toEqual({
        "com.acme.model.User": ["core/src/main/java/com/acme/model/User.java"],
        "com.acme.model.*": ["core/src/main/java/com/acme/model/Role.java", "core/src/main/java/com/acme/model/User.java"],
        "com.acme.model": ["core/src/main/java/com/acme/model/Role.java", "core/src/main/java/com/acme/model/User.java"],
        "com.acme.util.slugify": ["core/src/main/kotlin/Helpers.kt"],
        "com.acme.model.User.Builder": ["core/src/main/java/com/acme/model/User.java"],
      });
      expect(unresolvedOf(graph, repo, "app/src/Main.java")).toEqual({ "com.acme.model.Missing": "not_found" });
      expect(graph.externalsOf(repo.real("app/src/Main.java")).map((entry) => `${entry.package}:${entry.builtin}`)).toEqual(["java.util:true", "org.junit:false"]);
    } finally {
      await repo.cleanup();
    }
  });

  test("a file's package is read once per content while its graph lives, and a graph of another index reads its own", async () => {
    const java = { content: "package com.acme.model;\npublic class User {}\n", symbols: [sym("User", { kind: "class" })] };
    const main = { content: "package com.acme.app;\n", imports: [imp("com.acme.model.User")] };
    const repo = await makeRepo({ "src/User.java": java, "src/Main.java": main });
    try {
      const heads: string[] = [];
      const readHead = async (file: { real: string }) => {
        heads.push(path.basename(file.real));
        return readFile(file.real, "utf8");
      };
      await ImportGraph.for(repo.index, repo.workspace, { readHead });
      const first = heads.length;
      expect(first).toBeGreaterThan(0);
      // A change elsewhere refreshes the graph; unchanged Java files are not read again.
      await repo.add("notes.ts", { imports: [imp("./nothing")] });
      const refreshed = await ImportGraph.for(repo.index, repo.workspace, { readHead });
      expect(heads.length).toBe(first);
      expect(targets(refreshed, repo, "src/Main.java")).toEqual({ "com.acme.model.User": ["src/User.java"] });
      const other = new FakeIndex(repo.root);
      other.put("src/User.java", java, java.content);
      other.put("src/Main.java", main, main.content);
      await ImportGraph.for(other, repo.workspace, { readHead });
      expect(heads.length).toBe(2 * first);
    } finally {
      await repo.cleanup();
    }
  });
});

describe("C and C++ includes", () => {
  test("quoted headers next to the includer or in include/; angle brackets are system headers", async () => {
    const repo = await makeRepo({
      "include/lib/api.h": "",
      "src/local.h": "",
      "src/main.c": {
        imports: [
          imp("\"local.h\"", "include"),
          imp("\"lib/api.h\"", "include"),
          imp("<stdio.h>", "include"),
          imp("\"../../../../../../../../etc/x.h\"", "include"),
          imp("\"nope.h\"", "include"),
        ],
      },
    });
    try {
      const graph = await ImportGraph.for(repo.index, repo.workspace);
      expect(targets(graph, repo, "src/main.c")).toEqual({ "\"local.h\"": ["src/local.h"], "\"lib/api.h\"": ["include/lib/api.h"] });
      expect(unresolvedOf(graph, repo, "src/main.c")).toEqual({ "\"../../../../../../../../etc/x.h\"": "outside_roots", "\"nope.h\"": "not_found" });
      expect(graph.externalsOf(repo.real("src/main.c")).map((entry) => entry.package)).toEqual(["stdio.h"]);
    } finally {
      await repo.cleanup();
    }
  });
});

describe("a package importing itself by its own name", () => {
  let repo: Repo;
  let graph: ImportGraph;

  beforeAll(async () => {
    repo = await makeRepo({
      // Published like zod: the exports name built files; the source sits under src/.
      "package.json": JSON.stringify({
        name: "kit",
        exports: {
          ".": { types: "./index.d.cts", import: "./index.js" },
          "./v4": { types: "./v4/index.d.cts", import: "./v4/index.js" },
          "./v4/core": { types: "./v4/core/index.d.cts", import: "./v4/core/index.js" },
        },
      }),
      "src/index.ts": "",
      "src/v4/index.ts": "",
      "src/v4/core/index.ts": "",
      "src/v4/tests/self.test.ts": { imports: [imp("kit"), imp("kit/v4", "import", [], 2), imp("kit/v4/core", "import", [], 3), imp("kit/v5", "import", [], 4)] },
    });
    graph = await ImportGraph.for(repo.index, repo.workspace);
  });
  afterAll(() => repo.cleanup());

  test("the root's package.json makes its name a workspace package: each export maps back to the source", () => {
    expect(targets(graph, repo, "src/v4/tests/self.test.ts")).toEqual({
      kit: ["src/index.ts"],
      "kit/v4": ["src/v4/index.ts"],
      "kit/v4/core": ["src/v4/core/index.ts"],
    });
    expect(unresolvedOf(graph, repo, "src/v4/tests/self.test.ts")).toEqual({ "kit/v5": "not_found" });
  });
});
