import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { impactOf } from "../intel/calls/queries.ts";
import type { SymbolRef } from "../intel/calls/types.ts";
import { PathInput, plural } from "./common.ts";
import { SYMBOL_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { importCandidates } from "../intel/calls/candidates.ts";
import {
  CallOut,
  callOut,
  CandidatesOutput,
  candidatesFor,
  DispatchOutput,
  dispatchOut,
  openCallGraph,
  place,
  renderCall,
  renderCandidates,
  renderDispatch,
  resolveSymbol,
  SymbolInput,
  SymbolOut,
  symbolOut,
} from "./call-common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { resolveScope } from "./graph-common.ts";

const ImpactOutput = z.object({
  symbol: SymbolOut.optional().describe("The declaration asked about (absent for a whole file)."),
  path: z.string().describe("The file changed."),
  callers: z.array(CallOut).describe("Callers, transitively through exact and inferred edges; ambiguous ones are listed with their reason and not followed."),
  dispatch: DispatchOutput,
  dependents: z.array(z.object({ path: z.string(), depth: z.number().int() })).describe("Files importing the file, transitively, nearest first."),
  totalDependents: z.number().int().describe("Dependents before the list was cut."),
  tests: z
    .array(
      z.object({
        path: z.string().describe("The test file."),
        via: z.enum(["calls", "imports", "name"]).describe(
          "calls: it calls the target through the callers; imports: it imports the file through the dependents; name: only named after it.",
        ),
        distance: z.number().int().describe("Calls or import hops to the target (0 for name)."),
      }),
    )
    .describe("Test files (by convention: *.test.*, *.spec.*, test_*.py, *_test.go, tests/ folders, …) that reach the target."),
  ...CandidatesOutput,
  ...Completeness,
});
type ImpactOutput = z.infer<typeof ImpactOutput>;

export const impactTool = defineTool({
  name: "impact",
  title: "What a change affects",
  description:
    "What changing a declaration (symbol) or a whole file (path) can break: its callers (transitively through exact and inferred edges; ambiguous ones listed with the reason, not followed), the calls that may dispatch to it (through an interface it implements or a method it overrides, listed apart), the files importing its file (transitively), and the test files that reach it by calls, by imports or by name — the tests to run after the change. Occurrences of the name that resolve to nothing are listed apart as unresolved candidates.",
  input: z
    .strictObject({
      symbol: SymbolInput.optional(),
      path: PathInput.optional().describe("The file (or, with symbol, the file or folder the declaration is in)."),
      depth: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.intel.calls.maxDepth)
        .optional()
        .describe(`Caller levels to follow (default ${LIMITS.intel.calls.impactDepth}).`),
    })
    .refine((args) => args.symbol !== undefined || args.path !== undefined, "pass symbol, path, or both"),
  output: ImpactOutput,
  annotations: READ_ONLY,
  errors: SYMBOL_ERRORS,
  handler: async (args, context) => {
    const session = await openCallGraph(context, args.symbol === undefined ? undefined : { name: args.symbol, path: args.path });
    let symbol: SymbolRef | undefined;
    let file: string;
    if (args.symbol !== undefined) {
      symbol = await resolveSymbol(session, context, args.symbol, args.path, "symbol");
      file = symbol.file;
    } else {
      const scope = await resolveScope(session, context, args.path!);
      if (scope.directory) throw new ToolError("not_a_file", `${scope.resolved.display} is a folder; impact takes a file or a symbol.`);
      file = scope.resolved.real;
    }
    const depth = args.depth ?? LIMITS.intel.calls.impactDepth;
    const impact = impactOf(session.calls, file, symbol, { depth, limit: LIMITS.intel.calls.maxLimit, display: session.display });
    const cuts = [...impact.truncated];
    const dependents = [...impact.dependents].sort((a, b) => a[1] - b[1] || (session.display(a[0]) < session.display(b[0]) ? -1 : 1));
    const shown = dependents.slice(0, LIMITS.intel.graph.defaultMaxEdges);
    if (dependents.length > shown.length) cuts.push(`intel.graph.defaultMaxEdges = ${LIMITS.intel.graph.defaultMaxEdges} dependents listed: lower depth or pass a symbol`);
    const found = symbol ?
      await candidatesFor(session, context, symbol, impact.truncated.length === 0 ? impact.callers.filter((edge) => edge.depth === 1) : session.calls.callersOf(symbol)) :
      undefined;
    if (found) cuts.push(...found.cuts);
    const graphFile = session.graph.file(file);
    const importers = graphFile ? ((await session.calls.derived(`importers\0${graphFile.real}`, async () => importCandidates(session.graph, [graphFile])))?.length ?? 0) : 0;
    if (importers > 0) {
      cuts.push(
        `unresolvedImporters = ${importers}: imports whose path names ${
          session.display(file)
        } did not resolve to it, so their files are not among the dependents; reverse_deps with path ${session.display(file)} lists them with the reason`,
      );
    }
    const result: ImpactOutput = {
      path: session.display(file),
      callers: impact.callers.map((edge) => callOut(edge, session.display)),
      dependents: shown.map(([real, level]) => ({ path: session.display(real), depth: level })),
      totalDependents: dependents.length,
      tests: impact.tests.map((test) => ({ path: session.display(test.file), via: test.via, distance: test.distance })),
      ...(found ? { candidates: found.listed, totalCandidates: found.total } : {}),
      ...completeness(session.coverage, cuts),
    };
    if (symbol) {
      result.symbol = symbolOut(symbol, session.display);
      const dispatch = dispatchOut(session, symbol, "callers", LIMITS.intel.calls.maxLimit);
      if (dispatch) result.dispatch = dispatch;
    }
    return result;
  },
  render: (result: ImpactOutput) => {
    const target = result.symbol ? `${result.symbol.name} (${place(result.symbol)})` : result.path;
    const lines = [
      `impact of ${target}: ${plural(result.callers.length, "caller")}, ${plural(result.totalDependents, "dependent file")}, ${plural(result.tests.length, "test file")}`,
    ];
    if (result.tests.length > 0) {
      lines.push("tests:");
      for (const test of result.tests) lines.push(`  ${test.path} (${test.via}${test.via === "name" ? "" : `, ${test.distance} away`})`);
    }
    if (result.callers.length > 0) {
      lines.push("callers:");
      for (const call of result.callers) lines.push(renderCall(call, "callers"));
    }
    renderDispatch(result.dispatch, "callers", lines);
    if (result.dependents.length > 0) {
      lines.push("dependents:");
      for (const dependent of result.dependents) lines.push(`  ${dependent.depth > 1 ? `[${dependent.depth}] ` : ""}${dependent.path}`);
      if (result.totalDependents > result.dependents.length) lines.push(`  … ${result.totalDependents - result.dependents.length} more`);
    }
    renderCandidates(result, lines);
    return renderIncomplete(result, lines);
  },
});
