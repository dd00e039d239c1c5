/**
 * commitBatch: the one way guarded writes reach the disk. Under the locks of every path it
 * rechecks each expected hash, journals the batch with before-images, stages new content next to
 * each target (after the journal names it, so a killed writer's temp files are always found), and
 * fsyncs journal and staged files in one round. Only then does it apply the ops in order,
 * re-verifying each parent directory right before touching it, and fsync their directories.
 * Every parent directory is held beneath its root from the recheck until the batch is done
 * (BatchDirectories), and every call names files inside those held directories: a directory
 * swapped for a link meanwhile is never followed.
 * Until the batch is marked committed (its record renamed) any failure rolls every earlier step back, so a refused or
 * failed batch leaves every byte as it was.
 *
 * Over 600 lines on purpose: the commit is one state machine whose steps share the held directories
 * and the rollback list; split across files, its crash-consistency argument could not be read whole.
 */
import { lstatSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { sha256Hex } from "../helpers/hash.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { ChangedBeneath, changedError } from "../policy/beneath.ts";
import { applyOp, fsyncAll, hardLinked, rollbackRecord, tempPath } from "./apply.ts";
import { BatchDirectories } from "./batch-directories.ts";
import { errnoOf, inspectFile, isMissing, preserveFile, stageBytesUnsynced, type FileFacts, type UnsyncedFile, writeThenFlush } from "./durable-fs.ts";
import {
  discardCommitMark,
  discardStaging,
  markCommitted,
  newBatchId,
  publishBatch,
  JournalStore,
  type Journals,
  stagedImagePath,
  writeRecord,
  type BatchRecord,
  type BatchStaging,
  type JournalLimits,
  type JournalOp,
} from "./journal-store.ts";
import { withPathLocks, type LockTarget } from "./locks.ts";
import { currentProcess } from "./process-identity.ts";
import { assertOutsideRoots, stateDirectory } from "../config/state-dir.ts";
import { DEFAULT_CONFIG } from "../config/schema.ts";

export type CommitOp =
  /**
   * Replace or create `path` (a canonical real path). expectedBefore: sha256 of the current bytes,
   * or null: the file must not exist. Missing parent directories are created below
   * createParentsUpTo, or below the containing root with mkdirParents.
   */
  | { kind: "write"; path: string; expectedBefore: string | null; after: Uint8Array; mode?: number; createParentsUpTo?: string; mkdirParents?: boolean }
  /** Delete `path`, then remove parent directories left empty, up to (not including) removeEmptyParentsUpTo. */
  | { kind: "delete"; path: string; expectedBefore: string; removeEmptyParentsUpTo?: string }
  /** Move `from` to `to`, never replacing an existing `to`; parents of `to` as for write, emptied parents of `from` as for delete. */
  | {
    kind: "rename";
    from: string;
    to: string;
    expectedBefore: string;
    createParentsUpTo?: string;
    mkdirParents?: boolean;
    removeEmptyParentsUpTo?: string;
  }
  /** Change the permission bits of `path`; refused for a file with several hard links. */
  | { kind: "chmod"; path: string; expectedBefore: string; mode: number };

export interface CommitMeta {
  sessionId: string;
  tool: string;
  /** Real paths of the workspace roots; every path of the batch must lie inside one. */
  roots: string[];
  description?: string;
}

export interface CommitResult {
  batchId: string;
  /**
   * One entry per op, in op order: the op's path (a rename's destination, with `from`) and its
   * sha256 before and after (null: absent).
   */
  files: Array<{ path: string; before: string | null; after: string | null; from?: string }>;
  /** False when journal limits pruned the batch's own before-images right away. */
  undoable: boolean;
}

export interface CommitOptions {
  stateDir?: string;
  /** The writes service's journal stores (spares, pruning facts); without them the batch uses a store of its own that keeps no spares. */
  journals?: Journals;
  journalLimits?: JournalLimits;
  /** Asked with each parent directory's real path right before an op touches it; false refuses the batch. */
  verifyParent?: (dirReal: string) => Promise<boolean>;
  lockTimeoutMs?: number;
  /** Operations one batch may hold (default LIMITS.batchPaths); a structural run commits up to LIMITS.intel.run.maxWriteFiles. */
  maxOps?: number | undefined;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function invalid(message: string): ToolError {
  return new ToolError("invalid_input", message);
}

function opPaths(op: CommitOp): string[] {
  return op.kind === "rename" ? [op.from, op.to] : [op.path];
}

function checkAbsolute(text: unknown, what: string): string {
  if (typeof text !== "string" || text.length === 0 || text.includes("\0") || !path.isAbsolute(text) || path.normalize(text) !== text || text.length > LIMITS.pathChars) {
    throw invalid(`${what} must be a normalized absolute path (got ${JSON.stringify(text)}).`);
  }
  if (text.length > 1 && text.endsWith(path.sep)) throw invalid(`${what} must not end with a separator (got ${JSON.stringify(text)}).`);
  return text;
}

function checkBound(bound: string | undefined, target: string, what: string): void {
  if (bound === undefined) return;
  checkAbsolute(bound, what);
  const rest = relativeInside(bound, target, path.sep);
  if (rest === undefined || rest === "") throw invalid(`${what} (${bound}) must be a directory above ${target}.`);
}

function validate(ops: readonly CommitOp[], meta: CommitMeta, maxOps: number): void {
  if (ops.length === 0) throw invalid("A batch needs at least one operation.");
  if (ops.length > maxOps) throw new ToolError("too_many_items", `A batch holds at most ${maxOps} operations (got ${ops.length}).`);
  if (meta.roots.length === 0) throw invalid("A batch needs the workspace roots it writes in.");
  const seen = new Set<string>();
  for (const op of ops) {
    for (const [index, target] of opPaths(op).entries()) {
      checkAbsolute(target, op.kind === "rename" ? (index === 0 ? "rename.from" : "rename.to") : `${op.kind}.path`);
      if (seen.has(target)) throw invalid(`${target} appears in more than one operation of the batch; split it into separate batches.`);
      seen.add(target);
      if (!meta.roots.some((root) => (relativeInside(root, target, path.sep) ?? "") !== "")) {
        throw new ToolError("path_outside_roots", `${target} is not inside a workspace root.`, { details: { path: target } });
      }
    }
    if (op.kind === "write" ? op.expectedBefore !== null && !SHA256_HEX.test(op.expectedBefore) : !SHA256_HEX.test(op.expectedBefore)) {
      throw invalid(`expectedBefore of ${opPaths(op)[0]} must be a lowercase hex SHA-256${op.kind === "write" ? " or null" : ""}.`);
    }
    if (op.kind === "write") {
      if (!(op.after instanceof Uint8Array)) throw invalid(`write.after of ${op.path} must be bytes.`);
      if (op.after.length > LIMITS.patch.maxCandidateBytes) throw new ToolError("file_too_large", `The new content of ${op.path} exceeds ${LIMITS.patch.maxCandidateBytes} bytes.`);
    }
    if ((op.kind === "write" && op.mode !== undefined) || op.kind === "chmod") {
      const mode = op.mode as number;
      if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw invalid(`mode of ${op.path} must be an integer from 0 to 0o7777.`);
    }
    if (op.kind === "write") checkBound(op.createParentsUpTo, op.path, "createParentsUpTo");
    if (op.kind === "delete") checkBound(op.removeEmptyParentsUpTo, op.path, "removeEmptyParentsUpTo");
    if (op.kind === "rename") {
      checkBound(op.createParentsUpTo, op.to, "createParentsUpTo");
      checkBound(op.removeEmptyParentsUpTo, op.from, "removeEmptyParentsUpTo");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Planning: the recheck under the locks.

function staleHash(target: string, expected: string | null, current: string | null): ToolError {
  const message = expected === null ?
    `${target} exists now (it was expected not to exist).` :
    current === null ?
    `${target} no longer exists.` :
    `${target} changed since it was read (current sha256 ${current}).`;
  return new ToolError("stale_hash", message, { details: { path: target, expectedSha256: expected, currentSha256: current } });
}

interface ParentPlan {
  parentReal: string;
  createdDirs: string[];
}

/** Whether `file` is a regular file now (only to choose a refusal's wording; nothing is done through it). */
function isRegularFile(file: string): boolean {
  try {
    return lstatSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Holds the directory of `target` (or its nearest existing ancestor, when the rest may be created up
 * to `bound`) beneath its root for the rest of the batch, and returns the directories to create.
 */
function planParent(dirs: BatchDirectories, target: string, bound?: string): ParentPlan {
  const dir = path.dirname(target);
  const missing: string[] = [];
  let existing = dir;
  for (;;) {
    try {
      dirs.dir(existing);
      break;
    } catch (error) {
      if (error instanceof ChangedBeneath) {
        // A file where a directory should be is a plain refusal; anything else (a link, or a link removed again) changed under us.
        if (error.reason === "not_directory" && isRegularFile(error.real)) {
          throw new ToolError("not_a_file", `${error.real} is not a directory, so ${target} cannot be created.`, { details: { path: target } });
        }
        throw changedError(target, error);
      }
      if (!isMissing(error)) throw error;
    }
    missing.unshift(existing);
    const parent = path.dirname(existing);
    if (parent === existing || dirs.rootOf(parent) === undefined) throw new ToolError("file_not_found", `The directory ${dir} does not exist.`, { details: { path: target } });
    existing = parent;
  }
  if (missing.length > 0) {
    if (bound === undefined) throw new ToolError("file_not_found", `The directory ${dir} does not exist.`, { details: { path: target } });
    if (relativeInside(bound, existing, path.sep) === undefined) {
      throw new ToolError("file_not_found", `The directory ${existing === bound ? dir : bound} does not exist.`, { details: { path: target } });
    }
  }
  // Held without following a link, so the path as given is the directory's real path.
  return { parentReal: dir, createdDirs: missing };
}

function requireFacts(target: string, expected: string, current: FileFacts | null): FileFacts {
  if (current === null || current.sha256 !== expected) throw staleHash(target, expected, current?.sha256 ?? null);
  return current;
}

/**
 * The recheck of a file whose content the op destroys, keeping its before-image in the staged
 * batch (see preserveFile). `copied` collects the images that are copies, fsynced with the record.
 */
async function recheckAndPreserve(dirs: BatchDirectories, target: string, index: number, staging: BatchStaging, copied: string[]): Promise<FileFacts | null> {
  const image = String(index);
  let name: string;
  try {
    name = dirs.at(target);
  } catch (error) {
    // Its directory is still to be created: the file does not exist.
    if (isMissing(error)) return null;
    throw error;
  }
  const preserved = await preserveFile(name, stagedImagePath(staging, image), target);
  if (preserved === null) return null;
  if (preserved.copied) copied.push(image);
  return preserved.facts;
}

function baseJournalOp(kind: JournalOp["kind"], target: string, parentReal: string): JournalOp {
  return {
    kind,
    path: target,
    to: null,
    before: null,
    after: null,
    beforeMode: null,
    afterMode: null,
    beforeOwner: null,
    image: null,
    imageBytes: 0,
    temp: null,
    createdDirs: [],
    createParentsUpTo: null,
    removeEmptyParentsUpTo: null,
    parentReal,
    toParentReal: null,
  };
}

/** Where missing parents may be created from: the explicit bound, or the containing root. */
function parentBound(op: CommitOp & { kind: "write" | "rename" }, roots: readonly string[]): string | undefined {
  if (op.createParentsUpTo !== undefined) return op.createParentsUpTo;
  if (op.mkdirParents !== true) return undefined;
  const target = op.kind === "write" ? op.path : op.to;
  return roots.find((root) => (relativeInside(root, target, path.sep) ?? "") !== "");
}

async function planOp(
  dirs: BatchDirectories,
  op: CommitOp,
  index: number,
  staging: BatchStaging,
  roots: readonly string[],
  copied: string[],
  createdForLocks: ReadonlyMap<string, string[]>,
): Promise<JournalOp> {
  const batchId = staging.id;
  const createdFor = (target: string, plan: ParentPlan) => [...(createdForLocks.get(target) ?? []), ...plan.createdDirs];
  switch (op.kind) {
    case "write": {
      const bound = parentBound(op, roots);
      const parent = planParent(dirs, op.path, bound);
      const current = await recheckAndPreserve(dirs, op.path, index, staging, copied);
      const currentHash = current?.sha256 ?? null;
      if (currentHash !== op.expectedBefore) throw staleHash(op.path, op.expectedBefore, currentHash);
      return {
        ...baseJournalOp("write", op.path, parent.parentReal),
        before: currentHash,
        after: sha256Hex(op.after),
        beforeMode: current?.mode ?? null,
        afterMode: op.mode ?? current?.mode ?? null,
        beforeOwner: current === null ? null : { uid: current.uid, gid: current.gid },
        image: current === null ? null : String(index),
        imageBytes: current?.size ?? 0,
        temp: tempPath(path.dirname(op.path), batchId, index, "stage"),
        createdDirs: createdFor(op.path, parent),
        createParentsUpTo: bound ?? null,
      };
    }
    case "delete": {
      const parent = planParent(dirs, op.path);
      const current = requireFacts(op.path, op.expectedBefore, await recheckAndPreserve(dirs, op.path, index, staging, copied));
      return {
        ...baseJournalOp("delete", op.path, parent.parentReal),
        before: current.sha256,
        beforeMode: current.mode,
        beforeOwner: { uid: current.uid, gid: current.gid },
        image: String(index),
        imageBytes: current.size,
        removeEmptyParentsUpTo: op.removeEmptyParentsUpTo ?? null,
      };
    }
    case "rename": {
      const source = planParent(dirs, op.from);
      const bound = parentBound(op, roots);
      const destination = planParent(dirs, op.to, bound);
      const current = requireFacts(op.from, op.expectedBefore, await inspectFile(dirs.at(op.from), op.from));
      try {
        // A destination whose directory is still to be created does not exist.
        if (destination.createdDirs.length === 0) lstatSync(dirs.at(op.to));
        else throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
        throw new ToolError("destination_exists", `${op.to} already exists; a rename never replaces a file.`, { details: { path: op.to } });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      return {
        ...baseJournalOp("rename", op.from, source.parentReal),
        to: op.to,
        before: current.sha256,
        after: current.sha256,
        beforeMode: current.mode,
        afterMode: current.mode,
        beforeOwner: { uid: current.uid, gid: current.gid },
        temp: tempPath(path.dirname(op.to), batchId, index, "stage"),
        createdDirs: createdFor(op.to, destination),
        createParentsUpTo: bound ?? null,
        removeEmptyParentsUpTo: op.removeEmptyParentsUpTo ?? null,
        toParentReal: destination.parentReal,
      };
    }
    case "chmod": {
      const parent = planParent(dirs, op.path);
      const current = requireFacts(op.path, op.expectedBefore, await inspectFile(dirs.at(op.path), op.path));
      if (current.nlink > 1) throw hardLinked(op.path, current.nlink);
      return {
        ...baseJournalOp("chmod", op.path, parent.parentReal),
        before: current.sha256,
        after: current.sha256,
        beforeMode: current.mode,
        afterMode: op.mode,
      };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Locks.

interface BatchLocks {
  targets: LockTarget[];
  /** Directories made so that a target's lock entry could be created in them, by target: the batch's own, journaled as created by it. */
  created: ReadonlyMap<string, string[]>;
  /** Once the batch is committed: the parents its deletes and renames emptied go after the release (the lock entries kept them). */
  removeEmptiedParents(): void;
}

/**
 * The lock of every path of the batch. A lock entry lives in its target's directory, so a missing
 * directory the op may create is created when the lock is taken (see LockTarget.directoriesToCreate);
 * when the batch does not commit it goes again with the release, as long as it is empty.
 */
function batchLocks(dirs: BatchDirectories, ops: readonly CommitOp[], roots: readonly string[]): BatchLocks {
  const targets: LockTarget[] = [];
  const creating: LockTarget[] = [];
  const emptied: Array<{ lock: LockTarget; upTo: string }> = [];
  const lockOf = (target: string, bound?: string): LockTarget => {
    const lock: LockTarget = { path: target, at: (real) => dirs.at(real) };
    if (bound !== undefined) {
      lock.directoriesToCreate = () => planParent(dirs, target, bound).createdDirs;
      creating.push(lock);
    }
    targets.push(lock);
    return lock;
  };
  for (const op of ops) {
    switch (op.kind) {
      case "write":
        lockOf(op.path, parentBound(op, roots));
        break;
      case "rename": {
        const from = lockOf(op.from);
        lockOf(op.to, parentBound(op, roots));
        if (op.removeEmptyParentsUpTo !== undefined) emptied.push({ lock: from, upTo: op.removeEmptyParentsUpTo });
        break;
      }
      case "delete": {
        const lock = lockOf(op.path);
        if (op.removeEmptyParentsUpTo !== undefined) emptied.push({ lock, upTo: op.removeEmptyParentsUpTo });
        break;
      }
      case "chmod":
        lockOf(op.path);
        break;
    }
  }
  return {
    targets,
    get created() {
      return new Map(creating.map((lock) => [lock.path, lock.created ?? []]));
    },
    removeEmptiedParents() {
      for (const { lock, upTo } of emptied) lock.removeEmptyUpTo = upTo;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The commit.

/**
 * Creates the missing parents and writes every staged file, then fsyncs them all together with
 * the batch's journal entry (`journal`, from publishBatch): one round of fsyncs before any rename.
 */
async function stage(dirs: BatchDirectories, record: BatchRecord, ops: readonly CommitOp[], journal: readonly UnsyncedFile[]): Promise<void> {
  const staged: UnsyncedFile[] = [...journal];
  // Even on failure every descriptor is closed before the rollback removes the staged files.
  await writeThenFlush(staged, async () => {
    for (const [index, op] of ops.entries()) {
      const journaled = record.ops[index] as JournalOp;
      // Each created directory is made in its held parent and held in turn.
      for (const dir of journaled.createdDirs) dirs.makeDirectory(dir);
      if (op.kind === "write") staged.push(await stageBytesUnsynced(dirs.at(journaled.temp as string), op.after, { mode: journaled.afterMode, owner: journaled.beforeOwner }));
    }
  });
}

/**
 * Right before an op: the caller must still accept each parent, and each held parent must still
 * be what its path names (walked again from the root without following links). The op acts
 * through the held directory either way; this turns a swap seen in time into a clean refusal.
 */
async function verifyDirectories(dirs: BatchDirectories, op: JournalOp, verifyParent: CommitOptions["verifyParent"]): Promise<void> {
  const parents = [op.parentReal, ...(op.toParentReal === null ? [] : [op.toParentReal])];
  for (const dir of parents) {
    if (verifyParent !== undefined && !(await verifyParent(dir))) {
      throw new ToolError("path_outside_roots", `The directory ${dir} is no longer inside an allowed root; nothing was written.`, { details: { path: op.path } });
    }
  }
  try {
    dirs.verify(parents);
  } catch (error) {
    if (error instanceof ChangedBeneath) throw changedError(op.path, error);
    if (isMissing(error)) throw new ToolError("file_not_found", `The directory ${path.dirname(op.path)} disappeared during the write.`, { details: { path: op.path } });
    throw error;
  }
}

function resultFiles(record: BatchRecord): CommitResult["files"] {
  return record.ops.flatMap((op) => {
    switch (op.kind) {
      case "write":
      case "chmod":
        return [{ path: op.path, before: op.before, after: op.after }];
      case "delete":
        return [{ path: op.path, before: op.before, after: null }];
      case "rename":
        return [{ path: op.to as string, from: op.path, before: op.before, after: op.after }];
    }
  });
}

/**
 * File-system failures reach the caller as io_error (with the errno), a directory that changed
 * under a held name as path_changed, never as raw exceptions; messages name real paths.
 */
function asToolError(error: unknown, dirs?: BatchDirectories): unknown {
  if (error instanceof ToolError) return error;
  if (error instanceof ChangedBeneath) return changedError(error.real, error);
  const errno = errnoOf(error);
  if (errno === undefined) return error;
  const message = (error as Error).message;
  return new ToolError("io_error", `The write failed: ${dirs === undefined ? message : dirs.display(message)}`, { details: { errno } });
}

/** Undoes whatever part of the batch happened, then removes its journal entry (or keeps it when that failed). */
async function abandon(dirs: BatchDirectories, stateDir: string, record: BatchRecord, reached: number, cause: unknown): Promise<ToolError | undefined> {
  try {
    discardCommitMark(stateDir, record.id);
    const outcome = await rollbackRecord(dirs, stateDir, record, reached);
    if (outcome.conflicts.length === 0) return undefined;
    log.error("a failed batch could not restore every file: someone else changed them meanwhile", { batch: record.id, conflicts: outcome.conflicts });
    return new ToolError(
      "io_error",
      `The batch failed (${dirs.display((cause as Error).message)}) and these files were changed by someone else meanwhile, so they were left as they are: ${
        outcome.conflicts.map((entry) => entry.path).join(", ")
      }.`,
      {
        retryable: false,
        details: { batchId: record.id, conflicts: outcome.conflicts },
      },
    );
  } catch (rollbackError) {
    record.state = "failed";
    try {
      await writeRecord(stateDir, record);
    } catch {
      // The record stays "prepared"; recovery treats it the same way once this process is gone.
    }
    log.error("a failed batch could not be rolled back", { batch: record.id, error: rollbackError });
    return new ToolError(
      "io_error",
      `The batch failed (${dirs.display((cause as Error).message)}) and could not be rolled back completely (${
        dirs.display((rollbackError as Error).message)
      }); run \`ast-mcp journal recover\`.`,
      {
        retryable: false,
        details: { batchId: record.id },
      },
    );
  }
}

export async function commitBatch(ops: readonly CommitOp[], meta: CommitMeta, options: CommitOptions = {}): Promise<CommitResult> {
  validate(ops, meta, options.maxOps ?? LIMITS.batchPaths);
  const stateDir = options.stateDir ?? (await stateDirectory());
  assertOutsideRoots(stateDir, meta.roots);
  const journal = options.journals?.at(stateDir) ?? new JournalStore(stateDir, 0);
  const lockOptions = { stateDir, ...(options.lockTimeoutMs === undefined ? {} : { timeoutMs: options.lockTimeoutMs }) };
  // Every directory the batch works in, held from its locks and recheck until the batch is done.
  const dirs = new BatchDirectories(meta.roots);
  const locks = batchLocks(dirs, ops, meta.roots);

  const record = await withPathLocks(
    locks.targets,
    async (held) => {
      const id = newBatchId();
      // The record and before-images are assembled under a transit name and appear together.
      const staging = journal.stage(id);
      let batch: BatchRecord;
      let journalFlushes: UnsyncedFile[];
      try {
        const journalOps: JournalOp[] = [];
        const copied: string[] = [];
        const createdForLocks = locks.created;
        for (const [index, op] of ops.entries()) journalOps.push(await planOp(dirs, op, index, staging, meta.roots, copied, createdForLocks));
        const createdAt = new Date().toISOString();
        batch = {
          format: 2,
          id,
          state: "prepared",
          createdAt,
          committedAt: null,
          writer: currentProcess(),
          sessionId: meta.sessionId,
          tool: meta.tool,
          roots: meta.roots,
          description: meta.description ?? null,
          ops: journalOps,
          imageBytes: journalOps.reduce((sum, op) => sum + op.imageBytes, 0),
          recovery: null,
        };
        journalFlushes = publishBatch(stateDir, staging, batch, copied);
      } catch (error) {
        discardStaging(staging);
        throw error;
      }

      // The last op whose application began; later ones are untouched apart from staging.
      let reached = -1;
      try {
        await stage(dirs, batch, ops, journalFlushes);
        const touched: string[] = [];
        for (const [index, journaled] of batch.ops.entries()) {
          await verifyDirectories(dirs, journaled, options.verifyParent);
          reached = index;
          touched.push(...journaled.createdDirs.map((dir) => path.dirname(dir)));
          touched.push(...(await applyOp(dirs, batch, index, { mode: journaled.beforeMode, owner: journaled.beforeOwner })));
        }
        await fsyncAll(dirs, touched);
        held.assertHeld();
        markCommitted(stateDir, batch.id);
        batch.state = "committed";
        batch.committedAt = batch.createdAt;
        journal.rememberFinished(batch);
        locks.removeEmptiedParents();
      } catch (error) {
        const worse = await abandon(dirs, stateDir, batch, reached, error);
        throw worse ?? error;
      }
      return batch;
    },
    lockOptions,
  )
    .catch((error: unknown) => {
      throw asToolError(error, dirs);
    })
    .finally(() => dirs.close());

  let undoable = true;
  try {
    const removed = await journal.prune(options.journalLimits ?? DEFAULT_CONFIG.journal);
    undoable = !removed.includes(record.id);
  } catch (error) {
    log.warn("could not prune the write journal", { error });
  }
  // Ready for the next commit; never awaited.
  void journal.refillSpares();
  return { batchId: record.id, files: resultFiles(record), undoable };
}
