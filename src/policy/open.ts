/**
 * Opening what the policy resolved: only the canonical path, only a regular file (checked on the
 * descriptor, non-blocking so a FIFO swapped in after resolution cannot stall), and file-system
 * failures turned into tool errors a model can act on. Read tools and the write pipeline both use it.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { type ErrorCode, isToolError, ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import type { ResolvedPath } from "./workspace.ts";

const ERRNO_CODES: Record<string, ErrorCode> = {
  ENOENT: "file_not_found",
  ENOTDIR: "file_not_found",
  EISDIR: "not_a_file",
};


/** A file-system failure on an already resolved path, as the tool error a model can act on; anything that is not an fs error is rethrown. */
export function fileSystemError(error: unknown, display: string): ToolError {
  if (isToolError(error)) return error;
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === "string") {
    const code = ERRNO_CODES[errno] ?? "io_error";
    const what = code === "file_not_found" ? "does not exist (it disappeared while being read)" : code === "not_a_file" ? "is not a regular file" : `could not be read (${errno})`;
    return new ToolError(code, `${display} ${what}.`);
  }
  throw error;
}

/**
 * Opens a resolved path and confirms on the descriptor that it is still a regular file.
 * Non-blocking, so a FIFO swapped in after resolution cannot stall the open.
 */
export async function openRegularFile(resolved: ResolvedPath): Promise<{ handle: FileHandle; size: number; mode: number }> {
  let handle: FileHandle;
  try {
    handle = await open(resolved.real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fileSystemError(error, resolved.display);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new ToolError("not_a_file", `${resolved.display} is not a regular file.`);
    return { handle, size: stats.size, mode: stats.mode & 0o7777 };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw fileSystemError(error, resolved.display);
  }
}

/**
 * One reusable buffer for synchronous reads whose bytes are used up before the next read (hashed,
 * decoded): reading thousands of files through it allocates nothing, where a buffer per file left
 * tens of MiB of dead external memory for V8 to notice late. Grows up to `maxBytes`; a larger
 * read gets a buffer of its own.
 */
export class ReadScratch {
  #buffer = Buffer.allocUnsafe(0);

  constructor(private readonly maxBytes: number) {}

  /** A buffer of at least `size` bytes: the shared one while that is allowed. */
  take(size: number): Buffer {
    if (size <= this.#buffer.length) return this.#buffer;
    if (size > this.maxBytes) return Buffer.allocUnsafe(size);
    this.#buffer = Buffer.allocUnsafe(Math.min(this.maxBytes, Math.max(size, this.#buffer.length * 2, 64 * 1024)));
    return this.#buffer;
  }
}

/**
 * Reads an open descriptor to its end with synchronous calls, starting from the size a stat gave
 * (one byte more, so growth shows) and growing the buffer if the file grew; undefined once it holds
 * more than `maxBytes`. With a scratch, the bytes live in its buffer until the next read through it.
 */
export function readToEndSync(fd: number, expectedSize: number, maxBytes: number, scratch?: ReadScratch): Buffer | undefined {
  const first = Math.min(expectedSize, maxBytes) + 1;
  let buffer = scratch ? scratch.take(first) : Buffer.allocUnsafe(first);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (length > maxBytes) return undefined;
      const size = Math.min(maxBytes + 1, buffer.length * 2);
      const larger = scratch ? scratch.take(size) : Buffer.allocUnsafe(size);
      if (larger !== buffer) buffer.copy(larger, 0, 0, length);
      buffer = larger;
    }
    const count = readSync(fd, buffer, length, buffer.length - length, null);
    if (count === 0) break;
    length += count;
  }
  return length > maxBytes ? undefined : buffer.subarray(0, length);
}

/**
 * The small-file path: open, check and read with synchronous calls. On a local file system each
 * call takes microseconds, while each asynchronous one is a thread-pool round trip that costs more
 * than the work itself (it was most of a file_hash call). Undefined for a file over
 * LIMITS.read.syncIoBytes, or one that grew past it while being read: the caller then streams it.
 */
export function readSmallRegularFileSync(resolved: ResolvedPath): { bytes: Buffer; mode: number } | undefined {
  let fd: number;
  try {
    fd = openSync(resolved.real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw fileSystemError(error, resolved.display);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new ToolError("not_a_file", `${resolved.display} is not a regular file.`);
    if (stats.size > LIMITS.read.syncIoBytes) return undefined;
    const bytes = readToEndSync(fd, stats.size, LIMITS.read.syncIoBytes);
    return bytes === undefined ? undefined : { bytes, mode: stats.mode & 0o7777 };
  } catch (error) {
    throw fileSystemError(error, resolved.display);
  } finally {
    try {
      closeSync(fd);
    } catch {
      // Closing a descriptor only read from cannot lose data.
    }
  }
}

function tooLargeError(resolved: ResolvedPath, size: number, maxBytes: number, tooLargeHint: string | undefined): ToolError {
  return new ToolError("file_too_large", `${resolved.display} has ${size} bytes; the limit for this operation is ${maxBytes}.`, tooLargeHint === undefined ? {} : { hint: tooLargeHint });
}

/** Reads a whole regular file, refusing files over `maxBytes` before reading them. */
export async function readFileBytes(resolved: ResolvedPath, maxBytes: number, tooLargeHint?: string): Promise<Buffer> {
  return (await readRegularFile(resolved, maxBytes, tooLargeHint)).bytes;
}

/** Like readFileBytes, with the permission bits read from the same descriptor. */
export async function readRegularFile(resolved: ResolvedPath, maxBytes: number, tooLargeHint?: string): Promise<{ bytes: Buffer; mode: number }> {
  const small = readSmallRegularFileSync(resolved);
  if (small) {
    if (small.bytes.length > maxBytes) throw tooLargeError(resolved, small.bytes.length, maxBytes, tooLargeHint);
    return small;
  }
  const { handle, size, mode } = await openRegularFile(resolved);
  try {
    if (size > maxBytes) throw tooLargeError(resolved, size, maxBytes, tooLargeHint);
    const bytes = await handle.readFile();
    if (bytes.length > maxBytes) {
      throw new ToolError("file_too_large", `${resolved.display} grew past ${maxBytes} bytes while being read.`);
    }
    return { bytes, mode };
  } catch (error) {
    throw fileSystemError(error, resolved.display);
  } finally {
    await handle.close().catch(() => undefined);
  }
}
