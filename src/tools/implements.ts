import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { implementationsOf } from "../intel/calls/queries.ts";
import { PathInput, plural } from "./common.ts";
import { SYMBOL_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { ConfidenceEnum, openCallGraph, place, resolveSymbol, SymbolInput, SymbolOut, symbolOut } from "./call-common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";

const ImplementsOutput = z.object({
  symbol: SymbolOut,
  implementations: z
    .array(
      SymbolOut.extend({
        via: z.string().describe("The heritage entry as written (extends/implements/impl … for)."),
        confidence: ConfidenceEnum.describe("How surely the entry names this type (and, deeper, the chain)."),
        depth: z.number().int().describe("1: names the type directly; 2: extends a direct implementation; …"),
      }),
    )
    .describe("Types that extend or implement it, nearest first."),
  ...Completeness,
});
type ImplementsOutput = z.infer<typeof ImplementsOutput>;

export const implementsTool = defineTool({
  name: "implements",
  title: "Implementations of a type",
  description:
    "The classes, structs and interfaces that extend or implement an interface, trait or class (heritage clauses; Rust `impl Trait for`), directly or through subclasses, each with the confidence that the clause names this type and not a same-named one. Go's implicit interfaces are not inferred.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the type is declared in, when the name alone is ambiguous."),
  }),
  output: ImplementsOutput,
  annotations: READ_ONLY,
  errors: SYMBOL_ERRORS,
  handler: async (args, context) => {
    const session = await openCallGraph(context, { name: args.symbol, path: args.path });
    const symbol = await resolveSymbol(session, context, args.symbol, args.path, "symbol");
    const { implementations, truncated } = implementationsOf(session.calls, symbol);
    const cuts: string[] = [];
    if (truncated) cuts.push(`intel.calls.maxHeritageDepth = ${LIMITS.intel.calls.maxHeritageDepth}: ask implements about a deeper subtype`);
    return {
      symbol: symbolOut(symbol, session.display),
      implementations: implementations.map((entry) => ({ ...symbolOut(entry.symbol, session.display), via: entry.via, confidence: entry.confidence, depth: entry.depth })),
      ...completeness(session.coverage, cuts),
    };
  },
  render: (result: ImplementsOutput) => {
    const lines = [`${plural(result.implementations.length, "implementation")} of ${result.symbol.name} (${place(result.symbol)})`];
    for (const entry of result.implementations) {
      lines.push(`${"  ".repeat(entry.depth)}${entry.name} (${entry.kind}) ${place(entry)} via ${entry.via}${entry.confidence === "exact" ? "" : ` [${entry.confidence}]`}`);
    }
    return renderIncomplete(result, lines);
  },
});
