/**
 * The code index: the facts (outline, imports, calls) of every source file under the roots,
 * built lazily on first use and kept equal to the disk. This class runs refreshes and processes
 * files; the parts it composes, each testable alone and described in its own header, are the walk
 * (tree.ts), change detection (freshness.ts), what a file's bytes are (classify.ts), the snapshot
 * (snapshot-keeper.ts) and one index per set of roots per process (registry.ts).
 *
 * Files are read through the policy's one reader (policy/open.ts) with synchronous calls (a
 * thread-pool round trip per call, queued behind parses, cost more than the calls); parsing runs on
 * the libuv thread pool (parseTreeAsync) with a few files in flight while the main thread extracts
 * facts from finished trees. Stored facts own their strings (facts/compact.ts). `generation`
 * increases on every change, so derived caches (graphs, search) know to update.
 *
 * Long on purpose: a refresh is one sequence (walk, classify, parse, extract, publish a
 * generation) over per-file state every step shares; what stands alone is in the parts above.
 */
import { lstatSync, type Stats } from "node:fs";
import path from "node:path";
import { ToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { Slicer } from "../../core/slicer.ts";
import { log } from "../../core/log.ts";
import { sha256Hex } from "../../helpers/hash.ts";
import { eachLimited } from "../../helpers/concurrency.ts";
import { relativeInside } from "../../helpers/path-text.ts";
import type { ResolvedPath, Workspace } from "../../policy/workspace.ts";
import { ReadScratch, readBoundedSync, realTarget } from "../../policy/open.ts";
import { decodeText } from "../../text/index.ts";
import { compactFacts, StringPool } from "../facts/compact.ts";
import type { ExtractOptions } from "../facts/extract.ts";
import type { FileFacts } from "../facts/types.ts";
import { isMinifiedName, isParseable, LanguageDetector, type LanguageId, parseTreeAsync, TreeBudget } from "../../syntax/index.ts";
import { classifySource, lineCount, readSourceFile } from "./classify.ts";
import { Freshness } from "./freshness.ts";
import type { LoadedExtractor } from "./registry.ts";
import { SnapshotKeeper } from "./snapshot-keeper.ts";
import type { SnapshotSource } from "./snapshot.ts";
import { contentDependentByName, type FileState, IndexTree, lstatQuiet, signatureOf } from "./tree.ts";
import { type CodeIndexOptions, DEFAULT_INDEX_SETTINGS, DEFAULT_INDEX_TUNING, type EnsureFreshOptions, type IndexTuning } from "./settings.ts";
import type { Coverage, FactsExtractor, IndexedFile, IndexSettings, IndexStats } from "./types.ts";

/** What the registry gives the indexes it makes. */
export interface IndexHooks {
  /** The real facts extractor, loaded once per registry. */
  extractor(): Promise<LoadedExtractor>;
  /** Called when the index closes. */
  closed(index: CodeIndex): void;
}

async function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  signal.throwIfAborted();
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}

/** The refresh running now: when its walk starts and ends, and the files it has still to process. */
interface RefreshRun {
  /** Resolved when the roots are known and nothing is listed yet (a call may list its folders ahead then). */
  walkStarted: Promise<void>;
  startDone: () => void;
  walked: Promise<void>;
  walkDone: () => void;
  /** Set once the walk is done: the cut waits for files a call is processing ahead, and a call starts no more. */
  cutting: boolean;
  /** Whether `todo` holds what the build will process (max_files cut in walk order). */
  cut: boolean;
  todo: Set<FileState>;
  /** Files a call processed before the walk was done; they take their place in the max_files cut like the others. */
  ahead: Set<FileState>;
}

/** Waits for `promise`, or answers "late" once `deadlineMs` has passed (the work goes on). */
async function withDeadline<T>(promise: Promise<T>, deadlineMs: number | undefined): Promise<T | "late"> {
  if (deadlineMs === undefined) return promise;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), deadlineMs);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The index's record of a file: where it is, and what its bytes were when their facts were taken. */
function indexedFile(
  place: Pick<IndexedFile, "real" | "display" | "rootReal" | "relative">,
  language: LanguageId,
  content: Pick<IndexedFile, "size" | "mtimeMs" | "sha256" | "lines" | "facts">,
): IndexedFile {
  return { real: place.real, display: place.display, rootReal: place.rootReal, relative: place.relative, language, ...content };
}

/** [A-Za-z0-9_$]: a character that continues an identifier. */
function isWordCode(code: number | undefined): boolean {
  return code !== undefined && ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 36);
}

/** Whether a file's bytes (or the snapshot's bytes of its facts) hold `needle` as a whole word, not inside a longer identifier. */
function mentions(bytes: Uint8Array, needle: Buffer): boolean {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
    if (!isWordCode(haystack[at - 1]) && !isWordCode(haystack[at + needle.length])) return true;
  }
  return false;
}

export class CodeIndex {
  readonly key: string;
  readonly rootReals: readonly string[];
  #workspace: Workspace;
  #settings: IndexSettings;
  #detector: LanguageDetector;
  #policyGeneration: number | undefined;
  readonly #hooks: IndexHooks;
  readonly #tuning: IndexTuning;

