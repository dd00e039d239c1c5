/** The import graph as a whole: cycles (Tarjan), transitive walks, refresh per index generation. */
import { afterEach, describe, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { ImportGraph, walkGraph } from "../../../src/intel/graph/import-graph.ts";
import { shortestCycle, stronglyConnected } from "../../../src/intel/graph/scc.ts";
import { imp, makeRepo, type Repo } from "./fixture.ts";

let repo: Repo | undefined;
afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

const rel = (real: string) => path.relative(repo!.root, real);

describe("strongly connected components", () => {
  test("finds every component, including ones reached late, without recursion", () => {
    const edges: Record<string, string[]> = { a: ["b"], b: ["c"], c: ["a", "d"], d: ["e"], e: ["d"], f: ["f2"], f2: [] };
    const components = stronglyConnected(Object.keys(edges), (node) => edges[node] ?? []).map((component) => component.sort().join(","));
    expect(components.sort()).toEqual(["a,b,c", "d,e", "f", "f2"]);
  });

  test("a chain of 100,000 nodes and one giant cycle do not overflow the stack", () => {
    const size = 100_000;
    const next = (node: string) => [String((Number(node) + 1) % size)];
    const nodes = Array.from({ length: size }, (_, index) => String(index));
    const components = stronglyConnected(nodes, next);
    expect(components.length).toBe(1);
    expect(components[0]!.length).toBe(size);
  });

  test("the shortest cycle through a member", () => {
    const edges: Record<string, string[]> = { a: ["b", "x"], b: ["c"], c: ["a"], x: ["a"] };
    expect(shortestCycle("a", new Set(["a", "b", "c", "x"]), (node) => edges[node] ?? [])).toEqual(["a", "x"]);
  });
});

describe("ImportGraph", () => {
  test("cycles: components with more than one file, largest first, with a path; scoped and runtime-only variants", async () => {
    repo = await makeRepo({
      "src/a.ts": { imports: [imp("./b")] },
      "src/b.ts": { imports: [imp("./c")] },
      "src/c.ts": { imports: [imp("./a"), imp("../lib/d")] },
      "lib/d.ts": { imports: [imp("./e")] },
      "lib/e.ts": { imports: [imp("./d", "import_type")] },
      "lib/f.ts": { imports: [imp("./f")] },
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    const cycles = graph.cycles();
    expect(cycles.map((cycle) => cycle.members.map(rel))).toEqual([["src/a.ts", "src/b.ts", "src/c.ts"], ["lib/d.ts", "lib/e.ts"]]);
    expect(cycles[0]!.path.map(rel)).toEqual(["src/a.ts", "src/b.ts", "src/c.ts"]);
    expect(graph.cycles({ runtimeOnly: true }).map((cycle) => cycle.members.length)).toEqual([3]);
    const scope = new Set(graph.files().map((file) => file.real).filter((real) => rel(real).startsWith("lib/")));
    expect(graph.cycles({ scope }).map((cycle) => cycle.members.map(rel))).toEqual([["lib/d.ts", "lib/e.ts"]]);
  });

  test("transitive walks report each file once at its nearest level", async () => {
    repo = await makeRepo({
      "a.ts": { imports: [imp("./b"), imp("./c")] },
      "b.ts": { imports: [imp("./c"), imp("./d")] },
      "c.ts": { imports: [imp("./d")] },
      "d.ts": {},
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    const down = walkGraph(graph, repo.real("a.ts"), "dependencies", 5);
    expect(Object.fromEntries([...down.levels].map(([real, level]) => [rel(real), level]))).toEqual({ "b.ts": 1, "c.ts": 1, "d.ts": 2 });
    const up = walkGraph(graph, repo.real("d.ts"), "dependents", 1);
    expect([...up.levels.keys()].map(rel).sort()).toEqual(["b.ts", "c.ts"]);
    const capped = walkGraph(graph, repo.real("a.ts"), "dependencies", 5, 1);
    expect(capped.truncated).toBe(true);
  });

  test("refresh per generation: a new file resolves a dangling specifier, a changed file re-resolves, a deleted file drops its edges", async () => {
    repo = await makeRepo({
      "a.ts": { imports: [imp("./b"), imp("./later")] },
      "b.ts": {},
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(graph.unresolvedOf(repo.real("a.ts")).map((entry) => entry.specifier)).toEqual(["./later"]);
    await repo.add("later.ts", {});
    await ImportGraph.for(repo.index, repo.workspace);
    expect(graph.dependenciesOf(repo.real("a.ts")).map((edge) => rel(edge.to))).toEqual(["b.ts", "later.ts"]);
    await repo.add("b.ts", { imports: [imp("./later")] });
    await graph.refresh();
    expect(graph.dependentsOf(repo.real("later.ts")).map((edge) => rel(edge.from)).sort()).toEqual(["a.ts", "b.ts"]);
    repo.index.remove("b.ts");
    await graph.refresh();
    expect(graph.dependentsOf(repo.real("later.ts")).map((edge) => rel(edge.from))).toEqual(["a.ts"]);
    expect(graph.generation).toBe(repo.index.generation);
  });

  test("an added file that shadows a folder index, and a removed package __init__, re-resolve their importers", async () => {
    repo = await makeRepo({
      "both/index.ts": {},
      "a.ts": { imports: [imp("./both")] },
      "unrelated.ts": { imports: [imp("./a")] },
      "pkg/__init__.py": "",
      "pkg/mod.py": "",
      "pkg/user.py": { imports: [imp("pkg.mod")] },
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(graph.dependenciesOf(repo.real("a.ts")).map((edge) => rel(edge.to))).toEqual(["both/index.ts"]);
    await repo.add("both.ts", {});
    await graph.refresh();
    expect(graph.dependenciesOf(repo.real("a.ts")).map((edge) => rel(edge.to))).toEqual(["both.ts"]);
    expect(graph.dependenciesOf(repo.real("pkg/user.py")).map((edge) => rel(edge.to))).toEqual(["pkg/mod.py"]);
    repo.index.remove("pkg/__init__.py");
    await graph.refresh();
    // Without __init__, pkg is a namespace package found from the root: still pkg/mod.py, resolved again.
    expect(graph.dependenciesOf(repo.real("pkg/user.py")).map((edge) => rel(edge.to))).toEqual(["pkg/mod.py"]);
  });

  test("a steering file changed on disk is picked up even when the index did not change", async () => {
    repo = await makeRepo({
      "tsconfig.json": JSON.stringify({ compilerOptions: { paths: { "@x": ["./one.ts"] } } }),
      "one.ts": {},
      "two.ts": {},
      "main.ts": { imports: [imp("@x")] },
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(graph.dependenciesOf(repo.real("main.ts")).map((edge) => rel(edge.to))).toEqual(["one.ts"]);
    // Same size, different content and mtime: outside ast-mcp, with no index change.
    await writeFile(repo.real("tsconfig.json"), JSON.stringify({ compilerOptions: { paths: { "@x": ["./two.ts"] } } }));
    const later = new Date(Date.now() + 5000);
    await import("node:fs/promises").then((fs) => fs.utimes(repo!.real("tsconfig.json"), later, later));
    await graph.refresh();
    expect(graph.dependenciesOf(repo.real("main.ts")).map((edge) => rel(edge.to))).toEqual(["two.ts"]);
  });

  test("concurrent refreshes build once and agree", async () => {
    repo = await makeRepo({ "a.ts": { imports: [imp("./b")] }, "b.ts": {} });
    const [first, second] = await Promise.all([ImportGraph.for(repo.index, repo.workspace), ImportGraph.for(repo.index, repo.workspace)]);
    expect(first).toBe(second);
    expect(first.files()).toHaveLength(2);
    expect(first.dependenciesOf(repo.real("a.ts")).map((edge) => rel(edge.to))).toEqual(["b.ts"]);
  });

  test("files of languages without a resolver report their imports as unsupported", async () => {
    repo = await makeRepo({ "lib/a.rb": { imports: [imp("./b", "require")] } });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(graph.unresolvedOf(repo.real("lib/a.rb")).map((entry) => entry.reason)).toEqual(["unsupported"]);
  });
});
