/**
 * The search index: every indexed file cut into chunks (src/intel/search/chunks.ts), each chunk a
 * document with four BM25 fields — the names it defines, their signatures, their doc comments and
 * its source — plus a whole-identifier field for find_related, and optional dense vectors.
 *
 * A query is ranked in each field separately, the rankings (and the dense one, with an embedder) are
 * fused by reciprocal rank fusion, and structural boosts apply on top: a chunk that defines a symbol
 * named by the query beats chunks that only use it, and chunks near a context file in the import
 * graph rise. The index follows the code index incrementally: only files whose content hash changed
 * are chunked again.
 */
import { LIMITS } from "../../core/limits.ts";
import { log } from "../../core/log.ts";
import type { SymbolFact, SymbolKind } from "../facts/types.ts";
import type { LanguageId } from "../languages.ts";
import { FieldIndex, type FieldDocument, Liveness, type RankedList, rankScores, reciprocalRankFusion, TermDictionary } from "./bm25.ts";
import { chunkFile } from "./chunks.ts";
import { currentEmbedder, dot, type Embedder, normalize } from "./embedder.ts";
import { identifiersIn, identifierTerms, queryTerms, termCounts, wholeTerm } from "./tokenize.ts";

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
  files(): readonly SearchFile[];
  /** The file's current text. */
  text(file: SearchFile): Promise<string>;
}

export const FIELDS = ["name", "signature", "doc", "body"] as const;
export type Field = (typeof FIELDS)[number];
export type Signal = Field | "embedding" | "definition" | "proximity";

export interface Chunk {
  id: number;
  real: string;
  display: string;
  language: LanguageId;
  startLine: number;
  endLine: number;
  /** qualifiedName of the symbol the chunk belongs to. */
  symbol?: string;
  kind?: SymbolKind;
  /** The symbols the chunk defines: name lowercased, its terms, and where it is. */
  defines: DefinedSymbol[];
  /**
   * Distinct term ids of every field, packed to stay small: the first FIELDS.length numbers are
   * each field's count, then the ids field by field (the frequencies live in the field indexes).
   */
  termIds: Int32Array;
}

/** The term ids one field of a chunk holds. */
export function fieldTermIds(chunk: Chunk, field: Field): Int32Array {
  const position = FIELDS.indexOf(field);
  let start = FIELDS.length;
  for (let index = 0; index < position; index++) start += chunk.termIds[index]!;
  return chunk.termIds.subarray(start, start + chunk.termIds[position]!);
}

function packTermIds(perField: readonly number[][]): Int32Array {
  const packed = new Int32Array(FIELDS.length + perField.reduce((sum, ids) => sum + ids.length, 0));
  let at = FIELDS.length;
  perField.forEach((ids, index) => {
    packed[index] = ids.length;
    packed.set(ids, at);
    at += ids.length;
  });
  return packed;
}

export interface DefinedSymbol {
  name: string;
  qualifiedName: string;
  kind: SymbolKind;
  startLine: number;
  endLine: number;
  terms: readonly string[];
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
  /** Keeps only chunks of files this accepts (path and language filters). */
  accept?: (chunk: Chunk) => boolean;
  /** Import-graph hops from the context file (0 = the file itself), for the proximity boost. */
  proximity?: ReadonlyMap<string, number>;
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
}

/** RRF's k: large enough that the first few ranks of one list do not drown the others. */
const RRF_K = 60;
/** How deep each field's ranking goes into the fusion (below that a rank adds less than a fifth of the top rank's share). */
const FUSION_DEPTH = 250;
/** The dense ranking stands for the meaning of the whole chunk, against four lexical views of it: it weighs as two. */
const FIELD_WEIGHT: Record<Field | "embedding", number> = { name: 1.2, signature: 0.8, doc: 0.6, body: 1, embedding: 2 };
/** Multipliers: a chunk defining the named symbol, and one whose defined name covers every query term. */
const EXACT_DEFINITION_BOOST = 2.5;
const COVERING_DEFINITION_BOOST = 1.8;
/** Proximity multiplier is 1 + PROXIMITY_BOOST / (1 + hops). */
const PROXIMITY_BOOST = 0.6;
/** Terms of the anchor chunk find_related weighs (the rarest ones). */
const RELATED_MAX_TERMS = 64;
const RELATED_SHARED_LISTED = 8;

