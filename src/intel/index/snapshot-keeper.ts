/**
 * When the index's snapshot is read and written (the format is snapshot.ts): read once before the
 * first build, its facts reused for files whose stats (or else size, mtime, SHA-256 and language)
 * still match. While files are parsed, they are appended to it every so often, so even a process
 * that answers one call and ends leaves a snapshot behind; a full, compact save follows once the
 * process is idle, at most so often, and at the latest so long after the first unsaved change; at
 * shutdown what is still unsaved is appended. Timing is an option (tests vary it).
 */
import path from "node:path";
import perfHooks, { type EventLoopUtilization } from "node:perf_hooks";
import { log } from "../../core/log.ts";
import { cacheDirInsideRoots, ensureSnapshotDirectory, userCacheDirectory } from "../../config/cache-dir.ts";
import type { FileFacts } from "../facts/types.ts";
import {
  appendSnapshot,
  decodeFacts,
  extractorVersion,
  loadSnapshot,
  namesHold,
  pruneSnapshots,
  saveSnapshot,
  snapshotKey,
  snapshotPath,
  type SnapshotEntry,
  type SnapshotFile,
  type SnapshotSource,
} from "./snapshot.ts";
import type { IndexStats } from "./types.ts";

export interface SnapshotTiming {
  /** A persisted snapshot is rewritten at most this often while files keep changing. */
  minIntervalMs: number;
  /** The snapshot is written once the index has had no refresh, and the event loop little work, for this long… */
  idleMs: number;
  /** …"little work" being at most this share of the time busy… */
  idleUtilization: number;
  /** …or at the latest this long after the first unsaved change, when the server is never idle. */
  maxDelayMs: number;
  /** Writing runs in the background: work done before the event loop gets a turn. */
  saveSliceMs: number;
  /** Files parsed since the last write are appended at most this often while the index builds. */
  appendEveryMs: number;
}

export const DEFAULT_SNAPSHOT_TIMING: SnapshotTiming = {
  minIntervalMs: 30_000,
  idleMs: 2_000,
  idleUtilization: 0.25,
  maxDelayMs: 5 * 60_000,
  saveSliceMs: 4,
  appendEveryMs: 2_000,
};

/** What the keeper reads of the index it saves. */
export interface SnapshotHost {
  persist(): boolean;
  closed(): boolean;
  generation(): number;
  /** The declared version of the facts extractor (a snapshot of another version is not used). */
  extractorVersion(): string | undefined;
  /** Every indexed file with the stats signature its facts were taken at. */
  sources(): SnapshotSource[];
}

type Utilization = (from?: EventLoopUtilization) => EventLoopUtilization;

/** The share of time the event loop has been busy since now (0 where the runtime cannot tell). */
function loopBusySince(): { utilization(): number } {
  const measure = (perfHooks.performance as { eventLoopUtilization?: Utilization }).eventLoopUtilization;
  if (typeof measure !== "function") return { utilization: () => 0 };
  const mark = measure.call(perfHooks.performance);
  return { utilization: () => measure.call(perfHooks.performance, mark).utilization };
}

