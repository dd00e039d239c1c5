import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { packContext } from "../intel/calls/context.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { PathInput } from "./common.ts";
import { SYMBOL_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import {
  CallOut,
  callOut,
  ConfidenceEnum,
  DispatchOutput,
  dispatchOut,
  openCallGraph,
  place,
  renderCall,
  renderDispatch,
  resolveSymbol,
  SymbolInput,
  SymbolOut,
  symbolOut,
} from "./call-common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";

const ContextOutput = z.object({
  target: SymbolOut,
  budget: z.number().int().describe("The token budget."),
  usedTokens: z.number().int().describe("Estimated tokens of the sections."),
  sections: z
    .array(
      z.object({
        role: z.enum(["target", "callee", "caller"]).describe("target: the body asked for; callee: a body it calls; caller: a caller's signature."),
        name: z.string().describe("Qualified name (callers at module level: (module level))."),
        path: z.string().describe("File of the section."),
        startLine: z.number().int().describe("First line (1-based); for callers, the line of the call."),
        endLine: z.number().int().describe("Last line."),
        confidence: ConfidenceEnum.optional().describe("For callees and callers: the confidence of the edge."),
        cut: z.boolean().optional().describe("The target's body was cut to fit the budget."),
        text: z.string().describe("The source (target, callees) or signature line (callers)."),
      }),
    )
    .describe("Target first, then callee bodies in call order, then caller signatures."),
  omitted: z.array(z.object({ role: z.enum(["callee", "caller"]), name: z.string(), path: z.string(), line: z.number().int() })).describe("What did not fit (ask show for it)."),
  ambiguousCallees: z.array(CallOut).describe(
    "Calls the graph could not pin to one declaration (not packed), with the candidates and, for a receiver of unknown type, the reason.",
  ),
  dispatch: z
    .object({ callers: DispatchOutput, callees: DispatchOutput })
    .optional()
    .describe(
      "Calls that may dispatch at run time, apart (not packed): callers, those that may dispatch to the target; callees, its calls that may run an implementation or override instead.",
    ),
  ...Completeness,
});
type ContextOutput = z.infer<typeof ContextOutput>;

export const contextTool = defineTool({
  name: "context",
  title: "A function with what it calls and who calls it",
  description:
    "Everything needed to change one declaration, packed into a token budget: its body, the bodies of the functions it calls (exact and inferred edges, in call order) and the signatures of its callers, each edge tagged with its confidence (exact, inferred, ambiguous with the candidates and reason, as in callers); ambiguous calls and the calls that may dispatch at run time (through an interface or an override) are listed apart, not packed; what did not fit is named so show can fetch it.",
  input: z.strictObject({
    target: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    budget: z
      .number()
      .int()
      .min(16)
      .max(LIMITS.intel.calls.maxContextBudget)
      .optional()
      .describe(`Token budget (default ${LIMITS.intel.calls.defaultContextBudget}), estimated with the shared o200k-like estimator.`),
  }),
  output: ContextOutput,
  annotations: READ_ONLY,
  errors: SYMBOL_ERRORS,
  handler: async (args, context) => {
    const session = await openCallGraph(context, { name: args.target, path: args.path });
    const target = await resolveSymbol(session, context, args.target, args.path, "target");
    const budget = args.budget ?? LIMITS.intel.calls.defaultContextBudget;
    const read = async (real: string) => {
      const file = session.index.get(real);
      // A file changed since the index was refreshed fails with stale_hash (retryable), rather than packing a wrong body.
      return file ? session.index.text(file as IndexedFile) : undefined;
    };
    const packed = await packContext(session.calls, target, budget, read, session.display);
    const cuts: string[] = [];
    if (packed.omitted.length > 0 || packed.sections[0]?.cut) cuts.push(`budget = ${budget}: raise budget`);
    const callers = dispatchOut(session, target, "callers", LIMITS.intel.calls.maxLimit);
    const callees = dispatchOut(session, target, "callees", LIMITS.intel.calls.maxLimit);
    return {
      target: symbolOut(target, session.display),
      budget,
      usedTokens: packed.usedTokens,
      sections: packed.sections.map((section) => ({
        role: section.role,
        name: section.symbol?.qualifiedName ?? "(module level)",
        path: session.display(section.file),
        startLine: section.startLine,
        endLine: section.endLine,
        ...(section.confidence ? { confidence: section.confidence } : {}),
        ...(section.cut ? { cut: true } : {}),
        text: section.text,
      })),
      omitted: packed.omitted.map((entry) => ({ role: entry.role, name: entry.name, path: session.display(entry.file), line: entry.line })),
      ambiguousCallees: packed.ambiguousCallees.map((edge) => callOut(edge, session.display)),
      ...(callers || callees ? { dispatch: { ...(callers ? { callers } : {}), ...(callees ? { callees } : {}) } } : {}),
      ...completeness(session.coverage, cuts),
    };
  },
  render: (result: ContextOutput) => {
    const lines = [`context of ${result.target.name} (${place(result.target)}): ${result.usedTokens}/${result.budget} tokens`];
    let role = "";
    for (const section of result.sections) {
      if (section.role !== role) {
        role = section.role;
        if (role === "callee") lines.push("", "── callees");
        if (role === "caller") lines.push("", "── callers");
      }
      lines.push(section.text + (section.cut ? "\n… (cut to the budget)" : ""));
    }
    if (result.ambiguousCallees.length > 0) {
      lines.push("", "ambiguous calls (not packed):");
      for (const call of result.ambiguousCallees) lines.push(renderCall(call, "callees"));
    }
    if (result.dispatch) {
      lines.push("");
      renderDispatch(result.dispatch.callees, "callees", lines);
      renderDispatch(result.dispatch.callers, "callers", lines);
    }
    if (result.omitted.length > 0) lines.push("", `did not fit: ${result.omitted.map((entry) => `${entry.role} ${entry.name} (${entry.path}:${entry.line})`).join(", ")}`);
    return renderIncomplete(result, lines);
  },
});
