/**
 * The syntax layer's façade: language identity (languageOf, the LanguageId names), the grammars and
 * the one napi loader, parsing (source and JSON/TOML/YAML documents) with located syntax errors and top-level statements, structural
 * patterns, and the release of native trees. The rest of src/ imports syntax/ through this file.
 */
export * from "./detect.ts";
export * from "./documents.ts";
export * from "./grammars.ts";
export * from "./language-names.ts";
export * from "./parse.ts";
export * from "./pattern-form.ts";
export * from "./structural.ts";
export * from "./tree-release.ts";
