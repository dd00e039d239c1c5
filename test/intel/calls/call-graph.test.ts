/** The call graph over hand-built facts: precision against same-name decoys, recall through re-exports, walks, trace, implements, impact, context. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { CallGraph } from "../../../src/intel/calls/call-graph.ts";
import { packContext } from "../../../src/intel/calls/context.ts";
import { impactOf, implementationsOf, traceCalls, walkCalls } from "../../../src/intel/calls/queries.ts";
import { isTestFile, testedStem } from "../../../src/intel/calls/tests.ts";
import type { SymbolRef } from "../../../src/intel/calls/types.ts";
import { call, imp, makeRepo, type Repo, sym } from "../graph/fixture.ts";

let repo: Repo;
let graph: CallGraph;

const UTIL = `export function format(value: string): string {
  return helper(value).trim();
}

export function helper(value: string): string {
  return value + " ";
}
`;

beforeAll(async () => {
  repo = await makeRepo({
    "src/fmt/util.ts": {
      content: UTIL,
      symbols: [
        sym("format", { startLine: 1, endLine: 3, signature: "export function format(value: string): string" }),
        sym("helper", { startLine: 5, endLine: 7, signature: "export function helper(value: string): string" }),
      ],
      calls: [call("helper", { caller: "format", line: 2, column: 10 })],
    },
    "src/fmt/index.ts": {
      imports: [imp("./util", "reexport", ["format"]), imp("./extra", "reexport", [["*", "*"]], 2)],
      exportedNames: [{ name: "format", from: "./util", line: 1 }, { name: "*", from: "./extra", line: 2 }],
    },
    "src/fmt/extra.ts": { symbols: [sym("pad")] },
    "src/other/format.ts": { symbols: [sym("format")] },
    "src/app.ts": {
      imports: [imp("./fmt", "import", ["format", "pad"])],
      symbols: [sym("main", { startLine: 2, endLine: 5, signature: "export function main()" })],
      calls: [call("format", { caller: "main", line: 3 }), call("pad", { caller: "main", line: 4 })],
    },
    "src/decoy-user.ts": {
      imports: [imp("./other/format", "import", ["format"])],
      symbols: [sym("useDecoy")],
      calls: [call("format", { caller: "useDecoy", line: 2 })],
    },
    "src/aliased.ts": { imports: [imp("./fmt/util", "import", [["fmt", "format"]])], calls: [call("fmt", { line: 2 })] },
    "src/ns.ts": { imports: [imp("./fmt/util", "import", [["F", "*"]])], symbols: [sym("viaNamespace")], calls: [call("F.format", { caller: "viaNamespace", line: 2 })] },
    "src/unbound.ts": {
      imports: [imp("./fmt", "import", [], 1), imp("./other/format", "import", [], 1)],
      symbols: [sym("guess", { startLine: 1, endLine: 4 })],
      calls: [call("thing.format", { caller: "guess", line: 2 }), call("console.log", { caller: "guess", line: 3 })],
    },
    // Imports nothing that declares format or helper: a guess by name would be a false edge.
    "src/far.ts": { symbols: [sym("far", { startLine: 1, endLine: 4 })], calls: [call("text.format", { caller: "far", line: 2 }), call("helper", { caller: "far", line: 3 })] },
    "star/lib.py": { symbols: [sym("starred")] },
    "star/use.py": { imports: [imp("star.lib", "import", [["*", "*"]])], calls: [call("starred", { line: 2 })] },
    "src/local.ts": { symbols: [sym("format", { exported: false }), sym("caller")], calls: [call("format", { caller: "caller", line: 5 })] },
    "src/external.ts": { imports: [imp("lodash", "import", ["format"])], calls: [call("format", { line: 2 })] },
    "src/shapes.ts": {
      symbols: [
        sym("Shape", { kind: "interface", startLine: 1, endLine: 3 }),
        sym("Circle", { kind: "class", startLine: 4, endLine: 10, heritage: ["Shape"] }),
        sym("area", { kind: "method", parent: "Circle", startLine: 5, endLine: 7 }),
        sym("radius", { kind: "method", parent: "Circle", startLine: 8, endLine: 9 }),
        sym("Big", { kind: "class", startLine: 11, endLine: 14, heritage: ["Circle"] }),
        sym("grow", { kind: "method", parent: "Big", startLine: 12, endLine: 13 }),
      ],
      calls: [call("this.radius", { caller: "Circle.area", line: 6 }), call("this.radius", { caller: "Big.grow", line: 12 })],
    },
    "src/other-shapes.ts": {
      symbols: [sym("Shape", { kind: "interface" }), sym("Square", { kind: "class", heritage: ["Shape"] })],
    },
    "src/shape-user.ts": { imports: [imp("./shapes", "import", ["Shape"])], symbols: [sym("Oval", { kind: "class", heritage: ["Shape<number>"] })] },
    "test/app.test.ts": { imports: [imp("../src/app", "import", ["main"])], calls: [call("main", { line: 3 })] },
    "test/util.test.ts": {},
    // Python: a package re-exports a function through its __init__.
    "pkg/__init__.py": { imports: [imp(".core", "import", ["run"])] },
    "pkg/core.py": { symbols: [sym("run")] },
    "main.py": { imports: [imp("pkg", "import", ["run"]), imp("pkg.core", "import", [["c", "pkg.core"]], 2)], calls: [call("run", { line: 3 }), call("c.run", { line: 4 })] },
    // Go: a package-qualified call and a same-package call.
    "go.mod": "module example.com/app\n",
    "util/do.go": { symbols: [sym("Do"), sym("helper", { exported: false })] },
    "util/more.go": { symbols: [sym("More")], calls: [call("helper", { caller: "More" })] },
    "cmd/main.go": { imports: [imp("example.com/app/util")], symbols: [sym("main")], calls: [call("util.Do", { caller: "main" })] },
    "util/server.go": {
      symbols: [
        sym("Server", { kind: "struct" }),
        sym("Start", { kind: "method", parent: "Server", signature: "func (s *Server) Start()", startLine: 3, endLine: 5 }),
      ],
      calls: [call("s.run", { caller: "Server.Start", line: 4 })],
    },
    "util/server_run.go": { symbols: [sym("run", { kind: "method", parent: "Server", signature: "func (s *Server) run()" })] },
    "other/other.go": { symbols: [sym("run", { kind: "method", parent: "Other", signature: "func (o *Other) run()" })] },
    // Python: `import a.b` binds a; `a.b.f()` calls into a/b.py.
    "pkg/sub2.py": { symbols: [sym("deep")] },
    "main2.py": { imports: [imp("pkg.sub2", "import", [["pkg", "pkg.sub2"]])], calls: [call("pkg.sub2.deep", { line: 2 })] },
    // Rust: self.method() inside an impl, Type::new() on an imported or local type.
    "rs/shapes.rs": {
      symbols: [
        sym("S", { kind: "struct", heritage: ["Trait"] }),
        sym("go", { kind: "method", parent: "S", startLine: 2, endLine: 4 }),
        sym("other", { kind: "method", parent: "S", startLine: 5, endLine: 5 }),
        sym("Foo", { kind: "struct" }),
        sym("new", { kind: "method", parent: "Foo", startLine: 7, endLine: 7 }),
      ],
      calls: [call("self.other", { caller: "S.go", line: 3 }), call("Foo::new", { caller: "S.go", line: 3 })],
    },
    // Java: a static import names a member of the imported type; same-package types need no import.
    "java/com/acme/Bar.java": { content: "package com.acme;\n", symbols: [sym("Bar", { kind: "class" }), sym("baz", { kind: "method", parent: "Bar" })] },
    "java/com/acme/Helper.java": { content: "package com.acme;\n", symbols: [sym("Helper", { kind: "class" }), sym("run", { kind: "method", parent: "Helper" })] },
    "java/org/other/Helper.java": {
      content: "package org.other;\n",
      symbols: [sym("Helper", { kind: "class" }), sym("run", { kind: "method", parent: "Helper" }), sym("baz", { kind: "method", parent: "Helper" })],
    },
    "java/com/acme/App.java": {
      content: "package com.acme;\n",
      imports: [imp("com.acme.Bar", "import", ["baz"], 2)],
      symbols: [sym("App", { kind: "class" }), sym("main", { kind: "method", parent: "App", startLine: 3, endLine: 9 })],
      calls: [call("baz", { caller: "App.main", line: 4 }), call("Helper.run", { caller: "App.main", line: 5 }), call("Helper", { caller: "App.main", line: 6 })],
    },
    "rs/decoy.rs": { symbols: [sym("Bar", { kind: "struct" }), sym("other", { kind: "method", parent: "Bar" }), sym("new", { kind: "method", parent: "Bar" })] },
  });
  graph = await CallGraph.for(repo.index, repo.workspace, { readHead: (file) => readFile(file.real, "utf8") });
});
afterAll(() => repo.cleanup());

function find(query: string, file?: string): SymbolRef {
  const found = graph.findSymbols(query, file ? { real: repo.real(file), directory: false } : undefined);
  if (found.length === 0) throw new Error(`no symbol ${query}`);
  return found[0]!;
}

const where = (real: string, line: number) => `${path.relative(repo.root, real)}:${line}`;

describe("declarations", () => {
  test("a declaration is one object however it is reached: symbolsOf, findSymbols, symbolsNamed, a call's targets and a caller", () => {
    const helper = find("helper", "src/fmt/util.ts");
    expect(graph.symbolsOf(repo.real("src/fmt/util.ts"))[1]).toBe(helper);
    expect(graph.findSymbols("helper").find((symbol) => symbol.file === helper.file)).toBe(helper);
    expect(graph.symbolsNamed("helper").find((symbol) => symbol.file === helper.file)).toBe(helper);
    const format = graph.symbolsNamed("format").find((symbol) => symbol.file === helper.file)!;
    expect(graph.symbolsOf(repo.real("src/fmt/util.ts"))[0]).toBe(format);
    const [edge] = graph.calleesOf(format).edges;
    expect(edge?.targets[0]).toBe(helper);
    expect(graph.callersOf(helper)[0]?.caller).toBe(format);
    expect(graph.symbolsOf(repo.real("src/fmt/util.ts"))).toBe(graph.symbolsOf(repo.real("src/fmt/util.ts")));
  });

  test("the declarations that extend or implement something are every one with heritage, in index order", () => {
    expect(graph.symbolsWithHeritage().map((symbol) => `${path.relative(repo.root, symbol.file)}#${symbol.qualifiedName}`)).toEqual(
      graph.imports.files().flatMap((file) =>
        graph.symbolsOf(file.real).filter((symbol) => symbol.heritage).map((symbol) => `${path.relative(repo.root, symbol.file)}#${symbol.qualifiedName}`)
      ),
    );
    expect(graph.symbolsWithHeritage().length).toBe(5);
  });
});

describe("callers", () => {
  test("precision: a same-name declaration elsewhere and its importers are never exact callers", () => {
    const callers = graph.callersOf(find("format", "src/fmt/util.ts"));
    const exact = callers.filter((edge) => edge.confidence === "exact").map((edge) => where(edge.site.file, edge.site.fact.line));
    expect(exact.sort()).toEqual(["src/aliased.ts:2", "src/app.ts:3", "src/ns.ts:2"]);
    expect(exact).not.toContain("src/decoy-user.ts:2");
    expect(exact).not.toContain("src/local.ts:5");
    expect(exact).not.toContain("src/external.ts:2");
    const decoy = graph.callersOf(find("format", "src/other/format.ts"));
    expect(decoy.filter((edge) => edge.confidence === "exact").map((edge) => where(edge.site.file, edge.site.fact.line))).toEqual(["src/decoy-user.ts:2"]);
  });

  test("a receiver nobody binds is ambiguous between every candidate, and listed as such", () => {
    const callers = graph.callersOf(find("format", "src/fmt/util.ts"));
    const ambiguous = callers.filter((edge) => edge.confidence === "ambiguous");
    expect(ambiguous.map((edge) => where(edge.site.file, edge.site.fact.line))).toEqual(["src/unbound.ts:2"]);
    expect(ambiguous[0]!.targets.map((target) => path.relative(repo.root, target.file)).sort()).toEqual(["src/fmt/util.ts", "src/other/format.ts"]);
  });

  test("a guess by name stays within what the calling file can reach through its imports", () => {
    const { edges, unresolved } = graph.calleesOf(find("far"));
    expect(edges).toEqual([]);
    expect(unresolved.map((entry) => `${entry.site.fact.callee}:${entry.resolution.status}`)).toEqual(["text.format:unresolved", "helper:unresolved"]);
  });

  test("a bare name from a wildcard import is exact", () => {
    expect(graph.callersOf(find("starred")).map((edge) => `${where(edge.site.file, edge.site.fact.line)} ${edge.confidence}`)).toEqual(["star/use.py:2 exact"]);
  });

  test("recall: calls through a named re-export and a star re-export are exact", () => {
    const pad = graph.callersOf(find("pad"));
    expect(pad.map((edge) => `${where(edge.site.file, edge.site.fact.line)} ${edge.confidence} ${edge.caller?.qualifiedName}`)).toEqual(["src/app.ts:4 exact main"]);
  });

  test("runtime globals and external imports resolve to nothing in the workspace", () => {
    const sites = graph.calleesOf(find("guess"));
    expect(sites.unresolved.map((entry) => `${entry.site.fact.callee}:${entry.resolution.status}`)).toEqual(["console.log:external"]);
    const external = graph.resolveCall({ file: repo.real("src/external.ts"), ordinal: 0, fact: repo.index.get(repo.real("src/external.ts"))!.facts.calls[0]! });
    expect(external.status).toBe("external");
  });

  test("this.method() resolves in the enclosing class, and in the class it extends", () => {
    const radius = graph.callersOf(find("Circle.radius"));
    expect(radius.map((edge) => `${edge.caller?.qualifiedName} ${edge.confidence}`)).toEqual(["Circle.area exact", "Big.grow exact"]);
  });

  test("Python: through a package __init__ and through a module alias; Go: package-qualified and same-package calls", () => {
    expect(graph.callersOf(find("run")).map((edge) => `${where(edge.site.file, edge.site.fact.line)} ${edge.confidence}`)).toEqual(["main.py:3 exact", "main.py:4 exact"]);
    expect(graph.callersOf(find("Do")).map((edge) => `${edge.caller?.qualifiedName} ${edge.confidence}`)).toEqual(["main exact"]);
    expect(graph.callersOf(find("helper", "util/do.go")).map((edge) => `${edge.caller?.qualifiedName} ${edge.confidence}`)).toEqual(["More exact"]);
  });

  test("Go receivers, Python dotted module imports and Rust self/Type:: calls resolve exactly, not to same-name methods elsewhere", () => {
    expect(graph.callersOf(find("Server.run")).map((edge) => `${edge.caller?.qualifiedName} ${edge.confidence}`)).toEqual(["Server.Start exact"]);
    expect(graph.callersOf(find("Other.run"))).toEqual([]);
    expect(graph.callersOf(find("deep")).map((edge) => `${where(edge.site.file, edge.site.fact.line)} ${edge.confidence}`)).toEqual(["main2.py:2 exact"]);
    expect(graph.callersOf(find("S.other")).map((edge) => `${edge.caller?.qualifiedName} ${edge.confidence}`)).toEqual(["S.go exact"]);
    expect(graph.callersOf(find("Foo.new")).map((edge) => `${edge.caller?.qualifiedName} ${edge.confidence}`)).toEqual(["S.go exact"]);
    expect(graph.callersOf(find("Bar.other"))).toEqual([]);
  });

  test("Java: static imports and same-package types resolve exactly, not to a same-name type in another package", () => {
    const main = find("App.main");
    const { edges } = graph.calleesOf(main);
    expect(
      edges.map((edge) =>
        `${edge.site.fact.callee} → ${edge.targets.map((target) => `${path.relative(repo.root, target.file)}#${target.qualifiedName}`).join(",")} ${edge.confidence}`
      ),
    ).toEqual([
      "baz → java/com/acme/Bar.java#Bar.baz exact",
      "Helper.run → java/com/acme/Helper.java#Helper.run exact",
      "Helper → java/com/acme/Helper.java#Helper exact",
    ]);
  });

  test("walks go up levels, each edge once", () => {
    const walk = walkCalls(graph, find("helper", "src/fmt/util.ts"), "callers", 3, 100, "inferred");
    expect(walk.edges.map((edge) => `${edge.depth} ${where(edge.site.file, edge.site.fact.line)}`)).toEqual([
      "1 src/fmt/util.ts:2",
      "2 src/aliased.ts:2",
      "2 src/app.ts:3",
      "2 src/ns.ts:2",
      "3 test/app.test.ts:3",
    ]);
    expect(walkCalls(graph, find("helper", "src/fmt/util.ts"), "callers", 3, 2).truncatedBy).toBe("limit");
  });
});

describe("callees and trace", () => {
  test("callees of a function, in call order with confidence", () => {
    const { edges } = graph.calleesOf(find("main", "src/app.ts"));
    expect(edges.map((edge) => `${edge.site.fact.callee} → ${edge.targets.map((target) => path.relative(repo.root, target.file)).join(",")} ${edge.confidence}`)).toEqual([
      "format → src/fmt/util.ts exact",
      "pad → src/fmt/extra.ts exact",
    ]);
  });

  test("trace finds the shortest call path with the call on each step", () => {
    const result = traceCalls(graph, [find("main", "src/app.ts")], [find("helper", "src/fmt/util.ts")], 6);
    expect(result.length).toBe(2);
    expect(result.paths).toHaveLength(1);
    expect(result.paths[0]!.steps.map((step) => `${step.symbol.qualifiedName}${step.call ? `@${step.call.line}` : ""}`)).toEqual(["main@3", "format@2", "helper"]);
    expect(result.paths[0]!.confidence).toBe("exact");
    expect(traceCalls(graph, [find("helper", "src/fmt/util.ts")], [find("main", "src/app.ts")], 6).paths).toEqual([]);
    expect(traceCalls(graph, [find("main", "src/app.ts")], [find("helper", "src/fmt/util.ts")], 1)).toMatchObject({ paths: [], truncatedBy: "maxDepth" });
  });
});

describe("implements", () => {
  test("direct and transitive implementations of the right type, not of a same-name type elsewhere", () => {
    const { implementations } = implementationsOf(graph, find("Shape", "src/shapes.ts"));
    expect(implementations.map((entry) => `${entry.symbol.name} ${entry.depth} ${entry.confidence} ${entry.via}`)).toEqual([
      "Oval 1 exact Shape<number>",
      "Circle 1 exact Shape",
      "Big 2 exact Circle",
    ]);
    expect(implementationsOf(graph, find("Shape", "src/other-shapes.ts")).implementations.map((entry) => entry.symbol.name)).toEqual(["Square"]);
  });
});

describe("impact", () => {
  test("callers, transitive importers and the tests that reach the target by calls, imports or name", () => {
    const display = (real: string) => path.relative(repo.root, real);
    const result = impactOf(graph, repo.real("src/fmt/util.ts"), find("helper", "src/fmt/util.ts"), { depth: 3, limit: 100, display });
    expect(result.tests.map((entry) => `${display(entry.file)} ${entry.via} ${entry.distance}`)).toEqual(["test/app.test.ts calls 3", "test/util.test.ts name 0"]);
    expect([...result.dependents.keys()].map(display).sort()).toEqual(["src/aliased.ts", "src/app.ts", "src/fmt/index.ts", "src/ns.ts", "src/unbound.ts", "test/app.test.ts"]);
    const fileOnly = impactOf(graph, repo.real("src/fmt/extra.ts"), undefined, { depth: 3, limit: 100, display });
    expect(fileOnly.tests.map((entry) => `${display(entry.file)} ${entry.via} ${entry.distance}`)).toEqual(["test/app.test.ts imports 3"]);
  });

  test("test files by convention", () => {
    for (
      const name of [
        "src/a.test.ts",
        "src/a.spec.tsx",
        "tests/test_models.py",
        "pkg/models_test.py",
        "x/y_test.go",
        "spec/user_spec.rb",
        "src/test/java/FooTest.java",
        "__tests__/a.js",
        "test/helpers.ts",
      ]
    ) {
      expect(isTestFile(name)).toBe(true);
    }
    for (const name of ["src/attest.ts", "src/contest.py", "src/latest.go", "src/testing-utils.ts"]) expect(isTestFile(name)).toBe(false);
    expect([testedStem("src/util.test.ts"), testedStem("tests/test_models.py"), testedStem("x/y_test.go"), testedStem("FooTest.java")]).toEqual(["util", "models", "y", "Foo"]);
  });
});

describe("context", () => {
  const read = (real: string) => readFile(real, "utf8").catch(() => undefined);
  const display = (real: string) => path.relative(repo.root, real);

  test("the target's body, its callees' bodies and its callers' signatures within the budget", async () => {
    const packed = await packContext(graph, find("format", "src/fmt/util.ts"), 1000, read, display);
    expect(packed.sections.map((section) => `${section.role} ${section.symbol?.qualifiedName ?? "(module level)"}`)).toEqual([
      "target format",
      "callee helper",
      "caller (module level)",
      "caller main",
      "caller viaNamespace",
      "caller guess",
    ]);
    expect(packed.sections.at(-1)!.text).toContain("[ambiguous: src/fmt/util.ts#format, src/other/format.ts#format; receiver `thing` has no known type]");
    expect(packed.sections[0]!.text).toContain("return helper(value).trim();");
    expect(packed.sections[1]!.text).toContain("return value + \" \";");
    expect(packed.usedTokens).toBeLessThanOrEqual(1000);
    expect(packed.omitted).toEqual([]);
  });

  test("a tight budget cuts the target itself and names everything left out", async () => {
    const tight = await packContext(graph, find("format", "src/fmt/util.ts"), 12, read, display);
    expect(tight.sections[0]!.cut).toBe(true);
    expect(tight.usedTokens).toBeLessThanOrEqual(12);
    expect(tight.omitted.map((entry) => `${entry.role} ${entry.name}`)).toContain("callee helper");
    const roomForTarget = await packContext(graph, find("format", "src/fmt/util.ts"), 40, read, display);
    expect(roomForTarget.sections[0]!.cut).toBeUndefined();
    expect(roomForTarget.usedTokens).toBeLessThanOrEqual(40);
    expect(roomForTarget.omitted.length).toBeGreaterThan(0);
  });
});
