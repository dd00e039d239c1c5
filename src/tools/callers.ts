import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { PathInput } from "./common.ts";
import { SYMBOL_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { ConfidenceEnum, DepthInput, renderWalk, SymbolInput, WalkOutput, walkTool } from "./call-common.ts";

export const callersTool = defineTool({
  name: "callers",
  title: "Who calls a function",
  description:
    "The call sites of a function, method or class, resolved syntactically through imports (re-exports, aliases and namespaces followed) and scope, and in Go, Python, TypeScript and JavaScript through the receiver's type as the source writes it (receivers, self/this, parameters, locals, fields, constructions, declared results; a call through an interface value is a call of the interface method, not of an implementation; the calls of a Go interface method a method implements, or of a parent's method it overrides, are listed apart in dispatch, as calls that may dispatch to it, never counted as calls); each edge is exact, inferred (the only declaration of that name, where receivers have no types) or ambiguous (several candidates, listed, or in those languages a receiver of unknown type, with the reason); minConfidence: \"inferred\" keeps the sure ones. Occurrences of the name that resolve to nothing (an import that did not resolve, an unbound name, a value) are listed apart as unresolved candidates with the reason, never counted as calls. depth > 1 walks up through the callers' callers.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    depth: DepthInput,
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.intel.calls.maxLimit)
      .optional()
      .describe(`Call sites listed at most (default ${LIMITS.intel.calls.defaultLimit}).`),
    minConfidence: ConfidenceEnum.optional().describe("Drop edges weaker than this: exact, inferred, or ambiguous (default: keep all)."),
    typed: z
      .boolean()
      .optional()
      .describe("TS/JS: let the TypeScript compiler resolve the call sites (slower; precise through aliases, re-exports and methods). Other languages ignore it."),
  }),
  output: WalkOutput,
  annotations: READ_ONLY,
  errors: SYMBOL_ERRORS,
  handler: (args, context) => walkTool(args, context, "callers"),
  render: (result) => renderWalk(result, "callers"),
});
