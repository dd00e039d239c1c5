/**
 * Applying, inspecting and reverting journaled operations. Rollback is decided from what is on
 * disk, not from what the writer remembers: each op's files are hashed and classified as old,
 * new, half-moved (a rename between link and unlink) or conflict (neither: someone else changed
 * it). The same code serves a writer undoing its own failed batch and recovery after a crash.
 * Every call names files through the batch's held directories (BatchDirectories), never by a
 * path another process could redirect; records and messages keep the real paths.
 */
import { closeSync, constants, fchmodSync, fstatSync, linkSync, lstatSync, renameSync, unlinkSync } from "node:fs";
import path from "node:path";
import { ToolError, isToolError } from "../core/errors.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { ChangedBeneath } from "../policy/beneath.ts";
import type { BatchDirectories } from "./batch-directories.ts";
import { errnoOf, fsyncDirectories, inspectFile, isMissing, LINK_REFUSED, removeIfPresentSync, stageCopy, type FileFacts } from "./durable-fs.ts";
import { imagePath, removeBatch, writeRecord, type BatchRecord, type JournalOp } from "./journal-store.ts";

export type OpState = "old" | "new" | "half-moved" | "conflict";

export interface OpInspection {
  state: OpState;
  /** For a conflict: the paths that are neither old nor new, and why. */
  offending: string[];
  reason: string;
}

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

async function facts(dirs: BatchDirectories, file: string): Promise<FileFacts | null | ToolError> {
  try {
    return await inspectFile(dirs.at(file), file);
  } catch (error) {
    if (isToolError(error)) return error;
    if (isMissing(error)) return null;
    if (error instanceof ChangedBeneath) return new ToolError("path_changed", `${error.real} is no longer a directory (${error.reason}); nothing is done through it.`);
    throw error;
  }
}

/**
 * A parent directory that is now a link, or not a directory (something swapped in), must not be
 * written through. A parent that is gone (removed as empty) is judged by its nearest existing
 * ancestor, since restoring would recreate it below that ancestor. Directories already held for
 * this batch are the ones checked: they are used whatever their name shows now.
 */
function parentMoved(dirs: BatchDirectories, dir: string): boolean {
  let current = dir;
  for (;;) {
    try {
      dirs.dir(current);
      return false;
    } catch (error) {
      if (error instanceof ChangedBeneath) return true;
      if (!isMissing(error)) throw error;
    }
    const up = path.dirname(current);
    if (up === current || dirs.rootOf(up) === undefined) return false;
    current = up;
  }
}

function conflict(offending: string[], reason: string): OpInspection {
  return { state: "conflict", offending, reason };
}

function settled(state: Exclude<OpState, "conflict">): OpInspection {
  return { state, offending: [], reason: "" };
}

