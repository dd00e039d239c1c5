/**
 * The persisted snapshot of a code index: the facts of every indexed file with the size, mtime and
 * SHA-256 they were extracted from, in the user cache directory, one file per set of roots. It is
 * only a cache: an entry is used when the file on disk still has the same size, mtime and hash (and
 * detects as the same language), and a format or extractor change makes the whole file unusable.
 *
 * Layout: gzip of JSON lines, a header line then one line per file. Written and read as a stream,
 * a line at a time with turns of the event loop, so neither a whole-index JSON text (hundreds of MB
 * for a large tree, blocking the loop for seconds) nor its bytes ever exist at once.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { open, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import { LIMITS } from "../../core/limits.ts";
import { Slicer } from "../../core/slicer.ts";
import { VERSION } from "../../core/version.ts";
import type { FileFacts } from "../facts/types.ts";
import type { IndexedFile } from "./types.ts";

/** Bump when the snapshot layout or the meaning of a field changes. */
const SNAPSHOT_FORMAT = 2;

export interface SnapshotEntry {
  real: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  language: string;
  lines: number;
  facts: FileFacts;
}

/** The first line; every further line is one SnapshotEntry. */
interface SnapshotHeader {
  format: number;
  /** The extractor's version: facts from another version are not reused. */
  extractor: string;
  key: string;
  roots: string[];
  savedAt: string;
}

/** Text gathered before it goes to the compressor. */
const CHUNK_CHARS = 64 * 1024;

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
    const entries = new Map<string, SnapshotEntry>();
    let header: Partial<SnapshotHeader> | undefined;
    let problem: string | undefined;
    let rest = "";
    const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
    const take = (line: string): void => {
      if (line.length === 0 || problem !== undefined) return;
      if (header === undefined) {
        header = JSON.parse(line) as Partial<SnapshotHeader>;
        if (header.format !== SNAPSHOT_FORMAT) problem = `format ${String(header.format)} is not ${SNAPSHOT_FORMAT}`;
        else if (header.extractor !== expected.extractor) problem = `made by extractor ${String(header.extractor)}, not ${expected.extractor}`;
        else if (header.key !== expected.key || JSON.stringify(header.roots) !== JSON.stringify([...expected.roots].sort())) problem = "made for other roots";
        return;
      }
      const entry = JSON.parse(line) as unknown;
      if (isEntry(entry)) entries.set(entry.real, entry);
    };
    const gunzip = createGunzip();
    gunzip.setEncoding("utf8");
    const reading = pipeline(createReadStream(file), gunzip);
    // A corrupt file fails both the pipeline and the loop below; the loop's error is the one reported.
    reading.catch(() => undefined);
    for await (const chunk of gunzip as AsyncIterable<string>) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) take(line);
      if (problem !== undefined) {
        gunzip.destroy();
        break;
      }
      await slice.turn();
    }
    if (problem === undefined) {
      await reading;
      take(rest);
    } else {
      await reading.catch(() => undefined);
    }
    if (header === undefined) return { problem: "empty" };
    return problem === undefined ? { entries } : { problem };
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
  /** Work done before the event loop gets a turn (calls answered meanwhile wait at most this). */
  sliceMs = 4,
): Promise<void> {
  const header: SnapshotHeader = { format: SNAPSHOT_FORMAT, extractor: meta.extractor, key: meta.key, roots: [...meta.roots].sort(), savedAt: new Date().toISOString() };
  async function* lines(): AsyncGenerator<string> {
    let chunk = `${JSON.stringify(header)}\n`;
    const slice = new Slicer(sliceMs);
    for (const indexed of files) {
      const entry: SnapshotEntry = {
        real: indexed.real,
        size: indexed.size,
        mtimeMs: indexed.mtimeMs,
        sha256: indexed.sha256,
        language: indexed.language,
        lines: indexed.lines,
        facts: indexed.facts,
      };
      chunk += `${JSON.stringify(entry)}\n`;
      if (chunk.length < CHUNK_CHARS) continue;
      yield chunk;
      chunk = "";
      await slice.turn();
    }
    yield chunk;
  }
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await pipeline(Readable.from(lines()), createGzip({ level: 1 }), async (compressed: AsyncIterable<Buffer>) => {
      for await (const bytes of compressed) await handle.write(bytes);
    });
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
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
