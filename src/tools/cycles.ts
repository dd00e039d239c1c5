import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { plural } from "./common.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { openImportGraph, PathsInput, scopeFiles } from "./graph-common.ts";

const CyclesOutput = z.object({
  cycles: z
    .array(
      z.object({
        size: z.number().int().describe("Files in the strongly connected component."),
        files: z.array(z.string()).describe("Its files (sorted; cut at a limit for huge components)."),
        path: z.array(z.string()).describe("One shortest import cycle through its first file, in import order (the last imports the first)."),
      }),
    )
    .describe("Import cycles (strongly connected components of more than one file), largest first."),
  total: z.number().int().describe("Cycles found before the list was cut."),
  filesInCycles: z.number().int().describe("Files that are part of some cycle."),
  ...Completeness,
});
type CyclesOutput = z.infer<typeof CyclesOutput>;

export const cyclesTool = defineTool({
  name: "cycles",
  title: "Import cycles",
  description:
    "Import cycles (Tarjan's strongly connected components) in the workspace or among the files of some folders, largest first, each with one concrete cycle path. runtimeOnly ignores type-only imports.",
  input: z.strictObject({
    paths: PathsInput,
    runtimeOnly: z.boolean().optional().describe("Ignore `import type` edges (they vanish at runtime)."),
  }),
  output: CyclesOutput,
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: async (args, context) => {
    const session = await openImportGraph(context);
    const { graph, display } = session;
    const scope = await scopeFiles(session, context, args.paths);
    const cycles = graph.cycles({ ...(scope ? { scope } : {}), runtimeOnly: args.runtimeOnly ?? false });
    const cuts: string[] = [];
    if (cycles.length > LIMITS.intel.graph.maxCycles) cuts.push(`intel.graph.maxCycles = ${LIMITS.intel.graph.maxCycles}: narrow paths`);
    const shown = cycles.slice(0, LIMITS.intel.graph.maxCycles).map((cycle) => {
      if (cycle.members.length > LIMITS.intel.graph.maxCycleMembersShown) cuts.push(`intel.graph.maxCycleMembersShown = ${LIMITS.intel.graph.maxCycleMembersShown}: narrow paths`);
      return { size: cycle.members.length, files: cycle.members.slice(0, LIMITS.intel.graph.maxCycleMembersShown).map(display), path: cycle.path.map(display) };
    });
    return {
      cycles: shown,
      total: cycles.length,
      filesInCycles: cycles.reduce((sum, cycle) => sum + cycle.members.length, 0),
      ...completeness(session.coverage, cuts),
    };
  },
  render: (result: CyclesOutput) => {
    const lines = [result.total === 0 ? "no import cycles" : `${plural(result.total, "import cycle")} over ${plural(result.filesInCycles, "file")}`];
    for (const cycle of result.cycles) {
      lines.push(`${cycle.size} files: ${[...cycle.path, cycle.path[0]].join(" → ")}`);
      if (cycle.size > cycle.path.length) {
        lines.push(`  also in it: ${cycle.files.filter((file) => !cycle.path.includes(file)).join(", ")}${cycle.size > cycle.files.length ? ", …" : ""}`);
      }
    }
    if (result.total > result.cycles.length) lines.push(`… ${result.total - result.cycles.length} more`);
    return renderIncomplete(result, lines);
  },
});
