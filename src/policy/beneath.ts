/**
 * Access beneath a root that no concurrent link swap can redirect. Each directory on a path is
 * opened relative to the descriptor of the one above it and never through a link, so once a
 * directory is held, a rename of its name or a link put in its place changes nothing for the
 * holder: every later operation names entries *in the held directory*.
 *
 * On Linux a held directory is named through `/proc/self/fd/<fd>/`: the kernel resolves that
 * prefix to the directory the descriptor holds (whatever its name is now) and resolves only the
 * last segment by name, which is what `openat`/`renameat` do. Node exports neither `openat` nor
 * `O_PATH`, and every `node:fs` call accepts such a path, so rename, link, unlink, mkdir, rmdir,
 * lstat, readlink and open all become descriptor-relative without a native addon.
 *
 * Where `/proc/self/fd` is missing (macOS, Windows, a Linux sandbox without /proc) the fallback
 * opens each prefix by its real path with O_NOFOLLOW and compares the descriptor's device and
 * inode with an lstat of the same name: a swap of the *last* segment is caught, a swap of an
 * ancestor between the check and a later call is not. ARCHITECTURE.md's threat model names that
 * residual risk.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import path from "node:path";
import { ToolError } from "../core/errors.ts";

const O_DIRECTORY = constants.O_DIRECTORY ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const DESCRIPTOR_DIRECTORY = "/proc/self/fd";

/** What a file system entry is, independent of its name: equal identities are the same entry. */
export interface EntryIdentity {
  dev: number;
  ino: number;
}

export function identityOf(stats: Pick<Stats, "dev" | "ino">): EntryIdentity {
  return { dev: stats.dev, ino: stats.ino };
}

