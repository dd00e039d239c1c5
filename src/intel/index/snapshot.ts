/**
 * The persisted snapshot of a code index: the facts of every indexed file with the size, mtime and
 * SHA-256 they were extracted from, in the user cache directory, one file per set of roots. It is
 * only a cache: an entry is used when the file on disk still has the same size, mtime and hash (and
 * detects as the same language), and a format or extractor change makes the whole file unusable.
 *
 * Layout: gzip of JSON lines, a header line then one line per file. A file's line is a small head
 * (path, stats, hash, language), a tab, then its facts as arrays over a string table of the file's
 * own: reading decodes only the heads, and a file's facts stay bytes until it is reused, never
 * decoded for a file that changed. Written and read as a stream, a line at a time with turns of the
 * event loop, so neither a whole-index JSON text nor its bytes ever exist at once (one chunk, and
 * the undecoded facts, do). While an index
 * builds, files are appended as further gzip members (a later line for a path wins), so a process
 * that ends mid-build still leaves what it parsed; a full save rewrites the file compactly. A tail
 * cut short (a crash mid-append) costs only the lines after the last whole one: every entry is
 * checked against its file's stats before use.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { appendFile, type FileHandle, open, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { createGunzip, createGzip, gzip } from "node:zlib";
import { LIMITS } from "../../core/limits.ts";
import { Slicer } from "../../core/slicer.ts";
import { VERSION } from "../../core/version.ts";
import type { CallFact, ExportedName, FileFacts, ImportFact, ImportKind, SymbolFact, SymbolKind, TypeBinding, Visibility } from "../facts/types.ts";
import type { IndexedFile } from "./types.ts";

/** Bump when the snapshot layout or the meaning of a field changes. */
const SNAPSHOT_FORMAT = 5;

const gzipAsync = promisify(gzip);

export interface SnapshotEntry {
  real: string;
  /** The file's lstat signature when its facts were taken (tree.ts signatureOf): equal stats mean the facts still hold. */
  signature: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  language: string;
  lines: number;
  /** The facts as written, still UTF-8 (decodeFacts reads them; a literal scan may search the bytes). */
  body: Buffer;
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

const NEWLINE = 0x0a;
const TAB = 0x09;

/** Decompressed bytes handed over at a time while a snapshot is read (fewer, larger chunks cost less per byte). */
const GUNZIP_CHUNK_BYTES = 256 * 1024;

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
 * another extractor, other roots, corrupt). A file whose tail is cut short after a valid header
 * gives the whole lines before the cut (`cut: true`). Never throws.
 */
export async function loadSnapshot(
  file: string,
  expected: { key: string; roots: readonly string[]; extractor: string },
): Promise<{ entries: Map<string, SnapshotEntry>; cut: boolean } | { problem: string }> {
  try {
    const info = await stat(file);
    if (!info.isFile()) return { problem: "not a file" };
    if (info.size > LIMITS.intel.index.maxSnapshotBytes) return { problem: `larger than ${LIMITS.intel.index.maxSnapshotBytes} bytes` };
    const entries = new Map<string, SnapshotEntry>();
    let header: Partial<SnapshotHeader> | undefined;
    let problem: string | undefined;
    /** The start of a line not ended yet, in the pieces the chunks brought. */
    const pieces: Buffer[] = [];
    /** Set when the stream broke after the header: what came before it stands. */
    let cut = false;
    const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
    const take = (line: Buffer): void => {
      if (line.length === 0 || problem !== undefined || cut) return;
      if (header === undefined) {
        header = JSON.parse(line.toString("utf8")) as Partial<SnapshotHeader>;
        if (header.format !== SNAPSHOT_FORMAT) problem = `format ${String(header.format)} is not ${SNAPSHOT_FORMAT}`;
        else if (header.extractor !== expected.extractor) problem = `made by extractor ${String(header.extractor)}, not ${expected.extractor}`;
        else if (header.key !== expected.key || JSON.stringify(header.roots) !== JSON.stringify([...expected.roots].sort())) problem = "made for other roots";
        return;
      }
      // Only the head is decoded now; the facts stay bytes until a file is reused.
      const tab = line.indexOf(TAB);
      let head: unknown;
      try {
        head = JSON.parse(line.toString("utf8", 0, tab === -1 ? line.length : tab));
      } catch {
        // A line cut by a crash mid-append ends what can be read.
        cut = true;
        return;
      }
      // A body cut short fails when it is decoded: that file alone is parsed again.
      const entry = tab === -1 ? undefined : entryOf(head, line.subarray(tab + 1));
      if (entry) entries.set(entry.real, entry);
    };
    const gunzip = createGunzip({ chunkSize: GUNZIP_CHUNK_BYTES });
    const reading = pipeline(createReadStream(file), gunzip);
    // A corrupt file fails both the pipeline and the loop below; the loop's error is the one handled.
    reading.catch(() => undefined);
    try {
      for await (const chunk of gunzip as AsyncIterable<Buffer>) {
        // A line spans chunks: its pieces are kept apart and joined once, never re-concatenated per chunk.
        let start = 0;
        for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
          const tail = chunk.subarray(start, end);
          take(pieces.length === 0 ? tail : Buffer.concat([...pieces, tail]));
          pieces.length = 0;
          start = end + 1;
        }
        if (start < chunk.length) pieces.push(chunk.subarray(start));
        if (problem !== undefined || cut) {
          gunzip.destroy();
          break;
        }
        await slice.turn();
      }
      if (problem === undefined && !cut) {
        await reading;
        take(Buffer.concat(pieces));
      } else {
        await reading.catch(() => undefined);
      }
    } catch (error) {
      // Broken before a valid header: unusable; after it, a tail cut short (the partial last line is dropped).
      if (header === undefined || problem !== undefined) throw error;
      cut = true;
    }
    if (header === undefined) return { problem: "empty" };
    return problem === undefined ? { entries, cut } : { problem };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" ? "none saved yet" : `unreadable: ${(error as Error).message}` };
  }
}

