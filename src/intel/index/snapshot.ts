/**
 * The persisted snapshot of a code index: the facts of every indexed file with the size, mtime and
 * SHA-256 they were extracted from, gzip-compressed JSON in the user cache directory, one file per
 * set of roots. It is only a cache: an entry is used when the file on disk still has the same size,
 * mtime and hash (and detects as the same language), and a format or extractor change makes the
 * whole file unusable.
 */
import { createHash, randomBytes } from "node:crypto";
import { open, readdir, readFile, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { LIMITS } from "../../core/limits.ts";
import { VERSION } from "../../core/version.ts";
import type { FileFacts } from "../facts/types.ts";
import type { IndexedFile } from "./types.ts";

/** Bump when the snapshot layout or the meaning of a field changes. */
export const SNAPSHOT_FORMAT = 1;

export interface SnapshotEntry {
  real: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  language: string;
  lines: number;
  facts: FileFacts;
}

interface SnapshotFile {
  format: number;
  /** The extractor's version: facts from another version are not reused. */
  extractor: string;
  key: string;
  roots: string[];
  savedAt: string;
  files: SnapshotEntry[];
}

/** A stable name for a set of roots (the snapshot's file name). */
export function snapshotKey(rootReals: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify([...rootReals].sort())).digest("hex").slice(0, 32);
}

export function snapshotPath(dir: string, key: string): string {
  return path.join(dir, `${key}.json.gz`);
}

/** Version string facts are tagged with: the package version plus whatever the extractor declares. */
export function extractorVersion(declared: string | undefined): string {
  return `${VERSION}/${declared ?? "0"}`;
}

/**
 * The snapshot's entries by real path, or a reason it cannot be used (missing, wrong format,
 * another extractor, other roots, corrupt). Never throws.
 */
export async function loadSnapshot(
  file: string,
  expected: { key: string; roots: readonly string[]; extractor: string },
): Promise<{ entries: Map<string, SnapshotEntry> } | { problem: string }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return { problem: "not a file" };
    if (info.size > LIMITS.intel.index.maxSnapshotBytes) return { problem: `larger than ${LIMITS.intel.index.maxSnapshotBytes} bytes` };
    const parsed = JSON.parse(gunzipSync(await readFile(file)).toString("utf8")) as Partial<SnapshotFile>;
    if (parsed.format !== SNAPSHOT_FORMAT) return { problem: `format ${String(parsed.format)} is not ${SNAPSHOT_FORMAT}` };
    if (parsed.extractor !== expected.extractor) return { problem: `made by extractor ${String(parsed.extractor)}, not ${expected.extractor}` };
    if (parsed.key !== expected.key || JSON.stringify(parsed.roots) !== JSON.stringify([...expected.roots].sort())) return { problem: "made for other roots" };
    if (!Array.isArray(parsed.files)) return { problem: "no file list" };
    const entries = new Map<string, SnapshotEntry>();
    for (const entry of parsed.files) {
      if (isEntry(entry)) entries.set(entry.real, entry);
    }
    return { entries };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" ? "none saved yet" : `unreadable: ${(error as Error).message}` };
  }
}

function isEntry(value: unknown): value is SnapshotEntry {
  if (value === null || typeof value !== "object") return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.real === "string" &&
    typeof entry.size === "number" &&
    typeof entry.mtimeMs === "number" &&
    typeof entry.sha256 === "string" &&
    typeof entry.language === "string" &&
    typeof entry.lines === "number" &&
    entry.facts !== null &&
    typeof entry.facts === "object" &&
    Array.isArray((entry.facts as FileFacts).symbols)
  );
}

/** Writes the snapshot atomically (temp file, then rename), readable by the owner only. */
export async function saveSnapshot(
  file: string,
  meta: { key: string; roots: readonly string[]; extractor: string },
  files: Iterable<IndexedFile>,
): Promise<void> {
  const entries: SnapshotEntry[] = [];
  for (const indexed of files) {
    entries.push({
      real: indexed.real,
      size: indexed.size,
      mtimeMs: indexed.mtimeMs,
      sha256: indexed.sha256,
      language: indexed.language,
      lines: indexed.lines,
      facts: indexed.facts,
    });
  }
  const body: SnapshotFile = {
    format: SNAPSHOT_FORMAT,
    extractor: meta.extractor,
    key: meta.key,
    roots: [...meta.roots].sort(),
    savedAt: new Date().toISOString(),
    files: entries,
  };
  const bytes = gzipSync(Buffer.from(JSON.stringify(body), "utf8"), { level: 1 });
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/**
 * Keeps the snapshot directory small: the newest LIMITS.intel.index.maxSnapshots snapshots stay
 * (one per set of roots; `keep` always stays), older ones and stale temp files go. Never throws.
 */
export async function pruneSnapshots(dir: string, keep: string): Promise<number> {
  let removed = 0;
  try {
    const entries: Array<{ file: string; mtimeMs: number }> = [];
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      if (!/\.json\.gz(?:\.[0-9a-f]+\.tmp)?$/.test(name)) continue;
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (name.endsWith(".tmp")) {
        // A writer that died mid-save; a live one renames within seconds.
        if (Date.now() - info.mtimeMs > 60 * 60_000) {
          await rm(file, { force: true });
          removed += 1;
        }
        continue;
      }
      if (file !== keep) entries.push({ file, mtimeMs: info.mtimeMs });
    }
    entries.sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const entry of entries.slice(Math.max(0, LIMITS.intel.index.maxSnapshots - 1))) {
      await rm(entry.file, { force: true });
      removed += 1;
    }
  } catch {
    // Pruning is housekeeping: a failure leaves files behind, nothing worse.
  }
  return removed;
}
