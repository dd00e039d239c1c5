import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { traceCalls } from "../intel/calls/queries.ts";
import { plural } from "./common.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { ConfidenceEnum, openCallGraph, place, resolveSymbol, SymbolInput, SymbolOut, symbolOut } from "./call-common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";

const TraceOutput = z.object({
  from: SymbolOut,
  to: SymbolOut,
  length: z.number().int().optional().describe("Calls on the shortest path, when one was found."),
  paths: z
    .array(
      z.object({
        confidence: ConfidenceEnum.describe("The weakest edge on the path."),
        steps: z
          .array(
            z.object({
              symbol: z.string().describe("\"path#Name\" of the step."),
              line: z.number().int().optional().describe("Line of the call to the next step."),
              confidence: ConfidenceEnum.optional().describe("Confidence of that call."),
            }),
          )
          .describe("From the start to the target."),
      }),
    )
    .describe("Shortest call paths, surest first."),
  ...Completeness,
});
type TraceOutput = z.infer<typeof TraceOutput>;

export const traceTool = defineTool({
  name: "trace",
  title: "Call paths between two functions",
  description:
    "The shortest call paths from one function to another (through callees, every confidence), each step with the line of its call; none when the target is not reachable within maxDepth.",
  input: z.strictObject({
    from: SymbolInput.describe("Where the paths start: a name, qualified name or \"path#Name\"."),
    to: SymbolInput.describe("Where the paths end: a name, qualified name or \"path#Name\"."),
    maxDepth: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.intel.calls.maxTraceDepth)
      .optional()
      .describe(`Longest path in calls (default ${LIMITS.intel.calls.defaultTraceDepth}).`),
  }),
  output: TraceOutput,
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const session = await openCallGraph(context);
    const from = await resolveSymbol(session, context, args.from, undefined, "from");
    const to = await resolveSymbol(session, context, args.to, undefined, "to");
    const maxDepth = args.maxDepth ?? LIMITS.intel.calls.defaultTraceDepth;
    const result = traceCalls(session.calls, [from], [to], maxDepth);
    const cuts: string[] = [];
    if (result.truncatedBy === "maxPaths") cuts.push(`intel.calls.maxTracePaths = ${LIMITS.intel.calls.maxTracePaths}: the shortest paths listed are a sample`);
    if (result.truncatedBy === "maxExpanded") cuts.push(`intel.calls.maxExpanded = ${LIMITS.intel.calls.maxExpanded}: lower maxDepth`);
    if (result.truncatedBy === "maxDepth") cuts.push(`maxDepth = ${maxDepth}: raise maxDepth`);
    const out: TraceOutput = {
      from: symbolOut(from, session.display),
      to: symbolOut(to, session.display),
      paths: result.paths.map((entry) => ({
        confidence: entry.confidence,
        steps: entry.steps.map((step) => ({
          symbol: `${session.display(step.symbol.file)}#${step.symbol.qualifiedName}`,
          ...(step.call ? { line: step.call.line, confidence: step.call.confidence } : {}),
        })),
      })),
      ...completeness(session.coverage, cuts),
    };
    if (result.length !== undefined) out.length = result.length;
    return out;
  },
  render: (result) => {
    const lines: string[] = [];
    if (result.paths.length === 0) lines.push(`no call path from ${result.from.name} (${place(result.from)}) to ${result.to.name} (${place(result.to)})`);
    else lines.push(`${plural(result.paths.length, "shortest path")} of ${plural(result.length ?? 0, "call")} from ${result.from.name} to ${result.to.name}`);
    for (const entry of result.paths) {
      const steps = entry.steps.map((step) =>
        `${step.symbol}${step.line !== undefined ? ` :${step.line}${step.confidence && step.confidence !== "exact" ? ` [${step.confidence}]` : ""}` : ""}`
      );
      lines.push(`  ${steps.join(" → ")}`);
    }
    return renderIncomplete(result, lines);
  },
});