export class SnapshotKeeper {
  /** Entries not reused yet (a reused one leaves). */
  #entries: Map<string, SnapshotEntry> | undefined;
  /** The snapshot file they were read from, open until the first build is done. */
  #read: SnapshotFile | undefined;
  /** Entries the snapshot held when it was read. */
  #loadedEntries = 0;
  #file: string | undefined;
  #problem: string | undefined;
  #loaded = false;
  #reused = 0;
  /** Of those, the files whose line in the file still holds (the others get a new line, with their new stats). */
  #reusedByStats = 0;
  #savedAt: string | undefined;
  #savedGeneration = -1;
  #timer: NodeJS.Timeout | undefined;
  #lastSave = 0;
  /** When the oldest change the snapshot does not hold yet was made. */
  #pendingSince = 0;
  /** The save in progress: it yields to the event loop, and refreshes meanwhile must not start another. */
  #saving: Promise<void> | undefined;
  /** Files parsed since the snapshot file last got lines: the next append writes them. */
  #unsaved: SnapshotSource[] = [];
  /** Whether the file on disk has this index's header, so lines may be appended to it. */
  #appendable = false;
  #lastAppend = 0;
  /** Lines of this process in the file (appended, or written by a full save). */
  #written = 0;
  /** The write (append or save) in progress; writes run one at a time. */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: SnapshotHost,
    private readonly rootReals: readonly string[],
    /** Where snapshots go; default: the user cache directory. */
    private readonly cacheDir: string | undefined,
    private readonly timing: SnapshotTiming = DEFAULT_SNAPSHOT_TIMING,
  ) {}

  /** Files whose facts came from the snapshot in this build. */
  get reused(): number {
    return this.#reused;
  }

  /** Entries of the snapshot read for the first build not reused yet (0 before it is read, or once the build is done). */
  get entries(): number {
    return this.#entries?.size ?? 0;
  }

  /** Reads the snapshot for the first build (when persisting is on). */
  async load(): Promise<void> {
    if (!this.host.persist()) return;
    const dir = await this.#directory();
    if (dir === undefined) return;
    const meta = this.#meta();
    this.#file = snapshotPath(dir, meta.key);
    const loaded = await loadSnapshot(this.#file, meta);
    if ("problem" in loaded) {
      log.debug("index snapshot not used", { file: this.#file, reason: loaded.problem });
      return;
    }
    this.#read = loaded.snapshot;
    this.#entries = loaded.snapshot.entries;
    this.#loadedEntries = loaded.snapshot.entries.size;
    this.#loaded = true;
    this.#appendable = true;
  }

  /** The snapshot's facts of a file, when the file is still what the snapshot saw. */
  reuse(real: string, file: { sha256: string; size: number; mtimeMs: number; language: string }): FileFacts | undefined {
    const entry = this.#entries?.get(real);
    if (!entry || entry.sha256 !== file.sha256 || entry.size !== file.size || entry.mtimeMs !== file.mtimeMs || entry.language !== file.language) return undefined;
    const facts = this.#decode(entry);
    if (facts) this.#taken(real);
    return facts;
  }

  /** The files of the snapshot read for the first build that are not reused yet. */
  unreused(): string[] {
    return [...(this.#entries?.keys() ?? [])];
  }

  /**
   * Whether the snapshot's facts of a file not reused yet name one of `words` (the names its head
   * carries). Undefined when there is no entry, or its stats now (`signatureNow`, asked only when
   * there is one) are not those its facts were taken at.
   */
  mentions(real: string, words: readonly string[], signatureNow?: () => string | undefined): boolean | undefined {
    const entry = this.#entries?.get(real);
    if (entry === undefined || (signatureNow !== undefined && entry.signature !== signatureNow())) return undefined;
    return namesHold(entry.names, words);
  }

  /** The snapshot's entry and facts of a file whose stats are still those its facts were taken at (nothing needs reading). */
  reuseByStats(real: string, signature: string, language: string): { entry: SnapshotEntry; facts: FileFacts } | undefined {
    const entry = this.#entries?.get(real);
    if (!entry || entry.signature !== signature || entry.language !== language) return undefined;
    const facts = this.#decode(entry);
    if (!facts) return undefined;
    this.#taken(real);
    this.#reusedByStats += 1;
    return { entry, facts };
  }

  #decode(entry: SnapshotEntry): FileFacts | undefined {
    const body = this.#read?.body(entry);
    return body === undefined ? undefined : decodeFacts(entry, body);
  }

  /** The snapshot read for the first build is let go: its entries, and its file. */
  #release(): void {
    this.#entries = undefined;
    this.#read?.close();
    this.#read = undefined;
  }

  #taken(real: string): void {
    this.#reused += 1;
    this.#entries?.delete(real);
  }

  /** A file was parsed: its facts go into the snapshot with the next append. */
  noteParsed(source: SnapshotSource): void {
    if (!this.host.persist() || this.host.closed()) return;
    this.#unsaved.push(source);
    const now = Date.now();
    if (this.#lastAppend === 0) this.#lastAppend = now;
    else if (now - this.#lastAppend >= this.timing.appendEveryMs) {
      this.#lastAppend = now;
      void this.#write(() => this.#appendNow());
    }
  }

  /**
   * After the first build: the snapshot's facts are let go. When the file already holds every
   * indexed file and nothing else (all reused, or appended, and none gone), it is current.
   */
  async firstBuildDone(indexed: number): Promise<void> {
    const loaded = this.#loadedEntries;
    this.#release();
    const generation = this.host.generation();
    if (this.#unsaved.length > 0) await this.#write(() => this.#appendNow());
    if (this.#appendable && loaded === this.#reused && this.#reusedByStats + this.#written === indexed) this.#savedGeneration = generation;
  }

  /** At shutdown: what was parsed and not yet written is appended (best effort; a full save waits for an idle process). */
  async flush(): Promise<void> {
    // Queued even with nothing unsaved: an append already under way is waited for.
    await this.#write(() => this.#appendNow());
  }

  /** A rebuild parses everything again without the snapshot (and writes it anew). */
  forget(): void {
    this.#release();
    this.#loadedEntries = 0;
    this.#reused = 0;
    this.#reusedByStats = 0;
    this.#loaded = false;
    this.#appendable = false;
    this.#unsaved = [];
    this.#written = 0;
  }

  close(): void {
    this.#release();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  stats(): IndexStats["snapshot"] {
    const snapshot: IndexStats["snapshot"] = { enabled: this.host.persist() && this.#problem === undefined, loaded: this.#loaded, reused: this.#reused };
    if (this.#file !== undefined) snapshot.path = this.#file;
    if (this.#savedAt !== undefined) snapshot.savedAt = this.#savedAt;
    if (this.#problem !== undefined) snapshot.problem = this.#problem;
    return snapshot;
  }

  /**
   * Where another cache of these roots goes beside the snapshot (`<key><suffix>` in the same checked
   * directory), with a stamp naming the roots and the extractor its content must come from; undefined
   * when persisting is off or the directory cannot be used (inside a root, unsafe).
   */
  async companion(suffix: string): Promise<{ file: string; stamp: string } | undefined> {
    if (!this.host.persist()) return undefined;
    const dir = await this.#directory();
    if (dir === undefined) return undefined;
    const meta = this.#meta();
    return { file: path.join(dir, `${meta.key}${suffix}`), stamp: JSON.stringify({ roots: [...meta.roots].sort(), extractor: meta.extractor }) };
  }

  async #directory(): Promise<string | undefined> {
    const cacheDir = this.cacheDir ?? userCacheDirectory();
    const inside = await cacheDirInsideRoots(cacheDir, this.rootReals);
    if (inside !== undefined) {
      this.#problem = inside;
      return undefined;
    }
    const ensured = await ensureSnapshotDirectory(cacheDir);
    if ("problem" in ensured) {
      this.#problem = ensured.problem;
      return undefined;
    }
    return ensured.dir;
  }

  #meta(): { key: string; roots: readonly string[]; extractor: string } {
    return { key: snapshotKey(this.rootReals), roots: this.rootReals, extractor: extractorVersion(this.host.extractorVersion()) };
  }

  /**
   * Saves the snapshot once the process is idle (writing it takes seconds of main-thread work on a
   * large tree, and calls answered meanwhile would wait on its slices): no refresh and a mostly
   * idle event loop for idleMs. At most once per minIntervalMs, and at the latest maxDelayMs after
   * the first unsaved change, however busy the server is.
   */
  schedule(): void {
    if (!this.host.persist() || this.host.closed() || (this.#file === undefined && this.#problem !== undefined)) return;
    if (this.#savedGeneration === this.host.generation() || this.#saving) return;
    const now = Date.now();
    if (this.#timer) clearTimeout(this.#timer);
    else this.#pendingSince = now;
    const timing = this.timing;
    const deadline = Math.max(this.#pendingSince + timing.maxDelayMs, this.#lastSave + timing.minIntervalMs);
    const arm = (from: number): void => {
      const wait = Math.max(0, Math.min(Math.max(timing.idleMs, this.#lastSave + timing.minIntervalMs - from), deadline - from));
      const since = loopBusySince();
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        // A long call (a graph being built) refreshes nothing while it keeps the loop busy: wait on.
        const busy = since.utilization() > timing.idleUtilization;
        if (busy && Date.now() < deadline && !this.host.closed()) arm(Date.now());
        else void this.save();
      }, wait);
      this.#timer.unref?.();
    };
    arm(now);
  }

  /** Writes the snapshot now (when persisting is on); resolves when it is on disk. */
  async save(): Promise<void> {
    while (this.#saving) await this.#saving;
    if (!this.host.persist() || this.host.closed()) return;
    const saving = this.#write(() => this.#saveNow());
    this.#saving = saving.then(() => undefined);
    let saved: boolean;
    try {
      saved = await saving;
    } finally {
      this.#saving = undefined;
    }
    // Changes made while it was written go into the next one (a failed save waits for the next refresh).
    if (saved) this.schedule();
  }

  /** Runs one write after the ones before it (an append racing a full save's rename would be lost). */
  #write<T>(run: () => Promise<T>): Promise<T> {
    const next = this.#writing.then(run, run);
    this.#writing = next.catch(() => undefined);
    return next;
  }

  /** Appends the files parsed since the last write, or writes the whole file when there is none of this index's yet. */
  async #appendNow(): Promise<boolean> {
    if (this.#unsaved.length === 0 || !this.host.persist() || this.host.closed()) return true;
    if (!this.#appendable) return this.#saveNow();
    const batch = this.#unsaved;
    this.#unsaved = [];
    try {
      await appendSnapshot(this.#file!, batch, this.timing.saveSliceMs);
      this.#written += batch.length;
      return true;
    } catch (error) {
      this.#problem = `saving failed: ${(error as Error).message}`;
      log.warn("appending to the index snapshot failed", { error: (error as Error).message });
      return false;
    }
  }

  async #saveNow(): Promise<boolean> {
    const generation = this.host.generation();
    try {
      if (this.#file === undefined) {
        const dir = await this.#directory();
        if (dir === undefined) return false;
        this.#file = snapshotPath(dir, this.#meta().key);
      }
      // Whatever is parsed from here on is not in the sources taken now: it waits for the next append.
      this.#unsaved = [];
      const sources = this.host.sources();
      await saveSnapshot(this.#file, this.#meta(), sources, this.timing.saveSliceMs);
      await pruneSnapshots(path.dirname(this.#file), this.#file);
      this.#appendable = true;
      this.#written = sources.length;
      this.#savedGeneration = generation;
      this.#lastSave = Date.now();
      this.#savedAt = new Date(this.#lastSave).toISOString();
      return true;
    } catch (error) {
      this.#problem = `saving failed: ${(error as Error).message}`;
      log.warn("saving the index snapshot failed", { error: (error as Error).message });
      return false;
    }
  }
}