export function sameEntry(a: EntryIdentity, b: EntryIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Process-wide by nature: what the kernel offers does not change while the process runs, so it is probed once. */
const kernelProbe: { descriptorPaths?: boolean | undefined } = {};

/**
 * Whether held directories can be named through `/proc/self/fd` here: checked once, by opening
 * the file system root and comparing what the descriptor path names with the descriptor itself.
 */
export function descriptorPathsWork(): boolean {
  kernelProbe.descriptorPaths ??= probeDescriptorPaths();
  return kernelProbe.descriptorPaths;
}

function probeDescriptorPaths(): boolean {
  if (process.platform === "win32") return false;
  let fd: number | undefined;
  try {
    fd = openSync("/", constants.O_RDONLY | O_DIRECTORY);
    return sameEntry(identityOf(fstatSync(fd)), identityOf(lstatSync(`${DESCRIPTOR_DIRECTORY}/${fd}/.`)));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

/** Test seam: pretend descriptor paths are (un)available; undefined detects again. */
export function setDescriptorPathsForTest(value: boolean | undefined): void {
  kernelProbe.descriptorPaths = value;
}

/** Closes a descriptor opened only to walk or read: it loses nothing when its close fails. */
export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing was written through it.
  }
}

/** A path segment that names an entry of its directory and nothing else. */
function checkSegment(segment: string): void {
  if (segment === "" || segment === "." || segment === ".." || segment.includes("/") || segment.includes("\0") || (path.sep !== "/" && segment.includes(path.sep))) {
    throw new Error(`not a single path segment: ${JSON.stringify(segment)}`);
  }
}

/** Why a held path could not be followed further: a segment is now a link, not a directory, or gone. */
export class ChangedBeneath extends Error {
  constructor(
    readonly real: string,
    readonly reason: "link" | "not_directory" | "missing" | "replaced",
    readonly errno?: string,
  ) {
    super(`${real} changed while it was being used (${reason})`);
  }
}

function changedFrom(error: unknown, real: string): ChangedBeneath | undefined {
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  if (errno === "ELOOP" || errno === "EMLINK" || errno === "EFTYPE") return new ChangedBeneath(real, "link", errno);
  if (errno === "ENOTDIR") return new ChangedBeneath(real, "not_directory", errno);
  if (errno === "ENOENT") return new ChangedBeneath(real, "missing", errno);
  return undefined;
}

/**
 * A directory held open beneath a root. `at(name)` names an entry of *this* directory for any
 * `node:fs` call; `real` is what the directory was called when it was opened (for messages and
 * records, never for access). Close it when the operation ends; names from `at()` are invalid
 * after that.
 */
export class HeldDirectory {
  #fd: number | undefined;

  constructor(
    fd: number,
    readonly real: string,
    readonly identity: EntryIdentity,
    readonly anchored: boolean,
  ) {
    this.#fd = fd;
  }

  get fd(): number {
    if (this.#fd === undefined) throw new Error(`${this.real} is no longer held`);
    return this.#fd;
  }

  /** A name for entry `name` of this directory that every `node:fs` call resolves through the held descriptor. */
  at(name: string): string {
    checkSegment(name);
    return this.anchored ? `${DESCRIPTOR_DIRECTORY}/${this.fd}/${name}` : path.join(this.real, name);
  }

  /** The directory itself, for calls such as readdir. */
  self(): string {
    return this.anchored ? `${DESCRIPTOR_DIRECTORY}/${this.fd}` : this.real;
  }

  /** Opens the subdirectory `name` without following a link; throws ChangedBeneath when it is not a directory now. */
  openDirectory(name: string): HeldDirectory {
    checkSegment(name);
    const real = path.join(this.real, name);
    let fd: number;
    try {
      fd = openSync(this.at(name), constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    } catch (error) {
      const changed = changedFrom(error, real);
      // Linux answers ENOTDIR for a link opened with O_DIRECTORY | O_NOFOLLOW: say which it is.
      if (changed?.reason === "not_directory" && this.#isLink(name)) throw new ChangedBeneath(real, "link", changed.errno);
      throw changed ?? error;
    }
    const held = new HeldDirectory(fd, real, identityOf(fstatSync(fd)), this.anchored);
    if (!this.anchored) confirmFallback(held, real);
    return held;
  }

  /**
   * Opens the entry `name` with `flags` (O_NOFOLLOW is always added, so a link at the last segment
   * fails with ChangedBeneath "link"); `mode` applies when the flags create it.
   */
  openEntry(name: string, flags: number, mode?: number): number {
    const real = path.join(this.real, name);
    try {
      return openSync(this.at(name), flags | O_NOFOLLOW, mode);
    } catch (error) {
      throw changedFrom(error, real) ?? error;
    }
  }

  #isLink(name: string): boolean {
    try {
      return lstatSync(this.at(name)).isSymbolicLink();
    } catch {
      return false;
    }
  }

  close(): void {
    if (this.#fd === undefined) return;
    closeQuietly(this.#fd);
    this.#fd = undefined;
  }
}

/** Without descriptor paths: the directory opened by name must be what an lstat of that name shows now. */
function confirmFallback(held: HeldDirectory, real: string): void {
  let named: Stats;
  try {
    named = lstatSync(real);
  } catch (error) {
    held.close();
    throw changedFrom(error, real) ?? error;
  }
  if (named.isSymbolicLink() || !sameEntry(identityOf(named), held.identity)) {
    held.close();
    throw new ChangedBeneath(real, named.isSymbolicLink() ? "link" : "replaced");
  }
}

/**
 * Opens a root's real directory (configuration: the one name opened as it is spelled; it was
 * realpathed when the workspace was built, so it holds no link the workspace did not accept).
 */
export function holdRoot(rootReal: string): HeldDirectory {
  let fd: number;
  try {
    fd = openSync(rootReal, constants.O_RDONLY | O_DIRECTORY);
  } catch (error) {
    throw changedFrom(error, rootReal) ?? error;
  }
  return new HeldDirectory(fd, rootReal, identityOf(fstatSync(fd)), descriptorPathsWork());
}

/**
 * Holds the directory `segments` below a root, opening each one relative to the one above and
 * never through a link. Throws ChangedBeneath when a segment is a link, not a directory, or gone.
 */
export function holdBeneath(rootReal: string, segments: readonly string[]): HeldDirectory {
  let current = holdRoot(rootReal);
  try {
    for (const segment of segments) {
      const next = current.openDirectory(segment);
      current.close();
      current = next;
    }
    return current;
  } catch (error) {
    current.close();
    throw error;
  }
}

/** Opens a regular file beneath a root for reading without following any link, non-blocking (a FIFO swapped in cannot stall). */
export function openFileBeneath(rootReal: string, segments: readonly string[]): number {
  if (segments.length === 0) throw new ChangedBeneath(rootReal, "not_directory");
  const parent = holdBeneath(rootReal, segments.slice(0, -1));
  try {
    const name = segments[segments.length - 1] as string;
    const fd = parent.openEntry(name, constants.O_RDONLY | O_NONBLOCK);
    if (!parent.anchored) {
      // Fallback: the opened descriptor must be what the name shows now, not something reached through a swapped link.
      const named = lstatSync(path.join(parent.real, name));
      if (!sameEntry(identityOf(named), identityOf(fstatSync(fd)))) {
        closeQuietly(fd);
        throw new ChangedBeneath(path.join(parent.real, name), "replaced");
      }
    }
    return fd;
  } finally {
    parent.close();
  }
}

/** Maps a name from HeldDirectory.at() inside a message back to the directory's real path, so errors never show descriptor paths. */
export function displayBeneath(text: string, held: readonly HeldDirectory[]): string {
  let out = text;
  for (const directory of held) {
    if (!directory.anchored) continue;
    let fd: number;
    try {
      fd = directory.fd;
    } catch {
      continue;
    }
    out = out.split(`${DESCRIPTOR_DIRECTORY}/${fd}`).join(directory.real);
  }
  return out;
}

/** The tool error for a path that changed under an operation: retryable, since a new resolution may succeed. */
export function changedError(display: string, changed: ChangedBeneath): ToolError {
  const what = changed.reason === "link" ?
    "a directory or file on its path was replaced by a symbolic link" :
    changed.reason === "missing" ?
    "a directory or file on its path disappeared" :
    "a directory on its path was replaced";
  return new ToolError("path_changed", `${display} changed while it was being used: ${what}. Nothing was done through the changed path.`, {
    hint: "Call again: the path is resolved anew. If it keeps changing, another process is modifying this directory.",
    retryable: true,
  });
}
