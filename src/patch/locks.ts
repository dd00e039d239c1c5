/**
 * Writer locks: an in-process FIFO queue per canonical path, plus a cross-process lock taken with
 * proper-lockfile. Lock files live in the state directory, named by a SHA-256 of the canonical
 * path, never next to the file in the repository. Paths are locked in sorted order, so two
 * batches over the same paths can never wait for each other in a cycle.
 *
 * proper-lockfile creates a lock directory with mkdir. Here that mkdir is replaced (through its
 * `fs` option) by an atomic rename of a directory that already contains an owner record (pid,
 * process start time, host, token), so a lock always names its holder: when the holder died
 * (SIGKILL, crash) the next writer removes the lock at once instead of waiting for it to go stale.
 * proper-lockfile's mtime staleness still covers holders whose liveness cannot be checked
 * (another host, an unreadable record).
 */
import { createHash, randomBytes } from "node:crypto";
import * as nodeFs from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import lockfile from "proper-lockfile";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { errnoOf, isMissing, overwriteInPlaceSync } from "./durable-fs.ts";
import { currentProcess, isValidIdentity, livenessOf, type ProcessIdentity } from "./process-identity.ts";
import { LOCKS_SUBDIR, stateDirectory } from "./state-dir.ts";

const OWNER_FILE = "owner.json";

interface OwnerRecord extends ProcessIdentity {
  token: string;
  /** The canonical path locked, for people reading the state directory. */
  path: string;
}

/** Handed to the locked function: lets it confirm, before its commit point, that no lock was lost. */
export interface HeldLocks {
  assertHeld(): void;
}

export interface LockOptions {
  timeoutMs?: number;
  stateDir?: string;
  /**
   * Resolve with the result as soon as `fn` has succeeded and release the locks after: the caller's
   * answer does not wait for the lock files to go. Writers in this process still queue behind the
   * release; a failed `fn` releases before its error is thrown.
   */
  releaseAfterAnswer?: boolean;
}

/** Releases still running for batches that have answered (see LockOptions.releaseAfterAnswer). */
const pendingReleases = new Set<Promise<void>>();

/** Resolves once the locks of every batch that has answered are released (before the process exits). */
export async function settleLockReleases(): Promise<void> {
  await Promise.allSettled([...pendingReleases]);
}

/** Unique within this process (a counter) and across processes (a random prefix); no secret, so no random bytes per call. */
const TAG_PREFIX = randomBytes(6).toString("hex");
let tagCounter = 0;
function randomTag(): string {
  tagCounter += 1;
  return `${TAG_PREFIX}${tagCounter.toString(16)}`;
}

function lockTimeout(target: string, timeoutMs: number): ToolError {
  return new ToolError("lock_timeout", `Another writer holds ${target}; it was not released within ${timeoutMs} ms.`, { details: { path: target } });
}

// ---------------------------------------------------------------------------------------------
// Lock directories with owner records (the `fs` given to proper-lockfile).

/** Who is about to hold a lock: the owner record without the token of the directory it will get. */
interface OwnerIntent {
  identity: ProcessIdentity;
  path: string;
}

/** The record a lock directory holds. */
function ownerRecord(intent: OwnerIntent, token: string): OwnerRecord {
  return { ...intent.identity, token, path: intent.path };
}

/** Owners waiting for their lock directory to be created, by lock directory path. */
const pendingOwners = new Map<string, OwnerIntent>();
/** Tokens of the lock directories this process holds, by lock directory path. */
const heldTokens = new Map<string, string>();

function readOwner(lockDir: string): OwnerRecord | undefined {
  try {
    const parsed = JSON.parse(nodeFs.readFileSync(path.join(lockDir, OWNER_FILE), "utf8")) as unknown;
    if (!isValidIdentity(parsed) || typeof (parsed as Partial<OwnerRecord>).token !== "string") return undefined;
    return parsed as OwnerRecord;
  } catch {
    return undefined;
  }
}

function lockExistsError(lockDir: string): Error {
  return Object.assign(new Error(`${lockDir} exists`), { code: "EEXIST" });
}

/**
 * Lock directories this process released, kept for its next locks (by locks directory): making
 * and removing a directory costs ~0.2 ms each on ext4, while rewriting the owner record of a
 * spare and renaming it costs a few µs. Spares carry debris names (<name>.lock.<pid>-<tag>.new or
 * .dead), so those a process leaves behind are removed by cleanLockLeftovers once it is gone.
 */