/** A line's head and body as an entry, or undefined when the head is not one. */
function entryOf(head: unknown, body: Buffer): SnapshotEntry | undefined {
  if (!Array.isArray(head) || head.length !== 7) return undefined;
  const [real, signature, size, mtimeMs, sha256, language, lines] = head as unknown[];
  if (
    typeof real !== "string" || typeof signature !== "string" || typeof size !== "number" || typeof mtimeMs !== "number" || typeof sha256 !== "string" ||
    typeof language !== "string" || typeof lines !== "number"
  ) {
    return undefined;
  }
  return { real, signature, size, mtimeMs, sha256, language, lines, body };
}

/** Where each string of a file's facts goes in its line's table: written once, referred to by number (-1: none). */
class StringTable {
  readonly strings: string[] = [];
  readonly #positions = new Map<string, number>();

  ref(text: string | undefined): number {
    if (text === undefined) return -1;
    let position = this.#positions.get(text);
    if (position === undefined) {
      position = this.strings.push(text) - 1;
      this.#positions.set(text, position);
    }
    return position;
  }
}

/** The facts of a line: [parseErrors, strings, symbols, imports, calls (six numbers each), exportedNames, bindings (five numbers each: name, type, 0 type / 1 call / 2 value, line, scope)]. */
function encodeFacts(facts: FileFacts): string {
  const table = new StringTable();
  const ref = (text: string | undefined) => table.ref(text);
  const symbols = facts.symbols.map((symbol) => [
    ref(symbol.name),
    ref(symbol.qualifiedName),
    ref(symbol.kind),
    ref(symbol.visibility),
    symbol.exported ? 1 : 0,
    symbol.startLine,
    symbol.endLine,
    ref(symbol.signature),
    ref(symbol.doc),
    ref(symbol.parent),
    symbol.heritage?.map(ref) ?? 0,
    symbol.local ? 1 : 0,
  ]);
  const imports = facts.imports.map((fact) => [ref(fact.specifier), ref(fact.kind), fact.line, fact.names.flatMap((name) => [ref(name.local), ref(name.imported)])]);
  const calls: number[] = [];
  for (const call of facts.calls) calls.push(ref(call.callee), ref(call.name), ref(call.qualifier), call.line, call.column, ref(call.caller));
  const exported = facts.exportedNames.map((entry) => [ref(entry.name), ref(entry.from), ref(entry.local), entry.line]);
  const bindings: number[] = [];
  for (const binding of facts.bindings ?? []) bindings.push(ref(binding.name), ref(binding.type), binding.call ? 1 : binding.value ? 2 : 0, binding.line, ref(binding.scope));
  return JSON.stringify([facts.parseErrors, table.strings, symbols, imports, calls, exported, bindings]);
}

class Malformed extends Error {}

