/** The search index's data types: what it reads from the code index, and what its answers hold. */
import type { SymbolFact, SymbolKind } from "../facts/types.ts";
import type { LanguageId } from "../../syntax/index.ts";

/** The part of an indexed file search reads (CodeIndex's IndexedFile satisfies it). */
export interface SearchFile {
  real: string;
  display: string;
  language: LanguageId;
  sha256: string;
  size: number;
  /** Lines in the file. */
  lines: number;
  facts: { symbols: readonly SymbolFact[] };
}

/** What search needs from the code index (CodeIndex satisfies it). */
export interface SearchSource {
  readonly generation: number;
  /** False while the source's first build runs (files() lists only the files done so far); absent: always complete. */
  readonly built?: boolean;
  files(): readonly SearchFile[];
  /** The file's current text. */
  text(file: SearchFile): Promise<string>;
  /**
   * Where the search index of these files persists between processes, and the stamp (roots,
   * extractor) it must carry to be used; undefined or absent: it is not persisted.
   */
  persistence?(): Promise<SearchPersistence | undefined>;
}

export interface SearchPersistence {
  file: string;
  stamp: string;
}

export const FIELDS = ["name", "signature", "doc", "body"] as const;
export type Field = (typeof FIELDS)[number];
export type Signal = Field | "embedding" | "definition" | "proximity";

/** The file a chunk belongs to, as filters see it. */
export interface ChunkFile {
  real: string;
  display: string;
  language: LanguageId;
}

/** A chunk as answers show it: a copy, so it stays valid whatever the index does next. */
export interface Chunk extends ChunkFile {
  /** Its id in the index when it was taken (-1 for a chunk built only to compare with). */
  id: number;
  /** Content hash of the file text the chunk was cut from. */
  sha256: string;
  startLine: number;
  endLine: number;
  /** Offset (UTF-16 code units) of startLine in that text, or -1 when unknown. */
  startOffset: number;
  /** qualifiedName of the symbol the chunk belongs to. */
  symbol?: string;
  kind?: SymbolKind;
}

/** A symbol a chunk defines. */
export interface DefinedSymbol {
  qualifiedName: string;
  kind: SymbolKind;
  startLine: number;
  /** Its last line within the chunk. */
  endLine: number;
}

export interface SearchHit {
  chunk: Chunk;
  score: number;
  signals: Signal[];
  /** The defined symbol the query names, when the chunk has one: a result points at it rather than the whole chunk. */
  focus?: DefinedSymbol;
}

export interface RelatedHit {
  chunk: Chunk;
  score: number;
  /** The shared terms (identifiers and their parts, lowercased) that weigh most, rarest first. */
  shared: string[];
}

export interface SearchOptions {
  topK: number;
  /** Keeps only chunks of files this accepts (path and language filters); asked once per file. */
  accept?: (file: ChunkFile) => boolean;
  /** Import-graph hops from the context file (0 = the file itself), for the proximity boost. */
  proximity?: ReadonlyMap<string, number>;
  /**
   * Also rank the chunks restored from the persisted index whose files the source has not listed
   * yet (a restart answering before its first build ends): the caller checks each file's content
   * against the chunk's hash before showing it.
   */
  unlisted?: boolean;
}

export interface RefreshReport {
  /** Files chunked again in this refresh (new or changed). */
  rechunked: number;
  removed: number;
  files: number;
  chunks: number;
  /** Files whose text could not be read this time (left out until a later refresh reads them). */
  unreadable: string[];
  /** Files over LIMITS.intel.search.maxChunkedFileBytes: their names count, their source text does not. */
  bodiesSkipped: number;
  /** Files whose chunks this refresh took from the persisted index (unchanged since it was written). */
  restored: number;
}

/** How a search index spends time and memory while it builds (constructor options; tests vary them). */
export interface SearchTuning {
  /** Files whose chunks are built at once while the index catches up. */
  buildConcurrency: number;
  /** Texts handed to an embedder in one call. */
  embedBatchSize: number;
  /**
   * Term-chunk pairs added since the last merge (over all fields) that make the index fold them
   * into its sorted main arrays at once: bounds the memory of the append log while a large tree is
   * indexed (14 bytes a pair there, 5 once merged).
   */
  mergeTailPairs: number;
  /** After a refresh that changed the index (past the first build, written at once), the persisted index is rewritten once no refresh came for this long. */
  persistDelayMs: number;
  /** …and at most this often (a large tree's file is tens of MB); the shutdown writes what is left. */
  persistMinIntervalMs: number;
}