  readonly #tree: IndexTree;
  readonly #freshness: Freshness;
  readonly #snapshot: SnapshotKeeper;
  #built = false;
  #needsFullScan = true;
  #closed = false;
  #skipSnapshot = false;

  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  readonly #progressListeners = new Set<(done: number, total: number) => void>();
  /** Progress of the running refresh (monotonic across its batches). */
  #progress = { done: 0, total: 0 };
  /** The refresh running now: when its walk is done, and the files it has still to process. */
  #current: RefreshRun | undefined;
  /** Files being processed, so a call that needs one now and the refresh share the work. */
  readonly #inflight = new Map<FileState, Promise<void>>();
  /** Calls processing their own files first: while any runs, the refresh's lanes wait. */
  #priorityCalls = 0;
  #priorityOver: { promise: Promise<void>; resolve: () => void } | undefined;

  // Extraction.
  #extract: FactsExtractor | undefined;
  #extractorVersion: string | undefined;
  /** Equal strings of the facts stored once (see facts/compact.ts); one pool per refresh. */
  #pool = new StringPool();
  /** Dead syntax trees are released every so many parsed bytes (see TreeBudget). */
  readonly #trees = new TreeBudget();
  /** File bytes read on the main thread and used up before the next read (see ReadScratch). */
  readonly #readScratch: ReadScratch;

  // Reporting.
  #coverageCache: { generation: number; coverage: Coverage } | undefined;
  #lastBuild: IndexStats["lastBuild"];
  #lastRefresh: IndexStats["lastRefresh"];
  #counters = { parsed: 0, bytes: 0 };

