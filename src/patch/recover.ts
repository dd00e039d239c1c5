/**
 * Crash recovery: finishes or undoes batches whose writer died before marking them committed. A batch
 * whose every op already landed is rolled forward (only the mark was missing); any other,
 * and any batch whose writer gave up rolling it back ("failed"), is rolled back so every file is
 * wholly old again. Files that are neither old nor new were
 * changed by someone else after the crash: they are left alone and reported.
 * Recovery holds the directories anew from the batch's recorded roots, never following a link:
 * a recorded directory that is now a link is a conflict, left for a later recovery.
 */
import path from "node:path";
import { isToolError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import { BatchDirectories } from "./batch-directories.ts";
import { finishOp, fsyncAll, hasLanded, inspectOp, removeTemps, rollbackRecord } from "./apply.ts";
import { discardCommitMark, listBatchIds, pathsOfOp, readRecord, removeBatch, removeTransitDebris, writeRecord, type BatchRecord } from "./journal-store.ts";
import { cleanLockLeftovers, withPathLocks, type LockTarget } from "./locks.ts";
import { currentProcess, livenessOf } from "./process-identity.ts";
import { stateDirectory } from "../config/state-dir.ts";

export interface RecoveredBatch {
  id: string;
  /**
   * rolled_back: every file is as before the batch; rolled_forward: every op had landed, the batch
   * now counts as committed; discarded: nothing had been written yet; conflict: some files were
   * changed by someone else and left alone (the rest rolled back); skipped: not handled now (reason).
   */
  action: "rolled_back" | "rolled_forward" | "discarded" | "conflict" | "skipped";
  files: string[];
  conflicts: Array<{ path: string; reason: string }>;
  reason?: string;
}

export interface RecoveryReport {
  batches: RecoveredBatch[];
  /** Lock entries that writers which are gone left beside files (found through their lists in the state directory). */
  locksRemoved: number;
  /** Journal directories a dead process left half-created or half-deleted, removed. */
  debrisRemoved: number;
}

export interface RecoveryOptions {
  stateDir?: string;
  lockTimeoutMs?: number;
}

/**
 * The locks of a batch's files. The directories a rollback removes (those the batch created) or a
 * roll forward empties hold the lock entries while it runs: they go after the release. A file whose
 * directory is gone (removed as empty, or never created) is not locked: no writer can be holding a
 * lock there, and none is created for the recovery.
 */
function lockTargets(record: BatchRecord): LockTarget[] {
  return record.ops.flatMap((op): LockTarget[] => {
    const created = op.createdDirs[0];
    const madeFor = op.to ?? op.path;
    const source: LockTarget = { path: op.path, skipIfNoDirectory: true };
    if (op.removeEmptyParentsUpTo !== null) source.removeEmptyUpTo = op.removeEmptyParentsUpTo;
    const made: LockTarget = madeFor === op.path ? source : { path: madeFor, skipIfNoDirectory: true };
    if (created !== undefined) made.removeEmptyUpTo = path.dirname(created);
    return made === source ? [source] : [source, made];
  });
}

async function recoverBatch(stateDir: string, record: BatchRecord, lockTimeoutMs: number | undefined): Promise<RecoveredBatch> {
  const files = record.ops.flatMap(pathsOfOp);
  const base = { id: record.id, files, conflicts: [] };
  if (record.state === "preparing") {
    // Nothing is staged or applied before the record says "prepared".
    await removeBatch(stateDir, record.id);
    return { ...base, action: "discarded" };
  }
  let outcome: RecoveredBatch | undefined;
  await withPathLocks(lockTargets(record), async () => {
    const fresh = await readRecord(stateDir, record.id);
    if (fresh === undefined || fresh.state !== record.state) return;
    // A commit mark an older writer prepared is never used now: recovery writes its own record.
    discardCommitMark(stateDir, fresh.id);
    const dirs = new BatchDirectories(fresh.roots);
    try {
      outcome = await recoverHeld(dirs, fresh);
    } finally {
      dirs.close();
    }
  }, { stateDir, ...(lockTimeoutMs === undefined ? {} : { timeoutMs: lockTimeoutMs }) });
  return outcome ?? skipped(record.id, files, "another process recovered it meanwhile");

  async function recoverHeld(dirs: BatchDirectories, fresh: BatchRecord): Promise<RecoveredBatch> {
    const inspections = await Promise.all(fresh.ops.map((op) => inspectOp(dirs, op)));
    // A failed batch was reported as failed to its caller: it is only ever rolled back.
    if (fresh.state === "prepared" && inspections.every((inspection, index) => hasLanded(fresh.ops[index] as BatchRecord["ops"][number], inspection))) {
      const touched: string[] = [];
      for (const op of fresh.ops) touched.push(...(await finishOp(dirs, op)));
      await removeTemps(dirs, fresh);
      await fsyncAll(dirs, touched);
      fresh.state = "committed";
      fresh.committedAt = new Date().toISOString();
      fresh.recovery = { at: fresh.committedAt, action: "rolled_forward", conflicts: [] };
      await writeRecord(stateDir, fresh);
      return { ...base, action: "rolled_forward" };
    }
    const { conflicts } = await rollbackRecord(dirs, stateDir, fresh);
    return conflicts.length === 0 ? { ...base, action: "rolled_back" } : { ...base, action: "conflict", conflicts };
  }
}

function skipped(id: string, files: string[], reason: string): RecoveredBatch {
  return { id, action: "skipped", files, conflicts: [], reason };
}

/** Recovers every interrupted batch of a dead writer (and every batch its writer failed to roll back). */
export async function recoverJournal(options: RecoveryOptions = {}): Promise<RecoveryReport> {
  const stateDir = options.stateDir ?? (await stateDirectory());
  const batches: RecoveredBatch[] = [];
  for (const id of await listBatchIds(stateDir)) {
    let record: BatchRecord | undefined;
    try {
      record = await readRecord(stateDir, id);
    } catch (error) {
      batches.push(skipped(id, [], (error as Error).message));
      continue;
    }
    if (record === undefined || record.state === "committed" || record.state === "conflict") continue;
    if (record.state !== "failed") {
      const liveness = livenessOf(record.writer);
      if (liveness === "alive") continue;
      if (liveness === "unknown") {
        const reason = `written by process ${record.writer.pid} on ${record.writer.host}, whose state cannot be checked from here`;
        batches.push(skipped(id, record.ops.flatMap(pathsOfOp), reason));
        continue;
      }
    }
    try {
      const recovered = await recoverBatch(stateDir, record, options.lockTimeoutMs);
      batches.push(recovered);
      if (recovered.action === "conflict") log.warn("recovery left files changed by someone else", { batch: id, conflicts: recovered.conflicts });
    } catch (error) {
      if (!isToolError(error)) throw error;
      batches.push(skipped(id, record.ops.flatMap(pathsOfOp), error.message));
    }
  }
  const locksRemoved = await cleanLockLeftovers(stateDir);
  const self = currentProcess();
  const debrisRemoved = await removeTransitDebris(stateDir, (pid) => livenessOf({ pid, startTime: null, host: self.host }) === "dead");
  return { batches, locksRemoved, debrisRemoved };
}
