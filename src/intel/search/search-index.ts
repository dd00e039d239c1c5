/**
 * The search index: every indexed file cut into chunks (src/intel/search/chunks.ts), each chunk a
 * document with four BM25 fields — the names it defines, their signatures, their doc comments and
 * its source — plus optional dense vectors.
 *
 * A query is read as an identifier lookup or a concept (query.ts). A lookup ranks each field
 * separately and fuses the rankings (and the dense one, with an embedder) by reciprocal rank fusion.
 * A concept drops function words, adds the word forms code spells its words in, and adds the
 * fields' BM25 scores up, each word weighed by how rare it is in the source (a chunk holding a
 * function's or method's code weighs 1.5 times that), plus the BM25 of the chunk's whole file; in
 * the answer's first half each further chunk of a file already listed weighs
 * less, the second half takes the best chunks left. Boosts apply on top:
 * a chunk that defines a symbol named by the query beats chunks that only use it, test files sink
 * unless the query asks for tests, and chunks near a context file in the import graph rise
 * (docs/decisions/0031). The index follows the code index incrementally: only files whose content
 * hash changed are chunked again. It is persisted beside the code index's snapshot (persist.ts): a
 * new process starts from it and chunks only the files whose content changed since it was written.
 *
 * Memory: chunks and the symbols they define are columns of typed arrays indexed by chunk id (no
 * object per chunk), a chunk's source is kept only as its offset into the file's text (read again to
 * show it), and terms are numbers (src/intel/search/dictionary.ts). Chunks that leave are marked
 * dead; a merge now and then drops them and renumbers the live ones, keeping the columns dense.
 *
 * Over 600 lines on purpose: what is left here is one class whose parts (the fields, the columns,
 * the dictionary, liveness and the pending embeddings) change together in refresh, merge and
 * renumbering and are read together by search and related; splitting it would hand its private
 * state around. What stands alone lives beside it: types.ts, columns.ts, bm25.ts (one field's
 * postings), ranking.ts, dictionary.ts, chunks.ts, tokenize.ts, persist.ts and persist-state.ts (the
 * file and the state in it), and service.ts (one per process).
 */
import { LIMITS } from "../../core/limits.ts";
import { log } from "../../core/log.ts";
import { Slicer } from "../../core/slicer.ts";
import type { SymbolKind } from "../facts/types.ts";
import { collectGarbage } from "../../syntax/index.ts";
import { lineStarts } from "../../text/index.ts";
import { lastIndexWhere } from "../../core/bisect.ts";
import { eachLimited } from "../../helpers/concurrency.ts";
import { B, FieldIndex, K1, Liveness, type QueryTerm } from "./bm25.ts";
import { ChunkColumns, DefineColumns, renumbered } from "./columns.ts";
import { type RankedList, reciprocalRankFusion, ScoreBoard } from "./ranking.ts";
import { asksForTests, codeFormIdentifiers, isTestPath, type QueryMode, queryMode, rankingTerms, wordForms } from "./query.ts";
import { CHUNK_LINES, chunkFile } from "./chunks.ts";
import { loadPersisted, type PersistedIndex, type PersistExpectation, savePersisted } from "./persist.ts";
import { decodeIndex, encodeIndex, nameChunks, type PersistedFileEntry, type UnnamedChunks } from "./persist-state.ts";
import { startsLine } from "./present.ts";
import { withSlack, worthTrimming } from "./arrays.ts";
import { TermDictionary } from "./dictionary.ts";
import { dot, type Embedder, normalize, NullEmbedder } from "./embedder.ts";
import {
  type Chunk,
  type ChunkFile,
  type DefinedSymbol,
  FIELDS,
  type RefreshReport,
  type RelatedHit,
  type SearchFile,
  type SearchHit,
  type SearchOptions,
  type SearchPersistence,
  type SearchSource,
  type SearchTuning,
  type Signal,
  type Field,
} from "./types.ts";
import { countTerms, identifiersIn, identifierTerms, queryTerms, TermCounter, wholeTerm } from "./tokenize.ts";

const DEFAULT_TUNING: SearchTuning = { buildConcurrency: 16, embedBatchSize: 64, mergeTailPairs: 1 << 18, persistDelayMs: 2_000, persistMinIntervalMs: 30_000 };

/** RRF's k: large enough that the first few ranks of one list do not drown the others. */
const RRF_K = 60;
/** How deep each field's ranking goes into the fusion (below that a rank adds less than a fifth of the top rank's share). */
const FUSION_DEPTH = 250;
/** The dense ranking stands for the meaning of the whole chunk, against four lexical views of it: it weighs as two. */
const FIELD_WEIGHT: Record<Field | "embedding", number> = { name: 1.2, signature: 0.8, doc: 0.6, body: 1, embedding: 2 };
/** Concept search adds the fields' BM25 scores with these weights (measured: docs/decisions/0031). */
const CONCEPT_FIELD_WEIGHT: Record<Field, number> = { name: 0.5, signature: 0.5, doc: 1, body: 1 };
/** How much the whole file's BM25 adds to each of its chunks in concept search. */
const FILE_SHARE = 1;
/**
 * In concept search a chunk holding a function's or method's code weighs this many times its own
 * score before its file's is added: what prose describes is mostly behaviour (docs/decisions/0044).
 */
const CALLABLE_FACTOR = 1.5;
const CALLABLE_KINDS: ReadonlySet<SymbolKind> = new Set(["function", "method", "constructor"]);
/** Test files and test data weigh this much unless the query asks for tests. */
const TEST_FILE_FACTOR = 0.5;
/** In concept search each further chunk of a file already listed weighs this times the one before. */
const FILE_REPEAT_FACTOR = 0.5;
/** How far past topK concept search looks for chunks of other files. */
const REPEAT_DEPTH = 4;
/** The share of a concept answer spread over files (the rest: the best chunks left, whatever their file; docs/decisions/0037). */
const SPREAD_SHARE = 0.5;
/** Multipliers: a chunk defining the named symbol, and one whose defined name covers every query term. */
const EXACT_DEFINITION_BOOST = 2.5;
const COVERING_DEFINITION_BOOST = 1.8;
/** Proximity multiplier is 1 + PROXIMITY_BOOST / (1 + hops). */
const PROXIMITY_BOOST = 0.6;
/** Terms of the anchor chunk find_related weighs (the rarest ones). */
const RELATED_MAX_TERMS = 64;
const RELATED_SHARED_LISTED = 8;

