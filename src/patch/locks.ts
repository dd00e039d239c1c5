/**
 * Writer locks: an in-process FIFO queue per target, plus a lock entry beside the target that every
 * writer of the file sees, whatever its state directory, user or sandbox: the entry lives in the
 * target's own directory, which any writer needs to be able to write anyway (a commit stages the new
 * content there and renames it into place). The entry exists only while a commit runs.
 *
 * The entry is a file created with O_EXCL and holding an owner record (pid, process start time, host,
 * token). A lock whose owner is gone (killed, or its pid now names another process) is recovered at
 * once by the next writer: it renames the entry to a name of its own and deletes it only if it is
 * still the record it judged; a live lock moved aside by a recoverer that lost a race is linked back.
 * A holder refreshes its entry's mtime while it holds it, so the lock of a holder whose liveness
 * cannot be checked (another host on a shared file system) goes stale only when that stops.
 * Before its first lock entry in a directory, a process adds the directory to its list in the state
 * directory (LOCK_DIRS_SUBDIR), so that recovery finds the entries of a process that was killed.
 * Targets are locked in sorted order, so two batches can never wait for each other in a cycle.
 */
import { ChangedBeneath } from "../policy/beneath.ts";
import { closeSync, mkdirSync, rmdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { errnoOf, isMissing } from "./durable-fs.ts";
import { stateDirectory } from "../config/state-dir.ts";
import {
  createEntry,
  type EntryReading,
  type HeldEntry,
  type HeldLocks,
  isStale,
  listDirectory,
  lockEntryPath,
  type LockOptions,
  type LockTarget,
  lockTimeout,
  processFiles,
  processLocks,
  readEntry,
  removeStale,
  sameName,
  stillOurs,
  track,
  unableToLock,
  untrack,
} from "./lock-entry.ts";

export { cleanLockLeftovers } from "./lock-leftovers.ts";
export { LOCK_ENTRY_PATTERN, LOCK_TUNING, lockEntryPath, type HeldLocks, type LockOptions, type LockTarget } from "./lock-entry.ts";

/** Creates the directories a lock entry needs (outermost first), listing each first so that a crash leaves none behind unlisted. */
function createDirectories(hooks: Omit<LockTarget, "path">, dirs: readonly string[], stateDir: string): void {
  hooks.created ??= [];
  const at = hooks.at ?? sameName;
  for (const dir of dirs) {
    listDirectory(stateDir, dir, true);
    try {
      mkdirSync(at(dir));
    } catch (error) {
      if (errnoOf(error) === "EEXIST") continue;
      throw error;
    }
    if (!hooks.created.includes(dir)) hooks.created.push(dir);
  }
  hooks.created.sort((a, b) => a.length - b.length);
  const outermost = hooks.created[0];
  if (outermost !== undefined && hooks.removeEmptyUpTo === undefined) hooks.removeEmptyUpTo = path.dirname(outermost);
}

/** How often a missing directory is created again before the lock gives up (another writer may be removing it as empty). */
const DIRECTORY_ATTEMPTS = 5;

/** Takes the lock entry of `target` (in `dir`, named for `name`), waiting until `deadline`. */
async function acquireEntry(
  target: string,
  hooks: Omit<LockTarget, "path">,
  dir: string,
  name: string,
  deadline: number,
  timeoutMs: number,
  stateDir: string,
): Promise<HeldEntry | undefined> {
  const entry = lockEntryPath(dir, name);
  listDirectory(stateDir, dir);
  let delay = 1;
  let directoryAttempts = 0;
  for (;;) {
    let holder: EntryReading | undefined;
    try {
      // Named anew each round: the directory may have been created meanwhile.
      const at = hooks.at ?? sameName;
      const entryName = at(entry);
      const held = createEntry(entry, at, target, stateDir);
      if (held !== undefined) {
        track(held);
        return held;
      }
      holder = readEntry(entryName);
      if (holder === undefined) continue;
      if (isStale(entry, holder)) {
        removeStale(entryName, holder);
        continue;
      }
    } catch (error) {
      // A directory swapped for a link under a held path: the caller answers path_changed.
      if (error instanceof ToolError || error instanceof ChangedBeneath) throw error;
      const code = errnoOf(error);
      if (hooks.skipIfNoDirectory && (code === "ENOENT" || code === "ENOTDIR")) return undefined;
      if (code === "ENOENT") {
        if (hooks.directoriesToCreate === undefined || directoryAttempts >= DIRECTORY_ATTEMPTS) {
          throw new ToolError("file_not_found", `The directory ${dir} does not exist.`, { details: { path: target } });
        }
        directoryAttempts += 1;
        createDirectories(hooks, hooks.directoriesToCreate(), stateDir);
        continue;
      }
      throw unableToLock(target, dir, error);
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw lockTimeout(target, timeoutMs, holder.owner);
    await sleep(Math.min(remaining, delay * (1 + Math.random())));
    delay = Math.min(delay * 2, 50);
  }
}

/** Removes our entry (unless someone replaced it) and closes its descriptor. */
function releaseEntry(held: HeldEntry): void {
  untrack(held);
  try {
    if (stillOurs(held)) unlinkSync(held.at(held.entry));
  } catch (error) {
    if (!isMissing(error)) log.warn("could not remove a write lock", { path: held.target, error });
  } finally {
    if (held.ownFd) {
      try {
        closeSync(held.fd);
      } catch {
        // Closed already.
      }
    }
  }
}

/** Removes `dir` and its parents while they are empty, stopping below `bound`. */
function removeEmptyDirectories(dir: string, bound: string, at: (real: string) => string): void {
  let current = dir;
  while (current !== bound && (relativeInside(bound, current, path.sep) ?? "") !== "") {
    try {
      rmdirSync(at(current));
    } catch {
      // Not empty (or gone): whatever is above holds it too.
      return;
    }
    current = path.dirname(current);
  }
}

// The entries of a process that exits normally go with it; a killed one's are recovered by the next writer.
process.on("exit", () => {
  for (const held of [...processLocks.held.values()]) releaseEntry(held);
  for (const file of processFiles()) {
    try {
      unlinkSync(file);
    } catch {
      // Gone already; one left behind is removed by the next recovery.
    }
  }
});

// ---------------------------------------------------------------------------------------------
// In-process queue.

function acquireLocal(key: string, target: string, deadline: number, timeoutMs: number): Promise<() => void> {
  let entry = processLocks.queues.get(key);
  if (entry === undefined) {
    entry = { held: false, waiters: [] };
    processLocks.queues.set(key, entry);
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
      processLocks.queues.delete(key);
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
        reject(lockTimeout(target, timeoutMs));
      },
      Math.max(0, deadline - Date.now()),
    );
    current.waiters.push(grant);
  });
}

