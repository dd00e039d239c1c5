/** Optional type-aware answers for TypeScript and JavaScript (loaded only when asked for). */
export {
  diagnosticDelta,
  typeErrorReport,
  typedOutline,
  typedReferences,
  type DiagnosticDelta,
  type IntroducedDiagnostic,
  type ReferenceTarget,
  type TypeErrorReport,
  type TypedOptions,
  type TypedOutline,
  type TypedReference,
  type TypedReferences,
  type TypedSymbol,
} from "./typed.ts";
export type { ProjectInfo } from "./project.ts";
export { supportsTypedAnswers, TypeScriptProjects, type TypeScriptProjectsOptions } from "./services.ts";
export { typedCallers, type TypedCall, type TypedCallers } from "./callers.ts";
export { matchTyped, typedSymbolsFor } from "./merge.ts";
