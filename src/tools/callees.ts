import { z } from "zod";
import { PathInput } from "./common.ts";
import { SYMBOL_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { DepthInput, renderWalk, SymbolInput, WalkOutput, walkTool } from "./call-common.ts";

export const calleesTool = defineTool({
  name: "callees",
  title: "What a function calls",
  description:
    "The calls a function or method makes (every member's calls for a class), each resolved to its declaration with a confidence, as in callers: exact, inferred, or ambiguous (several candidates, listed, or in Go, Python and TS/JS a receiver of unknown type, with the reason). A call of an interface method or of a method that subclasses override is listed apart in dispatch with the implementations and overrides that may run instead. depth > 1 follows into the callees.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    depth: DepthInput,
  }),
  output: WalkOutput,
  annotations: READ_ONLY,
  errors: SYMBOL_ERRORS,
  handler: (args, context) => walkTool(args, context, "callees"),
  render: (result) => renderWalk(result, "callees"),
});
