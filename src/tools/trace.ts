import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { traceCalls } from "../intel/calls/queries.ts";
import { confidenceTag } from "../intel/calls/types.ts";
import { plural } from "./common.ts";
import { SYMBOL_ERRORS } from "./error-sets.ts";
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
              reason: z.string().optional().describe("Why that call is ambiguous when not for several candidates: the receiver's type is unknown, and why."),
              dispatch: z.boolean().optional().describe(
                "true: the next step is not called here but may run in its place at run time (an implementation of this interface method, an override of this method).",
              ),
            }),
          )
          .describe("From the start to the target."),
        dispatch: z.boolean().optional().describe("The path passes through a dispatch step (found only because calls alone reach no target)."),
      }),
    )
    .describe("Shortest call paths, surest first; paths through dispatch only when calls alone reach no target."),
  ...Completeness,
});
type TraceOutput = z.infer<typeof TraceOutput>;

export const traceTool = defineTool({
  name: "trace",
  title: "Call paths between two functions",
  description:
    "The shortest call paths from one function to another (through callees, every confidence), each step with the line of its call and, when ambiguous, the reason; where calls alone reach no target, paths through dispatch (an interface method to its implementations, a method to its overrides), with those steps marked as not calls; none when the target is not reachable within maxDepth.",
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
  errors: SYMBOL_ERRORS,
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
          ...(step.call?.reason === undefined ? {} : { reason: step.call.reason }),
          ...(step.dispatch ? { dispatch: true } : {}),
        })),
        ...(entry.dispatch ? { dispatch: true } : {}),
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
      let text = "";
      for (const step of entry.steps) {
        text += step.symbol;
        if (step.line !== undefined) text += ` :${step.line}${confidenceTag(step.confidence ?? "exact", [], step.reason)} → `;
        else if (step.dispatch) text += " ⇢ may dispatch to ";
      }
      lines.push(`  ${text}`);
    }
    if (result.paths.some((entry) => entry.dispatch)) lines.push("(⇢: not a call; what may run in the method's place at run time, since calls alone reach no target)");
    return renderIncomplete(result, lines);
  },
});
