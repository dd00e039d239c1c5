/**
 * What an index is asked to be: the settings a configuration gives it ([index], [languages]),
 * the options its maker passes, and the engine tuning no client sees (defaults here; a test may
 * vary them).
 */
import { DEFAULT_CONFIG, type EffectiveConfig } from "../../config/schema.ts";
import { DEFAULT_SNAPSHOT_TIMING, type SnapshotTiming } from "./snapshot-keeper.ts";
import type { FactsExtractor, IndexSettings } from "./types.ts";

/** The index settings a configuration asks for. */
export function indexSettingsFrom(config: Pick<EffectiveConfig, "index" | "languages">): IndexSettings {
  return {
    persist: config.index.persist,
    maxFiles: config.index.max_files,
    maxFileBytes: config.index.max_file_bytes,
    languageOverrides: { ...config.languages.overrides },
  };
}

export const DEFAULT_INDEX_SETTINGS: IndexSettings = indexSettingsFrom(DEFAULT_CONFIG);

/** Engine tuning no client sees; a test may vary it. */
export interface IndexTuning {
  /**
   * Files parsing at once while indexing (on the libuv thread pool, 4 threads by default), while
   * the main thread reads files and extracts facts from finished trees.
   */
  concurrency: number;
  /** The buffer files are read into while indexed grows up to this; a larger file gets a buffer of its own. */
  readScratchBytes: number;
  /** Even with a watcher, every indexed file is re-stat'ed at least this often, so a dropped event cannot hide a change for longer. */
  fullCheckIntervalMs: number;
  /** Directories watched (one fs.watch each where recursive watching is unavailable) before the index relies on stat checks alone. */
  maxWatchedDirectories: number;
  snapshot: SnapshotTiming;
  /**
   * During the first build, a call about one name indexes the files that mention it first only when
   * more files than this remain to process; fewer finish within seconds, and the answer is then whole.
   */
  focusAboveFiles: number;
}

export const DEFAULT_INDEX_TUNING: IndexTuning = {
  concurrency: 4,
  readScratchBytes: 2 * 1024 * 1024,
  fullCheckIntervalMs: 60_000,
  maxWatchedDirectories: 8192,
  snapshot: DEFAULT_SNAPSHOT_TIMING,
  focusAboveFiles: 2_000,
};

export interface CodeIndexOptions {
  /** Where snapshots go; default: the user cache directory (see cache-dir.ts). */
  cacheDir?: string;
  settings?: IndexSettings;
  /** The configuration generation the workspace was built from; a new one re-walks every directory (rules may differ). */
  policyGeneration?: number;
  /** "auto" (default): watch where events are ordered (Node on Linux); "off": always check with stats. */
  watch?: "auto" | "off";
  /** Replaces the facts extractor (tests); default: extractFacts from src/intel/facts/extract.ts. */
  extract?: FactsExtractor;
  /** Declared version of an injected extractor (snapshot validity). */
  extractorVersion?: string;
  tuning?: Partial<IndexTuning>;
}

export interface EnsureFreshOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Answer after this long even when the refresh still runs (the coverage then says how far it got); the refresh goes on. */
  deadlineMs?: number;
}