  /** Made by an IndexRegistry (registry.ts), which shares one index per set of roots. */
  constructor(workspace: Workspace, key: string, options: CodeIndexOptions, hooks: IndexHooks) {
    this.#workspace = workspace;
    this.key = key;
    this.rootReals = workspace.roots.map((root) => root.real);
    this.#hooks = hooks;
    this.#tuning = { ...DEFAULT_INDEX_TUNING, ...options.tuning };
    this.#settings = options.settings ?? DEFAULT_INDEX_SETTINGS;
    this.#detector = new LanguageDetector(this.#settings.languageOverrides);
    this.#policyGeneration = options.policyGeneration;
    if (options.extract) {
      this.#extract = options.extract;
      this.#extractorVersion = options.extractorVersion;
    }
    this.#readScratch = new ReadScratch(this.#tuning.readScratchBytes);
    this.#tree = new IndexTree({ workspace: () => this.#workspace, detector: () => this.#detector, watcher: () => this.#freshness.watcher });
    this.#freshness = new Freshness(this.#tree, {
      watch: options.watch ?? "auto",
      fullCheckIntervalMs: this.#tuning.fullCheckIntervalMs,
      maxWatchedDirectories: this.#tuning.maxWatchedDirectories,
    });
    this.#snapshot = new SnapshotKeeper(
      {
        persist: () => this.#settings.persist,
        closed: () => this.#closed,
        generation: () => this.#tree.generation,
        extractorVersion: () => this.#extractorVersion,
        sources: () => this.#snapshotSources(),
      },
      this.rootReals,
      options.cacheDir,
      this.#tuning.snapshot,
    );
  }

  /** Takes a newer workspace or settings object (the registry calls it when the index is asked for again). */
  adopt(workspace: Workspace, options: CodeIndexOptions): void {
    this.#workspace = workspace;
    if (options.policyGeneration !== undefined && options.policyGeneration !== this.#policyGeneration) {
      this.#policyGeneration = options.policyGeneration;
      this.#needsFullScan = true;
    }
    if (options.settings && JSON.stringify(options.settings) !== JSON.stringify(this.#settings)) {
      const overridesChanged = JSON.stringify(options.settings.languageOverrides) !== JSON.stringify(this.#settings.languageOverrides);
      this.#settings = options.settings;
      this.#detector = new LanguageDetector(options.settings.languageOverrides);
      this.#needsFullScan = true;
      // Every file's status may change with the limits or the languages: process all of them again.
      for (const state of this.#tree.files.values()) {
        if (overridesChanged || state.status !== "indexed") state.signature = undefined;
      }
    }
  }

  get generation(): number {
    return this.#tree.generation;
  }

  get settings(): IndexSettings {
    return this.#settings;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Stops watching and saving; the index answers nothing afterwards. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#freshness.stop();
    this.#snapshot.close();
    this.#hooks.closed(this);
  }

  // ------------------------------------------------------------------ queries

  /** Every indexed file, in walk order (after ensureFresh). */
  files(): IndexedFile[] {
    return this.#tree.indexedFiles(this.rootReals);
  }

  /** Every indexed file with the stats signature its facts were taken at (what the snapshot saves). */
  #snapshotSources(): SnapshotSource[] {
    const out: SnapshotSource[] = [];
    for (const state of this.#tree.files.values()) if (state.indexed && state.signature !== undefined) out.push({ file: state.indexed, signature: state.signature });
    return out;
  }

  get(real: string): IndexedFile | undefined {
    return this.#tree.files.get(real)?.indexed;
  }

  /** The coverage of the last refresh. */
  coverage(): Coverage {
    const generation = this.#tree.generation;
    if (this.#coverageCache?.generation === generation) return this.#coverageCache.coverage;
    const coverage = this.#tree.coverage(this.#settings);
    this.#coverageCache = { generation, coverage };
    return coverage;
  }

  stats(): IndexStats {
    const languages: Record<string, number> = {};
    let bytes = 0;
    let parseErrors = 0;
    let filesWithParseErrors = 0;
    for (const state of this.#tree.files.values()) {
      const file = state.indexed;
      if (!file) continue;
      languages[file.language] = (languages[file.language] ?? 0) + 1;
      bytes += file.size;
      parseErrors += file.facts.parseErrors;
      if (file.facts.parseErrors > 0) filesWithParseErrors += 1;
    }
    const watcher = this.#freshness.watcher;
    const watch: IndexStats["watch"] = { active: watcher !== undefined && !watcher.broken, directories: watcher?.size ?? 0 };
    const watchReason = this.#freshness.watchReason;
    if (!watch.active && watchReason !== undefined) watch.reason = watchReason;
    const stats: IndexStats = {
      coverage: this.coverage(),
      generation: this.#tree.generation,
      languages,
      bytes,
      parseErrors,
      filesWithParseErrors,
      directories: this.#tree.dirs.size,
      freshness: this.#freshness.last,
      watch,
      snapshot: this.#snapshot.stats(),
    };
    if (this.#lastBuild) stats.lastBuild = this.#lastBuild;
    if (this.#lastRefresh) stats.lastRefresh = this.#lastRefresh;
    return stats;
  }

  // ------------------------------------------------------------------ freshness

  /**
   * Brings the index in line with the disk and returns its coverage. Concurrent callers share one
   * refresh; a call made while a refresh runs waits for the next one, which starts after it.
   * Aborting stops the wait, not the refresh (the next call benefits from its work).
   */
  async ensureFresh(options: EnsureFreshOptions = {}): Promise<Coverage> {
    if (this.#closed) throw new ToolError("internal_error", "The code index was closed.");
    options.signal?.throwIfAborted();
    const progress = options.onProgress;
    if (progress) this.#progressListeners.add(progress);
    try {
      let run: Promise<void>;
      if (!this.#running) {
        run = this.#startRun();
      } else {
        this.#queued ??= this.#running.then(
          () => this.#startQueued(),
          () => this.#startQueued(),
        );
        run = this.#queued;
      }
      if ((await withDeadline(abortable(run, options.signal), options.deadlineMs)) === "late") return this.#buildingCoverage();
    } finally {
      if (progress) this.#progressListeners.delete(progress);
    }
    return this.coverage();
  }

  /**
   * Makes these directories (with everything below them) and files fresh before the rest: during the
   * first build a call waits for the walk and its own files only, which it processes ahead of the
   * build; otherwise this is ensureFresh. `first` are files of the scope the call is about (the one
   * declaring its symbol): they go before the others and a deadline does not cut them. The coverage
   * is the tree's (limits that cut it) when every file of the scope is indexed, and says the index is
   * still building when the deadline came first.
   */
  async ensureScope(scope: { dirs?: readonly string[]; files?: readonly string[]; first?: readonly string[] }, options: EnsureFreshOptions = {}): Promise<Coverage> {
    options.signal?.throwIfAborted();
    const current = this.#firstBuild();
    if (!current) return this.ensureFresh(options);
    // The build's lanes wait while a call works ahead of them, so the call counts its own files, not the build's.
    const progress = options.onProgress;
    let scopeCut = false;
    await abortable(current.walkStarted, options.signal);
    const first = new Set(scope.first ?? []);
    const files = new Set([...first, ...(scope.files ?? [])]);
    const dirs = scope.dirs ?? [];
    // The scope's folders are listed now (the walk waits meanwhile), unless one lies where only the walk can tell.
    const listed = current.cut ? undefined : await this.ahead(() => this.#listScope({ dirs, files: [...files] }));
    if (!listed) await abortable(current.walked, options.signal);
    const inScope = (state: FileState) => files.has(state.real) || dirs.some((dir) => relativeInside(dir, state.real, path.sep) !== undefined);
    const mine = listed ?? [...current.todo].filter(inScope);
    let done = 0;
    progress?.(done, mine.length);
    // Past the deadline the call answers with what is done; files already started finish.
    const deadline = options.deadlineMs === undefined ? undefined : AbortSignal.timeout(options.deadlineMs);
    const stop = deadline && options.signal ? AbortSignal.any([deadline, options.signal]) : (deadline ?? options.signal);
    const indexNow = async (state: FileState): Promise<void> => {
      // Once the walk is done the build's cut decides: a file it left out stays out, one it took may be running.
      if (current.cutting) await current.walked;
      if (current.cut && !current.todo.has(state)) return this.#inflight.get(state);
      if (!current.cut) current.ahead.add(state);
      return this.#processShared(state);
    };
    const take = async (state: FileState): Promise<void> => {
      await indexNow(state);
      progress?.(++done, mine.length);
    };
    try {
      await this.ahead(async () => {
        await eachLimited(mine.filter((state) => first.has(state.real)), this.#tuning.concurrency, take, options.signal);
        await eachLimited(mine.filter((state) => !first.has(state.real)), this.#tuning.concurrency, take, stop);
      });
    } catch (error) {
      if (!deadline?.aborted || options.signal?.aborted) throw error;
      scopeCut = true;
    }
    // Every file of the scope is indexed: an answer about the scope is whole, though the rest of the tree is not yet.
    return scopeCut ? this.#buildingCoverage() : this.coverage();
  }

  /**
   * During a first build with no snapshot to reuse, before its walk is done: the outline of a folder's
   * files without waiting for the build. Files indexed already (or being indexed) come as the index
   * holds them, through files(); the others are read and parsed now and their facts taken without
   * calls, which an outline does not need and which cost most of the extraction. Those facts are not
   * kept: the build indexes the files whole. Undefined when no such build runs or the folder lies
   * where only the walk can tell: ensureScope answers then.
   */
  async outlineAhead(dirReal: string, options: EnsureFreshOptions = {}): Promise<{ files: IndexedFile[]; coverage: Coverage } | undefined> {
    options.signal?.throwIfAborted();
    const current = this.#firstBuild();
    if (!current || this.#snapshot.entries > 0) return undefined;
    await abortable(current.walkStarted, options.signal);
    if (current.cut) return undefined;
    return this.ahead(async () => {
      const listed = await this.#listScope({ dirs: [dirReal] });
      if (!listed) return undefined;
      const deadline = options.deadlineMs === undefined ? undefined : AbortSignal.timeout(options.deadlineMs);
      const stop = deadline && options.signal ? AbortSignal.any([deadline, options.signal]) : (deadline ?? options.signal);
      const files: IndexedFile[] = [];
      let done = 0;
      let cut = false;
      const outline = async (state: FileState): Promise<void> => {
        const running = this.#inflight.get(state);
        if (running) await running;
        else {
          const file = await this.#readOutline(state);
          if (file) files.push(file);
        }
        options.onProgress?.(++done, listed.length);
      };
      try {
        await eachLimited(listed, this.#tuning.concurrency, outline, stop);
      } catch (error) {
        if (!deadline?.aborted || options.signal?.aborted) throw error;
        cut = true;
      }
      return { files, coverage: cut ? this.#buildingCoverage() : this.coverage() };
    });
  }

  /** A file's outline facts (no calls) read now and kept by nobody; undefined when it is not a source file the index would hold. */
  async #readOutline(state: FileState): Promise<IndexedFile | undefined> {
    const loaded = readBoundedSync(realTarget(state.real, state.real, this.#workspace.roots), this.#settings.maxFileBytes, {
      scratch: this.#readScratch,
      statsOnly: isMinifiedName(path.basename(state.relative)),
    });
    if (typeof loaded !== "object" || !("bytes" in loaded)) return undefined;
    // Hashed and decoded before the first await: the bytes live in the shared scratch.
    const content = { size: loaded.bytes.length, mtimeMs: loaded.stats.mtimeMs, sha256: sha256Hex(loaded.bytes) };
    const verdict = classifySource(loaded.bytes, state.relative, this.#detector, true);
    if (verdict.kind !== "source") return undefined;
    const facts = compactFacts(await this.#extractFacts(verdict.language, verdict.text, { calls: false }), new StringPool());
    return indexedFile(state, verdict.language, { ...content, lines: lineCount(verdict.text), facts });
  }

  /**
   * During the first walk: lists the scope's folders (each whole) and the folders of its files now,
   * and answers the files there still to process; undefined when a path of the scope lies where only
   * the walk can tell (a root, or outside what the walk covers).
   */
  async #listScope(scope: { dirs?: readonly string[]; files?: readonly string[] }): Promise<FileState[] | undefined> {
    const found: FileState[] = [];
    const unprocessed = (real: string) => {
      const state = this.#tree.files.get(real);
      if (state?.contentDependent && state.signature === undefined) found.push(state);
    };
    for (const dirReal of scope.dirs ?? []) {
      const dirs = await this.#tree.listAhead(dirReal, true);
      if (!dirs) return undefined;
      for (const dir of dirs) for (const real of dir.files) unprocessed(real);
    }
    // A file the walk would not hold (ignored, denied, gone, reached through a link) is not indexed: the walk leaves it out too.
    for (const fileReal of scope.files ?? []) {
      const dirs = await this.#tree.listAhead(path.dirname(fileReal), false);
      if (dirs?.[0]?.files.has(fileReal)) unprocessed(fileReal);
    }
    return found;
  }

  /**
   * During the first build: the files still to be processed whose bytes hold one of these words
   * (word-bounded, a literal scan without parsing), so a call about a name can index those first.
   * A file the snapshot holds with its stats unchanged is looked for in the names its facts hold
   * instead (declared, called, imported, re-exported: where a name that matters to a call appears).
   * On a restart this does not wait for the walk: the snapshot's files are looked in, and `unseen`
   * says what that leaves out. Empty once the index is built (every file is indexed then) or when no
   * build runs.
   */
  async filesMentioning(words: readonly string[], signal?: AbortSignal, onProgress?: (done: number, total: number) => void): Promise<{ files: string[]; unseen?: string }> {
    const current = this.#firstBuild();
    if (!current || words.length === 0) return { files: [] };
    await abortable(current.walkStarted, signal);
    if (!current.cut && this.#snapshot.entries > 0) return this.ahead(() => this.#snapshotMentioning(words, signal, onProgress));
    const needles = words.map((word) => Buffer.from(word, "utf8"));
    const holds = (bytes: Uint8Array) => needles.some((needle) => mentions(bytes, needle));
    await abortable(current.walked, signal);
    const files = await this.ahead(async () => {
      const found: string[] = [];
      const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
      const todo = [...current.todo];
      let scanned = 0;
      for (const state of todo) {
        signal?.throwIfAborted();
        onProgress?.(scanned++, todo.length);
        const signatureNow = () => {
          const stats = lstatQuiet(state.real);
          return stats?.isFile() ? signatureOf(stats) : undefined;
        };
        const inSnapshot = this.#snapshot.mentions(state.real, words, signatureNow);
        const haystack = inSnapshot === undefined ? this.#readBytesNow(state.real) : undefined;
        if (inSnapshot ?? (haystack !== undefined && holds(haystack))) found.push(state.real);
        await slice.turn();
      }
      onProgress?.(todo.length, todo.length);
      return found;
    });
    return { files };
  }

  /**
   * Before the walk of a restart: the snapshot's files whose facts mention a word. Nothing is read
   * or probed here: the files are listed through the policy and checked against their stats when
   * the call indexes them (a changed one is read again then), and only paths under the roots count.
   */
  async #snapshotMentioning(
    words: readonly string[],
    signal: AbortSignal | undefined,
    onProgress: ((done: number, total: number) => void) | undefined,
  ): Promise<{ files: string[]; unseen: string }> {
    const files: string[] = [];
    const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
    const candidates = this.#snapshot.unreused();
    let looked = 0;
    for (const real of candidates) {
      signal?.throwIfAborted();
      onProgress?.(looked++, candidates.length);
      const underRoot = this.rootReals.some((root) => relativeInside(root, real, path.sep) !== undefined);
      if (underRoot && this.#snapshot.mentions(real, words) === true) files.push(real);
      await slice.turn();
    }
    onProgress?.(candidates.length, candidates.length);
    return { files, unseen: "files added since the last session, or changed to mention it, are looked in once the walk of the tree ends" };
  }

  /** The first build, started if nothing runs yet; undefined once the index is built (or closed). */
  #firstBuild(): RefreshRun | undefined {
    if (this.#built || this.#closed) return undefined;
    // The build's failure reaches whoever waits for it through ensureFresh; this start only kicks it off.
    if (!this.#running) void this.#startRun().catch(() => undefined);
    return this.#current;
  }

  /**
   * During the first build: every walked file the index may hold (indexed already or still to
   * process), with its text, in walk order, for a one-pass answer before the index is built. Files
   * that cannot be read or decoded are counted and left out. Undefined once the index is built.
   */
  async streamTexts(
    visit: (file: { real: string; display: string; language: LanguageId }, text: string) => void,
    options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<{ files: number; unreadable: number } | undefined> {
    const { signal, onProgress } = options;
    const current = this.#firstBuild();
    if (!current) return undefined;
    await abortable(current.walked, signal);
    const states = [...this.#tree.files.values()].filter((state) => state.indexed !== undefined || current.todo.has(state));
    states.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
    return this.ahead(async () => {
      const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
      let files = 0;
      let unreadable = 0;
      for (const [position, state] of states.entries()) {
        signal?.throwIfAborted();
        onProgress?.(position, states.length);
        const language = state.indexed?.language ?? this.#detector.fromName(state.relative);
        if (!isParseable(language)) continue;
        const text = this.readTextNow(state.real);
        if (text === undefined) unreadable += 1;
        else {
          files += 1;
          visit({ real: state.real, display: state.display, language }, text);
        }
        await slice.turn();
      }
      onProgress?.(states.length, states.length);
      return { files, unreadable };
    });
  }

  /** The decoded text of a walked file read through the policy's reader now, or undefined (gone, too large, binary). */
  readTextNow(real: string): string | undefined {
    const bytes = this.#readBytesNow(real);
    if (bytes === undefined) return undefined;
    const decoded = decodeText(bytes);
    return decoded.ok ? decoded.text : undefined;
  }

  /** A walked file's bytes (in the shared scratch: used up before the next read), or undefined when it cannot be read whole. */
  #readBytesNow(real: string): Uint8Array | undefined {
    try {
      const loaded = readBoundedSync(realTarget(real, real, this.#workspace.roots), this.#settings.maxFileBytes, { scratch: this.#readScratch });
      return typeof loaded === "object" && "bytes" in loaded ? loaded.bytes : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * Whether the first build has so many files left that a call should not wait for them: `files`
   * counts every file still to process (a call about one name, which indexes the files mentioning
   * it first, also gains on a restart), `parses` only those the snapshot cannot give (what a pass
   * over every file's text must beat).
   */
  async worthFocusing(signal?: AbortSignal, counting: "files" | "parses" = "files"): Promise<boolean> {
    const current = this.#firstBuild();
    if (!current) return false;
    await abortable(current.walkStarted, signal);
    // A restart knows its files from the snapshot before the walk ends.
    if (counting === "files" && !current.cut && this.#snapshot.entries > this.#tuning.focusAboveFiles) return true;
    await abortable(current.walked, signal);
    const left = counting === "files" ? current.todo.size : current.todo.size - this.#snapshot.entries;
    return !this.#built && left > this.#tuning.focusAboveFiles;
  }

  /** Files processed of those the running refresh has to (the last refresh's when none runs). */
  get progress(): { done: number; total: number } {
    return { ...this.#progress };
  }

  /** Whether the index has finished its first build (answers from it cover the whole tree). */
  get built(): boolean {
    return this.#built;
  }

  /**
   * The limit an answer given while the index builds carries: how far the build got, what the answer
   * is made of (`madeOf`), and the call to make.
   */
  stillBuilding(madeOf: string): string {
    const { done, total } = this.#progress;
    return `index still building (${done} of ${total} files processed): ${madeOf}; call again when the index tool reports it complete`;
  }

  /** The coverage of an answer given while the first build (or a refresh) still runs: incomplete, saying how far it got. */
  #buildingCoverage(): Coverage {
    if (!this.#running) return this.coverage();
    const base = this.coverage();
    return { ...base, complete: false, limits: [...base.limits, this.stillBuilding("this answer is from the files indexed so far")] };
  }

  #startQueued(): Promise<void> {
    this.#queued = undefined;
    return this.#startRun();
  }

  #startRun(): Promise<void> {
    const run = this.#refresh().finally(() => {
      if (this.#running === run) this.#running = undefined;
    });
    this.#running = run;
    return run;
  }

  /**
   * Tells the index that these real paths were just written, created, deleted or renamed; the next
   * ensureFresh re-reads them (and lists their directories again) whatever their stats say.
   */
  notifyWritten(realPaths: readonly string[]): void {
    for (const real of realPaths) if (this.rootReals.some((root) => relativeInside(root, real, path.sep) !== undefined)) this.#freshness.noteWritten(real);
  }

  async #refresh(): Promise<void> {
    let startDone = () => {};
    const walkStarted = new Promise<void>((resolve) => (startDone = resolve));
    let walkDone = () => {};
    const walked = new Promise<void>((resolve) => (walkDone = resolve));
    const current: RefreshRun = { walkStarted, startDone, walked, walkDone, cutting: false, cut: false, todo: new Set(), ahead: new Set() };
    this.#current = current;
    try {
      await this.#refreshSteps();
    } finally {
      // A failed refresh must not leave a call waiting for its walk.
      current.startDone();
      current.walkDone();
      if (this.#current === current) this.#current = undefined;
    }
  }

  async #refreshSteps(): Promise<void> {
    const started = performance.now();
    this.#counters = { parsed: 0, bytes: 0 };
    this.#tree.counters = { added: 0, removed: 0 };
    this.#progress = { done: 0, total: 0 };
    this.#pool = new StringPool();
    const firstBuild = !this.#built;
    if (firstBuild) {
      await this.#ensureExtractor();
      if (!this.#skipSnapshot) await this.#snapshot.load();
      this.#skipSnapshot = false;
    }
    const pending = new Set<FileState>();
    if (!this.#built || this.#needsFullScan) {
      this.#needsFullScan = false;
      this.#freshness.startFullWalk();
      await this.#tree.fullScan(pending, {
        rootsReady: () => this.#current?.startDone(),
        pause: () => (this.#priorityCalls > 0 ? this.#priorityOverPromise() : undefined),
      });
      // Every known file is checked against its stats after a full walk.
      for (const state of this.#tree.files.values()) if (state.contentDependent || state.signature === undefined) pending.add(state);
      this.#freshness.fullWalkDone();
    } else {
      this.#current?.startDone();
      await this.#freshness.collect(pending);
    }
    await this.#processFiles(pending);
    await this.#promoteOverLimit();
    this.#built = true;
    const ms = Math.round(performance.now() - started);
    if (firstBuild) {
      this.#lastBuild = { ms, parsed: this.#counters.parsed, fromSnapshot: this.#snapshot.reused, bytes: this.#counters.bytes };
      // The answer does not wait for the last append; the idle save is planned once it knows whether the file is current.
      const snapshot = this.#snapshot;
      void snapshot.firstBuildDone(this.#tree.indexedCount).then(() => snapshot.schedule());
    } else {
      const counters = this.#tree.counters;
      this.#lastRefresh = { ms, reparsed: this.#counters.parsed, removed: counters.removed, added: counters.added };
      this.#snapshot.schedule();
    }
  }

  // ------------------------------------------------------------------ file processing

  /** Processes pending files: cheap name checks first, then the file limit in walk order, then reads and parses in parallel. */
  async #processFiles(pending: Set<FileState>): Promise<void> {
    const tree = this.#tree;
    const candidates: FileState[] = [];
    for (const state of pending) {
      if (tree.files.get(state.real) !== state) continue;
      if (!state.contentDependent) {
        // Unsupported by name: nothing to read. (Overrides may have changed the verdict.)
        state.contentDependent = contentDependentByName(this.#detector, state.relative);
        if (!state.contentDependent) {
          tree.setStatus(state, "unsupported", undefined);
          continue;
        }
      }
      candidates.push(state);
    }
    candidates.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
    // max_files is applied here, in walk order, so the same tree always yields the same cut (files a
    // call processed ahead of the walk's end included).
    const ahead = this.#current?.ahead ?? new Set<FileState>();
    if (this.#current && !this.#current.cut) {
      this.#current.cutting = true;
      await Promise.all([...ahead].map((state) => this.#inflight.get(state)));
    }
    const work: FileState[] = [];
    let room = this.#settings.maxFiles - tree.indexedCount;
    for (const state of candidates) if (state.indexed && ahead.has(state)) room += 1;
    for (const state of candidates) {
      if (state.indexed && !ahead.has(state)) work.push(state);
      else if (room > 0) {
        room -= 1;
        work.push(state);
      } else this.#leaveOut(state, "overLimit");
    }
    this.#progress.total += work.length;
    this.#reportProgress();
    const todo = this.#current?.todo;
    if (todo) { for (const state of work) if (!ahead.has(state)) todo.add(state); }
    // The walk is done and the files to process are known: a call may now take its own first.
    if (this.#current) {
      this.#current.cut = true;
      this.#current.walkDone();
    }
    // Reads are synchronous and only parses wait on the thread pool, so a few lanes keep the
    // parser threads busy while the main thread extracts; files that need no parse (unchanged,
    // from the snapshot) finish at once, with a turn of the event loop now and then.
    const slice = new Slicer();
    await eachLimited(work, this.#tuning.concurrency, async (state) => {
      while (this.#priorityCalls > 0) await this.#priorityOverPromise();
      // A call that needed it first may have processed it already, or be processing it.
      if (!todo || todo.has(state)) await this.#processShared(state);
      else await this.#inflight.get(state);
      this.#progress.done += 1;
      this.#reportProgress();
      await slice.turn();
    });
  }

  /**
   * Runs a call's own work while the first build's walk and lanes wait (they resume when no such
   * work is left). Never around a wait for the build itself, which could then not end.
   */
  async ahead<T>(work: () => Promise<T>): Promise<T> {
    this.#priorityCalls += 1;
    try {
      return await work();
    } finally {
      this.#priorityCalls -= 1;
      if (this.#priorityCalls === 0) {
        this.#priorityOver?.resolve();
        this.#priorityOver = undefined;
      }
    }
  }

  #priorityOverPromise(): Promise<void> {
    if (!this.#priorityOver) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => (resolve = done));
      this.#priorityOver = { promise, resolve };
    }
    return this.#priorityOver.promise;
  }

  /** Processes a file once however many ask at the same time (the refresh and a call that needs it now). */
  #processShared(state: FileState): Promise<void> {
    const running = this.#inflight.get(state);
    if (running) return running;
    const started = this.#processFile(state)
      .catch((error: unknown) => {
        log.warn("indexing a file failed", { file: state.display, error: error instanceof Error ? error.message : String(error) });
        this.#tree.setStatus(state, "unreadable", undefined);
      })
      .finally(() => {
        this.#inflight.delete(state);
        this.#current?.todo.delete(state);
      });
    this.#inflight.set(state, started);
    return started;
  }

  #reportProgress(): void {
    for (const listener of this.#progressListeners) {
      try {
        listener(this.#progress.done, this.#progress.total);
      } catch {
        // A progress sink that fails must not stop the index.
      }
    }
  }

  /** Files held back by max_files take free places in walk order. */
  async #promoteOverLimit(): Promise<void> {
    let waiting = [...this.#tree.files.values()].filter((state) => state.status === "overLimit").sort((a, b) => (a.order < b.order ? -1 : 1));
    // Promoted files may turn out unindexable (binary, minified), leaving room for the next ones.
    while (waiting.length > 0 && this.#tree.indexedCount < this.#settings.maxFiles) {
      const room = this.#settings.maxFiles - this.#tree.indexedCount;
      const promoted = waiting.slice(0, room);
      waiting = waiting.slice(room);
      for (const state of promoted) state.signature = undefined;
      await this.#processFiles(new Set(promoted));
    }
  }

  /** A file held back by a limit: with its signature cleared, the next refresh reads it again. */
  #leaveOut(state: FileState, status: "overLimit" | "tooLarge"): void {
    state.signature = undefined;
    this.#tree.setStatus(state, status, undefined);
  }

  /** A file gone (or no longer a file): its directory's listing will say so; drop it now so no answer shows it. */
  #gone(state: FileState): void {
    this.#tree.removeFile(state);
    this.#freshness.noteDirectory(state.dir);
  }

  async #processFile(state: FileState): Promise<void> {
    if (state.signature === undefined && !this.#reusedByStats(state)) return this.#readAndIndex(state);
    let stats: Stats | undefined;
    try {
      stats = lstatSync(state.real);
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code;
      if (errno !== "ENOENT" && errno !== "ENOTDIR") throw error;
    }
    if (!stats?.isFile()) return this.#gone(state);
    if (signatureOf(stats) === state.signature) return;
    return this.#readAndIndex(state);
  }

  /**
   * A file seen for the first time in this process whose stats are those the snapshot's facts were
   * taken at: indexed from the snapshot without reading it. Its language must follow from its name
   * (a first line would need reading) and be the one the snapshot holds.
   */
  #reusedByStats(state: FileState): boolean {
    const language = this.#detector.fromName(state.relative);
    if (!isParseable(language) || isMinifiedName(path.basename(state.relative))) return false;
    const stats = lstatQuiet(state.real);
    if (!stats?.isFile() || stats.size > this.#settings.maxFileBytes) return false;
    const signature = signatureOf(stats);
    const reused = this.#snapshot.reuseByStats(state.real, signature, language);
    if (!reused) return false;
    if (!state.indexed && this.#tree.indexedCount >= this.#settings.maxFiles) {
      this.#leaveOut(state, "overLimit");
      return true;
    }
    state.signature = signature;
    const { size, mtimeMs, sha256, lines } = reused.entry;
    // Decoded compact: strings of their own, each once per file (snapshot.ts decodeFacts).
    const indexed = indexedFile(state, language, { size, mtimeMs, sha256, lines, facts: reused.facts });
    this.#tree.setStatus(state, "indexed", indexed);
    return true;
  }

  /** Reads a file (whose stats changed, or that was never read) and indexes it or records why not. */
  async #readAndIndex(state: FileState): Promise<void> {
    const tree = this.#tree;
    const byName = this.#detector.fromName(state.relative);
    // The bytes are hashed and decoded before the first await, so they may live in the shared scratch.
    const loaded = readBoundedSync(realTarget(state.real, state.real, this.#workspace.roots), this.#settings.maxFileBytes, {
      scratch: this.#readScratch,
      statsOnly: isMinifiedName(path.basename(state.relative)),
    });
    if (loaded === "gone") return this.#gone(state);
    if (loaded === "too_large") return this.#leaveOut(state, "tooLarge");
    if ("skipped" in loaded) {
      // Status decided by the descriptor's stats alone: nothing was read.
      state.signature = signatureOf(loaded.stats);
      tree.setStatus(state, loaded.skipped === "statsOnly" ? "minified" : "tooLarge", undefined);
      return;
    }
    const sha256 = sha256Hex(loaded.bytes);
    state.signature = signatureOf(loaded.stats);
    // Same bytes and the same language by name (a shebang in the same bytes says the same): keep the facts.
    if (state.indexed && state.indexed.sha256 === sha256 && (byName === undefined || byName === state.indexed.language)) {
      state.indexed.mtimeMs = loaded.stats.mtimeMs;
      return;
    }
    const verdict = classifySource(loaded.bytes, state.relative, this.#detector, true);
    if (verdict.kind !== "source") {
      tree.setStatus(state, verdict.kind === "undecodable" ? "unreadable" : verdict.kind === "minified" ? "minified" : "unsupported", undefined);
      return;
    }
    const { text, language } = verdict;
    const size = loaded.bytes.length;
    const mtimeMs = loaded.stats.mtimeMs;
    const reused = this.#snapshot.reuse(state.real, { sha256, size, mtimeMs, language });
    let facts: FileFacts;
    if (reused) {
      facts = reused;
    } else {
      facts = compactFacts(await this.#extractFacts(language, text), this.#pool);
      this.#counters.parsed += 1;
      this.#counters.bytes += size;
    }
    // A single-file load() may have taken the last place while this file was parsing.
    if (!state.indexed && tree.indexedCount >= this.#settings.maxFiles) return this.#leaveOut(state, "overLimit");
    if (tree.files.get(state.real) !== state) return;
    const indexed = indexedFile(state, language, { size, mtimeMs, sha256, lines: lineCount(text), facts });
    tree.setStatus(state, "indexed", indexed);
    // Parsed, or reused by content with new stats: the snapshot gets a line that holds.
    this.#snapshot.noteParsed({ file: indexed, signature: state.signature });
  }

  async #ensureExtractor(): Promise<void> {
    if (this.#extract) return;
    const loaded = await this.#hooks.extractor();
    this.#extract = loaded.extract;
    this.#extractorVersion = loaded.version;
  }

  async #extractFacts(language: LanguageId, text: string, options?: ExtractOptions): Promise<FileFacts> {
    await this.#ensureExtractor();
    const root = await parseTreeAsync(language, text);
    try {
      return this.#extract!(language, text, root, options);
    } finally {
      this.#trees.add(text.length);
    }
  }

  /**
   * Forgets every file and parses everything again on the next ensureFresh (the snapshot is not
   * used for that build); waits for a running refresh first.
   */
  async rebuild(options: EnsureFreshOptions = {}): Promise<Coverage> {
    while (this.#running || this.#queued) await (this.#queued ?? this.#running)!.catch(() => undefined);
    this.#tree.clear();
    this.#freshness.stop();
    this.#built = false;
    this.#needsFullScan = true;
    this.#skipSnapshot = true;
    this.#snapshot.forget();
    return this.ensureFresh(options);
  }

  /** Whether the walk covers this directory (false for ignored, skipped or denied ones). */
  covers(dirReal: string): boolean {
    return this.#tree.dirs.has(dirReal);
  }

  /** The language the index gives a file at this root-relative path (overrides, name, then the first line). */
  languageFor(relative: string, firstLine?: string): LanguageId | undefined {
    const language = this.#detector.detect(relative, firstLine);
    return isParseable(language) ? language : undefined;
  }

  // ------------------------------------------------------------------ single files

  /**
   * One file, fresh, with the text its facts came from; also for files the walk leaves out
   * (ignored, over a limit, not walked yet). The path must be resolved by the workspace.
   */
  async load(resolved: ResolvedPath): Promise<{ file: IndexedFile; text: string }> {
    const { loaded, text, language } = await readSourceFile(resolved, this.#detector, Math.max(this.#settings.maxFileBytes, LIMITS.read.maxBytesCeiling * 8));
    const sha256 = sha256Hex(loaded.bytes);
    const state = this.#tree.files.get(resolved.real);
    if (state?.indexed && state.indexed.sha256 === sha256 && state.indexed.language === language) {
      return { file: state.indexed, text };
    }
    const facts = compactFacts(await this.#extractFacts(language, text), new StringPool());
    const place = { real: resolved.real, display: resolved.display, rootReal: resolved.root.real, relative: resolved.relative };
    const file = indexedFile(place, language, { size: loaded.bytes.length, mtimeMs: loaded.stats.mtimeMs, sha256, lines: lineCount(text), facts });
    // A walked file that changed is updated in place so other answers see the same facts.
    if (state && (state.status === "indexed" || state.status === "pending")) {
      state.signature = signatureOf(loaded.stats);
      this.#tree.setStatus(state, "indexed", file);
    }
    return { file, text };
  }

  /**
   * The current text of an indexed file. Throws stale_hash when the file changed since `file` was
   * taken (the index is updated first, so asking again gives the new facts).
   */
  async text(file: IndexedFile): Promise<string> {
    // Read synchronously (a thread-pool round trip per file cost more than the read when search
    // reads every file) into the scratch, whose bytes are used up before this returns.
    const loaded = readBoundedSync(realTarget(file.real, file.real, this.#workspace.roots), Math.max(this.#settings.maxFileBytes, file.size), { scratch: this.#readScratch });
    if (loaded === "gone") {
      this.notifyWritten([file.real]);
      throw new ToolError("file_not_found", `${file.display} no longer exists.`);
    }
    if (typeof loaded === "object" && "bytes" in loaded && sha256Hex(loaded.bytes) === file.sha256) {
      const decoded = decodeText(loaded.bytes);
      if (decoded.ok) return decoded.text;
    }
    this.notifyWritten([file.real]);
    throw new ToolError("stale_hash", `${file.display} changed while it was being read.`, { hint: "Call the tool again; it will use the new content." });
  }

  /** Writes the snapshot now (when persisting is on); resolves when it is on disk. */
  saveSnapshot(): Promise<void> {
    return this.#snapshot.save();
  }

  /** Where the search index of these files persists (beside the snapshot), and what it must have been made from (search's SearchSource.persistence). */
  persistence(): Promise<{ file: string; stamp: string } | undefined> {
    return this.#snapshot.companion(".search.bin");
  }

  /** At shutdown: appends to the snapshot what was parsed since it was last written. */
  flushSnapshot(): Promise<void> {
    return this.#snapshot.flush();
  }
}
