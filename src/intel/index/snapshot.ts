/**
 * The persisted snapshot of a code index: the facts of every indexed file with the size, mtime and
 * SHA-256 they were extracted from, in the user cache directory, one file per set of roots. It is
 * only a cache: an entry is used when the file on disk still has the same size, mtime and hash (and
 * detects as the same language), and a format or extractor change makes the whole file unusable.
 *
 * Layout: JSON lines, not compressed (decision 0027). A header line, one line per file, then an
 * index line, to which the header points: every file's head (path, stats, hash, language), where its
 * facts are in the file, and the names its facts hold (declared, called, imported, re-exported). A
 * file's line is its head, a tab, then its facts as arrays over a string table of the file's own.
 * Reading takes the header and the index line only (decision 0028): a file's facts are read from
 * their place when the file is reused, never for a file that changed, and a call about a name finds
 * its files in the names. While an index builds, files are appended after the index line, each
 * batch starting a line of its own (a later line for a path wins); those lines' heads are read the
 * same way, their facts left in place too.
 * A process that ends mid-build still leaves what it parsed; a full save rewrites the file
 * compactly. A line torn by a crash mid-append costs only its own file, parsed again: every entry is
 * checked against its file's stats before use.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream, readSync } from "node:fs";
import { appendFile, type FileHandle, open, readdir, rename, rm, stat } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import { Slicer } from "../../core/slicer.ts";
import { VERSION } from "../../core/version.ts";
import type { CallFact, ExportedName, FileFacts, ImportFact, ImportKind, SymbolFact, SymbolKind, TypeBinding, Visibility } from "../facts/types.ts";
import type { IndexedFile } from "./types.ts";

/** Bump when the snapshot layout or the meaning of a field changes (11: a ternary's `this.a : b` is no binding of the field; 10: TS heritage no longer takes a type parameter's constraint for a parent, a chained call sits at its name's line, bindings carry a call's argument). */
const SNAPSHOT_FORMAT = 11;

export interface SnapshotEntry {
  real: string;
  /** The file's lstat signature when its facts were taken (tree.ts signatureOf): equal stats mean the facts still hold. */
  signature: string;
  size: number;
  mtimeMs: number;
  sha256: string;
  language: string;
  lines: number;
  /** The names its facts hold where a call about a name looks (declared, called, imported, re-exported), space-separated. */
  names: string;
  /** Where its facts are in the file (SnapshotFile.body reads them when the file is reused). */
  stored: { offset: number; length: number };
}

/** The first line. */
interface SnapshotHeader {
  format: number;
  /** The extractor's version: facts from another version are not reused. */
  extractor: string;
  key: string;
  roots: string[];
  savedAt: string;
  /** Where the index line is: offset and length in bytes, each as INDEX_DIGITS digits (written last, in place). */
  index: string;
}

/** Fields of a head (headOf); an index row adds where the facts are. */
const HEAD_FIELDS = 8;

/** Digits of each number of the header's `index` (room for a terabyte). */
const INDEX_DIGITS = 13;

/** Files per index line: each line is parsed with a turn of the event loop after it. */
const INDEX_ROWS_PER_LINE = 1000;

/** The header is found in this many first bytes, or the file is not a snapshot. */
const MAX_HEADER_BYTES = 64 * 1024;

const NEWLINE = 0x0a;
const TAB = 0x09;

/** Bytes read at a time while a snapshot is read (fewer, larger chunks cost less per byte). */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Text gathered before it is written. */
const CHUNK_CHARS = 256 * 1024;

/** A stable name for a set of roots (the snapshot's file name). */
export function snapshotKey(rootReals: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify([...rootReals].sort())).digest("hex").slice(0, 32);
}

export function snapshotPath(dir: string, key: string): string {
  return path.join(dir, `${key}.jsonl`);
}

/** Version string facts are tagged with: the package version plus whatever the extractor declares. */
export function extractorVersion(declared: string | undefined): string {
  return `${VERSION}/${declared ?? "0"}`;
}

/** A snapshot read for a first build: its entries by real path, and its file, held open to read their facts from. */
export class SnapshotFile {
  #handle: FileHandle | undefined;

  constructor(
    readonly entries: Map<string, SnapshotEntry>,
    handle: FileHandle,
  ) {
    this.#handle = handle;
  }

