/**
 * File-system primitives the commit machinery builds on: hashing a file without following a
 * symlink at its name, staging files with exclusive create and fsync, and durable small writes.
 * Everything streams in fixed chunks so large files never sit in memory whole.
 */
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, rm, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../core/errors.ts";

const CHUNK_BYTES = 1024 * 1024;
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

export interface FileFacts {
  sha256: string;
  /** Permission bits including setuid/setgid/sticky. */
  mode: number;
  nlink: number;
  uid: number;
  gid: number;
  size: number;
}

/** FileHandle.write may write less than asked; loop until the whole chunk is out. */
async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset, null);
    offset += bytesWritten;
  }
}

export function errnoOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export function isMissing(error: unknown): boolean {
  const code = errnoOf(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * Opens `file` for reading without following a symlink at its last component and without
 * blocking on a FIFO; undefined when nothing is there.
 */
async function openNoFollow(file: string): Promise<FileHandle | undefined> {
  try {
    return await open(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    if (isMissing(error)) return undefined;
    if (errnoOf(error) === "ELOOP") throw new ToolError("path_denied", `${file} is now a symbolic link; it is not written through.`);
    throw error;
  }
}

/**
 * Hashes `file` (and copies it to `copyTo`, created exclusively and fsynced, when given).
 * Null when the file does not exist; a directory or special file is refused.
 */
export async function inspectFile(file: string, copyTo?: string): Promise<FileFacts | null> {
  const handle = await openNoFollow(file);
  if (handle === undefined) return null;
  let copy: FileHandle | undefined;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new ToolError("not_a_file", `${file} is not a regular file.`);
    const hash = createHash("sha256");
    if (copyTo !== undefined) copy = await open(copyTo, "wx", 0o600);
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      hash.update(chunk);
      if (copy !== undefined) await writeAll(copy, chunk);
      size += bytesRead;
    }
    if (copy !== undefined) await copy.sync();
    return { sha256: hash.digest("hex"), mode: stats.mode & 0o7777, nlink: stats.nlink, uid: stats.uid, gid: stats.gid, size };
  } finally {
    await copy?.close();
    await handle.close();
  }
}

export interface StageOptions {
  /** Exact permission bits; without it the platform default for new files (0666 less umask). */
  mode?: number | null;
  /** Owner to give the staged file when it differs from ours (best effort: needs privilege). */
  owner?: { uid: number; gid: number } | null;
}

async function finishStaged(handle: FileHandle, options: StageOptions): Promise<void> {
  if (options.mode !== undefined && options.mode !== null) await handle.chmod(options.mode);
  if (options.owner && process.platform !== "win32") {
    const stats = await handle.stat();
    if (stats.uid !== options.owner.uid || stats.gid !== options.owner.gid) {
      try {
        await handle.chown(options.owner.uid, options.owner.gid);
      } catch {
        // Without privilege the file keeps our ownership, as any editor's save would.
      }
    }
  }
  await handle.sync();
}

/** Writes `data` to a new file `temp` (exclusive create) and fsyncs it. */
export async function stageBytes(temp: string, data: Uint8Array, options: StageOptions = {}): Promise<void> {
  const handle = await open(temp, "wx", 0o666);
  try {
    await writeAll(handle, data);
    await finishStaged(handle, options);
  } catch (error) {
    await handle.close();
    await removeIfPresent(temp);
    throw error;
  }
  await handle.close();
}

/** Copies `source` to a new file `temp` (exclusive create), fsyncs it and returns the copy's hash. */
export async function stageCopy(source: string, temp: string, options: StageOptions = {}): Promise<string> {
  const input = await openNoFollow(source);
  if (input === undefined) throw new ToolError("file_not_found", `${source} disappeared during the write.`);
  try {
    const handle = await open(temp, "wx", 0o666);
    try {
      const hash = createHash("sha256");
      const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
      for (;;) {
        const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        hash.update(chunk);
        await writeAll(handle, chunk);
      }
      await finishStaged(handle, options);
      await handle.close();
      return hash.digest("hex");
    } catch (error) {
      await handle.close();
      await removeIfPresent(temp);
      throw error;
    }
  } finally {
    await input.close();
  }
}

export async function removeIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

/** Makes a directory's entries (renames, unlinks) durable; a no-op where directories cannot be opened. */
export async function fsyncDirectory(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  let handle: FileHandle;
  try {
    handle = await open(dir, constants.O_RDONLY);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems do not support fsync on directories; the rename itself was still atomic.
    const code = errnoOf(error);
    if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EISDIR" && code !== "EBADF") throw error;
  } finally {
    await handle.close();
  }
}

/** Replaces `file` with `text` atomically and durably (temp file, fsync, rename, fsync of the directory). */
export async function writeFileDurable(file: string, text: string): Promise<void> {
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await stageBytes(temp, Buffer.from(text, "utf8"), { mode: 0o600 });
  try {
    await rename(temp, file);
  } catch (error) {
    await removeIfPresent(temp);
    throw error;
  }
  await fsyncDirectory(path.dirname(file));
}

export async function removeTree(target: string): Promise<void> {
  await rm(target, { recursive: true, force: true });
}
