import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import type { ImportEdge } from "../intel/graph/types.ts";
import { plural } from "./common.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { External, openImportGraph, PathsInput, renderExternal, scopeFiles } from "./graph-common.ts";

const GraphOutput = z.object({
  format: z.enum(["adjacency", "edges"]).describe("The shape of the listing."),
  files: z.number().int().describe("Files in scope."),
  edges: z.number().int().describe("Import edges from files in scope (to any indexed file)."),
  adjacency: z
    .array(
      z.object({
        path: z.string().describe("A file in scope."),
        imports: z.array(z.string()).describe("Files it imports."),
        importedBy: z.number().int().describe("Files importing it (anywhere in the workspace)."),
      }),
    )
    .optional()
    .describe("format adjacency: one row per file with imports, most imported first."),
  edgeList: z
    .array(z.object({ from: z.string(), to: z.string(), line: z.number().int(), kind: z.string() }).describe("One import statement's edge."))
    .optional()
    .describe("format edges: one row per import edge."),
  listedEdges: z.number().int().describe("Edges present in the listing."),
  external: z.array(External).describe("Most used external packages."),
  totalExternal: z.number().int().describe("Distinct external packages."),
  unresolvedByReason: z.record(z.string(), z.number().int()).describe("Unresolved specifiers per reason."),
  configProblems: z.array(z.string()).describe("tsconfig extends chains that could not be followed (outside the roots, missing, cycles)."),
  ...Completeness,
});
type GraphOutput = z.infer<typeof GraphOutput>;

export const graphTool = defineTool({
  name: "graph",
  title: "The import graph",
  description:
    "The import graph of the workspace or of some folders: an adjacency listing (each file's imports, with how many files import it) or a flat edge list, bounded by maxEdges, plus external package counts and unresolved specifiers per reason.",
  input: z.strictObject({
    paths: PathsInput,
    format: z.enum(["adjacency", "edges"]).optional().describe("adjacency (default): per file; edges: one row per import."),
    maxEdges: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.intel.graph.maxEdgesCeiling)
      .optional()
      .describe(`Edges listed at most (default ${LIMITS.intel.graph.defaultMaxEdges}).`),
  }),
  output: GraphOutput,
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: async (args, context) => {
    const session = await openImportGraph(context);
    const { graph, display } = session;
    const scope = await scopeFiles(session, context, args.paths);
    const format = args.format ?? "adjacency";
    const maxEdges = args.maxEdges ?? LIMITS.intel.graph.defaultMaxEdges;
    const cuts: string[] = [];
    const inScope = graph.files().filter((file) => !scope || scope.has(file.real));
    let edgeCount = 0;
    const rows: Array<{ real: string; targets: string[]; importedBy: number }> = [];
    const allEdges: ImportEdge[] = [];
    for (const file of inScope) {
      const edges = graph.dependenciesOf(file.real);
      edgeCount += edges.length;
      allEdges.push(...edges);
      const targets = graph.successors(file.real);
      if (targets.length > 0) rows.push({ real: file.real, targets, importedBy: graph.predecessors(file.real).length });
    }
    let listed = 0;
    const result: GraphOutput = {
      format,
      files: inScope.length,
      edges: edgeCount,
      listedEdges: 0,
      external: [],
      totalExternal: 0,
      unresolvedByReason: {},
      configProblems: graph.configProblems().map((problem) => `${problem.config}: ${problem.message}`),
      ...completeness(session.coverage),
    };
    if (format === "adjacency") {
      rows.sort((a, b) => b.importedBy - a.importedBy || (display(a.real) < display(b.real) ? -1 : 1));
      result.adjacency = [];
      for (const row of rows) {
        if (listed + row.targets.length > maxEdges) {
          cuts.push(`maxEdges = ${maxEdges}: raise maxEdges or narrow paths`);
          break;
        }
        listed += row.targets.length;
        result.adjacency.push({ path: display(row.real), imports: row.targets.map(display).sort(), importedBy: row.importedBy });
      }
    } else {
      allEdges.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.line - b.line));
      const shown = allEdges.slice(0, maxEdges);
      if (allEdges.length > shown.length) cuts.push(`maxEdges = ${maxEdges}: raise maxEdges or narrow paths`);
      result.edgeList = shown.map((edge) => ({ from: display(edge.from), to: display(edge.to), line: edge.line, kind: edge.kind }));
      listed = shown.length;
    }
    result.listedEdges = listed;
    const external = graph.externals(scope);
    result.external = external.slice(0, LIMITS.intel.graph.maxExternalsListed);
    result.totalExternal = external.length;
    for (const entry of graph.unresolved(scope)) result.unresolvedByReason[entry.reason] = (result.unresolvedByReason[entry.reason] ?? 0) + 1;
    return { ...result, ...completeness(session.coverage, cuts) };
  },
  render: (result) => {
    const lines = [`${plural(result.files, "file")}, ${plural(result.edges, "import edge")}${result.listedEdges < result.edges ? ` (${result.listedEdges} listed)` : ""}`];
    for (const row of result.adjacency ?? []) lines.push(`${row.path} [${row.importedBy} in] → ${row.imports.join(", ")}`);
    for (const edge of result.edgeList ?? []) lines.push(`${edge.from}:${edge.line} → ${edge.to}${edge.kind === "import" ? "" : ` (${edge.kind})`}`);
    const external = renderExternal(result.external, result.totalExternal);
    if (external) lines.push(external);
    const reasons = Object.entries(result.unresolvedByReason);
    if (reasons.length > 0) lines.push(`unresolved: ${reasons.map(([reason, count]) => `${count} ${reason}`).join(", ")} (deps on a file lists them)`);
    for (const problem of result.configProblems) lines.push(`config: ${problem}`);
    return renderIncomplete(result, lines);
  },
});
