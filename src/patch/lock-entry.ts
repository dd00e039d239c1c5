/**
 * Lock entries: the file beside a target that every writer of it sees, created with O_EXCL and
 * holding an owner record (pid, process start time, host, token); a lock whose owner is gone is
 * recovered by the next writer. Also the list of directories a process leaves entries in, so that
 * recovery finds the entries of a process that was killed. The locking protocol is in locks.ts.
 */
import { createHash, randomBytes } from "node:crypto";
import { appendFileSync, closeSync, existsSync, constants, fstatSync, futimesSync, linkSync, lstatSync, openSync, readSync, renameSync, writeFileSync, writeSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import { errnoOf, isMissing, removeIfPresentSync } from "./durable-fs.ts";
import { currentProcess, isValidIdentity, livenessOf, type ProcessIdentity } from "./process-identity.ts";
import { LOCK_DIRS_SUBDIR } from "../config/state-dir.ts";

/** Engine tuning of lock entries. */
export const LOCK_TUNING = {
  /** A lock whose holder's liveness cannot be checked (another host) and not refreshed for this long is stale and recovered. */
  staleMs: 30_000,
  /** A lock entry without a readable owner record (its writer died between creating it and writing the record) is stale after this long. */
  unreadableGraceMs: 2_000,
} as const;

/** Entries of the commit machinery beside the files it writes all start with this; see LOCK_ENTRY_PATTERN. */
const ENTRY_PREFIX = ".ast-mcp-";
/** A lock entry, or one moved aside by a release or recovery: `.ast-mcp-<32 hex>.lock[.<pid>-<tag>]`. */
export const LOCK_ENTRY_PATTERN = /^\.ast-mcp-[0-9a-f]{32}\.lock(\.\d+-[0-9a-f]+)?$/;
/** Longest owner record read back; ours are far shorter. */
const MAX_RECORD_BYTES = 4096;

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

interface OwnerRecord extends ProcessIdentity {
  /** Tells this process's records from those of an earlier process with the same identity. */
  token: string;
}

/** Handed to the locked function: lets it confirm, right before its commit point, that no lock was lost. */
export interface HeldLocks {
  assertHeld(): void;
}

export interface LockTarget {
  /** The canonical path of the file to lock; its lock entry lives in its directory. */
  path: string;
  /**
   * Called when the directory does not exist: the directories to create for it, outermost first (or
   * throws why they may not be). They are listed for recovery, created, and added to `created`;
   * unless the caller says otherwise, those left empty go again with the release.
   */
  directoriesToCreate?: () => string[];
  /** The directories created for this lock (see directoriesToCreate). */
  created?: string[];
  /** When the directory does not exist (nor can be created), the target is not locked: a recovery of a file whose directory is gone. */
  skipIfNoDirectory?: boolean;
  /**
   * After the release, directories left empty are removed from the target's directory upwards, up
   * to (not including) this one: the lock entry kept them from being removed while it stood.
   */
  removeEmptyUpTo?: string;
  /**
   * The name file-system calls use for an entry of the target's directory (or for the directory
   * and its parents when they are created or removed), given its real path: a commit passes names
   * through the directories it holds, so a directory swapped for a link is never followed. Default:
   * the real path itself.
   */
  at?: (real: string) => string;
}

export function sameName(real: string): string {
  return real;
}

export interface LockOptions {
  timeoutMs?: number;
  /** Where this process lists the directories of its lock entries; default stateDirectory(). */
  stateDir?: string;
}

/**
 * Everything this process holds for its write locks, whichever writes service took them: one
 * object, process-wide by nature. A lock entry says "this process" (its owner record), so the
 * entries it holds, its queues, owner records and directory lists belong to the process, not to a
 * service; the exit handler (locks.ts) releases the entries and removes the files, and a second
 * service in the same process must queue behind the first for the same file.
 */
export const processLocks = {
  /** Entries this process holds, by entry path. */
  held: new Map<string, HeldEntry>(),
  /** The in-process FIFO queue of each lock entry (locks.ts). */
  queues: new Map<string, { held: boolean; waiters: Array<() => void> }>(),
  /** This process's owner record in each state directory. */
  ownerFiles: new Map<string, OwnerFile>(),
  /** Directories where link() failed with NO_HARD_LINKS: their entries are created in place. */
  unlinkable: new Set<string>(),
  /** This process's list in each state directory: its file and the directories already in it. */
  listed: new Map<string, { file: string; dirs: Set<string> }>(),
  /** Tags handed out so far (uniqueTag). */
  tags: 0,
  refreshTimer: undefined as ReturnType<typeof setInterval> | undefined,
};

/** Unique within this process (a counter) and across processes (a random prefix); no secret, so no random bytes per call. */
const TAG_PREFIX = randomBytes(6).toString("hex");
function uniqueTag(): string {
  processLocks.tags += 1;
  return `${TAG_PREFIX}${processLocks.tags.toString(16)}`;
}

export function lockTimeout(target: string, timeoutMs: number, holder?: OwnerRecord): ToolError {
  const who = holder === undefined ? "Another writer" : `Another writer (process ${holder.pid} on ${holder.host})`;
  return new ToolError("lock_timeout", `${who} holds ${target}; it was not released within ${timeoutMs} ms.`, {
    hint: "Another write to this file is in progress; retry shortly. A lock whose holder is gone is recovered by the next writer.",
    details: { path: target },
  });
}

/** Names that differ only in case or Unicode normalization may be one file on macOS and Windows: they share a lock. */
const FOLDS_NAMES = process.platform === "darwin" || process.platform === "win32";

/** The lock entry of `name` in `dir`. A hash keeps the name short and free of anything the file name may contain. */
export function lockEntryPath(dir: string, name: string): string {
  const key = FOLDS_NAMES ? name.normalize("NFC").toLowerCase() : name;
  return path.join(dir, `${ENTRY_PREFIX}${createHash("sha256").update(key).digest("hex").slice(0, 32)}.lock`);
}

// ---------------------------------------------------------------------------------------------
// Lock entries.

export interface HeldEntry {
  entry: string;
  /** Names the entry for a file-system call, anew each time (through the caller's held directory, see LockTarget.at). */
  at: (real: string) => string;
  target: string;
  /** Keeps the entry's inode from being reused while it is held (refreshed through it too). */
  fd: number;
  /** Whether fd is the entry's own (closed with the release), not the shared owner file's. */
  ownFd: boolean;
  dev: number;
  ino: number;
  token: string;
  /** Set when the entry no longer stands as ours (seen by the refresh). */
  lost: string | undefined;
}

/** Whether `entry` still names the file we created (our descriptor keeps its inode from being reused). */
export function stillOurs(held: HeldEntry): boolean {
  try {
    const stats = lstatSync(held.at(held.entry));
    return stats.ino === held.ino && stats.dev === held.dev;
  } catch {
    return false;
  }
}

/** Keeps the mtime of held entries fresh: what another host's writer judges our lock by. */
function refreshHeld(): void {
  const now = new Date();
  for (const held of processLocks.held.values()) {
    if (held.lost !== undefined) continue;
    if (!stillOurs(held)) {
      held.lost = `the lock entry ${held.entry} was removed or replaced`;
      log.error("a write lock was lost; the write will be refused", { path: held.target });
      continue;
    }
    try {
      futimesSync(held.fd, now, now);
    } catch (error) {
      log.warn("could not refresh a write lock", { path: held.target, error });
    }
  }
}

export function track(held: HeldEntry): void {
  processLocks.held.set(held.entry, held);
  if (processLocks.refreshTimer === undefined) {
    processLocks.refreshTimer = setInterval(refreshHeld, LOCK_TUNING.staleMs / 2);
    processLocks.refreshTimer.unref();
  }
}

export function untrack(held: HeldEntry): void {
  processLocks.held.delete(held.entry);
  if (processLocks.held.size === 0 && processLocks.refreshTimer !== undefined) {
    clearInterval(processLocks.refreshTimer);
    processLocks.refreshTimer = undefined;
  }
}

export function unableToLock(target: string, dir: string, error: unknown): ToolError {
  const code = errnoOf(error);
  const details = { path: target, errno: code };
  if (code === "EACCES" || code === "EPERM") {
    return new ToolError("io_error", `Cannot write in the directory ${dir}, so ${target} cannot be written: ${(error as Error).message}`, {
      retryable: false,
      hint:
        "A write stages the new content beside the file and renames it into place (and locks the file there), so it needs write permission on the file's directory, not only on the file.",
      details,
    });
  }
  if (code === "EROFS") {
    return new ToolError("io_error", `${dir} is on a read-only file system; ${target} cannot be written.`, {
      retryable: false,
      hint: "Remount the file system read-write, or write elsewhere.",
      details,
    });
  }
  if (code === "ENOTDIR") return new ToolError("not_a_file", `${dir} is not a directory, so ${target} cannot be written.`, { details: { path: target } });
  return new ToolError("io_error", `Could not take the write lock for ${target}: ${(error as Error).message}`, { details });
}

const PROCESS_TOKEN = uniqueTag();

function recordText(): string {
  const record: OwnerRecord = { ...currentProcess(), token: PROCESS_TOKEN };
  return `${JSON.stringify(record)}\n`;
}

/**
 * This process's owner record in a state directory, hard-linked into place as each of its lock
 * entries: taking a lock then allocates no inode and releasing frees none (freed inodes make later
 * file creations slower on ext4), and an entry never exists without its record.
 */
interface OwnerFile {
  file: string;
  fd: number;
  dev: number;
  ino: number;
}

function ownerFileFor(stateDir: string): OwnerFile {
  const known = processLocks.ownerFiles.get(stateDir);
  if (known !== undefined) return known;
  const file = path.join(stateDir, LOCK_DIRS_SUBDIR, listFileName(currentProcess()).replace(/\.dirs$/, ".owner"));
  writeFileSync(file, recordText(), { mode: 0o644 });
  const fd = openSync(file, constants.O_RDONLY | NOFOLLOW);
  const stats = fstatSync(fd);
  const owner = { file, fd, dev: stats.dev, ino: stats.ino };
  processLocks.ownerFiles.set(stateDir, owner);
  return owner;
}

/** Errors of link() that mean no hard link can be made here (another device, a file system without them). */
const NO_HARD_LINKS = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

/** Creates the entry with our record (a link to the owner file where possible), or answers undefined when it exists. */
export function createEntry(entry: string, at: (real: string) => string, target: string, stateDir: string): HeldEntry | undefined {
  const name = at(entry);
  const dir = path.dirname(entry);
  if (!processLocks.unlinkable.has(dir)) {
    let owner: OwnerFile | undefined;
    try {
      owner = ownerFileFor(stateDir);
    } catch (error) {
      log.warn("could not write this process's lock owner record in the state directory", { error });
    }
    if (owner !== undefined) {
      try {
        linkSync(owner.file, name);
        return { entry, at, target, fd: owner.fd, ownFd: false, dev: owner.dev, ino: owner.ino, token: PROCESS_TOKEN, lost: undefined };
      } catch (error) {
        const code = errnoOf(error) ?? "";
        if (code === "EEXIST") return undefined;
        if (code === "ENOENT" && !existsSync(owner.file)) {
          // Removed behind our back (a cleaned state directory): written again next time.
          processLocks.ownerFiles.delete(stateDir);
          closeSync(owner.fd);
          return createEntry(entry, at, target, stateDir);
        }
        if (!NO_HARD_LINKS.has(code)) throw error;
        processLocks.unlinkable.add(dir);
      }
    }
  }
  let fd: number;
  try {
    fd = openSync(name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644);
  } catch (error) {
    if (errnoOf(error) === "EEXIST") return undefined;
    throw error;
  }
  try {
    writeSync(fd, recordText());
    const stats = fstatSync(fd);
    return { entry, at, target, fd, ownFd: true, dev: stats.dev, ino: stats.ino, token: PROCESS_TOKEN, lost: undefined };
  } catch (error) {
    closeSync(fd);
    removeIfPresentSync(name);
    throw error;
  }
}

/** What an existing entry held when read: its bytes and the facts that tell one entry from its successor. */
export interface EntryReading {
  text: string;
  owner: OwnerRecord | undefined;
  ino: number;
  mtimeMs: number;
}

export function readEntry(entry: string): EntryReading | undefined {
  let fd: number;
  try {
    fd = openSync(entry, constants.O_RDONLY | NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = errnoOf(error);
    if (isMissing(error)) return undefined;
    // A link or something else planted under the name: judged by its own mtime like an unreadable record.
    if (code === "ELOOP" || code === "EACCES" || code === "EPERM") {
      try {
        const stats = lstatSync(entry);
        return { text: "", owner: undefined, ino: stats.ino, mtimeMs: stats.mtimeMs };
      } catch (statError) {
        if (isMissing(statError)) return undefined;
        throw statError;
      }
    }
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    const buffer = Buffer.alloc(MAX_RECORD_BYTES);
    const length = stats.isFile() ? readSync(fd, buffer, 0, buffer.length, 0) : 0;
    const text = buffer.subarray(0, length).toString("utf8");
    return { text, owner: parseOwner(text), ino: stats.ino, mtimeMs: stats.mtimeMs };
  } finally {
    closeSync(fd);
  }
}

function parseOwner(text: string): OwnerRecord | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!isValidIdentity(parsed) || typeof (parsed as Partial<OwnerRecord>).token !== "string") return undefined;
    return parsed as OwnerRecord;
  } catch {
    return undefined;
  }
}

