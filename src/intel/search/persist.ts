/**
 * The search index persisted between processes: one binary file per set of roots beside the code
 * index's snapshot (src/intel/index/snapshot.ts) in the user cache directory. Binary rather than
 * gzip JSON lines: almost all of it is typed arrays (postings, columns, the dictionary's pool),
 * which are read straight into their memory with no parsing; the rest (file entries, the few names
 * not found in a file's facts) is a JSON header.
 *
 * Layout: 8 bytes of magic, the header's byte length (u32), the header (UTF-8 JSON), then each
 * array the header lists, in order, every one starting at a multiple of 8. The header holds the
 * format, the package version, the stamp of what it was made from (roots, extractor), and the
 * SHA-256 of the array bytes: a file of another format or version, for other roots, cut short or
 * corrupt is refused as a whole (the index is then built from the files). Whether each file's
 * chunks still hold is the index's own check (by content hash), not this file's. Why binary, and the
 * numbers: docs/decisions/0021-search-index-persisted-as-binary-arrays.md.
 */
import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import { Slicer } from "../../core/slicer.ts";
import { VERSION } from "../../core/version.ts";
import { openCacheFile, pruneSnapshots, replaceAtomically } from "../index/snapshot.ts";

/** Bump when the layout, or what the index keeps in it, changes. */
const SEARCH_PERSIST_FORMAT = 1;

const MAGIC = Buffer.from("ASTMCPSI", "latin1");
const PREFIX_BYTES = MAGIC.length + 4;
/** Bytes hashed before the event loop gets a turn (a large tree's file is ~100 MB). */
const HASH_PIECE = 8 * 1024 * 1024;
/** Names of persisted search indexes (and their temp files), for pruning. */
const SEARCH_PERSIST_NAMES = /^[0-9a-f]+\.search\.bin(?:\.[0-9a-f]+\.tmp)?$/;

export type PersistedArray =
  | Int32Array<ArrayBuffer>
  | Uint32Array<ArrayBuffer>
  | Uint16Array<ArrayBuffer>
  | Uint8Array<ArrayBuffer>
  | Float64Array<ArrayBuffer>;

const ARRAY_TYPES = {
  i32: Int32Array,
  u32: Uint32Array,
  u16: Uint16Array,
  u8: Uint8Array,
  f64: Float64Array,
} as const;
type ArrayType = keyof typeof ARRAY_TYPES;

function typeOf(array: PersistedArray): ArrayType {
  if (array instanceof Int32Array) return "i32";
  if (array instanceof Uint32Array) return "u32";
  if (array instanceof Uint16Array) return "u16";
  if (array instanceof Uint8Array) return "u8";
  return "f64";
}

interface Header {
  format: number;
  version: string;
  stamp: string;
  /** What the index's chunking depended on beyond the files (a change rebuilds). */
  settings: string;
  savedAt: string;
  arrays: Array<{ name: string; type: ArrayType; length: number }>;
  sha256: string;
  /** The index's own part (SearchIndex decides its shape). */
  meta: unknown;
}

/** What a persisted index holds: its arrays by name and a JSON-able rest. */
export interface PersistedIndex {
  meta: unknown;
  arrays: Map<string, PersistedArray>;
}

/** What the file must have been made by and for, to be used. */
export interface PersistExpectation {
  stamp: string;
  settings: string;
}

function padding(offset: number): number {
  return (8 - (offset % 8)) % 8;
}

/** A write may take only part of a large buffer: the rest follows. */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
    done += bytesWritten;
  }
}

