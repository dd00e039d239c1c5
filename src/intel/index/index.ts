/** The code index's façade: the rest of src/ imports the index from here. */
export { CodeIndex } from "./code-index.ts";
export { type CodeIndexOptions, DEFAULT_INDEX_SETTINGS, DEFAULT_INDEX_TUNING } from "./settings.ts";
export { type IndexContext, IndexRegistry } from "./registry.ts";
export type { Coverage, FactsExtractor, IndexedFile, IndexSettings } from "./types.ts";