interface SpareLockDir {
  dir: string;
  /** The owner record it holds, as this process wrote it. */
  holds: OwnerRecord;
}
const spareDirs = new Map<string, SpareLockDir[]>();

/** A spare of this locks directory, preferring one that last locked `lockedPath` (its record then needs no rewrite). */
function takeSpare(locksDir: string, lockedPath: string): SpareLockDir | undefined {
  const pool = spareDirs.get(locksDir);
  if (pool === undefined || pool.length === 0) return undefined;
  const index = pool.findLastIndex((spare) => spare.holds.path === lockedPath);
  return pool.splice(index === -1 ? pool.length - 1 : index, 1)[0];
}

/** Keeps `dir` (moved aside, holding the owner record `holds`) for reuse, or removes it when enough are kept. */
function keepSpare(dir: string, holds: OwnerRecord): void {
  const locksDir = path.dirname(dir);
  let pool = spareDirs.get(locksDir);
  if (pool === undefined) {
    pool = [];
    spareDirs.set(locksDir, pool);
  }
  if (pool.length < LIMITS.locks.spareDirectories) pool.push({ dir, holds });
  else removeTombSync(dir);
}

/** Writes the owner record in place (a spare's inode and data block are reused, not freed and allocated again). */
function writeOwnerRecord(dir: string, owner: OwnerRecord): void {
  overwriteInPlaceSync(path.join(dir, OWNER_FILE), Buffer.from(JSON.stringify(owner), "utf8"));
}

/**
 * A directory holding a record of `intent`, ready to be renamed into place, and that record: a
 * spare when one is usable, else a new one. A spare that last locked the same path keeps its
 * record, token included, so nothing is written: the token names a lock directory of this
 * process, and the release before its reuse checked it was still ours.
 */
function readyLockDir(lockDir: string, intent: OwnerIntent): { dir: string; owner: OwnerRecord } {
  for (let spare = takeSpare(path.dirname(lockDir), intent.path); spare !== undefined; spare = takeSpare(path.dirname(lockDir), intent.path)) {
    try {
      // Every spare is this process's own, so its record differs from the one wanted in the path at most.
      const keeps = spare.holds.path === intent.path;
      const owner = keeps ? spare.holds : ownerRecord(intent, randomTag());
      prepareLockDir(spare.dir, keeps ? undefined : owner);
      return { dir: spare.dir, owner };
    } catch {
      // Removed behind our back (a cleaned state directory): forget it and try the next.
      nodeFs.rmSync(spare.dir, { recursive: true, force: true });
    }
  }
  const fresh = `${lockDir}.${process.pid}-${randomTag()}.new`;
  const owner = ownerRecord(intent, randomTag());
  nodeFs.mkdirSync(fresh, { mode: 0o700 });
  try {
    prepareLockDir(fresh, owner);
  } catch (error) {
    nodeFs.rmSync(fresh, { recursive: true, force: true });
    throw error;
  }
  return { dir: fresh, owner };
}

/** Writes `owner` into `dir` (unless undefined: the record there stands) and refreshes its mtime. */
function prepareLockDir(dir: string, owner: OwnerRecord | undefined): void {
  if (owner !== undefined) writeOwnerRecord(dir, owner);
  // Staleness is judged by the directory's mtime, which neither a rename nor an in-place rewrite refreshes.
  const now = new Date();
  nodeFs.utimesSync(dir, now, now);
}

/** mkdir for proper-lockfile: the lock directory appears atomically, owner record inside. */
function createLockDir(lockDir: string): void {
  const intent = pendingOwners.get(lockDir);
  if (intent === undefined) throw new Error(`no owner registered for ${lockDir}`);
  const { dir: staging, owner } = readyLockDir(lockDir, intent);
  try {
    // Renaming onto an existing lock directory fails because that directory is never empty.
    nodeFs.renameSync(staging, lockDir);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOTEMPTY" || code === "EEXIST" || (code === "EPERM" && process.platform === "win32")) {
      keepSpare(staging, owner);
      throw lockExistsError(lockDir);
    }
    nodeFs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  heldTokens.set(lockDir, owner.token);
}

/**
 * Moves a lock directory aside and deletes it (or, for our own lock, keeps it as a spare), but
 * only if it still carries `token`: one that carries another record (a lock taken by someone else
 * meanwhile) or none readable is put back. The check after the move is the only one needed: until
 * then the directory stands where it was.
 */
