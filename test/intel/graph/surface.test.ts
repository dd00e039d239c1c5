/** The public surface on its own, and the one re-export resolver it shares with the call graph. */
import { afterEach, describe, expect, test } from "bun:test";
import { LIMITS } from "../../../src/core/limits.ts";
import { CallGraph } from "../../../src/intel/calls/call-graph.ts";
import { ImportGraph } from "../../../src/intel/graph/import-graph.ts";
import { publicSurface, type SurfaceIndex } from "../../../src/intel/graph/surface.ts";
import type { IndexedFile } from "../../../src/intel/index/types.ts";
import { call, imp, makeRepo, type Repo, sym } from "./fixture.ts";

let repo: Repo | undefined;

afterEach(async () => {
  await repo?.cleanup();
  repo = undefined;
});

/** The graph fixture's index read as the surface reads the code index. */
function surfaceIndex(current: Repo): SurfaceIndex {
  return current.index as unknown as SurfaceIndex;
}

function file(current: Repo, relative: string): IndexedFile {
  return current.index.get(current.real(relative)) as unknown as IndexedFile;
}

describe("public surface", () => {
  test("a renamed re-export is followed to its declaration through every file it passes, and an unresolved one is a problem", async () => {
    repo = await makeRepo({
      "src/core.ts": { symbols: [sym("make")] },
      "src/mid.ts": { imports: [imp("./core", "reexport", ["make"])], exportedNames: [{ name: "make", from: "./core", line: 1 }] },
      "src/index.ts": {
        imports: [imp("./mid", "reexport", [["build", "make"]], 1), imp("./missing", "reexport", ["gone"], 2)],
        exportedNames: [
          { name: "build", local: "make", from: "./mid", line: 1 },
          { name: "gone", from: "./missing", line: 2 },
        ],
      },
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    const surface = await publicSurface([file(repo, "src/index.ts")], graph, surfaceIndex(repo));
    expect(surface.entries.map((entry) => [entry.name, entry.qualifiedName, entry.path, entry.via])).toEqual([["build", "make", "src/core.ts", ["src/mid.ts", "src/core.ts"]]]);
    expect(surface.problems).toEqual([{ name: "gone", from: "./missing", file: "src/index.ts", reason: expect.stringContaining("unresolved module") }]);
  });

  test("surface and the call graph share one re-export resolver: the same chain is followed at the hop limit, cut one past it, and a cycle is named by both", async () => {
    const hops = LIMITS.intel.calls.maxReexportHops;
    // m0 declares deep; m1 … m(hops+1) each re-export it from the one before: m(hops) is exactly at the limit.
    const files: Record<string, Parameters<typeof makeRepo>[0][string]> = { "m0.ts": { symbols: [sym("deep")] } };
    for (let i = 1; i <= hops + 1; i++) {
      files[`m${i}.ts`] = { imports: [imp(`./m${i - 1}`, "reexport", ["deep"])], exportedNames: [{ name: "deep", from: `./m${i - 1}`, line: 1 }] };
    }
    files["cycle-a.ts"] = { imports: [imp("./cycle-b", "reexport", ["loop"])], exportedNames: [{ name: "loop", from: "./cycle-b", line: 1 }] };
    files["cycle-b.ts"] = { imports: [imp("./cycle-a", "reexport", ["loop"])], exportedNames: [{ name: "loop", from: "./cycle-a", line: 1 }] };
    // Callers reach each module through a namespace import: `ns.deep()`.
    const caller = (module: string, name: string) => ({
      imports: [imp(`./${module}`, "import", [["ns", "*"]])],
      symbols: [sym("main")],
      calls: [call(`ns.${name}`, { caller: "main" })],
    });
    files["at-limit.ts"] = caller(`m${hops}`, "deep");
    files["past-limit.ts"] = caller(`m${hops + 1}`, "deep");
    files["in-cycle.ts"] = caller("cycle-a", "loop");
    repo = await makeRepo(files);
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    const calls = await CallGraph.for(repo.index, repo.workspace);
    const resolution = (relative: string) => calls.resolveCall({ file: repo!.real(relative), ordinal: 0, fact: repo!.index.get(repo!.real(relative))!.facts.calls[0]! });

    const atLimit = await publicSurface([file(repo, `m${hops}.ts`)], graph, surfaceIndex(repo));
    expect(atLimit.entries.map((entry) => [entry.path, entry.via?.length])).toEqual([["m0.ts", hops]]);
    expect(atLimit.problems).toEqual([]);
    expect(resolution("at-limit.ts")).toMatchObject({ status: "resolved", confidence: "exact", targets: [{ name: "deep", file: repo.real("m0.ts") }] });
    expect(calls.callersOf(calls.findSymbols("deep")[0]!).map((edge) => edge.site.file)).toEqual([repo.real("at-limit.ts")]);

    const past = await publicSurface([file(repo, `m${hops + 1}.ts`)], graph, surfaceIndex(repo));
    expect(past.entries).toEqual([]);
    expect(past.problems).toEqual([{ name: "deep", file: "m1.ts", from: "./m0", reason: `more than ${hops} re-export hops` }]);
    expect(resolution("past-limit.ts")).toEqual({ status: "unresolved", detail: `deep is not declared in ns (more than ${hops} re-export hops)` });

    const cycle = await publicSurface([file(repo, "cycle-a.ts")], graph, surfaceIndex(repo));
    expect(cycle.entries).toEqual([]);
    expect(cycle.problems).toEqual([{ name: "loop", file: "cycle-b.ts", from: "./cycle-a", reason: "re-export cycle through cycle-a.ts" }]);
    expect(resolution("in-cycle.ts")).toEqual({ status: "unresolved", detail: "loop is not declared in ns (re-export cycle through cycle-a.ts)" });
  });

  test("a specifier's targets are the files its statement resolved to, by line when given", async () => {
    repo = await makeRepo({
      "a.ts": { imports: [imp("./b", "import", [], 1), imp("./c", "import", [], 2)] },
      "b.ts": {},
      "c.ts": {},
    });
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    expect(graph.targetsOf(repo.real("a.ts"), "./b")).toEqual([repo.real("b.ts")]);
    expect(graph.targetsOf(repo.real("a.ts"), "./b", 2)).toEqual([]);
    expect(graph.targetsOf(repo.real("a.ts"), "./nothing")).toEqual([]);
  });
});