  /** The bytes of an entry's facts, read from their place now; undefined when they cannot be read. */
  body(entry: SnapshotEntry): Buffer | undefined {
    if (this.#handle === undefined) return undefined;
    const bytes = Buffer.allocUnsafe(entry.stored.length);
    try {
      return readSync(this.#handle.fd, bytes, 0, bytes.length, entry.stored.offset) === bytes.length ? bytes : undefined;
    } catch {
      return undefined;
    }
  }

  /** Lets the file go; entries read from it afterwards have no facts. */
  close(): void {
    const handle = this.#handle;
    this.#handle = undefined;
    void handle?.close().catch(() => undefined);
  }
}

/**
 * The snapshot's entries, or a reason it cannot be used (missing, wrong format, another extractor,
 * other roots, not a snapshot, its index cut short). Reads the header, the index lines and whatever
 * was appended after them; a line whose head does not read (torn by a crash mid-append) is skipped
 * and its file parsed again. Never throws.
 */
export async function loadSnapshot(
  file: string,
  expected: { key: string; roots: readonly string[]; extractor: string },
): Promise<{ snapshot: SnapshotFile } | { problem: string }> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(file, "r");
    const info = await handle.stat();
    if (!info.isFile()) return { problem: "not a file" };
    if (info.size > LIMITS.intel.index.maxSnapshotBytes) return { problem: `larger than ${LIMITS.intel.index.maxSnapshotBytes} bytes` };
    const start = await readExactly(handle, 0, Math.min(MAX_HEADER_BYTES, info.size));
    const headerEnd = start.indexOf(NEWLINE);
    if (headerEnd === -1) return { problem: info.size === 0 ? "empty" : "no header line" };
    const header = JSON.parse(start.toString("utf8", 0, headerEnd)) as Partial<SnapshotHeader>;
    if (header.format !== SNAPSHOT_FORMAT) return { problem: `format ${String(header.format)} is not ${SNAPSHOT_FORMAT}` };
    if (header.extractor !== expected.extractor) return { problem: `made by extractor ${String(header.extractor)}, not ${expected.extractor}` };
    if (header.key !== expected.key || JSON.stringify(header.roots) !== JSON.stringify([...expected.roots].sort())) return { problem: "made for other roots" };
    const index = indexSpan(header.index, headerEnd + 1, info.size);
    if (index === undefined) return { problem: "its index is missing or cut short" };
    const entries = new Map<string, SnapshotEntry>();
    const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
    const indexBytes = await readExactly(handle, index.offset, index.length);
    for (let at = 0; at < indexBytes.length;) {
      const end = indexBytes.indexOf(NEWLINE, at);
      const rows: unknown = JSON.parse(indexBytes.toString("utf8", at, end === -1 ? indexBytes.length : end));
      if (!Array.isArray(rows)) return { problem: "its index is not a list of files" };
      for (const row of rows) {
        const entry = storedEntryOf(row, index.offset);
        if (entry) entries.set(entry.real, entry);
      }
      at = end === -1 ? indexBytes.length : end + 1;
      await slice.turn();
    }
    await readLines(file, index.offset + index.length, slice, (line, offset) => {
      // Only the head is decoded; the facts are read from their place when the file is reused.
      const tab = line.indexOf(TAB);
      if (tab === -1) return;
      let head: unknown;
      try {
        head = JSON.parse(line.toString("utf8", 0, tab));
      } catch {
        return;
      }
      // A body cut short fails when it is decoded: that file alone is parsed again.
      const entry = entryOf(head, { offset: offset + tab + 1, length: line.length - tab - 1 });
      if (entry) entries.set(entry.real, entry);
    });
    const snapshot = new SnapshotFile(entries, handle);
    handle = undefined;
    return { snapshot };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" ? "none saved yet" : `unreadable: ${(error as Error).message}` };
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** `length` bytes at `offset`, or an error when the file holds fewer. */
async function readExactly(handle: FileHandle, offset: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(bytes, done, length - done, offset + done);
    if (bytesRead === 0) throw new Error("cut short");
    done += bytesRead;
  }
  return bytes;
}

/** The header's `index` as a byte range after the header and inside the file, or undefined. */
function indexSpan(index: unknown, after: number, size: number): { offset: number; length: number } | undefined {
  if (typeof index !== "string" || !new RegExp(`^\\d{${INDEX_DIGITS * 2}}$`).test(index)) return undefined;
  const offset = Number(index.slice(0, INDEX_DIGITS));
  const length = Number(index.slice(INDEX_DIGITS));
  return offset >= after && length > 0 && offset + length <= size ? { offset, length } : undefined;
}

/** The lines of `file` from byte `start` on, each with the offset it starts at, a line at a time, with turns of the event loop. */
async function readLines(file: string, start: number, slice: Slicer, take: (line: Buffer, offset: number) => void): Promise<void> {
  /** The start of a line not ended yet, in the pieces the chunks brought. */
  const pieces: Buffer[] = [];
  let lineStart = start;
  let chunkStart = start;
  const reading = createReadStream(file, { start, highWaterMark: READ_CHUNK_BYTES });
  try {
    for await (const chunk of reading as AsyncIterable<Buffer>) {
      // A line spans chunks: its pieces are kept apart and joined once, never re-concatenated per chunk.
      let from = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
        const tail = chunk.subarray(from, end);
        const line = pieces.length === 0 ? tail : Buffer.concat([...pieces, tail]);
        pieces.length = 0;
        if (line.length > 0) take(line, lineStart);
        from = end + 1;
        lineStart = chunkStart + from;
      }
      if (from < chunk.length) pieces.push(chunk.subarray(from));
      chunkStart += chunk.length;
      await slice.turn();
    }
    if (pieces.length > 0) take(Buffer.concat(pieces), lineStart);
  } finally {
    reading.destroy();
  }
}