/** Writes the index atomically (temp file, rename) and prunes older ones beside it. */
export async function savePersisted(file: string, expected: PersistExpectation, index: PersistedIndex): Promise<void> {
  const arrays = [...index.arrays];
  const hash = createHash("sha256");
  const slice = new Slicer(4);
  for (const [, array] of arrays) {
    hash.update(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    await slice.turn();
  }
  const header: Header = {
    format: SEARCH_PERSIST_FORMAT,
    version: VERSION,
    stamp: expected.stamp,
    settings: expected.settings,
    savedAt: new Date().toISOString(),
    arrays: arrays.map(([name, array]) => ({ name, type: typeOf(array), length: array.length })),
    sha256: hash.digest("hex"),
    meta: index.meta,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix);
  prefix.writeUInt32LE(headerBytes.length, MAGIC.length);
  await replaceAtomically(file, async (handle) => {
    // Every array starts at a multiple of 8 (each is padded to one), from the header's padding on.
    await writeAll(handle, Buffer.concat([prefix, headerBytes, Buffer.alloc(padding(PREFIX_BYTES + headerBytes.length))]));
    for (const [, array] of arrays) {
      // Straight from the arrays' memory: no copy of a large index exists at once.
      const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      await writeAll(handle, bytes);
      const pad = padding(bytes.byteLength);
      if (pad > 0) await handle.write(Buffer.alloc(pad));
    }
    // No fsync: it is a cache, and a file cut short by a crash fails its hash and is rebuilt.
  });
  await pruneSnapshots(path.dirname(file), file, SEARCH_PERSIST_NAMES);
}

/** The persisted index, or why it cannot be used (missing, another format or version, other roots, cut short, corrupt). Never throws. */
export async function loadPersisted(file: string, expected: PersistExpectation): Promise<PersistedIndex | { problem: string }> {
  try {
    const opened = await openCacheFile(file);
    if ("problem" in opened) return opened;
    try {
      return await readPersisted(opened.handle, opened.size, expected);
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: code === "ENOENT" ? "none saved yet" : `unreadable: ${(error as Error).message}` };
  }
}

/** Reads `length` bytes at `position` into `into`; false when the file ends first. */
async function readExactly(handle: FileHandle, into: Uint8Array, position: number): Promise<boolean> {
  for (let done = 0; done < into.length;) {
    const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) return false;
    done += bytesRead;
  }
  return true;
}

/**
 * Each array is read straight into memory of its own: no buffer of the whole file exists, and an
 * array the index later replaces frees its memory alone (views of one buffer would keep it all).
 */
async function readPersisted(handle: FileHandle, size: number, expected: PersistExpectation): Promise<PersistedIndex | { problem: string }> {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  if (size < PREFIX_BYTES || !(await readExactly(handle, prefix, 0)) || !prefix.subarray(0, MAGIC.length).equals(MAGIC)) return { problem: "not a persisted search index" };
  const headerLength = prefix.readUInt32LE(MAGIC.length);
  if (PREFIX_BYTES + headerLength > size) return { problem: "cut short in its header" };
  const headerBytes = Buffer.alloc(headerLength);
  if (!(await readExactly(handle, headerBytes, PREFIX_BYTES))) return { problem: "cut short in its header" };
  let header: Header;
  try {
    header = JSON.parse(headerBytes.toString("utf8")) as Header;
  } catch {
    return { problem: "corrupt header" };
  }
  if (header.format !== SEARCH_PERSIST_FORMAT) return { problem: `format ${String(header.format)} is not ${SEARCH_PERSIST_FORMAT}` };
  if (header.version !== VERSION) return { problem: `made by version ${String(header.version)}, not ${VERSION}` };
  if (header.stamp !== expected.stamp) return { problem: "made for other roots or another extractor" };
  if (header.settings !== expected.settings) return { problem: "made with other search settings" };
  if (!Array.isArray(header.arrays)) return { problem: "corrupt header" };
  let offset = PREFIX_BYTES + headerLength;
  offset += padding(offset);
  const hash = createHash("sha256");
  const slice = new Slicer(LIMITS.intel.index.syncSliceMs);
  const arrays = new Map<string, PersistedArray>();
  for (const { name, type, length } of header.arrays) {
    const Type = ARRAY_TYPES[type];
    if (Type === undefined || !Number.isInteger(length) || length < 0) return { problem: "corrupt header" };
    const byteLength = length * Type.BYTES_PER_ELEMENT;
    if (offset + byteLength > size) return { problem: "cut short" };
    const array = new Type(length);
    const bytes = new Uint8Array(array.buffer, 0, byteLength);
    if (!(await readExactly(handle, bytes, offset))) return { problem: "cut short" };
    for (let from = 0; from < byteLength; from += HASH_PIECE) {
      hash.update(bytes.subarray(from, Math.min(byteLength, from + HASH_PIECE)));
      await slice.turn();
    }
    arrays.set(name, array as PersistedArray);
    offset += byteLength + padding(byteLength);
  }
  if (hash.digest("hex") !== header.sha256) return { problem: "corrupt (its arrays do not match their hash)" };
  return { meta: header.meta, arrays };
}