/**
 * The facts of a snapshot entry; undefined when the body is cut short or not what encodeFacts
 * writes (the file is then parsed again). The cache directory is the user's, but its bytes are
 * checked like any input. JSON.parse gives strings that own their characters, one per distinct
 * string of the file (its table), so the facts are as compact as the index keeps them without
 * going through its string pool (facts/compact.ts), which a restart would spend most of its
 * decoding time in.
 */
export function decodeFacts(entry: SnapshotEntry): FileFacts | undefined {
  try {
    const decoded: unknown = JSON.parse(entry.body.toString("utf8"));
    if (!Array.isArray(decoded) || decoded.length !== 7) return undefined;
    const [parseErrors, rawStrings, symbols, imports, calls, exported, bindings] = decoded as unknown[];
    if (
      typeof parseErrors !== "number" || !Array.isArray(rawStrings) || !Array.isArray(symbols) || !Array.isArray(imports) || !Array.isArray(calls) || !Array.isArray(exported) ||
      !Array.isArray(bindings)
    ) {
      return undefined;
    }
    if (!rawStrings.every((text) => typeof text === "string")) return undefined;
    const strings = rawStrings as string[];
    const text = (ref: unknown): string => {
      const value = typeof ref === "number" ? strings[ref] : undefined;
      if (value === undefined) throw new Malformed();
      return value;
    };
    const optional = (ref: unknown): string | undefined => (ref === -1 ? undefined : text(ref));
    const number = (value: unknown): number => {
      if (typeof value !== "number") throw new Malformed();
      return value;
    };
    const row = (value: unknown, length: number): unknown[] => {
      if (!Array.isArray(value) || value.length !== length) throw new Malformed();
      return value;
    };
    const facts: FileFacts = { language: entry.language, parseErrors, symbols: [], imports: [], calls: [], exportedNames: [] };
    for (const item of symbols) {
      const [name, qualifiedName, kind, visibility, exportedFlag, startLine, endLine, signature, doc, parent, heritage, local] = row(item, 12);
      const symbol: SymbolFact = {
        name: text(name),
        qualifiedName: text(qualifiedName),
        kind: text(kind) as SymbolKind,
        visibility: text(visibility) as Visibility,
        exported: exportedFlag === 1,
        startLine: number(startLine),
        endLine: number(endLine),
        signature: text(signature),
      };
      const docText = optional(doc);
      if (docText !== undefined) symbol.doc = docText;
      const parentName = optional(parent);
      if (parentName !== undefined) symbol.parent = parentName;
      if (Array.isArray(heritage)) symbol.heritage = heritage.map(text);
      if (local === 1) symbol.local = true;
      facts.symbols.push(symbol);
    }
    for (const item of imports) {
      const [specifier, kind, line, names] = row(item, 4);
      if (!Array.isArray(names) || names.length % 2 !== 0) throw new Malformed();
      const fact: ImportFact = { specifier: text(specifier), kind: text(kind) as ImportKind, names: [], line: number(line) };
      for (let at = 0; at < names.length; at += 2) fact.names.push({ local: text(names[at]), imported: text(names[at + 1]) });
      facts.imports.push(fact);
    }
    if (calls.length % 6 !== 0) return undefined;
    for (let at = 0; at < calls.length; at += 6) {
      const call: CallFact = { callee: text(calls[at]), name: text(calls[at + 1]), line: number(calls[at + 3]), column: number(calls[at + 4]) };
      const qualifier = optional(calls[at + 2]);
      if (qualifier !== undefined) call.qualifier = qualifier;
      const caller = optional(calls[at + 5]);
      if (caller !== undefined) call.caller = caller;
      facts.calls.push(call);
    }
    for (const item of exported) {
      const [name, from, local, line] = row(item, 4);
      const entry: ExportedName = { name: text(name), line: number(line) };
      const fromName = optional(from);
      if (fromName !== undefined) entry.from = fromName;
      const localName = optional(local);
      if (localName !== undefined) entry.local = localName;
      facts.exportedNames.push(entry);
    }
    if (bindings.length % 5 !== 0) return undefined;
    if (bindings.length > 0) facts.bindings = [];
    for (let at = 0; at < bindings.length; at += 5) {
      const binding: TypeBinding = { name: text(bindings[at]), type: text(bindings[at + 1]), line: number(bindings[at + 3]) };
      if (bindings[at + 2] === 1) binding.call = true;
      else if (bindings[at + 2] === 2) binding.value = true;
      const scope = optional(bindings[at + 4]);
      if (scope !== undefined) binding.scope = scope;
      facts.bindings!.push(binding);
    }
    return facts;
  } catch {
    return undefined;
  }
}