/** Whether the lock `entry` read in `reading` is stale: its holder is gone, or nothing shows it is alive. */
export function isStale(entry: string, reading: EntryReading): boolean {
  const age = Date.now() - reading.mtimeMs;
  const owner = reading.owner;
  // No record: a writer is between creating the entry and writing its record (microseconds), or died there.
  if (owner === undefined) return age > LOCK_TUNING.unreadableGraceMs;
  const self = currentProcess();
  if (owner.token === PROCESS_TOKEN && owner.pid === self.pid && owner.host === self.host) {
    // Ours by its record, yet not a lock this process holds: left by a release that failed.
    return !processLocks.held.has(entry);
  }
  const liveness = livenessOf(owner);
  if (liveness === "dead") return true;
  return liveness === "unknown" && age > LOCK_TUNING.staleMs;
}

/**
 * Removes a stale entry, but only the one judged: it is renamed to a name of our own first, and
 * deleted only if it still holds what was read. One moved by mistake (a live successor, after
 * another recoverer won the race) is linked back; if even its name was taken meanwhile, its holder
 * finds its lock gone before its commit point (assertHeld) and refuses.
 */
export function removeStale(entry: string, judged: EntryReading): void {
  const aside = `${entry}.${process.pid}-${uniqueTag()}`;
  try {
    renameSync(entry, aside);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  let moved: EntryReading | undefined;
  try {
    moved = readEntry(aside);
  } catch {
    moved = undefined;
  }
  const same = moved !== undefined && moved.ino === judged.ino && moved.text === judged.text && (judged.owner !== undefined || moved.mtimeMs === judged.mtimeMs);
  if (!same) {
    try {
      linkSync(aside, entry);
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") {
        // No hard links on this file system: renamed back unless the name was taken meanwhile.
        try {
          lstatSync(entry);
        } catch (statError) {
          if (isMissing(statError)) {
            renameSync(aside, entry);
            return;
          }
        }
        log.warn("could not put back a write lock moved aside", { entry, error });
      }
    }
  } else {
    log.debug("removed the lock of a writer that is gone", { entry, pid: judged.owner?.pid });
  }
  removeIfPresentSync(aside);
}

