/** The search subsystem's façade: the search index, the per-process service around it, and how results are shown. */
export { type Chunk, type ChunkFile, type DefinedSymbol, type RefreshReport, SearchIndex, type SearchFile, type SearchHit, type SearchSource, type SearchTuning } from "./search-index.ts";
export { RecentTexts, SearchService, type SearchServiceOptions } from "./service.ts";
export { hopsFrom, snippetOf } from "./present.ts";
export { type Embedder, NullEmbedder } from "./embedder.ts";