type FileEntry = PersistedFileEntry;

const EMPTY_SLOTS: ReadonlySet<number> = new Set();

/** Ranked lists fused by reciprocal rank, each chunk's score then scaled by its file's multiplier. */
function fusedWithFiles(lists: RankedList[], fileFactor: (id: number) => number): Map<number, number> {
  const fused = reciprocalRankFusion(lists, RRF_K);
  for (const [id, score] of fused) fused.set(id, score * fileFactor(id));
  return fused;
}

export class SearchIndex {
  readonly #source: SearchSource;
  readonly #embedder: Embedder;
  readonly #tuning: SearchTuning;
  readonly #dictionary = new TermDictionary();
  readonly #live = new Liveness();
  readonly #fields: readonly FieldIndex[] = FIELDS.map(() => new FieldIndex(this.#live));
  #counters: readonly TermCounter[] = FIELDS.map(() => new TermCounter());
  #chunks = new ChunkColumns();
  #defines = new DefineColumns();
  readonly #kinds: SymbolKind[] = [];
  readonly #kindCodes = new Map<SymbolKind, number>();
  /** By kind code: 1 when the kind is a function, method or constructor (a kind code fits a byte). */
  readonly #callableKinds = new Uint8Array(256);
  readonly #files = new Map<string, FileEntry>();
  readonly #slots: Array<FileEntry | undefined> = [];
  readonly #freeSlots: number[] = [];
  #vectors: Array<Float32Array | undefined> = [];
  #vectorCount = 0;
  /** Chunks waiting for their vectors in the running refresh (ids follow merges). */
  #pendingEmbeds: Array<{ id: number; text: string }> = [];
  #nextId = 1;
  #liveChunks = 0;
  #deadChunks = 0;
  /** Whether a merge ran in the current refresh (then the arrays are trimmed at its end). */
  #merged = false;
  readonly #board = new ScoreBoard();
  /** Concept search's weighted sum of the fields' scores (the board holds one field's at a time). */
  readonly #combined = new ScoreBoard();
  /** Bumped whenever a file's chunks come, go or move: what per-file caches are keyed on. */
  #layout = 0;
  #fileLengthCache: { layout: number; lengths: Float64Array } | undefined;
  /** Per slot: 1 a test file, -1 not, 0 not asked yet. */
  #testSlots: { layout: number; flags: Int8Array } | undefined;
  #generation = -1;
  #lastReport: RefreshReport = { rechunked: 0, removed: 0, files: 0, chunks: 0, unreadable: [], bodiesSkipped: 0, restored: 0 };
  #bodiesSkipped = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();
  // Persistence (persist.ts): read before the first refresh, written after refreshes that changed something.
  #persistence: SearchPersistence | undefined;
  #restoreTried = false;
  /** Files whose chunks came from the persisted index at the first refresh; why it was not used, or not written. */
  #restoredFiles = 0;
  #persistProblem: string | undefined;
  /** Whether the index differs from what was last persisted. */
  #unpersisted = false;
  #saveTimer: NodeJS.Timeout | undefined;
  #lastPersist = 0;
  /** Whether a refresh has run (the first one counts what it kept of the persisted index). */
  #refreshed = false;
  /** Slots of restored files the source has not listed yet (its first build still runs): kept, but in no answer. */
  readonly #unconfirmed = new Set<number>();
  /** Of those, the names waiting for the file's facts (by slot). */
  #unnamed = new Map<number, UnnamedChunks>();

  constructor(source: SearchSource, options: { embedder?: Embedder; tuning?: Partial<SearchTuning> } = {}) {
    this.#source = source;
    this.#embedder = options.embedder ?? new NullEmbedder();
    this.#tuning = { ...DEFAULT_TUNING, ...options.tuning };
  }

  get embedder(): Embedder {
    return this.#embedder;
  }

  get chunkCount(): number {
    return this.#liveChunks;
  }

  /** The chunk holding a line of a file. */
  chunkAt(real: string, line: number): Chunk | undefined {
    const entry = this.#files.get(real);
    if (!entry || entry.count === 0) return undefined;
    const { startLine, endLine } = this.#chunks;
    // The last chunk starting at or before the line.
    const at = lastIndexWhere(entry.count, (index) => startLine[entry.first + index]! <= line);
    if (at < 0) return undefined;
    const id = entry.first + at;
    return endLine[id]! >= line ? this.#view(id) : undefined;
  }

  /** The chunk holding a line of a file the index does not hold (one the walk skips): built to compare with, never stored. */
  transientChunkAt(file: SearchFile, _text: string, line: number): Chunk | undefined {
    const span = chunkFile(Math.max(file.lines, 1), file.facts.symbols).find((candidate) => candidate.startLine <= line && line <= candidate.endLine);
    if (!span) return undefined;
    return {
      id: -1,
      real: file.real,
      display: file.display,
      language: file.language,
      sha256: file.sha256,
      startLine: span.startLine,
      endLine: span.endLine,
      startOffset: -1,
      ...(span.owner ? { symbol: span.owner.qualifiedName, kind: span.owner.kind } : {}),
    };
  }

