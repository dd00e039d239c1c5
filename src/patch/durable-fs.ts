/**
 * File-system primitives the commit machinery builds on: hashing a file without following a
 * symlink at its name, preserving a file's content as a before-image, staging files with exclusive
 * create and fsync, and durable small writes.
 *
 * Metadata calls (open, stat, rename, link, mkdir) and the reads and writes of files up to
 * LIMITS.read.syncIoBytes are synchronous: each costs far less than its promise form's thread-pool
 * round trip, and a commit makes dozens of them.
 * fsync, the only call that waits for the disk, always runs on the thread pool, and independent
 * fsyncs run side by side. Larger files stream in fixed chunks so they never sit in memory whole.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";

const CHUNK_BYTES = 1024 * 1024;
/** Buffer that confirms a small file ended where stat said (a 1 MiB one per read made needless garbage). */
const TAIL_PROBE_BYTES = 16 * 1024;
const { constants } = fs;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const DIRECTORY = constants.O_DIRECTORY ?? 0;

export interface FileFacts {
  sha256: string;
  /** Permission bits including setuid/setgid/sticky. */
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export function isMissing(error: unknown): boolean {
  const code = errnoOf(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/** fsync of an open descriptor on the thread pool (the one call here that waits for the disk). */
function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (error) => (error ? reject(error) : resolve())));
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // Closing cannot fail in a way that changes what was written; the error that matters is already thrown.
  }
}

/** Waits for every promise, then throws the first failure: nothing is left running behind an error. */
async function settleAll(work: ReadonlyArray<Promise<unknown>>): Promise<void> {
  const outcomes = await Promise.allSettled(work);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Opens `file` for reading without following a symlink at its last component and without
 * blocking on a FIFO; undefined when nothing is there.
 */
function openNoFollow(file: string, shown: string): number | undefined {
  try {
    return fs.openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if (errnoOf(error) === "ELOOP") throw new ToolError("path_denied", `${shown} is now a symbolic link; it is not written through.`);
    throw error;
  }
}

function factsOf(stats: fs.Stats, sha256: string, size: number): FileFacts {
  return { sha256, mode: stats.mode & 0o7777, nlink: stats.nlink, uid: stats.uid, gid: stats.gid, size };
}

/** Bytes read per call once a file is past the synchronous size, or grew while being read. */
function readChunk(fd: number, buffer: Buffer, sync: boolean): Promise<number> | number {
  if (sync) return fs.readSync(fd, buffer, 0, buffer.length, null);
  return new Promise<number>((resolve, reject) => fs.read(fd, buffer, 0, buffer.length, null, (error, read) => (error ? reject(error) : resolve(read))));
}

/**
 * Reads an open descriptor to its end, handing each chunk to `onChunk` (awaited before the next
 * read, so a chunk may be written out before its buffer is reused). A small file is read whole
 * with one synchronous call into a buffer of its size.
 */
async function readAll(fd: number, sizeHint: number, onChunk: (chunk: Buffer) => void | Promise<void>): Promise<number> {
  const sync = sizeHint <= LIMITS.read.syncIoBytes;
  let size = 0;
  if (sync && sizeHint > 0) {
    const whole = Buffer.allocUnsafe(sizeHint);
    while (size < whole.length) {
      const bytesRead = fs.readSync(fd, whole, size, whole.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
    }
    await onChunk(whole.subarray(0, size));
    if (size < whole.length) return size;
  }
  // A large file, or one that may have grown since it was stat'ed: the rest in chunks.
  const buffer = Buffer.allocUnsafe(sync ? TAIL_PROBE_BYTES : CHUNK_BYTES);
  for (;;) {
    const bytesRead = await readChunk(fd, buffer, sync);
    if (bytesRead === 0) return size;
    size += bytesRead;
    await onChunk(buffer.subarray(0, bytesRead));
  }
}

/** Writes all of `data` to `fd` (a write may take less than asked). */
function writeAllSync(fd: number, data: Uint8Array): void {
  let offset = 0;
  while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset, null);
}

async function writeAll(fd: number, data: Uint8Array): Promise<void> {
  if (data.length <= LIMITS.read.syncIoBytes) return writeAllSync(fd, data);
  let offset = 0;
  while (offset < data.length) {
    const end = Math.min(data.length, offset + CHUNK_BYTES);
    offset += await new Promise<number>((resolve, reject) => fs.write(fd, data, offset, end - offset, null, (error, written) => (error ? reject(error) : resolve(written))));
  }
}

/**
 * Hashes `file`. Null when the file does not exist; a directory or special file is refused.
 * `shown` is its name in messages (`file` may be a name inside a held directory).
 */
export async function inspectFile(file: string, shown: string = file): Promise<FileFacts | null> {
  const fd = openNoFollow(file, shown);
  if (fd === undefined) return null;
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isFile()) throw new ToolError("not_a_file", `${shown} is not a regular file.`);
    const hash = createHash("sha256");
    const size = await readAll(fd, stats.size, (chunk) => void hash.update(chunk));
    return factsOf(stats, hash.digest("hex"), size);
  } finally {
    closeQuietly(fd);
  }
}

