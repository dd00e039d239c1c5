import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { DepsInput, DepsOutput, renderDeps, walkImports } from "./graph-common.ts";

export const depsTool = defineTool({
  name: "deps",
  title: "What a file imports",
  description:
    "The files a file (or a folder's files) imports, resolved like the compiler/runtime would: relative paths, NodeNext .js→.ts, index files, tsconfig paths/baseUrl (extends followed), package.json exports/imports, npm/yarn/pnpm workspace packages, Python packages and relative imports, Go modules, Rust mod/use, Java/Kotlin packages, C includes. External packages are counted per package; unresolved specifiers (and external ones whose path names a module of the tree) are listed with the reason, and make the answer incomplete.",
  input: DepsInput,
  output: DepsOutput,
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: (args, context) => walkImports(args, context, "dependencies"),
  render: (result) => renderDeps(result, "imports"),
});
