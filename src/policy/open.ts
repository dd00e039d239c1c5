/**
 * The one reader of files the policy resolved. It opens the file beneath its root's held
 * directory, each segment relative to the one above and never through a link (beneath.ts), and
 * confirms on the descriptor that it is a regular file and the very entry (device, inode) the
 * policy resolved: a directory swapped for a link, or the file replaced, since the check is
 * path_changed, never the other file's bytes. Non-blocking, so a FIFO swapped in cannot stall the
 * open. Read tools, the code index, run's scan and the write pipeline all read through it.
 */
import { fstatSync, read, readSync, type Stats } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { type ErrorCode, isToolError, ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { ChangedBeneath, changedError, closeQuietly, type EntryIdentity, identityOf, openFileBeneath, sameEntry } from "./beneath.ts";
import { locateReal } from "./roots.ts";
import type { Root } from "./types.ts";
import type { ResolvedPath } from "./workspace.ts";

const readAsync = promisify(read);

const ERRNO_CODES: Record<string, ErrorCode> = {
  ENOENT: "file_not_found",
  ENOTDIR: "file_not_found",
  EISDIR: "not_a_file",
};

/** A file-system failure on an already resolved path, as the tool error a model can act on; anything that is not an fs error is rethrown. */
export function fileSystemError(error: unknown, display: string): ToolError {
  if (isToolError(error)) return error;
  if (error instanceof ChangedBeneath) {
    if (error.reason === "missing") return new ToolError("file_not_found", `${display} does not exist (it disappeared while being read).`);
    return changedError(display, error);
  }
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof errno === "string") {
    const code = ERRNO_CODES[errno] ?? "io_error";
    const what = code === "file_not_found" ? "does not exist (it disappeared while being read)" : code === "not_a_file" ? "is not a regular file" : `could not be read (${errno})`;
    return new ToolError(code, `${display} ${what}.`);
  }
  throw error;
}

/** What the reader opens: a file below a root's real directory, and optionally the entry it must be. */
export interface ReadTarget {
  /** A real directory (no links in it) the file lies beneath. */
  base: string;
  /** The segments from `base` to the file. */
  segments: readonly string[];
  display: string;
  /** The entry the policy resolved; a file that is not this entry any more is path_changed. */
  identity?: EntryIdentity;
}

/** The target of a path the policy resolved. */
export function resolvedTarget(resolved: Pick<ResolvedPath, "root" | "relative" | "display" | "identity">): ReadTarget {
  const target: ReadTarget = { base: resolved.root.real, segments: resolved.relative === "" ? [] : resolved.relative.split("/"), display: resolved.display };
  if (resolved.identity) target.identity = resolved.identity;
  return target;
}

/**
 * The target of a real path reached through the policy (a listing entry): beneath the root that
 * holds it, or, without roots, beneath the file system root (a real path holds no link, so no
 * segment of it may be a link now either).
 */
export function realTarget(real: string, display: string, roots?: readonly Root[]): ReadTarget {
  const located = roots ? locateReal(roots, real) : undefined;
  if (located) return { base: located.root.real, segments: located.segments, display };
  const base = path.parse(real).root;
  return { base, segments: real.slice(base.length).split(path.sep).filter((segment) => segment !== ""), display };
}

/** An open descriptor of the target with its stats; throws ChangedBeneath, an errno error, or path_changed for another entry. */
function openTarget(target: ReadTarget): { fd: number; stats: Stats } {
  const fd = openFileBeneath(target.base, target.segments);
  try {
    const stats = fstatSync(fd);
    if (target.identity && !sameEntry(target.identity, identityOf(stats))) {
      throw new ChangedBeneath(path.join(target.base, ...target.segments), "replaced");
    }
    return { fd, stats };
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
}

/** A regular file opened by the reader; close it when done. */
class OpenedFile {
  #closed = false;

  constructor(
    readonly fd: number,
    readonly stats: Stats,
    readonly display: string,
  ) {}

  get size(): number {
    return this.stats.size;
  }

  get mode(): number {
    return this.stats.mode & 0o7777;
  }

  /** Reads from the start to the end asynchronously; undefined once it holds more than `maxBytes`. */
  async readToEnd(maxBytes: number): Promise<Buffer | undefined> {
    const chunks: Buffer[] = [];
    let length = 0;
    let chunkSize = Math.min(Math.max(this.size + 1, 64 * 1024), maxBytes + 1);
    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkSize);
      const { bytesRead } = await readAsync(this.fd, chunk, 0, chunk.length, length);
      if (bytesRead === 0) break;
      chunks.push(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes) return undefined;
      chunkSize = Math.min(Math.max(64 * 1024, chunkSize), maxBytes + 1 - length);
    }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  }

  /** The first `count` bytes (fewer for a shorter file). */
  async readHead(count: number): Promise<Buffer> {
    const head = Buffer.alloc(count);
    const { bytesRead } = await readAsync(this.fd, head, 0, count, 0);
    return head.subarray(0, bytesRead);
  }

  /** Reads it in chunks of `chunkBytes`, calling `take` with each (the buffer is reused). */
  async eachChunk(chunkBytes: number, take: (bytes: Buffer) => void, signal?: AbortSignal): Promise<void> {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    let position = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await readAsync(this.fd, buffer, 0, buffer.length, position);
      if (bytesRead === 0) return;
      take(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeQuietly(this.fd);
  }
}

