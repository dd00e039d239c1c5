/**
 * The shapes the code index hands out: one record per indexed file, and the coverage statement
 * every answer built on the index carries.
 */
import type { SgRoot } from "@ast-grep/napi";
import type { ExtractOptions } from "../facts/extract.ts";
import type { FileFacts } from "../facts/types.ts";
import type { LanguageId } from "../../syntax/index.ts";

export interface IndexedFile {
  /** Real path (no symlinks); the key of the file in the index. */
  real: string;
  /** As the workspace displays it; valid as a tool input. */
  display: string;
  /** Real path of the root the file lies in. */
  rootReal: string;
  /** Relative to rootReal, POSIX separators. */
  relative: string;
  language: LanguageId;
  size: number;
  mtimeMs: number;
  /** Lowercase hex SHA-256 of the raw bytes the facts were extracted from. */
  sha256: string;
  /** Lines in the file (a final newline does not start another line). */
  lines: number;
  facts: FileFacts;
}

export interface SkippedCounts {
  /** Files over the size limit ([index].max_file_bytes). */
  tooLarge: number;
  /** Entries left out by .gitignore or the built-in skips (node_modules, dist, …); an ignored directory counts once. */
  ignored: number;
  /** Entries the workspace policy hides (denied for read, links leading out of the roots). */
  denied: number;
  /** Files with no language that has a syntax tree parser here, and binary files. */
  unsupported: number;
  /** Parseable files beyond the file limit ([index].max_files). */
  overLimit: number;
  /** Minified bundles (".min.js" names, or a head made mostly of very long lines). Addition to the plan's shape. */
  minified: number;
  /** Files that could not be read or decoded (I/O errors, invalid UTF-8). Addition to the plan's shape. */
  unreadable: number;
  /** Directories deeper below their root than the index walks (LIMITS.intel.index.maxDirectoryDepth), counted where the cut is. */
  tooDeep: number;
}

export interface Coverage {
  /** True when no limit cut the index: every file the policy, .gitignore and the built-in skips leave in is indexed. */
  complete: boolean;
  skipped: SkippedCounts;
  /** The limits that cut the index, as config keys with their values (e.g. "index.max_files = 50000"). */
  limits: string[];
  /** Files indexed. */
  files: number;
}

/** How the index turns a file's text into facts; the real extractor unless a test injects another. */
export type FactsExtractor = (language: LanguageId, text: string, root?: SgRoot, options?: ExtractOptions) => FileFacts;

export interface IndexSettings {
  persist: boolean;
  maxFiles: number;
  maxFileBytes: number;
  /** Glob → language id, from [languages].overrides. */
  languageOverrides: Readonly<Record<string, string>>;
}

export interface IndexStats {
  coverage: Coverage;
  generation: number;
  /** Indexed files per language id. */
  languages: Record<string, number>;
  /** Bytes of the indexed files. */
  bytes: number;
  /** Syntax errors across the indexed files, and files with at least one. */
  parseErrors: number;
  filesWithParseErrors: number;
  directories: number;
  /** How the last refresh found changes: a walk of every directory and file, or the file watcher's events. */
  freshness: "stat" | "watch";
  /** Directories watched, and why watching is off when it is. */
  watch: { active: boolean; directories: number; reason?: string };
  /** The last cold build (first ensureFresh of this process): time, files parsed, files taken from the snapshot. */
  lastBuild?: { ms: number; parsed: number; fromSnapshot: number; bytes: number };
  /** The last refresh: time and what it reprocessed. */
  lastRefresh?: { ms: number; reparsed: number; removed: number; added: number };
  snapshot: { enabled: boolean; path?: string; loaded: boolean; reused: number; savedAt?: string; problem?: string };
}
