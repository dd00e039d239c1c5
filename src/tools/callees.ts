import { z } from "zod";
import { PathInput } from "./common.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { DepthInput, renderWalk, SymbolInput, WalkOutput, walkTool } from "./call-common.ts";

export const calleesTool = defineTool({
  name: "callees",
  title: "What a function calls",
  description:
    "The calls a function or method makes (every member's calls for a class), each resolved to its declaration with a confidence: exact, inferred or ambiguous. depth > 1 follows into the callees.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    depth: DepthInput,
  }),
  output: WalkOutput,
  annotations: READ_ONLY,
  handler: (args, context) => walkTool(args, context, "callees"),
  render: (result) => renderWalk(result, "callees"),
});