  #view(id: number): Chunk {
    const entry = this.#slots[this.#chunks.file[id]!]!;
    const chunk: Chunk = {
      id,
      real: entry.real,
      display: entry.display,
      language: entry.language,
      sha256: entry.sha256,
      startLine: this.#chunks.startLine[id]!,
      endLine: this.#chunks.endLine[id]!,
      startOffset: this.#chunks.startOffset[id]!,
    };
    const owner = this.#chunks.owner[id];
    if (owner !== undefined) chunk.symbol = owner;
    const kind = this.#chunks.ownerKind[id]!;
    if (kind > 0) chunk.kind = this.#kinds[kind - 1]!;
    return chunk;
  }

  #kindCode(kind: SymbolKind): number {
    let code = this.#kindCodes.get(kind);
    if (code === undefined) {
      code = this.#kinds.length;
      this.#kinds.push(kind);
      this.#kindCodes.set(kind, code);
      this.#callableKinds[code] = CALLABLE_KINDS.has(kind) ? 1 : 0;
    }
    return code;
  }

  /** Brings the chunks up to the source's generation; refreshes run one at a time. */
  refresh(options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {}): Promise<RefreshReport> {
    return this.#queued(() => this.#refresh(options.signal, options.onProgress));
  }

  async #refresh(signal: AbortSignal | undefined, onProgress: ((done: number, total: number) => void) | undefined): Promise<RefreshReport> {
    const generation = this.#source.generation;
    if (generation === this.#generation) return this.#lastReport;
    await this.#restoreOnce();
    // The first refresh counts what it kept of the persisted index.
    const first = !this.#refreshed;
    this.#refreshed = true;
    const files = this.#source.files();
    const present = new Set<string>();
    const changed: SearchFile[] = [];
    let restored = 0;
    for (const file of files) {
      present.add(file.real);
      // Equal content (and language) means equal facts, so equal chunks: a restored file keeps its postings.
      const entry = this.#files.get(file.real);
      const pending = entry === undefined ? undefined : this.#unnamed.get(entry.slot);
      if (
        pending !== undefined && entry!.sha256 === file.sha256 && entry!.language === file.language && !nameChunks(entry!, pending, file.facts.symbols, this.#chunks, this.#defines)
      ) {
        entry!.sha256 = "";
      }
      if (pending !== undefined) this.#unnamed.delete(entry!.slot);
      if (entry?.sha256 !== file.sha256 || entry.language !== file.language) changed.push(file);
      else if (first) restored++;
    }
    if (first) this.#restoredFiles = restored;
    let removed = 0;
    const building = this.#source.built === false;
    for (const [real, entry] of [...this.#files]) {
      if (present.has(real)) {
        this.#unconfirmed.delete(entry.slot);
        this.#unnamed.delete(entry.slot);
        continue;
      }
      // A restored file the code index has not reached yet in its first build stays, out of answers, until it is.
      if (building && this.#unconfirmed.has(entry.slot)) continue;
      this.#removeFile(real);
      this.#bodiesSkipped.delete(real);
      removed++;
    }
    const unreadable: string[] = [];
    let done = 0;
    let reported = 0;
    this.#pendingEmbeds = [];
    try {
      // File texts are read synchronously: without turns the whole build would hold the event loop.
      const slice = new Slicer();
      await eachLimited(changed, this.#tuning.buildConcurrency, async (file) => {
        try {
          await this.#chunkOne(file, unreadable);
        } finally {
          done++;
          // About a hundred reports at most, whatever the number of files.
          if (onProgress && (done === changed.length || done - reported >= Math.max(1, changed.length / 100))) {
            reported = done;
            onProgress(done, changed.length);
          }
        }
        await slice.turn();
      }, signal);
      await this.#embedPending(signal);
    } finally {
      this.#pendingEmbeds = [];
    }
    this.#mergeWhenDue(true);
    if (this.#merged) {
      // A build that merged left the replaced arrays and read buffers behind, which V8 frees late:
      // freed first, the trimmed copies reuse their memory instead of adding to the peak.
      collectGarbage();
      this.#trim();
    }
    this.#merged = false;
    // The counters grew as large as the dictionary: a later refresh grows new ones as far as it needs.
    if (changed.length > 0) this.#counters = FIELDS.map(() => new TermCounter());
    // An unreadable file keeps the generation from counting as done, so the next refresh retries it.
    // So do restored files kept while the source builds: the next refresh looks at them again.
    this.#generation = unreadable.length === 0 && !(building && this.#unconfirmed.size > 0) ? generation : -1;
    this.#lastReport = {
      rechunked: changed.length - unreadable.length,
      removed,
      files: this.#files.size,
      chunks: this.#liveChunks,
      unreadable,
      bodiesSkipped: this.#bodiesSkipped.size,
      restored,
    };
    if (changed.length > 0 || removed > 0) {
      this.#unpersisted = true;
      // A first build is written at once (a short session may end right after its answer); later edits once they settle.
      this.#scheduleSave(first ? 0 : this.#tuning.persistDelayMs);
    }
    return this.#lastReport;
  }

  /**
   * Restores the persisted index now, ahead of the first refresh, so a restart can answer from it
   * before the source's first build ends (search with `unlisted`); the number of files restored.
   */
  restoreFirst(): Promise<number> {
    return this.#queued(async () => {
      await this.#restoreOnce();
      return this.#unconfirmed.size;
    });
  }

  /**
   * Names the restored chunks of a file the source has not listed yet from its facts as they are
   * now (`file`, whose content hash must be the restored entry's); false when there is nothing to
   * name or the names do not fit, as the first refresh would find.
   */
  nameRestored(file: SearchFile): Promise<boolean> {
    return this.#queued(() => {
      const entry = this.#files.get(file.real);
      const pending = entry === undefined ? undefined : this.#unnamed.get(entry.slot);
      if (entry === undefined || pending === undefined || entry.sha256 !== file.sha256 || entry.language !== file.language) return false;
      if (!nameChunks(entry, pending, file.facts.symbols, this.#chunks, this.#defines)) return false;
      this.#unnamed.delete(entry.slot);
      return true;
    });
  }

  /** Runs after the refreshes, restores and writes queued before it (they change the same state). */
  #queued<T>(work: () => T | Promise<T>): Promise<T> {
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #restoreOnce(): Promise<void> {
    if (this.#restoreTried) return;
    this.#restoreTried = true;
    await this.#restore();
  }

  /** What the persisted index must match to be used: the source's stamp and what chunking depends on here. */
  #expectation(persistence: SearchPersistence): PersistExpectation {
    return {
      stamp: persistence.stamp,
      settings: JSON.stringify({ maxChunkedFileBytes: LIMITS.intel.search.maxChunkedFileBytes, chunkLines: CHUNK_LINES }),
    };
  }

  /** Loads the persisted index into this (empty) index, when there is a usable one. */
  async #restore(): Promise<void> {
    // Dense vectors are not persisted: with a model, the index is built from the files.
    if (this.#embedder.dimensions > 0 || !this.#source.persistence) return;
    let persistence: SearchPersistence | undefined;
    try {
      persistence = await this.#source.persistence();
    } catch (error) {
      this.#persistProblem = `no place to persist: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    if (!persistence) return;
    this.#persistence = persistence;
    const loaded = await loadPersisted(persistence.file, this.#expectation(persistence));
    if ("problem" in loaded) {
      this.#persistProblem = loaded.problem;
      log.debug("persisted search index not used", { file: persistence.file, reason: loaded.problem });
      return;
    }
    const problem = this.#adopt(loaded);
    if (problem !== undefined) {
      this.#persistProblem = problem;
      log.debug("persisted search index not used", { file: persistence.file, reason: problem });
    }
  }

  /** Takes a loaded persisted index (checked whole before anything changes); the reason when it does not fit. */
  #adopt(loaded: PersistedIndex): string | undefined {
    this.#layout++;
    const decoded = decodeIndex(loaded, this.#currentFiles());
    if ("problem" in decoded) return decoded.problem;
    this.#dictionary.restore(decoded.dictionary);
    this.#fields.forEach((field, index) => field.restore(decoded.fields[index]!));
    this.#chunks = decoded.chunks;
    this.#defines = decoded.defines;
    for (const kind of decoded.kinds) this.#kindCode(kind);
    for (const entry of decoded.files) {
      this.#files.set(entry.real, entry);
      this.#slots[entry.slot] = entry;
      this.#unconfirmed.add(entry.slot);
      if (!entry.body) this.#bodiesSkipped.add(entry.real);
    }
    for (let slot = decoded.slots - 1; slot >= 0; slot--) if (this.#slots[slot] === undefined) this.#freeSlots.push(slot);
    const nextId = decoded.nextId;
    const flags = new Uint8Array(Math.max(1024, nextId));
    flags.fill(1, 1, nextId);
    this.#live.flags = flags;
    this.#nextId = nextId;
    this.#liveChunks = nextId - 1;
    this.#deadChunks = 0;
    this.#restoredFiles = decoded.files.length;
    this.#unnamed = decoded.unnamed;
    return undefined;
  }

  #currentFiles(): Map<string, SearchFile> {
    const current = new Map<string, SearchFile>();
    for (const file of this.#source.files()) current.set(file.real, file);
    return current;
  }

  #scheduleSave(delayMs: number): void {
    if (this.#persistence === undefined) return;
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    // A large tree's file is tens of MB: edits in a row rewrite it at most so often (shutdown writes the rest).
    const wait = this.#lastPersist === 0 ? delayMs : Math.max(delayMs, this.#lastPersist + this.#tuning.persistMinIntervalMs - Date.now());
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      void this.persist();
    }, wait);
    // Never what keeps a process alive: shutdown flushes what is left.
    this.#saveTimer.unref?.();
  }

  /**
   * Writes the index where the source persists it, when it changed since last written; waits for a
   * refresh under way (they run one at a time). Never throws (a failure is logged and kept in stats).
   */
  persist(): Promise<void> {
    if (this.#saveTimer) clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    return this.#queued(() => this.#persistNow());
  }

  async #persistNow(): Promise<void> {
    const persistence = this.#persistence;
    if (!this.#unpersisted || persistence === undefined) return;
    // Only merged fields are written: the tails and the dead chunks fold in first.
    if (this.#deadChunks > 0 || this.#fields.some((field) => field.tailSize > 0)) this.#merge(true);
    const next = this.#nextId;
    const encoded = encodeIndex(
      {
        dictionary: this.#dictionary.persisted(),
        fields: this.#fields.map((field) => field.persisted(next - 1)),
        chunks: this.#chunks,
        defines: this.#defines,
        nextId: next,
        slots: this.#slots.length,
        kinds: this.#kinds,
        files: [...this.#files.values()],
        unnamed: this.#unnamed,
      },
      this.#currentFiles(),
    );
    // Edits from here on are the next write's.
    this.#unpersisted = false;
    try {
      await savePersisted(persistence.file, this.#expectation(persistence), encoded);
      this.#persistProblem = undefined;
      this.#lastPersist = Date.now();
    } catch (error) {
      this.#unpersisted = true;
      this.#persistProblem = `saving failed: ${error instanceof Error ? error.message : String(error)}`;
      log.warn("saving the search index failed", { file: persistence.file, error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** Where the index persists and how its first refresh used it. */
  persistStats(): { path?: string; restoredFiles: number; problem?: string } {
    const stats: { path?: string; restoredFiles: number; problem?: string } = { restoredFiles: this.#restoredFiles };
    if (this.#persistence) stats.path = this.#persistence.file;
    if (this.#persistProblem !== undefined) stats.problem = this.#persistProblem;
    return stats;
  }

  /** Chunks one new or changed file; a file that cannot be read is noted and left for the next refresh. */
  async #chunkOne(file: SearchFile, unreadable: string[]): Promise<void> {
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
    this.#addFile(file, withBody ? text : undefined);
    this.#mergeWhenDue(false);
  }

  async #embedPending(signal: AbortSignal | undefined): Promise<void> {
    if (this.#embedder.dimensions <= 0) return;
    const items = this.#pendingEmbeds;
    const size = this.#tuning.embedBatchSize;
    for (let from = 0; from < items.length; from += size) {
      signal?.throwIfAborted();
      const batch = items.slice(from, from + size);
      const vectors = await this.#embedder.embed(batch.map((item) => item.text));
      batch.forEach((item, position) => {
        const vector = vectors[position];
        // The chunk may have been replaced while the model ran.
        if (vector && vector.length === this.#embedder.dimensions && this.#live.has(item.id)) {
          if (this.#vectors[item.id] === undefined) this.#vectorCount++;
          this.#vectors[item.id] = normalize(vector);
        }
      });
    }
  }

  #addFile(file: SearchFile, text: string | undefined): void {
    this.#layout++;
    const spans = chunkFile(Math.max(file.lines, 1), file.facts.symbols);
    const starts = text === undefined ? undefined : lineStarts(text);
    const slot = this.#freeSlots.pop() ?? this.#slots.length;
    const entry: FileEntry = {
      slot,
      real: file.real,
      display: file.display,
      language: file.language,
      sha256: file.sha256,
      first: this.#nextId,
      count: 0,
      body: text !== undefined,
    };
    this.#slots[slot] = entry;
    this.#files.set(file.real, entry);
    const [name, signature, doc, body] = this.#counters as [TermCounter, TermCounter, TermCounter, TermCounter];
    const dictionary = this.#dictionary;
    const embed = this.#embedder.dimensions > 0 && text !== undefined;
    for (const span of spans) {
      for (const counter of this.#counters) counter.reset();
      for (const symbol of span.defines) {
        countTerms(symbol.name, 0, symbol.name.length, dictionary, name, true);
        if (symbol.qualifiedName !== symbol.name) countTerms(symbol.qualifiedName, 0, symbol.qualifiedName.length, dictionary, name, true);
        countTerms(symbol.signature, 0, symbol.signature.length, dictionary, signature, true);
        if (symbol.doc !== undefined) countTerms(symbol.doc, 0, symbol.doc.length, dictionary, doc, true);
      }
      let from = -1;
      let to = -1;
      if (text !== undefined && starts !== undefined) {
        from = starts[span.startLine - 1] ?? text.length;
        to = starts[span.endLine] ?? text.length;
        countTerms(text, from, to, dictionary, body, true);
      }
      // A chunk with nothing to find (blank lines, a lone brace) is left out.
      if (name.length === 0 && signature.length === 0 && doc.length === 0 && body.length === 0) continue;
      const id = this.#nextId++;
      this.#live.set(id, true);
      this.#liveChunks++;
      entry.count++;
      this.#fields.forEach((field, index) => field.add(id, this.#counters[index]!));
      const chunks = this.#chunks;
      chunks.ensure(id);
      chunks.file[id] = slot;
      chunks.startLine[id] = span.startLine;
      chunks.endLine[id] = span.endLine;
      chunks.startOffset[id] = from;
      chunks.owner[id] = span.owner?.qualifiedName;
      chunks.ownerKind[id] = span.owner ? this.#kindCode(span.owner.kind) + 1 : 0;
      chunks.defineFirst[id] = this.#defines.size;
      chunks.defineCount[id] = span.defines.length;
      for (const symbol of span.defines) {
        const terms = identifierTerms(symbol.name).map((term) => dictionary.intern(term));
        this.#defines.push(
          symbol.qualifiedName,
          this.#kindCode(symbol.kind),
          symbol.startLine,
          Math.min(symbol.endLine, span.endLine),
          dictionary.intern(wholeTerm(symbol.name)),
          terms,
        );
      }
      if (embed) this.#pendingEmbeds.push({ id, text: text.slice(from, to) });
    }
  }

  #removeFile(real: string): void {
    this.#layout++;
    const entry = this.#files.get(real);
    if (!entry) return;
    this.#unconfirmed.delete(entry.slot);
    for (let id = entry.first; id < entry.first + entry.count; id++) {
      this.#live.set(id, false);
      for (const field of this.#fields) field.remove(id);
      this.#chunks.owner[id] = undefined;
      if (this.#vectors[id] !== undefined) {
        this.#vectors[id] = undefined;
        this.#vectorCount--;
      }
    }
    this.#liveChunks -= entry.count;
    this.#deadChunks += entry.count;
    this.#files.delete(real);
    this.#slots[entry.slot] = undefined;
    this.#freeSlots.push(entry.slot);
  }

  /**
   * Merges when the tails or the dead chunks have grown: at once when the tails pass
   * tuning.mergeTailPairs (bounding memory while a large tree is indexed), and at the end
   * of a refresh when they reach 1/32 of the main part (tails are slower to read) or dead chunks a
   * quarter of the live ones. A few edited files stay in the tails.
   */
  #mergeWhenDue(endOfRefresh: boolean): void {
    let tail = 0;
    let all = 0;
    for (const field of this.#fields) {
      tail += field.tailSize;
      all += field.pairs;
    }
    const due = tail >= this.#tuning.mergeTailPairs ||
      (endOfRefresh && ((tail > 0 && tail * 32 >= all - tail) || (this.#deadChunks > 0 && this.#deadChunks * 4 >= this.#liveChunks)));
    if (due) this.#merge(endOfRefresh);
  }

  /** Folds the fields' tails into their main parts; drops dead chunks and renumbers the live ones (in order) in every column and field. */
  #merge(last: boolean): void {
    this.#layout++;
    this.#merged = true;
    if (this.#deadChunks === 0) {
      // Nothing left: the tails fold in and every id stays.
      let replaced = false;
      for (const field of this.#fields) if (field.merge(undefined, this.#liveChunks, last)) replaced = true;
      // Arrays outgrown while a large tree is indexed are tens of MiB each, and V8 frees them late:
      // collected now, the next ones do not pile up on top of them.
      if (replaced && !last) collectGarbage();
      return;
    }
    const oldNext = this.#nextId;
    const live = this.#live.flags;
    const renumber = new Int32Array(oldNext);
    let next = 1;
    for (let id = 1; id < oldNext; id++) if (live[id] === 1) renumber[id] = next++;
    const count = next - 1;
    for (const field of this.#fields) field.merge(renumber, count);
    ({ chunks: this.#chunks, defines: this.#defines } = renumbered(this.#chunks, this.#defines, renumber, count));
    for (const entry of this.#files.values()) if (entry.count > 0) entry.first = renumber[entry.first]!;
    if (this.#vectorCount > 0) {
      const vectors: Array<Float32Array | undefined> = [];
      this.#vectors.forEach((vector, id) => {
        if (vector !== undefined && renumber[id]! > 0) vectors[renumber[id]!] = vector;
      });
      this.#vectors = vectors;
    } else this.#vectors = [];
    this.#pendingEmbeds = this.#pendingEmbeds.filter((item) => renumber[item.id]! > 0).map((item) => ({ id: renumber[item.id]!, text: item.text }));
    const flags = new Uint8Array(Math.max(1024, count + 1));
    flags.fill(1, 1, count + 1);
    this.#live.flags = flags;
    this.#nextId = next;
    this.#deadChunks = 0;
  }

  /** Gives back the room the arrays grew for data to come (after a merge, when much was added or dropped). */
  #trim(): void {
    const chunks = withSlack(this.#nextId);
    this.#chunks.trim(chunks);
    this.#defines.trim();
    this.#dictionary.trim();
    for (const field of this.#fields) field.trim(chunks, withSlack(this.#dictionary.size));
    if (worthTrimming(this.#live.flags.length, chunks)) this.#live.flags = this.#live.flags.slice(0, chunks);
  }

  /** Equal scores are ordered by path, then line, so answers do not depend on the order files were read in. */
  readonly #byPlace = (a: number, b: number): number => {
    const left = this.#slots[this.#chunks.file[a]!]!.display;
    const right = this.#slots[this.#chunks.file[b]!]!.display;
    if (left !== right) return left < right ? -1 : 1;
    return this.#chunks.startLine[a]! - this.#chunks.startLine[b]!;
  };

  /** A chunk filter from a file filter, asking it once per file. */
  #acceptor(accept: ((file: ChunkFile) => boolean) | undefined, exclude?: Chunk, unlisted = false): ((id: number) => boolean) | undefined {
    const unconfirmed = unlisted ? EMPTY_SLOTS : this.#unconfirmed;
    if (!accept && !exclude && unconfirmed.size === 0) return undefined;
    const verdicts = new Int8Array(this.#slots.length);
    const { file, startLine } = this.#chunks;
    const excludeSlot = exclude === undefined ? -1 : (this.#files.get(exclude.real)?.slot ?? -1);
    return (id: number) => {
      const slot = file[id]!;
      if (slot === excludeSlot && startLine[id] === exclude!.startLine) return false;
      if (unconfirmed.size > 0 && unconfirmed.has(slot)) return false;
      if (!accept) return true;
      let verdict = verdicts[slot]!;
      if (verdict === 0) {
        verdict = accept(this.#slots[slot]!) ? 1 : -1;
        verdicts[slot] = verdict;
      }
      return verdict === 1;
    };
  }

  /**
   * The best chunks for a query. `terms` lists the query terms used; `ignoredTerms` those beyond
   * LIMITS.intel.search.maxQueryTerms.
   */
  async search(query: string, options: SearchOptions): Promise<{ hits: SearchHit[]; terms: string[]; ignoredTerms: string[]; mode: QueryMode }> {
    const allTerms = queryTerms(query);
    const terms = allTerms.slice(0, LIMITS.intel.search.maxQueryTerms);
    const ignoredTerms = allTerms.slice(LIMITS.intel.search.maxQueryTerms);
    const mode = queryMode(query);
    const ranking = rankingTerms(mode, terms);
    // The model runs first: everything after it reads the index in one synchronous stretch.
    let queryVector: Float32Array | undefined;
    if (this.#embedder.dimensions > 0 && this.#vectorCount > 0 && query.trim() !== "") {
      const [vector] = await this.#embedder.embed([query]);
      if (vector && vector.length === this.#embedder.dimensions) queryVector = normalize(vector);
    }
    const total = this.#liveChunks;
    const accept = this.#acceptor(options.accept, undefined, options.unlisted === true);
    const weighted: QueryTerm[] = [];
    const seen = new Set<number>();
    for (const term of ranking) {
      // A concept word also finds the forms code spells it in ("splits" → split).
      for (const form of mode === "concept" ? [term, ...wordForms(term)] : [term]) {
        const id = this.#dictionary.lookup(form);
        if (id === undefined || seen.has(id)) continue;
        seen.add(id);
        weighted.push({ id });
      }
    }
    const board = this.#board;
    const similarity = (id: number): number => {
      const vector = queryVector === undefined ? undefined : this.#vectors[id];
      return vector === undefined ? 0 : dot(queryVector!, vector);
    };
    const denseList = (): RankedList | undefined => {
      if (queryVector === undefined || this.#vectorCount === 0) return undefined;
      board.begin(this.#nextId);
      const live = this.#live.flags;
      this.#vectors.forEach((vector, id) => {
        if (vector === undefined || live[id] !== 1 || (accept && !accept(id))) return;
        const value = dot(queryVector, vector);
        if (value > 0) board.add(id, value);
      });
      const ranked = board.top(FUSION_DEPTH);
      return { ranked, scores: ranked.map((id) => board.scores[id]!), weight: FIELD_WEIGHT.embedding };
    };
    // Names the query spells out as identifiers; a concept query names one only when written as code.
    const queryNames = new Set<number>();
    for (const identifier of mode === "identifier" ? identifiersIn(query) : codeFormIdentifiers(query)) {
      const id = this.#dictionary.lookup(wholeTerm(identifier));
      if (id !== undefined) queryNames.add(id);
    }
    // Digits alone ("2") do not make a name cover the query; a word the index never saw is in no name.
    // A concept query's single informative word covering a name says little: names must cover two.
    const coverable = ranking.filter((term) => !/^\p{N}+$/u.test(term));
    const words = mode === "concept" && coverable.length < 2 ? [] : coverable.map((term) => this.#dictionary.lookup(term) ?? -1);
    const testsAsked = asksForTests(terms);
    const factorBySlot = new Float64Array(this.#slots.length);
    /** The multiplier of a chunk's file: import-graph proximity to the context file, and test files down unless the query asks for tests. */
    const fileFactor = (id: number): number => {
      const slot = this.#chunks.file[id]!;
      let factor = factorBySlot[slot]!;
      if (factor === 0) {
        const entry = this.#slots[slot]!;
        const hops = options.proximity?.get(entry.real);
        factor = (hops === undefined ? 1 : 1 + PROXIMITY_BOOST / (1 + hops)) * (!testsAsked && this.#isTest(slot) ? TEST_FILE_FACTOR : 1);
        factorBySlot[slot] = factor;
      }
      return factor;
    };
    const definitionOf = (id: number) => (this.#chunks.defineCount[id] === 0 ? NO_DEFINITION : this.#definitionBoost(id, words, queryNames));
    const scored = mode === "concept" ?
      this.#conceptScores(weighted, total, accept, denseList, fileFactor) :
      this.#identifierScores(weighted, total, accept, denseList, fileFactor);
    board.begin(this.#nextId);
    for (const [id, score] of scored) board.add(id, score * definitionOf(id).boost);
    const hits = this.#diverse(board.top(mode === "concept" ? options.topK * REPEAT_DEPTH : options.topK, this.#byPlace), board.scores, mode, options.topK).map((id) => {
      // What matched: the fields holding a query term, then the boosts.
      const signals: Signal[] = [];
      this.#fields.forEach((field, index) => {
        if (weighted.some(({ id: term }) => field.has(term, id))) signals.push(FIELDS[index]!);
      });
      if (similarity(id) > 0) signals.push("embedding");
      const definition = definitionOf(id);
      if (definition.boost > 1) signals.push("definition");
      if (options.proximity?.has(this.#slots[this.#chunks.file[id]!]!.real)) signals.push("proximity");
      const hit: SearchHit = { chunk: this.#view(id), score: board.scores[id]!, signals };
      if (definition.define >= 0) hit.focus = this.#defined(definition.define);
      return hit;
    });
    return { hits, terms, ignoredTerms, mode };
  }

  /**
   * Concept search shows more files first, then more places in the best ones. In the first half of
   * the answer each further chunk of a file already listed weighs FILE_REPEAT_FACTOR times the one
   * before it (a file's best chunk stays where it is), so it spans files; the second half takes the
   * best chunks left by their own score, mostly other functions of the leading files, where the
   * function sought is when its file is found but its chunk was not the file's best.
   */
  #diverse(ranked: readonly number[], scores: Float64Array, mode: QueryMode, topK: number): number[] {
    if (mode !== "concept") return ranked.slice(0, topK);
    const seen = new Map<number, number>();
    const adjusted = ranked
      .map((id, order) => {
        const slot = this.#chunks.file[id]!;
        const earlier = seen.get(slot) ?? 0;
        seen.set(slot, earlier + 1);
        return { id, order, score: scores[id]! * FILE_REPEAT_FACTOR ** earlier };
      })
      .sort((a, b) => b.score - a.score || a.order - b.order);
    const spread = Math.ceil(topK * SPREAD_SHARE);
    const rest = adjusted.slice(spread).sort((a, b) => a.order - b.order);
    return [...adjusted.slice(0, spread), ...rest].slice(0, topK).map(({ id }) => id);
  }

  /** Identifier lookup: each field ranked alone and the ranks fused, so a name matching whole wins wherever its words also occur. */
  #identifierScores(
    weighted: readonly QueryTerm[],
    total: number,
    accept: ((id: number) => boolean) | undefined,
    denseList: () => RankedList | undefined,
    fileFactor: (id: number) => number,
  ): Map<number, number> {
    const board = this.#board;
    const lists: RankedList[] = [];
    this.#fields.forEach((field, index) => {
      board.begin(this.#nextId);
      if (weighted.length > 0) field.score(weighted, total, board, accept);
      const ranked = board.top(FUSION_DEPTH);
      lists.push({ ranked, scores: ranked.map((id) => board.scores[id]!), weight: FIELD_WEIGHT[FIELDS[index]!] });
    });
    const dense = denseList();
    if (dense) lists.push(dense);
    return fusedWithFiles(lists, fileFactor);
  }

  /**
   * Concept search: the fields' BM25 scores added up, weighted, so a rare word outweighs a common
   * one wherever it matches (rank fusion would let the best match of a common word in a small field
   * win), plus the BM25 of the chunk's whole file, since a file about the concept holds the function
   * sought; the best FUSION_DEPTH go on to the boosts. With a model, the dense ranking is fused with
   * them.
   */
  #conceptScores(
    weighted: readonly QueryTerm[],
    total: number,
    accept: ((id: number) => boolean) | undefined,
    denseList: () => RankedList | undefined,
    fileFactor: (id: number) => number,
  ): Map<number, number> {
    const combined = this.#combined;
    combined.begin(this.#nextId);
    const body = this.#fields[FIELDS.indexOf("body")]!;
    this.#fields.forEach((field, index) => {
      if (weighted.length === 0) return;
      const weight = CONCEPT_FIELD_WEIGHT[FIELDS[index]!];
      // A word is as informative as the source says: rare among names ("value", "page") but common in code weighs as common.
      // The field's weight rides on each term's, so every field adds into one board (a score is linear in its term weights).
      const terms = weighted.map(({ id }) => ({ id, weight: field === body ? weight : weight * Math.min(1, body.idf(id, total) / Math.max(field.idf(id, total), 1e-9)) }));
      field.score(terms, total, combined, accept);
    });
    const fileScores = this.#fileScores(weighted, accept);
    // Read into locals: this loop runs once per scored chunk.
    const { file, ownerKind, defineFirst, defineCount } = this.#chunks;
    const defineKind = this.#defines.kind;
    const callable = this.#callableKinds;
    const { scores, touched } = combined;
    for (let at = 0; at < combined.size; at++) {
      const id = touched[at]!;
      // A chunk holds a function's code when it belongs to one or defines one (a class small enough to be one chunk holds its methods).
      const owner = ownerKind[id]!;
      let holds = owner > 0 && callable[owner - 1] === 1;
      for (let define = defineFirst[id]!, end = define + defineCount[id]!; !holds && define < end; define++) holds = callable[defineKind[define]!] === 1;
      scores[id] = ((holds ? CALLABLE_FACTOR : 1) * scores[id]! + FILE_SHARE * fileScores[file[id]!]!) * fileFactor(id);
    }
    const ranked = combined.top(FUSION_DEPTH);
    const dense = denseList();
    if (!dense) return new Map(ranked.map((id) => [id, combined.scores[id]!]));
    return fusedWithFiles([{ ranked, scores: ranked.map((id) => combined.scores[id]!) }, dense], fileFactor);
  }

  /** BM25 of whole files (their chunks' source taken together) by slot: evidence spread over a file counts. */
  #fileScores(weighted: readonly QueryTerm[], accept: ((id: number) => boolean) | undefined): Float64Array {
    const body = this.#fields[FIELDS.indexOf("body")]!;
    const file = this.#chunks.file;
    const lengths = this.#fileLengths();
    const files = Math.max(1, this.#files.size);
    const average = Math.max(body.totalLength / files, 1e-9);
    const scores = new Float64Array(this.#slots.length);
    const frequencies = new Float64Array(this.#slots.length);
    const touched = new Int32Array(this.#slots.length);
    for (const { id: term } of weighted) {
      const count = body.frequenciesByGroup(term, file, frequencies, touched, accept);
      const idf = Math.log(1 + (files - count + 0.5) / (count + 0.5));
      for (let at = 0; at < count; at++) {
        const slot = touched[at]!;
        const frequency = frequencies[slot]!;
        frequencies[slot] = 0;
        scores[slot]! += (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * lengths[slot]!) / average));
      }
    }
    return scores;
  }

  /** Each file's source length in terms, by slot (the sum of its chunks'), kept until a file comes or goes. */
  #fileLengths(): Float64Array {
    if (this.#fileLengthCache?.layout === this.#layout) return this.#fileLengthCache.lengths;
    const body = this.#fields[FIELDS.indexOf("body")]!;
    const lengths = new Float64Array(this.#slots.length);
    for (const entry of this.#files.values()) {
      let length = 0;
      for (let id = entry.first; id < entry.first + entry.count; id++) length += body.lengthOf(id);
      lengths[entry.slot] = length;
    }
    this.#fileLengthCache = { layout: this.#layout, lengths };
    return lengths;
  }

  /** Whether a slot's file is a test file or test data (asked once per file while the layout holds). */
  #isTest(slot: number): boolean {
    if (this.#testSlots?.layout !== this.#layout) this.#testSlots = { layout: this.#layout, flags: new Int8Array(this.#slots.length) };
    const flags = this.#testSlots.flags;
    if (flags[slot] === 0) flags[slot] = isTestPath(this.#slots[slot]!.display) ? 1 : -1;
    return flags[slot] === 1;
  }

  #defined(define: number): DefinedSymbol {
    const defines = this.#defines;
    return { qualifiedName: defines.qualifiedName[define]!, kind: this.#kinds[defines.kind[define]!]!, startLine: defines.startLine[define]!, endLine: defines.endLine[define]! };
  }

  /**
   * How much a chunk's definitions answer the query, and which symbol does: a name the query spells
   * out, else a name holding every query word (the shortest such name: the closest fit), else none.
   */
  #definitionBoost(id: number, words: readonly number[], queryNames: ReadonlySet<number>): { boost: number; define: number } {
    const defines = this.#defines;
    let covering = -1;
    for (let define = this.#chunks.defineFirst[id]!, end = define + this.#chunks.defineCount[id]!; define < end; define++) {
      if (queryNames.has(defines.name[define]!)) return { boost: EXACT_DEFINITION_BOOST, define };
      if (words.length === 0) continue;
      const first = defines.termFirst[define]!;
      const last = first + defines.termCount[define]!;
      let all = true;
      for (const word of words) {
        let found = false;
        for (let at = first; at < last; at++) {
          if (defines.termPool[at] === word) {
            found = true;
            break;
          }
        }
        if (!found) {
          all = false;
          break;
        }
      }
      if (all && (covering < 0 || defines.termCount[define]! < defines.termCount[covering]!)) covering = define;
    }
    return covering >= 0 ? { boost: COVERING_DEFINITION_BOOST, define: covering } : NO_DEFINITION;
  }

  /**
   * The anchor's distinct source terms the index knows, from `text` (its file's text): none for an
   * indexed file whose source is not searched (over the size limit).
   */
  anchorTerms(anchor: Chunk, text: string): number[] {
    if (anchor.id >= 0 && this.#files.get(anchor.real)?.body === false) return [];
    let from: number;
    let to: number;
    if (anchor.startOffset >= 0 && this.#files.get(anchor.real)?.sha256 === anchor.sha256 && startsLine(text, anchor.startOffset)) {
      from = anchor.startOffset;
      to = lineStartAfter(text, from, anchor.endLine - anchor.startLine + 1);
    } else {
      const starts = lineStarts(text);
      from = starts[anchor.startLine - 1] ?? text.length;
      to = starts[anchor.endLine] ?? text.length;
    }
    const counter = new TermCounter();
    countTerms(text, from, to, this.#dictionary, counter, false);
    return Array.from(counter.ids.subarray(0, counter.distinct));
  }

  /**
   * Chunks sharing the most identifiers with `anchor`: BM25 over source text with the anchor's
   * rarest terms (anchorTerms) as the query, each counted once per chunk, so a shared rare
   * identifier outweighs many shared common ones. The anchor chunk itself is left out.
   */
  relatedTo(anchor: Chunk, anchorTerms: readonly number[], options: { topK: number; accept?: (file: ChunkFile) => boolean }): RelatedHit[] {
    const total = this.#liveChunks;
    const body = this.#fields[FIELDS.indexOf("body")]!;
    const weighed = anchorTerms
      .filter((term) => this.#dictionary.termLength(term) >= 2)
      .map((term) => ({ term, text: this.#dictionary.term(term), idf: body.idf(term, total) }))
      .sort((a, b) => b.idf - a.idf || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
      .slice(0, RELATED_MAX_TERMS);
    const board = this.#board;
    const top = body.topBinary(
      weighed.map(({ term }) => term),
      total,
      board,
      options.topK,
      this.#acceptor(options.accept, anchor),
      this.#byPlace,
    );
    return top.map((id) => {
      const shared = weighed.filter(({ term }) => body.has(term, id)).map(({ text }) => text);
      return { chunk: this.#view(id), score: board.scores[id]!, shared: shared.slice(0, RELATED_SHARED_LISTED) };
    });
  }
}

const NO_DEFINITION: { boost: number; define: number } = { boost: 1, define: -1 };

/** Offset of the line `lines` lines after the line starting at `from` (text.length past the end). */
function lineStartAfter(text: string, from: number, lines: number): number {
  let seen = 0;
  for (let index = from; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(index + 1) !== 0x0a)) {
      seen++;
      if (seen === lines) return index + 1;
    }
  }
  return text.length;
}