function documentOf(texts: Iterable<string>): FieldDocument {
  const counts = new Map<string, number>();
  let length = 0;
  for (const text of texts) length += termCounts(text, counts).length;
  return { counts, length };
}

interface FileEntry {
  sha256: string;
  chunkIds: number[];
}

async function mapLimited<T>(items: readonly T[], limit: number, signal: AbortSignal | undefined, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      signal?.throwIfAborted();
      const item = items[next++]!;
      await work(item);
    }
  });
  await Promise.all(workers);
}

/** Start offsets of each line (1-based line n starts at starts[n - 1]). */
export function lineOffsets(text: string): number[] {
  const starts = [0];
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(index + 1) !== 0x0a)) starts.push(index + 1);
  }
  return starts;
}

export function linesBetween(text: string, starts: readonly number[], startLine: number, endLine: number): string {
  const from = starts[startLine - 1] ?? text.length;
  const to = starts[endLine] ?? text.length;
  return text.slice(from, to);
}

export class SearchIndex {
  static readonly #indexes = new WeakMap<SearchSource, SearchIndex>();

  readonly #source: SearchSource;
  readonly #embedder: Embedder;
  readonly #dictionary = new TermDictionary();
  readonly #live = new Liveness();
  readonly #fields: Record<Field, FieldIndex> = {
    name: new FieldIndex(this.#dictionary, this.#live),
    signature: new FieldIndex(this.#dictionary, this.#live),
    doc: new FieldIndex(this.#dictionary, this.#live),
    body: new FieldIndex(this.#dictionary, this.#live),
  };
  readonly #chunks = new Map<number, Chunk>();
  readonly #files = new Map<string, FileEntry>();
  readonly #vectors = new Map<number, Float32Array>();
  #nextId = 1;
  #generation = -1;
  #lastReport: RefreshReport = { rechunked: 0, removed: 0, files: 0, chunks: 0, unreadable: [], bodiesSkipped: 0 };
  #bodiesSkipped = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(source: SearchSource, options: { embedder?: Embedder } = {}) {
    this.#source = source;
    this.#embedder = options.embedder ?? currentEmbedder();
  }

  /** The search index of a code index (one per source, kept as long as the source lives). */
  static for(source: SearchSource): SearchIndex {
    let index = SearchIndex.#indexes.get(source);
    if (!index) {
      index = new SearchIndex(source);
      SearchIndex.#indexes.set(source, index);
    }
    return index;
  }

  get embedder(): Embedder {
    return this.#embedder;
  }

  get chunkCount(): number {
    return this.#chunks.size;
  }

  chunk(id: number): Chunk | undefined {
    return this.#chunks.get(id);
  }

  /** Chunks of one file, in line order. */
  chunksOf(real: string): Chunk[] {
    return (this.#files.get(real)?.chunkIds ?? []).map((id) => this.#chunks.get(id)!).filter(Boolean);
  }

  /** Brings the chunks up to the source's generation; refreshes run one at a time. */
  refresh(options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {}): Promise<RefreshReport> {
    const run = this.#queue.then(() => this.#refresh(options.signal, options.onProgress));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #refresh(signal: AbortSignal | undefined, onProgress: ((done: number, total: number) => void) | undefined): Promise<RefreshReport> {
    const generation = this.#source.generation;
    if (generation === this.#generation) return this.#lastReport;
    const files = this.#source.files();
    const present = new Set<string>();
    const changed: SearchFile[] = [];
    for (const file of files) {
      present.add(file.real);
      if (this.#files.get(file.real)?.sha256 !== file.sha256) changed.push(file);
    }
    let removed = 0;
    for (const real of [...this.#files.keys()]) {
      if (present.has(real)) continue;
      this.#removeFile(real);
      this.#bodiesSkipped.delete(real);
      removed++;
    }
    const unreadable: string[] = [];
    const fresh: Array<{ chunk: Chunk; text: string }> = [];
    let done = 0;
    let reported = 0;
    await mapLimited(changed, LIMITS.intel.search.buildConcurrency, signal, async (file) => {
      try {
        await this.#chunkOne(file, unreadable, fresh);
      } finally {
        done++;
        // About a hundred reports at most, whatever the number of files.
        if (onProgress && (done === changed.length || done - reported >= Math.max(1, changed.length / 100))) {
          reported = done;
          onProgress(done, changed.length);
        }
      }
    });
    await this.#embedChunks(fresh, signal);
    // An unreadable file keeps the generation from counting as done, so the next refresh retries it.
    this.#generation = unreadable.length === 0 ? generation : -1;
    this.#lastReport = {
      rechunked: changed.length - unreadable.length,
      removed,
      files: this.#files.size,
      chunks: this.#chunks.size,
      unreadable,
      bodiesSkipped: this.#bodiesSkipped.size,
    };
    return this.#lastReport;
  }

  /** Chunks one new or changed file; a file that cannot be read is noted and left for the next refresh. */
  async #chunkOne(file: SearchFile, unreadable: string[], fresh: Array<{ chunk: Chunk; text: string }>): Promise<void> {
    let text = "";
    const withBody = file.size <= LIMITS.intel.search.maxChunkedFileBytes;
    if (withBody) {
      try {
        text = await this.#source.text(file);
      } catch (error) {
        unreadable.push(file.display);
        log.debug("search left out a file it could not read", { file: file.display, error: error instanceof Error ? error.message : String(error) });
        return;
      }
    }
    if (withBody) this.#bodiesSkipped.delete(file.real);
    else this.#bodiesSkipped.add(file.real);
    this.#removeFile(file.real);
    const chunks = this.#addFile(file, withBody ? text : undefined);
    if (this.#embedder.dimensions > 0 && withBody) {
      const starts = lineOffsets(text);
      for (const chunk of chunks) fresh.push({ chunk, text: linesBetween(text, starts, chunk.startLine, chunk.endLine) });
    }
  }

  async #embedChunks(items: Array<{ chunk: Chunk; text: string }>, signal: AbortSignal | undefined): Promise<void> {
    for (let from = 0; from < items.length; from += LIMITS.intel.search.embedBatchSize) {
      signal?.throwIfAborted();
      const batch = items.slice(from, from + LIMITS.intel.search.embedBatchSize);
      const vectors = await this.#embedder.embed(batch.map((item) => item.text));
      batch.forEach((item, position) => {
        const vector = vectors[position];
        // The chunk may have been replaced while the model ran.
        if (vector && vector.length === this.#embedder.dimensions && this.#chunks.has(item.chunk.id)) this.#vectors.set(item.chunk.id, normalize(vector));
      });
    }
  }

  #addFile(file: SearchFile, text: string | undefined): Chunk[] {
    const spans = chunkFile(Math.max(file.lines, 1), file.facts.symbols);
    const starts = text === undefined ? [] : lineOffsets(text);
    const chunks: Chunk[] = [];
    for (const span of spans) {
      const documents: Record<Field, FieldDocument> = {
        name: documentOf(span.defines.flatMap((symbol) => [symbol.name, ...(symbol.qualifiedName === symbol.name ? [] : [symbol.qualifiedName])])),
        signature: documentOf(span.defines.map((symbol) => symbol.signature)),
        doc: documentOf(span.defines.flatMap((symbol) => (symbol.doc === undefined ? [] : [symbol.doc]))),
        body: text === undefined ? { counts: new Map(), length: 0 } : documentOf([linesBetween(text, starts, span.startLine, span.endLine)]),
      };
      // A chunk with nothing to find (blank lines, a lone brace) is left out.
      if (FIELDS.every((field) => documents[field].length === 0)) continue;
      const id = this.#nextId++;
      this.#live.set(id, true);
      const perField = FIELDS.map((field) => {
        const termIds: number[] = [];
        this.#fields[field].add(id, documents[field], termIds);
        return termIds;
      });
      const chunk: Chunk = {
        id,
        real: file.real,
        display: file.display,
        language: file.language,
        startLine: span.startLine,
        endLine: span.endLine,
        defines: span.defines.map((symbol) => ({
          name: wholeTerm(symbol.name),
          qualifiedName: symbol.qualifiedName,
          kind: symbol.kind,
          startLine: symbol.startLine,
          endLine: Math.min(symbol.endLine, span.endLine),
          terms: identifierTerms(symbol.name),
        })),
        termIds: packTermIds(perField),
      };
      if (span.owner) {
        chunk.symbol = span.owner.qualifiedName;
        chunk.kind = span.owner.kind;
      }
      this.#chunks.set(id, chunk);
      chunks.push(chunk);
    }
    this.#files.set(file.real, { sha256: file.sha256, chunkIds: chunks.map((chunk) => chunk.id) });
    return chunks;
  }

  #removeFile(real: string): void {
    const entry = this.#files.get(real);
    if (!entry) return;
    for (const id of entry.chunkIds) {
      const chunk = this.#chunks.get(id);
      if (!chunk) continue;
      this.#live.set(id, false);
      for (const field of FIELDS) this.#fields[field].remove(id, fieldTermIds(chunk, field));
      this.#chunks.delete(id);
      this.#vectors.delete(id);
    }
    this.#files.delete(real);
  }

  /** Equal scores are ordered by path, then line, so answers do not depend on the order files were read in. */
  readonly #byPlace = (a: number, b: number): number => {
    const left = this.#chunks.get(a)!;
    const right = this.#chunks.get(b)!;
    if (left.display !== right.display) return left.display < right.display ? -1 : 1;
    return left.startLine - right.startLine;
  };

  /** Whether every indexed file's source text is searchable (none over the size limit). */
  get bodiesSkipped(): number {
    return this.#bodiesSkipped.size;
  }

  /**
   * The best chunks for a query. `terms` lists the query terms used; `ignoredTerms` those beyond
   * LIMITS.intel.search.maxQueryTerms.
   */
  async search(query: string, options: SearchOptions): Promise<{ hits: SearchHit[]; terms: string[]; ignoredTerms: string[] }> {
    const allTerms = queryTerms(query);
    const terms = allTerms.slice(0, LIMITS.intel.search.maxQueryTerms);
    const ignoredTerms = allTerms.slice(LIMITS.intel.search.maxQueryTerms);
    const total = this.#chunks.size;
    const accept = options.accept ? (id: number) => options.accept!(this.#chunks.get(id)!) : undefined;
    const weighted = terms.map((term) => ({ term }));
    const lists: Array<RankedList & { signal: Signal; scores: ReadonlyMap<number, number> }> = [];
    for (const field of FIELDS) {
      const scores = this.#fields[field].score(weighted, total, accept);
      lists.push({ ranked: rankScores(scores, FUSION_DEPTH), scores, weight: FIELD_WEIGHT[field], signal: field });
    }
    if (this.#embedder.dimensions > 0 && this.#vectors.size > 0 && query.trim() !== "") {
      const [queryVector] = await this.#embedder.embed([query]);
      if (queryVector && queryVector.length === this.#embedder.dimensions) {
        const normalized = normalize(queryVector);
        const similarities = new Map<number, number>();
        for (const [id, vector] of this.#vectors) {
          if (accept && !accept(id)) continue;
          const similarity = dot(normalized, vector);
          if (similarity > 0) similarities.set(id, similarity);
        }
        lists.push({ ranked: rankScores(similarities, FUSION_DEPTH), scores: similarities, weight: FIELD_WEIGHT.embedding, signal: "embedding" });
      }
    }
    const fused = reciprocalRankFusion(lists, RRF_K);
    const queryNames = new Set(identifiersIn(query).map(wholeTerm));
    // Digits alone ("2") do not make a name cover the query.
    const words = terms.filter((term) => !/^\p{N}+$/u.test(term));
    const boosts = (chunk: Chunk) => {
      const definition = chunk.defines.length === 0 ? NO_DEFINITION : definitionBoost(chunk, words, queryNames);
      const hops = options.proximity?.get(chunk.real);
      return { definition: definition.boost, focus: definition.symbol, proximity: hops === undefined ? 1 : 1 + PROXIMITY_BOOST / (1 + hops) };
    };
    for (const [id, score] of fused) {
      const { definition, proximity } = boosts(this.#chunks.get(id)!);
      if (definition !== 1 || proximity !== 1) fused.set(id, score * definition * proximity);
    }
    const hits = rankScores(fused, options.topK, this.#byPlace).map((id) => {
      const chunk = this.#chunks.get(id)!;
      const signals: Signal[] = lists.filter((list) => list.scores.has(id)).map((list) => list.signal);
      const { definition, focus, proximity } = boosts(chunk);
      if (definition > 1) signals.push("definition");
      if (proximity > 1) signals.push("proximity");
      return { chunk, score: fused.get(id)!, signals, ...(focus ? { focus } : {}) };
    });
    return { hits, terms, ignoredTerms };
  }

  /** The chunk holding a line of a file. */
  chunkAt(real: string, line: number): Chunk | undefined {
    return this.chunksOf(real).find((chunk) => chunk.startLine <= line && line <= chunk.endLine);
  }

  /** The chunk holding a line of a file the index does not hold (one the walk skips): built to compare with, never stored. */
  transientChunkAt(file: SearchFile, text: string, line: number): Chunk | undefined {
    const span = chunkFile(Math.max(file.lines, 1), file.facts.symbols).find((candidate) => candidate.startLine <= line && line <= candidate.endLine);
    if (!span) return undefined;
    const body = documentOf([linesBetween(text, lineOffsets(text), span.startLine, span.endLine)]);
    // Terms the index has never seen cannot be shared with any chunk.
    const termIds = [...body.counts.keys()].map((term) => this.#dictionary.lookup(term)).filter((id): id is number => id !== undefined);
    return {
      id: -1,
      real: file.real,
      display: file.display,
      language: file.language,
      startLine: span.startLine,
      endLine: span.endLine,
      ...(span.owner ? { symbol: span.owner.qualifiedName, kind: span.owner.kind } : {}),
      defines: [],
      termIds: packTermIds(FIELDS.map((field) => (field === "body" ? termIds : []))),
    };
  }

  /**
   * Chunks sharing the most identifiers with `anchor`: BM25 over source text with the anchor's
   * rarest terms as the query, each counted once per chunk, so a shared rare identifier outweighs
   * many shared common ones. The anchor chunk itself is left out.
   */
  related(anchor: Chunk, options: { topK: number; accept?: (chunk: Chunk) => boolean }): RelatedHit[] {
    const total = this.#chunks.size;
    const body = this.#fields.body;
    const weighed = [...fieldTermIds(anchor, "body")]
      .map((termId) => this.#dictionary.term(termId))
      .filter((term) => term.length >= 2)
      .map((term) => ({ term, idf: body.idf(term, total) }))
      .sort((a, b) => b.idf - a.idf || (a.term < b.term ? -1 : 1))
      .slice(0, RELATED_MAX_TERMS);
    const accept = (id: number) => id !== anchor.id && (!options.accept || options.accept(this.#chunks.get(id)!));
    const scores = body.score(
      weighed.map(({ term }) => ({ term, binary: true })),
      total,
      accept,
    );
    return rankScores(scores, options.topK, this.#byPlace).map((id) => {
      const chunk = this.#chunks.get(id)!;
      const shared = weighed.filter(({ term }) => body.has(term, id)).map(({ term }) => term);
      return { chunk, score: scores.get(id)!, shared: shared.slice(0, RELATED_SHARED_LISTED) };
    });
  }
}

const NO_DEFINITION: { boost: number; symbol?: DefinedSymbol } = { boost: 1 };

/**
 * How much a chunk's definitions answer the query, and which symbol does: a name the query spells
 * out, else a name holding every query word (the shortest such name: the closest fit), else none.
 */
function definitionBoost(chunk: Chunk, words: readonly string[], queryNames: ReadonlySet<string>): { boost: number; symbol?: DefinedSymbol } {
  let covering: DefinedSymbol | undefined;
  for (const defined of chunk.defines) {
    if (queryNames.has(defined.name)) return { boost: EXACT_DEFINITION_BOOST, symbol: defined };
    if (words.length > 0 && words.every((term) => defined.terms.includes(term)) && (!covering || defined.terms.length < covering.terms.length)) covering = defined;
  }
  return covering ? { boost: COVERING_DEFINITION_BOOST, symbol: covering } : NO_DEFINITION;
}