// ---------------------------------------------------------------------------------------------
// Locking targets.

/** A held lock of one target: the lock entry beside it and this process's queue slot. */
interface TargetLock {
  /** Throws lock_timeout when the lock entry no longer stands as ours. */
  assertHeld(): void;
  release(): void;
}

/**
 * Takes the lock of the file `name` in the directory `dir` (both as the caller resolved them),
 * waiting until `deadline` (epoch ms). Locks of several targets must be taken in a fixed order
 * (withPathLocks sorts them).
 */
async function lockTarget(
  dir: string,
  name: string,
  deadline: number,
  hooks: Omit<LockTarget, "path"> = {},
  options: { timeoutMs?: number; stateDir: string },
): Promise<TargetLock> {
  const target = path.join(dir, name);
  const timeoutMs = options.timeoutMs ?? LIMITS.locks.acquireTimeoutMs;
  const entry = lockEntryPath(dir, name);
  const releaseLocal = await acquireLocal(entry, target, deadline, timeoutMs);
  let held: HeldEntry | undefined;
  try {
    held = await acquireEntry(target, hooks, dir, name, deadline, timeoutMs, options.stateDir);
  } catch (error) {
    releaseLocal();
    throw error;
  }
  let released = false;
  return {
    assertHeld() {
      if (held === undefined) return;
      const lost = held.lost ?? (stillOurs(held) ? undefined : `the lock entry ${held.entry} was removed or replaced`);
      if (lost !== undefined) {
        throw new ToolError("lock_timeout", `The write lock of ${target} was lost while the batch was prepared (${lost}); nothing was committed.`, { details: { path: target } });
      }
    },
    release() {
      if (released) return;
      released = true;
      if (held !== undefined) releaseEntry(held);
      releaseLocal();
      // Read now: the caller may have decided meanwhile (after its commit) that they should go.
      if (hooks.removeEmptyUpTo !== undefined) removeEmptyDirectories(dir, hooks.removeEmptyUpTo, hooks.at ?? sameName);
    },
  };
}

/**
 * Runs `fn` while holding the lock of every target (sorted by path, deduplicated). A lock not
 * obtained within timeoutMs → ToolError lock_timeout; the locks are released before the result or
 * error is handed on, whatever happens.
 */
export async function withPathLocks<T>(targets: ReadonlyArray<string | LockTarget>, fn: (held: HeldLocks) => Promise<T>, options: LockOptions = {}): Promise<T> {
  const timeoutMs: number = options.timeoutMs ?? LIMITS.locks.acquireTimeoutMs;
  const stateDir = options.stateDir ?? (await stateDirectory());
  const byPath = new Map<string, LockTarget>();
  for (const target of targets) {
    const lock = typeof target === "string" ? { path: target } : target;
    if (!byPath.has(lock.path)) byPath.set(lock.path, lock);
  }
  const sorted = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const deadline = Date.now() + timeoutMs;
  const locks: TargetLock[] = [];
  try {
    for (const lock of sorted) locks.push(await lockTarget(path.dirname(lock.path), path.basename(lock.path), deadline, lock, { timeoutMs, stateDir }));
    return await fn({
      assertHeld() {
        for (const lock of locks) lock.assertHeld();
      },
    });
  } finally {
    for (const lock of locks.reverse()) lock.release();
  }
}
