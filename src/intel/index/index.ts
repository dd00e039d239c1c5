/**
 * The code index: one per set of roots, built lazily, kept equal to the disk (code-index.ts), held
 * per process by an IndexRegistry (registry.ts, ToolServices.indexes). The rest of src/ imports
 * the index from here.
 */
export { CodeIndex } from "./code-index.ts";
export { type CodeIndexOptions, DEFAULT_INDEX_SETTINGS, DEFAULT_INDEX_TUNING } from "./settings.ts";
export { type IndexContext, IndexRegistry } from "./registry.ts";
export type { Coverage, FactsExtractor, IndexedFile, IndexSettings } from "./types.ts";
