/**
 * The journal as tools and the CLI see it: list and show batches, and plan the undo of one.
 * An undo is a new batch: every op of the original becomes the op that restores its before
 * state, conditional on the file still holding what the batch left there. The caller commits
 * those ops through commitBatch, so an undo is journaled (and undoable) too.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { hasLanded, inspectOp } from "./apply.ts";
import { BatchDirectories } from "./batch-directories.ts";
import type { CommitOp } from "./commit.ts";
import { inspectFile } from "./durable-fs.ts";
import { detail, imagePath, pathsOfOp, readAllRecords, requireRecord, summarize, type BatchDetail, type BatchRecord, type BatchSummary, type JournalOp } from "./journal-store.ts";
import { stateDirectory } from "../config/state-dir.ts";
import { relativeInside } from "../helpers/path-text.ts";

export interface JournalAccess {
  /** The state directory; by default the one stateDirectory() finds for this process. */
  stateDir?: string;
}

async function resolveStateDir(options: JournalAccess): Promise<string> {
  return options.stateDir ?? (await stateDirectory());
}

/** Journaled batches, oldest first (ids sort by time); optionally only those of one session. */
export async function listBatches(filter: { sessionId?: string } = {}, options: JournalAccess = {}): Promise<BatchSummary[]> {
  const records = await readAllRecords(await resolveStateDir(options));
  return records.filter((record) => filter.sessionId === undefined || record.sessionId === filter.sessionId).map(summarize);
}

/** A listed batch, with the undo that took it back (or the batch it takes back), as their descriptions record. */
export interface RecentBatch extends BatchSummary {
  /** The batch this one undoes, when it is an undo. */
  undoes: string | null;
  /** The newest batch that undid this one, if any. */
  undoneBy: string | null;
}

/** The description an undo batch is journaled with: how a listing links the two. */
export function undoDescription(batchId: string): string {
  return `undo of ${batchId}`;
}

const UNDO_DESCRIPTION = /^undo of (\S+)$/;

/**
 * The newest journaled batches whose every path lies inside one of `within` (real directory paths),
 * newest first, at most `limit`; `more` counts those left out. A batch that reaches outside is
 * never listed, so a caller sees only what its own workspace could take back.
 */
export async function recentBatches(within: readonly string[], options: { limit: number } & JournalAccess): Promise<{ batches: RecentBatch[]; more: number }> {
  const records = await readAllRecords(await resolveStateDir(options));
  const undoneBy = new Map<string, string>();
  for (const record of records) {
    const undone = UNDO_DESCRIPTION.exec(record.description ?? "")?.[1];
    if (undone !== undefined && record.state === "committed") undoneBy.set(undone, record.id);
  }
  const inside = records
    .filter((record) => record.ops.flatMap(pathsOfOp).every((file) => within.some((dir) => relativeInside(dir, file, path.sep) !== undefined)))
    .reverse();
  const batches = inside.slice(0, options.limit).map((record) => ({
    ...summarize(record),
    undoes: UNDO_DESCRIPTION.exec(record.description ?? "")?.[1] ?? null,
    undoneBy: undoneBy.get(record.id) ?? null,
  }));
  return { batches, more: inside.length - batches.length };
}

/** One batch with its ops and hashes; invalid_input when there is no such batch. */
export async function showBatch(batchId: string, options: JournalAccess = {}): Promise<BatchDetail> {
  return detail(await requireRecord(await resolveStateDir(options), batchId));
}

export interface UndoPlan {
  /** Ops that restore the before state, last original op first. */
  ops: CommitOp[];
  /** Files that no longer hold what the batch left there: undoing would overwrite someone's change (→ undo_conflict). */
  conflicts: string[];
}

async function beforeImage(stateDir: string, record: BatchRecord, op: JournalOp): Promise<Buffer> {
  const file = imagePath(stateDir, record, op.image as string);
  const copy = await inspectFile(file);
  if (copy === null || copy.sha256 !== op.before) {
    throw new ToolError("io_error", `The journaled before-image of ${op.path} in batch ${record.id} is missing or damaged; it cannot be undone.`, { retryable: false });
  }
  return readFile(file);
}

/** The directory above the outermost directory an op created: removing empty parents up to it removes exactly those. */
function aboveCreated(op: JournalOp): { removeEmptyParentsUpTo?: string } {
  const outermost = op.createdDirs[0];
  return outermost === undefined ? {} : { removeEmptyParentsUpTo: path.dirname(outermost) };
}

async function reverseOf(stateDir: string, record: BatchRecord, op: JournalOp): Promise<CommitOp> {
  switch (op.kind) {
    case "write":
      if (op.before === null) return { kind: "delete", path: op.path, expectedBefore: op.after as string, ...aboveCreated(op) };
      return {
        kind: "write",
        path: op.path,
        expectedBefore: op.after,
        after: await beforeImage(stateDir, record, op),
        ...(op.beforeMode === null ? {} : { mode: op.beforeMode }),
      };
    case "delete":
      return {
        kind: "write",
        path: op.path,
        expectedBefore: null,
        after: await beforeImage(stateDir, record, op),
        ...(op.beforeMode === null ? {} : { mode: op.beforeMode }),
        ...(op.removeEmptyParentsUpTo === null ? {} : { createParentsUpTo: op.removeEmptyParentsUpTo }),
      };
    case "rename":
      return {
        kind: "rename",
        from: op.to as string,
        to: op.path,
        expectedBefore: op.before as string,
        ...(op.removeEmptyParentsUpTo === null ? {} : { createParentsUpTo: op.removeEmptyParentsUpTo }),
        ...aboveCreated(op),
      };
    case "chmod":
      return { kind: "chmod", path: op.path, expectedBefore: op.before as string, mode: op.beforeMode as number };
  }
}

/**
 * The ops that undo committed batch `batchId`, plus the files that changed since it (the caller
 * refuses with undo_conflict when there are any; commitBatch would refuse those ops anyway).
 */
export async function undoOps(batchId: string, options: JournalAccess = {}): Promise<UndoPlan> {
  const stateDir = await resolveStateDir(options);
  const record = await requireRecord(stateDir, batchId);
  if (record.state !== "committed") {
    throw new ToolError("invalid_input", `Batch ${batchId} is ${record.state}, not committed; only committed batches can be undone.`);
  }
  const ops: CommitOp[] = [];
  const conflicts: string[] = [];
  // Inspected through directories held beneath the recorded roots; the undo commit holds its own.
  const dirs = new BatchDirectories(record.roots);
  try {
    for (const op of [...record.ops].reverse()) {
      const inspection = await inspectOp(dirs, op);
      if (!hasLanded(op, inspection)) conflicts.push(...(inspection.offending.length > 0 ? inspection.offending : pathsOfOp(op)));
      ops.push(await reverseOf(stateDir, record, op));
    }
  } finally {
    dirs.close();
  }
  return { ops, conflicts };
}
