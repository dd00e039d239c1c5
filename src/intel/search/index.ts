/** The search subsystem's façade: the search index, the per-process service around it, and how results are shown. */
export { SearchIndex } from "./search-index.ts";
export type { Chunk, ChunkFile, DefinedSymbol, RefreshReport, SearchFile, SearchHit, SearchPersistence, SearchSource } from "./types.ts";
export { RecentTexts, SearchService } from "./service.ts";
export { enclosingCallable, hopsFrom, snippetOf } from "./present.ts";
export { queryMode, rankingTerms } from "./query.ts";
export { type Embedder, NullEmbedder } from "./embedder.ts";
