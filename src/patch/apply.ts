/**
 * Applying, inspecting and reverting journaled operations. Rollback is decided from what is on
 * disk, not from what the writer remembers: each op's files are hashed and classified as old,
 * new, half-moved (a rename between link and unlink) or conflict (neither: someone else changed
 * it). The same code serves a writer undoing its own failed batch and recovery after a crash.
 */
import { closeSync, constants, fchmodSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, rmdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { ToolError, isToolError } from "../core/errors.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { errnoOf, fsyncDirectories, inspectFile, isMissing, removeIfPresentSync, stageCopy, type FileFacts } from "./durable-fs.ts";
import { imagePath, type BatchRecord, type JournalOp } from "./journal-store.ts";

export type OpState = "old" | "new" | "half-moved" | "conflict";

export interface OpInspection {
  state: OpState;
  /** For a conflict: the paths that are neither old nor new, and why. */
  offending: string[];
  reason: string;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Staged and scratch files of op `index`, named by batch so recovery finds them without scanning. */
export function tempPath(dir: string, batchId: string, index: number, purpose: "stage" | "restore" | "back"): string {
  const suffix = purpose === "stage" ? "" : `.${purpose}`;
  return path.join(dir, `.ast-mcp-${batchId}-${index}${suffix}.tmp`);
}

function allTempPaths(record: BatchRecord, index: number): string[] {
  const op = record.ops[index] as JournalOp;
  const dirs = new Set([path.dirname(op.path), ...(op.to === null ? [] : [path.dirname(op.to)])]);
  const temps: string[] = [];
  for (const dir of dirs) for (const purpose of ["stage", "restore", "back"] as const) temps.push(tempPath(dir, record.id, index, purpose));
  return temps;
}

async function facts(file: string): Promise<FileFacts | null | ToolError> {
  try {
    return await inspectFile(file);
  } catch (error) {
    if (isToolError(error)) return error;
    throw error;
  }
}

async function realpathOrNull(dir: string): Promise<string | null> {
  try {
    return realpathSync.native(dir);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * A parent directory that now resolves elsewhere (a symlink swapped in) must not be written
 * through. A parent that is gone (removed as empty) is judged by its nearest existing ancestor,
 * since restoring would recreate it below that ancestor.
 */
async function parentMoved(dir: string, expectedReal: string): Promise<boolean> {
  let current = dir;
  let expected = expectedReal;
  for (;;) {
    const real = await realpathOrNull(current);
    if (real !== null) return real !== expected;
    const up = path.dirname(current);
    if (up === current) return false;
    current = up;
    expected = path.dirname(expected);
  }
}

function conflict(offending: string[], reason: string): OpInspection {
  return { state: "conflict", offending, reason };
}

function settled(state: Exclude<OpState, "conflict">): OpInspection {
  return { state, offending: [], reason: "" };
}

export async function inspectOp(op: JournalOp): Promise<OpInspection> {
  if (await parentMoved(path.dirname(op.path), op.parentReal)) return conflict([op.path], "its directory now resolves elsewhere");
  const current = await facts(op.path);
  if (current instanceof ToolError) return conflict([op.path], current.message);
  const hash = current?.sha256 ?? null;
  switch (op.kind) {
    case "write":
      if (hash === op.before) return settled("old");
      if (hash === op.after) return settled("new");
      return conflict([op.path], "its content is neither the journaled before nor after content");
    case "delete":
      if (hash === null) return settled("new");
      if (hash === op.before) return settled("old");
      return conflict([op.path], "its content is not the journaled before content");
    case "chmod":
      if (current === null || hash !== op.before) return conflict([op.path], "its content changed");
      if (current.mode === op.beforeMode) return settled("old");
      if (current.mode === op.afterMode) return settled("new");
      return conflict([op.path], "its mode is neither the journaled before nor after mode");
    case "rename": {
      const to = op.to as string;
      if (op.toParentReal !== null && (await parentMoved(path.dirname(to), op.toParentReal))) return conflict([to], "its directory now resolves elsewhere");
      const destination = await facts(to);
      if (destination instanceof ToolError) return conflict([to], destination.message);
      const destinationHash = destination?.sha256 ?? null;
      if (hash === op.before && destinationHash === null) return settled("old");
      if (hash === null && destinationHash === op.before) return settled("new");
      if (hash === op.before && destinationHash === op.before) return settled("half-moved");
      const offending = [...(hash !== op.before && hash !== null ? [op.path] : []), ...(destinationHash !== op.before && destinationHash !== null ? [to] : [])];
      return conflict(offending.length > 0 ? offending : [op.path, to], "the source and destination match neither the journaled before nor after state");
    }
  }
}

/**
 * Whether an op's after state is on disk. Ops whose before and after coincide (a write of the
 * same bytes, a chmod to the same mode) inspect as old yet have landed too.
 */
export function hasLanded(op: JournalOp, inspection: OpInspection): boolean {
  if (inspection.state === "new") return true;
  if (inspection.state !== "old") return false;
  return (op.kind === "write" && op.before === op.after) || (op.kind === "chmod" && op.beforeMode === op.afterMode);
}

// ---------------------------------------------------------------------------------------------
// Forward steps.

/** Removes now-empty directories from `dir` upwards, stopping below `bound`. Returns the directories whose entries changed. */
async function removeEmptyParents(dir: string, bound: string | null): Promise<string[]> {
  const touched: string[] = [];
  if (bound === null) return touched;
  let current = dir;
  while (current !== bound && relativeInside(bound, current, path.sep) !== undefined) {
    try {
      rmdirSync(current);
      touched.push(path.dirname(current));
    } catch (error) {
      if (!isMissing(error)) break;
    }
    current = path.dirname(current);
  }
  return touched;
}

function destinationExists(to: string): ToolError {
  return new ToolError("destination_exists", `${to} already exists; a rename never replaces a file.`, { details: { path: to } });
}

const NO_HARD_LINKS = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK", "EACCES"]);

/**
 * Moves `from` to `to` without ever replacing `to` (Node has no RENAME_NOREPLACE): a hard link
 * then an unlink; across devices or where hard links are unsupported, a staged copy next to `to`
 * that appears under its name atomically, then the unlink.
 */
async function moveNoReplace(from: string, to: string, copyTemp: string, copyMode: { mode: number | null; owner: { uid: number; gid: number } | null }): Promise<void> {
  try {
    linkSync(from, to);
    unlinkSync(from);
    return;
  } catch (error) {
    if (errnoOf(error) === "EEXIST") throw destinationExists(to);
    if (!NO_HARD_LINKS.has(errnoOf(error) ?? "")) throw error;
  }
  removeIfPresentSync(copyTemp);
  await stageCopy(from, copyTemp, copyMode);
  try {
    try {
      linkSync(copyTemp, to);
      unlinkSync(copyTemp);
    } catch (error) {
      if (errnoOf(error) === "EEXIST") throw destinationExists(to);
      if (!NO_HARD_LINKS.has(errnoOf(error) ?? "")) throw error;
      // No hard links at all here: the destination is checked under our lock, then renamed onto.
      try {
        lstatSync(to);
        throw destinationExists(to);
      } catch (statError) {
        if (!isMissing(statError)) throw statError;
      }
      renameSync(copyTemp, to);
    }
  } catch (error) {
    removeIfPresentSync(copyTemp);
    throw error;
  }
  unlinkSync(from);
}

/** chmod through a descriptor opened without following links, refusing files with other names. */
function changeMode(file: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | NOFOLLOW | NONBLOCK);
  } catch (error) {
    if (errnoOf(error) === "ELOOP") throw new ToolError("path_denied", `${file} is now a symbolic link; its mode is not changed.`);
    throw error;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new ToolError("not_a_file", `${file} is not a regular file.`);
    if (stats.nlink > 1) throw hardLinked(file, stats.nlink);
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

export function hardLinked(file: string, nlink: number): ToolError {
  return new ToolError("path_denied", `${file} has ${nlink} hard links; changing its mode would change every name of it, possibly outside the workspace roots.`, {
    details: { path: file, nlink },
  });
}

/** Performs op `index` (its temp file is staged already). Returns directories whose entries changed. */
export async function applyOp(record: BatchRecord, index: number, stagedMode: { mode: number | null; owner: { uid: number; gid: number } | null }): Promise<string[]> {
  const op = record.ops[index] as JournalOp;
  switch (op.kind) {
    case "write":
      renameSync(op.temp as string, op.path);
      return [path.dirname(op.path)];
    case "delete":
      unlinkSync(op.path);
      return [path.dirname(op.path), ...(await removeEmptyParents(path.dirname(op.path), op.removeEmptyParentsUpTo))];
    case "rename": {
      const to = op.to as string;
      await moveNoReplace(op.path, to, op.temp as string, stagedMode);
      return [path.dirname(op.path), path.dirname(to), ...(await removeEmptyParents(path.dirname(op.path), op.removeEmptyParentsUpTo))];
    }
    case "chmod":
      changeMode(op.path, op.afterMode as number);
      return [];
  }
}

/** Finishes a landed op whose writer died before tidying up (roll forward). */
export async function finishOp(op: JournalOp): Promise<string[]> {
  if (op.kind === "delete" || op.kind === "rename") return removeEmptyParents(path.dirname(op.path), op.removeEmptyParentsUpTo);
  return [];
}

// ---------------------------------------------------------------------------------------------
// Reverse steps.

async function removeCreatedDirs(op: JournalOp): Promise<string[]> {
  const touched: string[] = [];
  for (const dir of [...op.createdDirs].reverse()) {
    try {
      rmdirSync(dir);
      touched.push(path.dirname(dir));
    } catch (error) {
      // Never created (the writer died while creating the chain) or already gone: look further up.
      if (isMissing(error)) continue;
      // Not empty: someone else put something there; it and its parents stay.
      break;
    }
  }
  return touched;
}

/** Puts the before-image of op `index` back at its path, atomically. */
async function restoreImage(stateDir: string, record: BatchRecord, index: number): Promise<void> {
  const op = record.ops[index] as JournalOp;
  mkdirSync(path.dirname(op.path), { recursive: true });
  const scratch = tempPath(path.dirname(op.path), record.id, index, "restore");
  removeIfPresentSync(scratch);
  const hash = await stageCopy(imagePath(stateDir, record, op.image as string), scratch, { mode: op.beforeMode, owner: op.beforeOwner });
  if (hash !== op.before) {
    removeIfPresentSync(scratch);
    throw new ToolError("io_error", `The journaled before-image of ${op.path} is damaged (hash mismatch); the file was left as it is.`, { retryable: false });
  }
  renameSync(scratch, op.path);
}

/** Returns op `index` (inspected as `state`, not a conflict) to its before state. Returns directories whose entries changed. */
async function revertOp(stateDir: string, record: BatchRecord, index: number, state: Exclude<OpState, "conflict">): Promise<string[]> {
  const op = record.ops[index] as JournalOp;
  const touched = [path.dirname(op.path)];
  switch (op.kind) {
    case "write":
      if (state === "new" && op.before === null) unlinkSync(op.path);
      else if (state === "new") await restoreImage(stateDir, record, index);
      else if (op.before !== null && op.beforeMode !== null) {
        // Same content before and after, perhaps a different mode: put the mode back.
        const current = await inspectFile(op.path);
        if (current !== null && current.mode !== op.beforeMode) changeMode(op.path, op.beforeMode);
      }
      if (op.before === null) touched.push(...(await removeCreatedDirs(op)));
      return touched;
    case "delete":
      if (state === "new") await restoreImage(stateDir, record, index);
      return touched;
    case "rename": {
      const to = op.to as string;
      if (state === "new") {
        mkdirSync(path.dirname(op.path), { recursive: true });
        await moveNoReplace(to, op.path, tempPath(path.dirname(op.path), record.id, index, "back"), { mode: op.beforeMode, owner: op.beforeOwner });
      } else if (state === "half-moved") {
        unlinkSync(to);
      }
      touched.push(path.dirname(to), ...(await removeCreatedDirs(op)));
      return touched;
    }
    case "chmod":
      if (state === "new") changeMode(op.path, op.beforeMode as number);
      return touched;
  }
}

export interface RollbackOutcome {
  conflicts: Array<{ path: string; reason: string }>;
}

/** Removes every staged or scratch file of the batch. */
export async function removeTemps(record: BatchRecord): Promise<void> {
  for (let index = 0; index < record.ops.length; index += 1) for (const temp of allTempPaths(record, index)) removeIfPresentSync(temp);
}

/** Makes the entries of every directory durable (their fsyncs run side by side). */
export async function fsyncAll(dirs: Iterable<string>): Promise<void> {
  await fsyncDirectories(dirs);
}

/**
 * Brings every op of the batch back to its before state, last op first, leaving conflicting
 * files alone, then removes staged files. Safe to repeat: each step looks at the disk first.
 * A writer rolling back its own batch passes `reached`, the last op it began to apply: later ops
 * are known untouched (only their staging is undone), so a directory swapped under one of them
 * after the abort is not even looked at.
 */
export async function rollbackRecord(stateDir: string, record: BatchRecord, reached: number = record.ops.length - 1): Promise<RollbackOutcome> {
  const conflicts: RollbackOutcome["conflicts"] = [];
  const touched: string[] = [];
  // Staged files first: a directory created for a new file is only empty again without them.
  await removeTemps(record);
  for (let index = record.ops.length - 1; index >= 0; index -= 1) {
    const op = record.ops[index] as JournalOp;
    if (index > reached) {
      if (op.kind === "rename" || (op.kind === "write" && op.before === null)) touched.push(...(await removeCreatedDirs(op)));
      continue;
    }
    const inspection = await inspectOp(op);
    if (inspection.state === "conflict") {
      for (const offending of inspection.offending) conflicts.push({ path: offending, reason: inspection.reason });
      continue;
    }
    touched.push(...(await revertOp(stateDir, record, index, inspection.state)));
  }
  await removeTemps(record);
  await fsyncAll(touched);
  return { conflicts };
}