function removeLockDir(lockDir: string, token: string, own = false): void {
  const tomb = `${lockDir}.${process.pid}-${randomTag()}.dead`;
  try {
    nodeFs.renameSync(lockDir, tomb);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  const moved = readOwner(tomb);
  if (moved?.token !== token) {
    try {
      nodeFs.renameSync(tomb, lockDir);
      return;
    } catch {
      // The name was taken again meanwhile; the displaced holder loses its lock either way.
    }
  }
  if (own && moved !== undefined) keepSpare(tomb, moved);
  else removeTombSync(tomb);
}

/** Deletes a lock directory moved aside: its owner record, then the directory (rm -r would list it first). */
function removeTombSync(tomb: string): void {
  try {
    nodeFs.unlinkSync(path.join(tomb, OWNER_FILE));
    nodeFs.rmdirSync(tomb);
  } catch {
    nodeFs.rmSync(tomb, { recursive: true, force: true });
  }
}

/** rmdir for proper-lockfile: releases our own lock, or removes one it judged stale. */
function releaseOrRemoveStale(lockDir: string): void {
  const mine = heldTokens.get(lockDir);
  if (mine !== undefined) {
    heldTokens.delete(lockDir);
    removeLockDir(lockDir, mine, true);
    return;
  }
  const owner = readOwner(lockDir);
  if (owner !== undefined) {
    removeLockDir(lockDir, owner.token);
    return;
  }
  try {
    // A lock directory without a readable owner record (not made by this code): plain removal.
    nodeFs.rmSync(lockDir, { recursive: true, force: true });
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function removeOwnLockSync(lockDir: string): void {
  const mine = heldTokens.get(lockDir);
  if (mine === undefined) return;
  heldTokens.delete(lockDir);
  try {
    if (readOwner(lockDir)?.token !== mine) return;
    const tomb = `${lockDir}.${process.pid}-${randomTag()}.dead`;
    nodeFs.renameSync(lockDir, tomb);
    nodeFs.rmSync(tomb, { recursive: true, force: true });
  } catch {
    // Exiting: whatever is left is recovered by the next writer through the owner record.
  }
}

/**
 * Runs a synchronous step and answers proper-lockfile's callback at once (as its own lockSync
 * does): a lock costs a handful of system calls of a few µs each instead of as many thread-pool
 * round trips.
 */
function answer<T>(step: () => T, callback: (error: Error | null, result?: T) => void): void {
  let result: T;
  try {
    result = step();
  } catch (error) {
    callback(error as Error);
    return;
  }
  callback(null, result);
}

const lockFs = {
  mkdir(lockDir: string, callback: (error: Error | null) => void): void {
    answer(() => createLockDir(lockDir), callback);
  },
  rmdir(lockDir: string, callback: (error: Error | null) => void): void {
    answer(() => releaseOrRemoveStale(lockDir), callback);
  },
  // proper-lockfile's exit handler.
  rmdirSync: removeOwnLockSync,
  stat(file: string, callback: (error: Error | null, stats?: nodeFs.Stats) => void): void {
    answer(() => nodeFs.statSync(file), callback);
  },
  utimes: nodeFs.utimes,
};

/** Removes the lock directory when its owner record names a process that no longer runs. */
function removeIfOwnerDead(lockDir: string): boolean {
  const owner = readOwner(lockDir);
  if (owner === undefined || livenessOf(owner) !== "dead") return false;
  removeLockDir(lockDir, owner.token);
  log.debug("removed the lock of a writer that is gone", { path: owner.path, pid: owner.pid });
  return true;
}

// ---------------------------------------------------------------------------------------------
// In-process queue.

interface LocalEntry {
  held: boolean;
  waiters: Array<() => void>;
}

const localLocks = new Map<string, LocalEntry>();

function acquireLocal(key: string, deadline: number, timeoutMs: number): Promise<() => void> {
  let entry = localLocks.get(key);
  if (entry === undefined) {
    entry = { held: false, waiters: [] };
    localLocks.set(key, entry);
  }
  const current = entry;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    const next = current.waiters.shift();
    if (next !== undefined) next();
    else {
      current.held = false;
      localLocks.delete(key);
    }
  };
  if (!current.held) {
    current.held = true;
    return Promise.resolve(release);
  }
  return new Promise((resolve, reject) => {
    const grant = () => {
      clearTimeout(timer);
      resolve(release);
    };
    const timer = setTimeout(
      () => {
        const index = current.waiters.indexOf(grant);
        if (index !== -1) current.waiters.splice(index, 1);
        reject(lockTimeout(key, timeoutMs));
      },
      Math.max(0, deadline - Date.now()),
    );
    current.waiters.push(grant);
  });
}

// ---------------------------------------------------------------------------------------------
// Cross-process lock.

export function lockDirectoryFor(stateDir: string, canonicalPath: string): string {
  return path.join(stateDir, LOCKS_SUBDIR, `${createHash("sha256").update(canonicalPath).digest("hex")}.lock`);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function acquireCrossProcess(
  canonicalPath: string,
  stateDir: string,
  deadline: number,
  timeoutMs: number,
  lost: Error[],
): Promise<() => Promise<void>> {
  const lockDir = lockDirectoryFor(stateDir, canonicalPath);
  let delay = 5;
  for (;;) {
    pendingOwners.set(lockDir, { identity: currentProcess(), path: canonicalPath });
    try {
      const release = await lockfile.lock(canonicalPath, {
        realpath: false,
        lockfilePath: lockDir,
        stale: LIMITS.locks.staleMs,
        update: LIMITS.locks.staleMs / 2,
        retries: 0,
        fs: lockFs,
        onCompromised: (error: Error) => {
          lost.push(error);
          log.error("a write lock was lost (not refreshed within the stale time); the write will be refused", { path: canonicalPath, error });
        },
      });
      return async () => {
        try {
          await release();
        } catch (error) {
          if (errnoOf(error) !== "ERELEASED") log.warn("could not release a write lock", { path: canonicalPath, error });
        } finally {
          heldTokens.delete(lockDir);
        }
      };
    } catch (error) {
      if (errnoOf(error) !== "ELOCKED") {
        throw new ToolError("io_error", `Could not take the write lock for ${canonicalPath}: ${(error as Error).message}`, { details: { path: canonicalPath } });
      }
    } finally {
      pendingOwners.delete(lockDir);
    }
    if (removeIfOwnerDead(lockDir)) continue;
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw lockTimeout(canonicalPath, timeoutMs);
    await sleep(Math.min(remaining, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 100);
  }
}

/**
 * Runs `fn` while holding the in-process and cross-process locks of every path (sorted, deduplicated).
 * A lock not obtained within timeoutMs → ToolError lock_timeout; locks are released afterwards
 * whatever happens.
 */
export async function withPathLocks<T>(canonicalPaths: readonly string[], fn: (held: HeldLocks) => Promise<T>, options: LockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? LIMITS.locks.acquireTimeoutMs;
  const stateDir = options.stateDir ?? (await stateDirectory());
  const sorted = [...new Set(canonicalPaths)].sort();
  const deadline = Date.now() + timeoutMs;
  const releases: Array<() => void | Promise<void>> = [];
  const lost: Error[] = [];
  const releaseAll = async () => {
    for (const release of releases.reverse()) await release();
  };
  let result: T;
  try {
    for (const canonicalPath of sorted) {
      releases.push(await acquireLocal(canonicalPath, deadline, timeoutMs));
      releases.push(await acquireCrossProcess(canonicalPath, stateDir, deadline, timeoutMs, lost));
    }
    result = await fn({
      assertHeld() {
        if (lost.length > 0) {
          throw new ToolError("lock_timeout", `A write lock was lost while the batch was prepared (${lost[0]?.message ?? "compromised"}); nothing was committed.`);
        }
      },
    });
  } catch (error) {
    await releaseAll();
    throw error;
  }
  if (!options.releaseAfterAnswer) {
    await releaseAll();
    return result;
  }
  // The release runs synchronously (see lockFs), so it waits for the next turn of the event loop:
  // by then the answer has been written.
  const pending: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(releaseAll)
    .catch((error: unknown) => log.warn("releasing a write lock failed", { error }))
    .finally(() => pendingReleases.delete(pending));
  pendingReleases.add(pending);
  return result;
}

/**
 * Tidies the locks directory: removes locks whose holder is gone and debris of interrupted lock
 * operations. Returns how many entries were removed.
 */
export async function cleanLockLeftovers(stateDir: string): Promise<number> {
  const locksDir = path.join(stateDir, LOCKS_SUBDIR);
  let names: string[];
  try {
    names = await readdir(locksDir);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  let removed = 0;
  const self = currentProcess();
  for (const name of names) {
    const full = path.join(locksDir, name);
    if (name.endsWith(".lock")) {
      if (removeIfOwnerDead(full)) removed += 1;
      continue;
    }
    const debris = /\.lock\.(\d+)-[0-9a-f]+\.(new|dead)$/.exec(name);
    if (debris === null) continue;
    const pid = Number(debris[1]);
    // Debris of a live process may be in use right now; a dead one's never will be.
    if (livenessOf({ pid, startTime: null, host: self.host }) !== "dead") continue;
    await rm(full, { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