// ---------------------------------------------------------------------------------------------
// The directories a process may leave lock entries in.

function listFileName(identity: ProcessIdentity): string {
  return `${identity.pid}-${identity.startTime ?? "x"}-${createHash("sha256").update(identity.host).digest("hex").slice(0, 16)}.dirs`;
}

/**
 * Adds `dir` to this process's list before its first lock entry there (one append per directory and
 * process), or as `created` before the process creates it for a lock entry.
 */
export function listDirectory(stateDir: string, dir: string, created = false): void {
  let listed = processLocks.listed.get(stateDir);
  if (!created && listed?.dirs.has(dir)) return;
  try {
    if (listed === undefined) {
      const file = path.join(stateDir, LOCK_DIRS_SUBDIR, listFileName(currentProcess()));
      appendFileSync(file, `${JSON.stringify(currentProcess())}\n`, { mode: 0o600 });
      listed = { file, dirs: new Set() };
      processLocks.listed.set(stateDir, listed);
    }
    appendFileSync(listed.file, `${JSON.stringify(created ? { created: dir } : dir)}\n`);
    if (!created) listed.dirs.add(dir);
  } catch (error) {
    // The lock works without it; only the tidying after a crash of this process would miss the directory.
    log.warn("could not list a directory of write locks in the state directory", { dir, error });
  }
}

/** The files this process keeps in state directories (its directory lists and owner records), removed when it exits. */
export function processFiles(): string[] {
  return [...[...processLocks.listed.values()].map((listed) => listed.file), ...[...processLocks.ownerFiles.values()].map((owner) => owner.file)];
}