export interface PreservedFile {
  facts: FileFacts;
  /** True when the before-image is a copy (written and closed, not yet fsynced), false for a hard link. */
  copied: boolean;
}

/** Errors of link() that mean no hard link can be made here (another device, a file system without them, no permission): copy instead. */
export const LINK_REFUSED = new Set(["EXDEV", "EPERM", "EACCES", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/**
 * Hashes `file` and keeps its current content at `imageTo` as a before-image, in one read. A file
 * with no other name gets a hard link to its inode: replacing the file by rename (or deleting it)
 * leaves that inode to the image alone, so nothing is copied or fsynced. A file with other names
 * (through them the inode could still change), one on another file system, or one the system will
 * not link gets a copy instead, which the caller fsyncs later (see flushByPath). Every reader of
 * an image checks its hash, so an inode changed in place by a writer that ignores our locks is
 * caught, never restored.
 * Null (and no image) when the file does not exist.
 */
export async function preserveFile(file: string, imageTo: string, shown: string = file): Promise<PreservedFile | null> {
  const fd = openNoFollow(file, shown);
  if (fd === undefined) return null;
  let copy: number | undefined;
  try {
    const stats = fs.fstatSync(fd, { bigint: true });
    if (!stats.isFile()) throw new ToolError("not_a_file", `${shown} is not a regular file.`);
    const linked = stats.nlink === 1n && process.platform !== "win32" && linkImage(file, imageTo, stats, shown);
    if (!linked) copy = fs.openSync(imageTo, "wx", 0o600);
    const target = copy;
    const hash = createHash("sha256");
    const size = await readAll(fd, Number(stats.size), async (chunk) => {
      hash.update(chunk);
      if (target !== undefined) await writeAll(target, chunk);
    });
    const facts: FileFacts = { sha256: hash.digest("hex"), mode: Number(stats.mode) & 0o7777, nlink: Number(stats.nlink), uid: Number(stats.uid), gid: Number(stats.gid), size };
    if (target === undefined) return { facts, copied: false };
    copy = undefined;
    fs.closeSync(target);
    return { facts, copied: true };
  } finally {
    if (copy !== undefined) closeQuietly(copy);
    closeQuietly(fd);
  }
}

/** Links `file` to `imageTo`; false when links are refused here. The link must name the inode already opened. */
function linkImage(file: string, imageTo: string, opened: fs.BigIntStats, shown: string): boolean {
  try {
    fs.linkSync(file, imageTo);
  } catch (error) {
    if (LINK_REFUSED.has(errnoOf(error) ?? "")) return false;
    throw error;
  }
  const linked = fs.lstatSync(imageTo, { bigint: true });
  if (linked.dev !== opened.dev || linked.ino !== opened.ino) {
    fs.unlinkSync(imageTo);
    throw new ToolError("stale_hash", `${shown} was replaced while it was being read (a writer that does not take ast-mcp's locks).`, { details: { path: shown } });
  }
  return true;
}

export interface StageOptions {
  /** Exact permission bits; without it the platform default for new files (0666 less umask). */
  mode?: number | null;
  /** Owner to give the staged file when it differs from ours (best effort: needs privilege). */
  owner?: { uid: number; gid: number } | null;
}

function finishStagedSync(fd: number, options: StageOptions): void {
  if (options.mode !== undefined && options.mode !== null) fs.fchmodSync(fd, options.mode);
  if (options.owner && process.platform !== "win32") {
    const stats = fs.fstatSync(fd);
    if (stats.uid !== options.owner.uid || stats.gid !== options.owner.gid) {
      try {
        fs.fchownSync(fd, options.owner.uid, options.owner.gid);
      } catch {
        // Without privilege the file keeps our ownership, as any editor's save would.
      }
    }
  }
}

export function removeIfPresentSync(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** A file written but not yet fsynced. */
export interface UnsyncedFile {
  /** fsyncs and closes the file (on failure: closes and removes it). Call once. */
  flush(): Promise<void>;
}

/**
 * Runs `write`, which adds files to `files`, then fsyncs them all together (an fsync issued while
 * the next file is being created would make that creation wait for the journal commit; fsyncs
 * issued together share commits). When `write` fails the files written so far are still flushed
 * (closing them) and its error is the one thrown.
 */
export async function writeThenFlush(files: UnsyncedFile[], write: () => void | Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    await Promise.allSettled(files.map((file) => file.flush()));
    throw error;
  }
  await settleAll(files.map((file) => file.flush()));
}

function unsynced(fd: number, file: string): UnsyncedFile {
  return {
    flush: () =>
      fsyncFd(fd).then(
        () => fs.closeSync(fd),
        (error: unknown) => {
          closeQuietly(fd);
          removeIfPresentSync(file);
          throw error;
        },
      ),
  };
}

/**
 * Exclusive create on the thread pool. Creating a file is the slow part of staging one where the
 * file system scans its inode table for a free inode (ext4 without a journal skips every inode
 * freed in the last minutes one by one): checks the caller deferred run on this thread meanwhile.
 */
function createExclusive(file: string, mode: number): Promise<number> {
  return new Promise((resolve, reject) => fs.open(file, "wx", mode, (error, fd) => (error ? reject(error) : resolve(fd))));
}

/** Writes `data` to a new file `temp` (exclusive create) and sets its mode and owner; flush() makes it durable. */
export async function stageBytesUnsynced(temp: string, data: Uint8Array, options: StageOptions = {}): Promise<UnsyncedFile> {
  const fd = await createExclusive(temp, 0o666);
  try {
    await writeAll(fd, data);
    finishStagedSync(fd, options);
  } catch (error) {
    closeQuietly(fd);
    removeIfPresentSync(temp);
    throw error;
  }
  return unsynced(fd, temp);
}

/** Copies `source` to a new file `temp` (exclusive create), fsyncs it and returns the copy's hash; `shown` names the source in messages. */
export async function stageCopy(source: string, temp: string, options: StageOptions = {}, shown: string = source): Promise<string> {
  const input = openNoFollow(source, shown);
  if (input === undefined) throw new ToolError("file_not_found", `${shown} disappeared during the write.`);
  try {
    const fd = fs.openSync(temp, "wx", 0o666);
    try {
      const hash = createHash("sha256");
      await readAll(input, fs.fstatSync(input).size, async (chunk) => {
        hash.update(chunk);
        await writeAll(fd, chunk);
      });
      finishStagedSync(fd, options);
      await fsyncFd(fd);
      fs.closeSync(fd);
      return hash.digest("hex");
    } catch (error) {
      closeQuietly(fd);
      removeIfPresentSync(temp);
      throw error;
    }
  } finally {
    closeQuietly(input);
  }
}

/** Makes a directory's entries (renames, unlinks) durable; a no-op where directories cannot be opened. */
export async function fsyncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  let fd: number;
  try {
    fd = fs.openSync(dir, constants.O_RDONLY | DIRECTORY);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  try {
    await fsyncFd(fd);
  } catch (error) {
    // Some file systems do not support fsync on directories; the rename itself was still atomic.
    const code = errnoOf(error);
    if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EISDIR" && code !== "EBADF") throw error;
  } finally {
    closeQuietly(fd);
  }
}

/** fsyncDirectory of each distinct directory, side by side. */
export async function fsyncDirectories(dirs: Iterable<string>): Promise<void> {
  await settleAll([...new Set(dirs)].map((dir) => fsyncDirectory(dir)));
}

/** Replaces `file` with `text` atomically and durably (temp file, fsync, rename, fsync of the directory). */
export async function writeFileDurable(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await (await stageBytesUnsynced(temp, Buffer.from(text, "utf8"), { mode: 0o600 })).flush();
  try {
    fs.renameSync(temp, file);
  } catch (error) {
    removeIfPresentSync(temp);
    throw error;
  }
  await fsyncDirectory(path.dirname(file));
}

/**
 * Writes `data` over `file` (created, mode 0600, when missing) in place: positioned writes, then a
 * truncation to the new length. A placeholder or a spare made ahead of time keeps its inode and
 * data blocks; and unlike opening with O_TRUNC, which on ext4 (auto_da_alloc) makes the close
 * start writing the file out on the calling thread, the data waits for the caller's fsync.
 */
export function overwriteInPlaceSync(file: string, data: Buffer): void {
  const fd = fs.openSync(file, constants.O_WRONLY | constants.O_CREAT, 0o600);
  try {
    let offset = 0;
    while (offset < data.length) offset += fs.writeSync(fd, data, offset, data.length - offset, offset);
    fs.ftruncateSync(fd, data.length);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes `text` to `file` in a directory private to this writer, not yet durable (see
 * flushByPath). An empty placeholder made ahead of time is filled in place, which allocates no inode.
 */
export function writeFileUnsynced(file: string, text: string): void {
  try {
    overwriteInPlaceSync(file, Buffer.from(text, "utf8"));
  } catch (error) {
    removeIfPresentSync(file);
    throw error;
  }
}

/**
 * The fsync of a file already written and closed, by its name when it runs: the file may be moved
 * first (with its directory) and Windows renames no directory holding an open file. It reopens
 * the name: "r+" because Windows flushes only handles open for writing.
 */
export function flushByPath(file: string): UnsyncedFile {
  return {
    flush: async () => {
      const fd = fs.openSync(file, process.platform === "win32" ? "r+" : "r");
      try {
        await fsyncFd(fd);
      } finally {
        closeQuietly(fd);
      }
    },
  };
}

export async function removeTree(target: string): Promise<void> {
  fs.rmSync(target, { recursive: true, force: true });
}
