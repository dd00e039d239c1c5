/** The public surface resolver on its own, and the re-export rules it shares with the call graph. */
import { afterEach, describe, expect, test } from "bun:test";
import { LIMITS } from "../../../src/core/limits.ts";
import { CallGraph } from "../../../src/intel/calls/call-graph.ts";
import { ImportGraph } from "../../../src/intel/graph/import-graph.ts";
import { publicSurface, type SurfaceIndex } from "../../../src/intel/graph/surface.ts";
import type { IndexedFile } from "../../../src/intel/index/types.ts";
import { imp, makeRepo, type Repo, sym } from "./fixture.ts";

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

  test("surface and the call graph stop a re-export chain at the same number of hops", async () => {
    const hops = LIMITS.intel.calls.maxReexportHops;
    const files: Record<string, Parameters<typeof makeRepo>[0][string]> = { "m0.ts": { symbols: [sym("deep")] } };
    for (let i = 1; i <= hops + 2; i++) {
      files[`m${i}.ts`] = { imports: [imp(`./m${i - 1}`, "reexport", ["deep"])], exportedNames: [{ name: "deep", from: `./m${i - 1}`, line: 1 }] };
    }
    repo = await makeRepo(files);
    const graph = await ImportGraph.for(repo.index, repo.workspace);
    const within = await publicSurface([file(repo, `m${hops - 1}.ts`)], graph, surfaceIndex(repo));
    expect(within.entries.map((entry) => entry.path)).toEqual(["m0.ts"]);
    const beyond = await publicSurface([file(repo, `m${hops + 2}.ts`)], graph, surfaceIndex(repo));
    expect(beyond.entries).toEqual([]);
    expect(beyond.problems.map((problem) => problem.reason)).toContain(`more than ${hops} re-export hops`);
    const calls = await CallGraph.for(repo.index, repo.workspace);
    expect(calls.exportOf(repo.real(`m${hops}.ts`), "deep").symbols.map((symbol) => symbol.name)).toEqual(["deep"]);
    expect(calls.exportOf(repo.real(`m${hops + 2}.ts`), "deep").symbols).toEqual([]);
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
