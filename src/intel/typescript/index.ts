/** Optional type-aware answers for TypeScript and JavaScript (loaded only when asked for). */
export { diagnosticDelta, typeErrorReport, typedOutline, typedReferences } from "./typed.ts";
export { supportsTypedAnswers, TypeScriptProjects } from "./services.ts";
export { typedCallers } from "./callers.ts";
export { typedSymbolsFor } from "./merge.ts";