/** An indexed file with the lstat signature its facts were taken at: what one snapshot line holds. */
export interface SnapshotSource {
  file: IndexedFile;
  signature: string;
}

function entryLine({ file, signature }: SnapshotSource): string {
  const head = JSON.stringify([file.real, signature, file.size, file.mtimeMs, file.sha256, file.language, file.lines]);
  // JSON escapes every tab inside a string, so the first tab of a line ends its head.
  return `${head}\t${encodeFacts(file.facts)}\n`;
}

/**
 * Appends entries to a snapshot saved before (by saveSnapshot, for the same roots and extractor) as
 * one more gzip member, written with one call. Work is sliced like saveSnapshot's.
 */
export async function appendSnapshot(file: string, sources: readonly SnapshotSource[], sliceMs = 4): Promise<void> {
  if (sources.length === 0) return;
  let text = "";
  const slice = new Slicer(sliceMs);
  for (const source of sources) {
    text += entryLine(source);
    await slice.turn();
  }
  // Compressed on the thread pool; appended in one write so a concurrent reader sees whole members or a cut tail.
  const bytes = await gzipAsync(text, { level: 1 });
  await appendFile(file, bytes, { mode: 0o600 });
}

/** Writes the snapshot atomically (temp file, then rename), readable by the owner only. */
export async function saveSnapshot(
  file: string,
  meta: { key: string; roots: readonly string[]; extractor: string },
  sources: Iterable<SnapshotSource>,
  /** Work done before the event loop gets a turn (calls answered meanwhile wait at most this). */
  sliceMs = 4,
): Promise<void> {
  const header: SnapshotHeader = { format: SNAPSHOT_FORMAT, extractor: meta.extractor, key: meta.key, roots: [...meta.roots].sort(), savedAt: new Date().toISOString() };
  async function* lines(): AsyncGenerator<string> {
    let chunk = `${JSON.stringify(header)}\n`;
    const slice = new Slicer(sliceMs);
    for (const source of sources) {
      chunk += entryLine(source);
      if (chunk.length < CHUNK_CHARS) continue;
      yield chunk;
      chunk = "";
      await slice.turn();
    }
    yield chunk;
  }
  await replaceAtomically(file, async (handle) => {
    await pipeline(Readable.from(lines()), createGzip({ level: 1 }), async (compressed: AsyncIterable<Buffer>) => {
      for await (const bytes of compressed) await handle.write(bytes);
    });
    await handle.sync();
  });
}

/**
 * Writes `file` through a temp file beside it (readable by the owner only) renamed over it once
 * `write` is done, so a reader sees the old file or the new one; a failed write leaves no temp file.
 * Shared by the snapshots of the cache directory (this one and the search index's).
 */
export async function replaceAtomically(file: string, write: (handle: FileHandle) => Promise<void>): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await write(handle);
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
 * Opens another cache file of the snapshot directory for reading (the search index's, persisted
 * beside this one), up to LIMITS.intel.index.maxSnapshotBytes, with its size. Here so the cache
 * directory is read in one module; the caller closes the handle. Throws what opening throws
 * (ENOENT: none yet).
 */
export async function openCacheFile(file: string): Promise<{ handle: FileHandle; size: number } | { problem: string }> {
  const handle = await open(file, "r");
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new Error("not a file");
    if (info.size > LIMITS.intel.index.maxSnapshotBytes) {
      await handle.close();
      return { problem: `larger than ${LIMITS.intel.index.maxSnapshotBytes} bytes` };
    }
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Names of the code index's snapshots (and their temp files): what pruneSnapshots looks at by default. */
const SNAPSHOT_NAMES = /^[0-9a-f]+\.json\.gz(?:\.[0-9a-f]+\.tmp)?$/;

/**
 * Keeps the snapshot directory small: the newest LIMITS.intel.index.maxSnapshots snapshots stay
 * (one per set of roots; `keep` always stays), older ones and stale temp files go. `names` picks the
 * kind of snapshot (a temp file is a name followed by `.<hex>.tmp`). Never throws.
 */
export async function pruneSnapshots(dir: string, keep: string, names: RegExp = SNAPSHOT_NAMES): Promise<number> {
  let removed = 0;
  try {
    const entries: Array<{ file: string; mtimeMs: number }> = [];
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      if (!names.test(name)) continue;
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