export async function inspectOp(dirs: BatchDirectories, op: JournalOp): Promise<OpInspection> {
  if (parentMoved(dirs, path.dirname(op.path))) return conflict([op.path], "its directory is now a symbolic link or not a directory");
  const current = await facts(dirs, op.path);
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
      if (parentMoved(dirs, path.dirname(to))) return conflict([to], "its directory is now a symbolic link or not a directory");
      const destination = await facts(dirs, to);
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
async function removeEmptyParents(dirs: BatchDirectories, dir: string, bound: string | null): Promise<string[]> {
  const touched: string[] = [];
  if (bound === null) return touched;
  let current = dir;
  while (current !== bound && relativeInside(bound, current, path.sep) !== undefined) {
    try {
      dirs.removeDirectory(current);
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

/**
 * Moves `from` to `to` without ever replacing `to` (Node has no RENAME_NOREPLACE): a hard link
 * then an unlink; across devices or where hard links are unsupported, a staged copy next to `to`
 * that appears under its name atomically, then the unlink.
 */
async function moveNoReplace(
  dirs: BatchDirectories,
  realFrom: string,
  realTo: string,
  realCopyTemp: string,
  copyMode: { mode: number | null; owner: { uid: number; gid: number } | null },
): Promise<void> {
  const from = dirs.at(realFrom);
  const to = dirs.at(realTo);
  try {
    linkSync(from, to);
    unlinkSync(from);
    return;
  } catch (error) {
    if (errnoOf(error) === "EEXIST") throw destinationExists(realTo);
    if (!LINK_REFUSED.has(errnoOf(error) ?? "")) throw error;
  }
  const copyTemp = dirs.at(realCopyTemp);
  removeIfPresentSync(copyTemp);
  await stageCopy(from, copyTemp, copyMode, realFrom);
  try {
    try {
      linkSync(copyTemp, to);
      unlinkSync(copyTemp);
    } catch (error) {
      if (errnoOf(error) === "EEXIST") throw destinationExists(realTo);
      if (!LINK_REFUSED.has(errnoOf(error) ?? "")) throw error;
      // No hard links at all here: the destination is checked under our lock, then renamed onto.
      try {
        lstatSync(to);
        throw destinationExists(realTo);
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
function changeMode(dirs: BatchDirectories, file: string, mode: number): void {
  let fd: number;
  try {
    fd = dirs.open(file, constants.O_RDONLY | NONBLOCK);
  } catch (error) {
    if (error instanceof ChangedBeneath && error.real === file && error.reason === "link") {
      throw new ToolError("path_denied", `${file} is now a symbolic link; its mode is not changed.`);
    }
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
export async function applyOp(
  dirs: BatchDirectories,
  record: BatchRecord,
  index: number,
  stagedMode: { mode: number | null; owner: { uid: number; gid: number } | null },
): Promise<string[]> {
  const op = record.ops[index] as JournalOp;
  switch (op.kind) {
    case "write":
      renameSync(dirs.at(op.temp as string), dirs.at(op.path));
      return [path.dirname(op.path)];
    case "delete":
      unlinkSync(dirs.at(op.path));
      return [path.dirname(op.path), ...(await removeEmptyParents(dirs, path.dirname(op.path), op.removeEmptyParentsUpTo))];
    case "rename": {
      const to = op.to as string;
      await moveNoReplace(dirs, op.path, to, op.temp as string, stagedMode);
      return [path.dirname(op.path), path.dirname(to), ...(await removeEmptyParents(dirs, path.dirname(op.path), op.removeEmptyParentsUpTo))];
    }
    case "chmod":
      changeMode(dirs, op.path, op.afterMode as number);
      return [];
  }
}

/** Finishes a landed op whose writer died before tidying up (roll forward). */
export async function finishOp(dirs: BatchDirectories, op: JournalOp): Promise<string[]> {
  if (op.kind === "delete" || op.kind === "rename") return removeEmptyParents(dirs, path.dirname(op.path), op.removeEmptyParentsUpTo);
  return [];
}

// ---------------------------------------------------------------------------------------------
// Reverse steps.

async function removeCreatedDirs(dirs: BatchDirectories, op: JournalOp): Promise<string[]> {
  const touched: string[] = [];
  for (const dir of [...op.createdDirs].reverse()) {
    try {
      dirs.removeDirectory(dir);
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
async function restoreImage(dirs: BatchDirectories, stateDir: string, record: BatchRecord, index: number): Promise<void> {
  const op = record.ops[index] as JournalOp;
  dirs.ensureDirectory(path.dirname(op.path));
  const scratch = dirs.at(tempPath(path.dirname(op.path), record.id, index, "restore"));
  removeIfPresentSync(scratch);
  const hash = await stageCopy(imagePath(stateDir, record, op.image as string), scratch, { mode: op.beforeMode, owner: op.beforeOwner });
  if (hash !== op.before) {
    removeIfPresentSync(scratch);
    throw new ToolError("io_error", `The journaled before-image of ${op.path} is damaged (hash mismatch); the file was left as it is.`, { retryable: false });
  }
  renameSync(scratch, dirs.at(op.path));
}

/** Returns op `index` (inspected as `state`, not a conflict) to its before state. Returns directories whose entries changed. */
async function revertOp(dirs: BatchDirectories, stateDir: string, record: BatchRecord, index: number, state: Exclude<OpState, "conflict">): Promise<string[]> {
  const op = record.ops[index] as JournalOp;
  const touched = [path.dirname(op.path)];
  switch (op.kind) {
    case "write":
      if (state === "new" && op.before === null) unlinkSync(dirs.at(op.path));
      else if (state === "new") await restoreImage(dirs, stateDir, record, index);
      else if (op.before !== null && op.beforeMode !== null) {
        // Same content before and after, perhaps a different mode: put the mode back.
        const current = await inspectFile(dirs.at(op.path), op.path);
        if (current !== null && current.mode !== op.beforeMode) changeMode(dirs, op.path, op.beforeMode);
      }
      if (op.before === null) touched.push(...(await removeCreatedDirs(dirs, op)));
      return touched;
    case "delete":
      if (state === "new") await restoreImage(dirs, stateDir, record, index);
      return touched;
    case "rename": {
      const to = op.to as string;
      if (state === "new") {
        dirs.ensureDirectory(path.dirname(op.path));
        await moveNoReplace(dirs, to, op.path, tempPath(path.dirname(op.path), record.id, index, "back"), { mode: op.beforeMode, owner: op.beforeOwner });
      } else if (state === "half-moved") {
        unlinkSync(dirs.at(to));
      }
      touched.push(path.dirname(to), ...(await removeCreatedDirs(dirs, op)));
      return touched;
    }
    case "chmod":
      if (state === "new") changeMode(dirs, op.path, op.beforeMode as number);
      return touched;
  }
}

export interface RollbackOutcome {
  conflicts: Array<{ path: string; reason: string }>;
}

/**
 * Removes every staged or scratch file of the batch, each through its held directory. A
 * directory that is missing holds none; one that is now a link is not looked into.
 */
export async function removeTemps(dirs: BatchDirectories, record: BatchRecord): Promise<void> {
  for (let index = 0; index < record.ops.length; index += 1) {
    for (const temp of allTempPaths(record, index)) {
      let name: string;
      try {
        name = dirs.at(temp);
      } catch (error) {
        if (isMissing(error) || error instanceof ChangedBeneath) continue;
        throw error;
      }
      removeIfPresentSync(name);
    }
  }
}

/** Makes the entries of every directory durable through its held descriptor (their fsyncs run side by side). */
export async function fsyncAll(dirs: BatchDirectories, touched: Iterable<string>): Promise<void> {
  const names: string[] = [];
  for (const dir of new Set(touched)) {
    const name = dirs.selfOf(dir);
    if (name !== undefined) names.push(name);
  }
  await fsyncDirectories(names);
}

/**
 * Brings every op of the batch back to its before state, last op first, leaving conflicting
 * files alone, then removes staged files. Safe to repeat: each step looks at the disk first.
 * Then settles the journal entry: removed when every file is old again, else kept as "conflict"
 * naming the files someone else changed.
 * A writer rolling back its own batch passes `reached`, the last op it began to apply: later ops
 * are known untouched (only their staging is undone), so a directory swapped under one of them
 * after the abort is not even looked at.
 */
export async function rollbackRecord(dirs: BatchDirectories, stateDir: string, record: BatchRecord, reached: number = record.ops.length - 1): Promise<RollbackOutcome> {
  const conflicts: RollbackOutcome["conflicts"] = [];
  const touched: string[] = [];
  // Staged files first: a directory created for a new file is only empty again without them.
  await removeTemps(dirs, record);
  for (let index = record.ops.length - 1; index >= 0; index -= 1) {
    const op = record.ops[index] as JournalOp;
    if (index > reached) {
      if (op.kind === "rename" || (op.kind === "write" && op.before === null)) touched.push(...(await removeCreatedDirs(dirs, op)));
      continue;
    }
    const inspection = await inspectOp(dirs, op);
    if (inspection.state === "conflict") {
      for (const offending of inspection.offending) conflicts.push({ path: offending, reason: inspection.reason });
      continue;
    }
    touched.push(...(await revertOp(dirs, stateDir, record, index, inspection.state)));
  }
  await removeTemps(dirs, record);
  await fsyncAll(dirs, touched);
  if (conflicts.length === 0) {
    await removeBatch(stateDir, record.id);
  } else {
    record.state = "conflict";
    record.recovery = { at: new Date().toISOString(), action: "rollback", conflicts: conflicts.map((entry) => entry.path) };
    await writeRecord(stateDir, record);
  }
  return { conflicts };
}
