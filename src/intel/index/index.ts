/**
 * The code index: one per set of roots, built lazily, kept equal to the disk (code-index.ts), held
 * per process by an IndexRegistry (registry.ts, ToolServices.indexes). The rest of src/ imports
 * the index from here.
 */
export { CodeIndex, type IndexHooks } from "./code-index.ts";
export { type CodeIndexOptions, DEFAULT_INDEX_SETTINGS, DEFAULT_INDEX_TUNING, type EnsureFreshOptions, indexSettingsFrom, type IndexTuning } from "./settings.ts";
export { type IndexContext, IndexRegistry, type RegistryOptions } from "./registry.ts";
export type { Coverage, FactsExtractor, IndexedFile, IndexSettings, IndexStats, SkippedCounts } from "./types.ts";
