/**
 * The code index: one per set of roots, built lazily, kept equal to the disk. See code-index.ts.
 */
export { CodeIndex, DEFAULT_INDEX_SETTINGS, indexSettingsFrom, type CodeIndexOptions, type EnsureFreshOptions } from "./code-index.ts";
export type { Coverage, FactsExtractor, IndexedFile, IndexSettings, IndexStats, SkippedCounts } from "./types.ts";
export { userCacheDirectory } from "../../config/cache-dir.ts";
