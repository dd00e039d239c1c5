import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { DepsInput, DepsOutput, renderDeps, walkImports } from "./graph-common.ts";

export const reverseDepsTool = defineTool({
  name: "reverse_deps",
  title: "What imports a file",
  description:
    "The files that import a file (or a folder's files), directly or through up to `depth` hops, with the import statements of the direct ones. Same module resolution as deps; imports elsewhere whose path names the file but did not resolve to it are listed as unresolved with the reason. Use it before moving, renaming or deleting a file.",
  input: DepsInput,
  output: DepsOutput,
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: (args, context) => walkImports(args, context, "dependents"),
  render: (result) => renderDeps(result, "imported by"),
});