/**
 * Opens a resolved path (or a reader target) and confirms on the descriptor that it is a regular
 * file and the entry the policy resolved. Throws the tool error a model can act on.
 */
export function openRegularFile(resolved: ResolvedPath | ReadTarget): OpenedFile {
  const target = "base" in resolved ? resolved : resolvedTarget(resolved);
  let opened: { fd: number; stats: Stats };
  try {
    opened = openTarget(target);
  } catch (error) {
    throw fileSystemError(error, target.display);
  }
  if (!opened.stats.isFile()) {
    closeQuietly(opened.fd);
    throw new ToolError("not_a_file", `${target.display} is not a regular file.`);
  }
  return new OpenedFile(opened.fd, opened.stats, target.display);
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
export function readSmallRegularFileSync(resolved: ResolvedPath | ReadTarget, scratch?: ReadScratch): { bytes: Buffer; mode: number } | undefined {
  const file = openRegularFile(resolved);
  try {
    if (file.size > LIMITS.read.syncIoBytes) return undefined;
    const bytes = readToEndSync(file.fd, file.size, LIMITS.read.syncIoBytes, scratch);
    return bytes === undefined ? undefined : { bytes, mode: file.mode };
  } catch (error) {
    throw fileSystemError(error, file.display);
  } finally {
    file.close();
  }
}

/** openTarget for readers that record a file as gone instead of failing: a missing file, a link or a changed path is "gone". */
function openOrGone(target: ReadTarget): { fd: number; stats: Stats } | "gone" {
  try {
    return openTarget(target);
  } catch (error) {
    if (error instanceof ChangedBeneath) return "gone";
    const errno = (error as NodeJS.ErrnoException | undefined)?.code;
    if (errno === "ENOENT" || errno === "ENOTDIR" || errno === "ELOOP" || errno === "EISDIR") return "gone";
    throw error;
  }
}

/**
 * For the code index and run's scan, which read thousands of files and record why one was not
 * read instead of failing: the bytes of a regular file of at most `maxBytes` (synchronous calls,
 * into `scratch` when given), its stats alone when `statsOnly` or it is larger, and "gone" when it
 * is missing, not a regular file, or no longer reachable without a link.
 */
export function readBoundedSync(
  target: ReadTarget,
  maxBytes: number,
  options: { scratch?: ReadScratch; statsOnly?: boolean } = {},
): { bytes: Buffer; stats: Stats } | { skipped: "tooLarge" | "statsOnly"; stats: Stats } | "too_large" | "gone" {
  const opened = openOrGone(target);
  if (opened === "gone") return opened;
  const { fd, stats } = opened;
  try {
    if (!stats.isFile()) return "gone";
    if (options.statsOnly) return { skipped: "statsOnly", stats };
    if (stats.size > maxBytes) return { skipped: "tooLarge", stats };
    const bytes = readToEndSync(fd, stats.size, maxBytes, options.scratch);
    return bytes === undefined ? "too_large" : { bytes, stats };
  } finally {
    closeQuietly(fd);
  }
}

/** readBoundedSync for files too large to read on the main thread in one go: the read is asynchronous. */
export async function readBounded(
  target: ReadTarget,
  maxBytes: number,
): Promise<{ bytes: Buffer; stats: Stats } | { skipped: "tooLarge"; stats: Stats } | "too_large" | "gone"> {
  const opened = openOrGone(target);
  if (opened === "gone") return opened;
  const file = new OpenedFile(opened.fd, opened.stats, target.display);
  try {
    if (!file.stats.isFile()) return "gone";
    if (file.size > maxBytes) return { skipped: "tooLarge", stats: file.stats };
    const bytes = file.size <= LIMITS.read.syncIoBytes ? readToEndSync(file.fd, file.size, maxBytes) : await file.readToEnd(maxBytes);
    return bytes === undefined ? "too_large" : { bytes, stats: file.stats };
  } finally {
    file.close();
  }
}

function tooLargeError(resolved: ResolvedPath, size: number, maxBytes: number, tooLargeHint: string | undefined): ToolError {
  return new ToolError(
    "file_too_large",
    `${resolved.display} has ${size} bytes; the limit for this operation is ${maxBytes}.`,
    tooLargeHint === undefined ? {} : { hint: tooLargeHint },
  );
}

/** Reads a whole regular file, refusing files over `maxBytes` before reading them, with the permission bits read from the same descriptor. */
export async function readRegularFile(resolved: ResolvedPath, maxBytes: number, tooLargeHint?: string): Promise<{ bytes: Buffer; mode: number }> {
  const small = readSmallRegularFileSync(resolved);
  if (small) {
    if (small.bytes.length > maxBytes) throw tooLargeError(resolved, small.bytes.length, maxBytes, tooLargeHint);
    return small;
  }
  const file = openRegularFile(resolved);
  try {
    if (file.size > maxBytes) throw tooLargeError(resolved, file.size, maxBytes, tooLargeHint);
    const bytes = await file.readToEnd(maxBytes);
    if (bytes === undefined) {
      throw new ToolError("file_too_large", `${resolved.display} grew past ${maxBytes} bytes while being read.`);
    }
    return { bytes, mode: file.mode };
  } catch (error) {
    throw fileSystemError(error, resolved.display);
  } finally {
    file.close();
  }
}