/** An index row as an entry whose facts lie before `limit`, or undefined when the row is not one. */
function storedEntryOf(row: unknown, limit: number): SnapshotEntry | undefined {
  if (!Array.isArray(row) || row.length !== HEAD_FIELDS + 2) return undefined;
  const [offset, length] = row.slice(HEAD_FIELDS) as unknown[];
  if (typeof offset !== "number" || typeof length !== "number") return undefined;
  if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > limit) return undefined;
  return entryOf(row.slice(0, HEAD_FIELDS), { offset, length });
}

/** A head, with where its facts are, as an entry; undefined when the head is not one. */
function entryOf(head: unknown, stored: { offset: number; length: number }): SnapshotEntry | undefined {
  if (!Array.isArray(head) || head.length !== HEAD_FIELDS) return undefined;
  const [real, signature, size, mtimeMs, sha256, language, lines, names] = head as unknown[];
  if (
    typeof real !== "string" || typeof signature !== "string" || typeof size !== "number" || typeof mtimeMs !== "number" || typeof sha256 !== "string" ||
    typeof language !== "string" || typeof lines !== "number" || typeof names !== "string"
  ) {
    return undefined;
  }
  return { real, signature, size, mtimeMs, sha256, language, lines, names, stored };
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

/** The facts of a line: [parseErrors, strings, symbols, imports, calls (six numbers each), exportedNames, bindings (six numbers each: name, type, 0 type / 1 call / 2 value, line, scope, argument)]. */
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
  for (const binding of facts.bindings ?? []) {
    bindings.push(ref(binding.name), ref(binding.type), binding.call ? 1 : binding.value ? 2 : 0, binding.line, ref(binding.scope), ref(binding.argument));
  }
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
export function decodeFacts(entry: SnapshotEntry, body: Buffer): FileFacts | undefined {
  try {
    const decoded: unknown = JSON.parse(body.toString("utf8"));
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
    if (bindings.length % 6 !== 0) return undefined;
    if (bindings.length > 0) facts.bindings = [];
    for (let at = 0; at < bindings.length; at += 6) {
      const binding: TypeBinding = { name: text(bindings[at]), type: text(bindings[at + 1]), line: number(bindings[at + 3]) };
      if (bindings[at + 2] === 1) binding.call = true;
      else if (bindings[at + 2] === 2) binding.value = true;
      const scope = optional(bindings[at + 4]);
      if (scope !== undefined) binding.scope = scope;
      const argument = optional(bindings[at + 5]);
      if (argument !== undefined) binding.argument = argument;
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

/** A head: path, stats signature, size, mtime, SHA-256, language, lines, names (namesOf). */
function headOf({ file, signature }: SnapshotSource): unknown[] {
  return [file.real, signature, file.size, file.mtimeMs, file.sha256, file.language, file.lines, namesOf(file.facts)];
}

function entryLine(source: SnapshotSource): string {
  // JSON escapes every tab inside a string, so the first tab of a line ends its head.
  return `${JSON.stringify(headOf(source))}\t${encodeFacts(source.file.facts)}\n`;
}

/** The names a file's facts hold where a call about a name looks: declared, called, imported, re-exported; space-separated. */
function namesOf(facts: FileFacts): string {
  const names = new Set<string>();
  for (const symbol of facts.symbols) names.add(symbol.name);
  for (const call of facts.calls) names.add(call.name);
  for (const fact of facts.imports) for (const name of fact.names) names.add(name.local).add(name.imported);
  for (const entry of facts.exportedNames) {
    names.add(entry.name);
    if (entry.local !== undefined) names.add(entry.local);
  }
  return [...names].join(" ");
}

/** Whether a names field (namesOf) holds one of `words` whole. */
export function namesHold(names: string, words: readonly string[]): boolean {
  for (const word of words) {
    for (let at = names.indexOf(word); at !== -1; at = names.indexOf(word, at + 1)) {
      const end = at + word.length;
      if ((at === 0 || names.charCodeAt(at - 1) === 32) && (end === names.length || names.charCodeAt(end) === 32)) return true;
    }
  }
  return false;
}

/**
 * Appends entries to a snapshot saved before (by saveSnapshot, for the same roots and extractor),
 * written with one call. Work is sliced like saveSnapshot's.
 */
export async function appendSnapshot(file: string, sources: readonly SnapshotSource[], sliceMs = 4): Promise<void> {
  if (sources.length === 0) return;
  // A line torn by an append that a crash cut short ends here instead of swallowing the next one.
  let text = "\n";
  const slice = new Slicer(sliceMs);
  for (const source of sources) {
    text += entryLine(source);
    await slice.turn();
  }
  // One write, so a concurrent reader sees whole lines or a torn tail.
  await appendFile(file, text, { mode: 0o600 });
}

/** Writes the snapshot atomically (temp file, then rename), readable by the owner only. */
export async function saveSnapshot(
  file: string,
  meta: { key: string; roots: readonly string[]; extractor: string },
  sources: Iterable<SnapshotSource>,
  /** Work done before the event loop gets a turn (calls answered meanwhile wait at most this). */
  sliceMs = 4,
): Promise<void> {
  const unset = "0".repeat(INDEX_DIGITS * 2);
  const header: SnapshotHeader = {
    format: SNAPSHOT_FORMAT,
    extractor: meta.extractor,
    key: meta.key,
    roots: [...meta.roots].sort(),
    savedAt: new Date().toISOString(),
    index: unset,
  };
  const headerText = `${JSON.stringify(header)}\n`;
  /** Where the index's digits are, to be written in place once the index's place is known. */
  const indexField = Buffer.byteLength(headerText.slice(0, headerText.indexOf(`"${unset}"`) + 1));
  await replaceAtomically(file, async (handle) => {
    let chunk = headerText;
    /** Bytes of the file before `chunk`'s end. */
    let position = Buffer.byteLength(headerText);
    const slice = new Slicer(sliceMs);
    const flush = async (): Promise<void> => {
      if (chunk.length < CHUNK_CHARS) return;
      await handle.write(chunk);
      chunk = "";
      await slice.turn();
    };
    const rows: unknown[][] = [];
    for (const source of sources) {
      const headFields = headOf(source);
      const head = JSON.stringify(headFields);
      const body = encodeFacts(source.file.facts);
      const offset = position + Buffer.byteLength(head) + 1;
      const length = Buffer.byteLength(body);
      rows.push([...headFields, offset, length]);
      chunk += `${head}\t${body}\n`;
      position = offset + length + 1;
      await flush();
    }
    const indexStart = position;
    for (let at = 0; at === 0 || at < rows.length; at += INDEX_ROWS_PER_LINE) {
      const line = `${JSON.stringify(rows.slice(at, at + INDEX_ROWS_PER_LINE))}\n`;
      chunk += line;
      position += Buffer.byteLength(line);
      await flush();
    }
    await handle.write(chunk);
    const digits = (value: number) => String(value).padStart(INDEX_DIGITS, "0");
    await handle.write(`${digits(indexStart)}${digits(position - indexStart)}`, indexField);
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
const SNAPSHOT_NAMES = /^[0-9a-f]+\.jsonl(?:\.[0-9a-f]+\.tmp)?$/;

/** Snapshots of the compressed layout before format 5: never read again, so removed when the directory is pruned. */
const LEGACY_SNAPSHOT_NAMES = /^[0-9a-f]{32}\.json\.gz$/;

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
      if (names === SNAPSHOT_NAMES && LEGACY_SNAPSHOT_NAMES.test(name)) {
        await rm(file, { force: true });
        removed += 1;
        continue;
      }
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
