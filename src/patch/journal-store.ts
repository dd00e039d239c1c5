/**
 * Storage of the write-ahead journal: one directory per batch in <state>/journal/<batch id>/ with its
 * record and the before-images: <op index>.img beside it (record format 2; a hard link to the old
 * inode where possible), or images/<op index> (format 1, still read). A batch appears prepared,
 * record (batch.json) and images together, and becomes committed when its record is renamed to
 * committed.json: the name, not the content, says a batch committed (older writers renamed a
 * second, committed copy of the record onto batch.json, and went through a "preparing" state
 * before that; both are still read). A batch that never reaches committed is rolled back (by its
 * writer, or by recovery once the writer is gone); records written later (by a rollback or
 * recovery) replace batch.json atomically with a fsynced file. Committed batches keep their
 * before-images for undo until pruned by count, bytes and age. Batch directories are made ahead of
 * time as spares, and pruned ones become spares again, so committing creates and frees as few
 * inodes as possible.
 */
import { randomBytes } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync } from "node:fs";
import { mkdir, open, readFile } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import { flushByPath, fsyncDirectory, isMissing, removeTree, type UnsyncedFile, writeFileDurable, writeFileUnsynced } from "./durable-fs.ts";
import { isValidIdentity, type ProcessIdentity } from "./process-identity.ts";
import { JOURNAL_SUBDIR } from "../config/state-dir.ts";
import type { EffectiveConfig } from "../config/schema.ts";

/** Milliseconds between two listings of the journal for pruning; in between, pruning goes by the batches this process knows. */
export const JOURNAL_LIST_INTERVAL_MS = 5_000;
/** Batch directories a process keeps ready for its commits, made ahead or kept from pruned batches (see JournalStore.refillSpares). */
export const SPARE_DIRECTORIES = 4;

export type BatchState = "preparing" | "prepared" | "committed" | "conflict" | "failed";
export type OpKind = "write" | "delete" | "rename" | "chmod";

/** One operation as journaled: enough to tell old from new state and to restore the old one. */
export interface JournalOp {
  kind: OpKind;
  /** The target (write, delete, chmod) or the rename source. */
  path: string;
  /** The rename destination; null for other kinds. */
  to: string | null;
  /** SHA-256 of `path` before the batch; null when it did not exist. */
  before: string | null;
  /** SHA-256 of the result (`path`, or `to` for a rename) after the batch; null when it is gone. */
  after: string | null;
  beforeMode: number | null;
  afterMode: number | null;
  beforeOwner: { uid: number; gid: number } | null;
  /** File name of the before-image under images/, when the op destroys content. */
  image: string | null;
  imageBytes: number;
  /** The staged file renamed into place (write) or the cross-device copy (rename). */
  temp: string | null;
  /** Directories the op creates, outermost first. */
  createdDirs: string[];
  createParentsUpTo: string | null;
  removeEmptyParentsUpTo: string | null;
  /** Real path of the parent directory of `path` (as planned, for one still to be created). */
  parentReal: string;
  /** Real path of the parent directory of `to` (rename only). */
  toParentReal: string | null;
}

export interface BatchRecord {
  /** 2: before-images beside the record; 1 (older batches): in an images/ folder. */
  format: 1 | 2;
  id: string;
  state: BatchState;
  createdAt: string;
  committedAt: string | null;
  writer: ProcessIdentity;
  sessionId: string;
  tool: string;
  roots: string[];
  description: string | null;
  ops: JournalOp[];
  imageBytes: number;
  recovery: { at: string; action: string; conflicts: string[] } | null;
}

/** How much of the journal is kept for undo: the [journal] configuration table. */
export type JournalLimits = EffectiveConfig["journal"];

const RECORD_FILE = "batch.json";
/**
 * The record of a committed batch: batch.json renamed, its content as prepared (state and
 * committedAt are read from the name). A rename to a new name, unlike one onto another file, frees
 * no inode (why that matters: docs/decisions/0013).
 */
const COMMITTED_RECORD_FILE = "committed.json";
/** Older writers' commit mark: the committed record, prepared beside batch.json and renamed onto it. */
const LEGACY_COMMIT_MARK_FILE = "batch.committed.json";
/** Where format 1 batches keep their before-images. */
const IMAGES_SUBDIR = "images";
const BATCH_ID = /^\d{8}T\d{9}Z-[0-9a-f]{10}$/;

/** Process-wide by nature: ids stay strictly increasing across every journal this process writes. */
let lastIdMs = 0;

/** Sortable batch ids: UTC time to the millisecond (strictly increasing within a process) plus randomness. */
export function newBatchId(now: number = Date.now()): string {
  const ms = Math.max(now, lastIdMs + 1);
  lastIdMs = ms;
  const stamp = new Date(ms).toISOString().replace(/[-:.]/g, "");
  return `${stamp}-${randomBytes(5).toString("hex")}`;
}

export function isBatchId(text: string): boolean {
  return BATCH_ID.test(text);
}

function batchDirectory(stateDir: string, id: string): string {
  return path.join(stateDir, JOURNAL_SUBDIR, id);
}

/** The file holding op image `image` of a batch. */
export function imagePath(stateDir: string, record: Pick<BatchRecord, "id" | "format">, image: string): string {
  const dir = batchDirectory(stateDir, record.id);
  return record.format === 1 ? path.join(dir, IMAGES_SUBDIR, image) : path.join(dir, `${image}.img`);
}

function recordText(record: BatchRecord): string {
  return `${JSON.stringify(record, null, 1)}\n`;
}

export async function writeRecord(stateDir: string, record: BatchRecord): Promise<void> {
  await writeFileDurable(path.join(batchDirectory(stateDir, record.id), RECORD_FILE), recordText(record));
}

/** Names of journal directories on their way in or out, tagged with the pid of the process moving them. */
function transitName(id: string, purpose: "new" | "gone"): string {
  return `.${id}.${process.pid}-${randomBytes(4).toString("hex")}.${purpose}`;
}
const TRANSIT = /^\.(\d{8}T\d{9}Z-[0-9a-f]{10})\.(\d+)-[0-9a-f]+\.(new|gone)$/;
/** Empty directories a process made ahead of time to stage batches in (see JournalStore.refillSpares). */
const SPARE = /^\.spare\.(\d+)-[0-9a-f]+$/;

/** A batch directory being assembled under a transit name (see publishBatch). */
export interface BatchStaging {
  id: string;
  dir: string;
}

interface PruneFacts {
  id: string;
  imageBytes: number;
  time: number;
}

/**
 * What this process keeps about the journal of one state directory between its commits: the
 * spare batch directories it made (decision 0013) and the facts pruning needs. The writes service
 * holds one per state directory (Journals); a one-off commit (the CLI's undo) uses one that keeps
 * no spares, since spares would outlive it unused.
 */
export class JournalStore {
  readonly #spares: string[] = [];
  #refilling: Promise<void> | undefined;
  /** Facts of finished batches (committed or conflict: records that no longer change), so pruning after each commit reads only the records it has not seen yet. */
  readonly #finished = new Map<string, PruneFacts>();
  /** When the journal was last listed for pruning. */
  #listedAt: number | undefined;

  constructor(readonly stateDir: string, readonly spareLimit: number = SPARE_DIRECTORIES) {}

  /** Starts a batch directory (record format 2) under a transit name, or in a spare directory made earlier. */
  stage(id: string): BatchStaging {
    for (let spare = this.#spares.pop(); spare !== undefined; spare = this.#spares.pop()) {
      try {
        if (lstatSync(spare).isDirectory()) return { id, dir: spare };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    const dir = path.join(this.stateDir, JOURNAL_SUBDIR, transitName(id, "new"));
    mkdirSync(dir, { mode: 0o700 });
    return { id, dir };
  }

  /**
   * Makes spare batch directories in the background, up to the spare limit; a spare holds an empty
   * placeholder of the record file, so a commit that stages in one allocates nothing there (why:
   * docs/decisions/0013). Pruned batches become spares first (retire), so a journal at its limits
   * makes none. Failures are only logged: a commit without a spare makes its own directory.
   * Resolves when this refill is done (tests wait for it; commits never do).
   */
  refillSpares(): Promise<void> {
    if (this.#refilling === undefined && this.#spares.length < this.spareLimit) {
      this.#refilling = this.#makeSpares().finally(() => {
        this.#refilling = undefined;
      });
    }
    return this.#refilling ?? Promise.resolve();
  }

  async #makeSpares(): Promise<void> {
    try {
      while (this.#spares.length < this.spareLimit) {
        const dir = spareName(this.stateDir);
        await mkdir(dir, { mode: 0o700 });
        // An empty placeholder of the record: publishing fills it in, allocating nothing.
        await (await open(path.join(dir, RECORD_FILE), "wx", 0o600)).close();
        this.#spares.push(dir);
      }
    } catch (error) {
      log.debug("could not make spare journal directories", { error: (error as Error).message });
    }
  }

  /**
   * Removes a pruned batch from the journal, turning its directory into a spare while the pool has
   * room: renamed out of the journal's names in one step (never half-deleted, like removeBatch), its
   * before-images removed, and its record file given the placeholder's name again. Only the
   * before-images' inodes are freed, as an overwrite frees the old inode of its target.
   */
  async #retire(id: string): Promise<void> {
    if (this.#spares.length >= this.spareLimit) return removeBatch(this.stateDir, id);
    const spare = spareName(this.stateDir);
    try {
      renameSync(batchDirectory(this.stateDir, id), spare);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    try {
      const names = readdirSync(spare);
      const record = names.includes(COMMITTED_RECORD_FILE) ? COMMITTED_RECORD_FILE : RECORD_FILE;
      if (!names.includes(record)) throw new Error("the batch has no record file");
      for (const name of names) if (name !== record) rmSync(path.join(spare, name), { recursive: true, force: true });
      if (record !== RECORD_FILE) renameSync(path.join(spare, record), path.join(spare, RECORD_FILE));
      this.#spares.push(spare);
    } catch (error) {
      log.debug("could not keep a pruned batch directory as a spare", { batch: id, error: (error as Error).message });
      await removeTree(spare);
    }
  }

  /** Records the facts of a batch this process just finished, so pruning need not read its record back. */
  rememberFinished(record: BatchRecord): void {
    if (record.state !== "committed" && record.state !== "conflict") return;
    this.#finished.set(record.id, { id: record.id, imageBytes: record.imageBytes, time: Date.parse(record.committedAt ?? record.createdAt) });
  }

  async #finishedBatches(): Promise<PruneFacts[]> {
    const known = this.#finished;
    const ids = await listBatchIds(this.stateDir);
    const present = new Set(ids);
    for (const id of known.keys()) if (!present.has(id)) known.delete(id);
    const result: PruneFacts[] = [];
    for (const id of ids) {
      let facts = known.get(id);
      if (facts === undefined) {
        const record = await readRecord(this.stateDir, id).catch(() => undefined);
        if (record === undefined || (record.state !== "committed" && record.state !== "conflict")) continue;
        facts = { id, imageBytes: record.imageBytes, time: Date.parse(record.committedAt ?? record.createdAt) };
        known.set(id, facts);
      }
      result.push(facts);
    }
    return result;
  }

  /**
   * Removes the oldest undoable batches beyond the limits (age first, then count, then bytes of
   * before-images). Batches still in flight are never touched. Returns the ids removed.
   */
  async prune(limits: JournalLimits, now: number = Date.now()): Promise<string[]> {
    // Listing a journal of hundreds of batches costs more than the rest of a small commit, so it is
    // repeated only now and then; in between, pruning goes by the batches known here (batches other
    // processes added meanwhile count at the next listing; one they removed is simply gone).
    const oldestAllowed = now - limits.max_age_days * 86_400_000;
    const listedAt = this.#listedAt;
    let kept: PruneFacts[];
    if (listedAt !== undefined && now >= listedAt && now - listedAt < JOURNAL_LIST_INTERVAL_MS) {
      // Oldest first, as a listing gives them (batches added at a later listing may be older).
      kept = [...this.#finished.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    } else {
      this.#listedAt = now;
      kept = await this.#finishedBatches();
    }
    const removed: string[] = [];
    let totalBytes = kept.reduce((sum, facts) => sum + facts.imageBytes, 0);
    while (kept.length > 0) {
      const oldest = kept[0] as PruneFacts;
      const expired = oldest.time < oldestAllowed;
      if (!expired && kept.length <= limits.max_batches && totalBytes <= limits.max_bytes) break;
      kept.shift();
      totalBytes -= oldest.imageBytes;
      await this.#retire(oldest.id);
      this.#finished.delete(oldest.id);
      removed.push(oldest.id);
    }
    return removed;
  }
}

/** The writes service's journal stores, one per state directory it has committed to. */
export class Journals {
  readonly #stores = new Map<string, JournalStore>();

  constructor(readonly spareLimit: number = SPARE_DIRECTORIES) {}

  at(stateDir: string): JournalStore {
    let store = this.#stores.get(stateDir);
    if (store === undefined) {
      store = new JournalStore(stateDir, this.spareLimit);
      this.#stores.set(stateDir, store);
    }
    return store;
  }
}

function spareName(stateDir: string): string {
  return path.join(stateDir, JOURNAL_SUBDIR, `.spare.${process.pid}-${randomBytes(4).toString("hex")}`);
}

/** Where op image `image` goes while its batch is staged. */
export function stagedImagePath(staging: BatchStaging, image: string): string {
  return path.join(staging.dir, `${image}.img`);
}

/**
 * Completes a staged batch: writes its record and renames the batch into place, so a batch
 * directory always appears whole: record and before-images together. Nothing of it is durable
 * yet. The returned flushes make it so (the record, the images named in `copiedImages`, the batch
 * directory and the journal directory); the caller runs them together with the fsyncs of its
 * staged files and before changing any target, so a batch costs one round of fsyncs before its
 * first rename.
 */
export function publishBatch(stateDir: string, staging: BatchStaging, record: BatchRecord, copiedImages: readonly string[]): UnsyncedFile[] {
  writeFileUnsynced(path.join(staging.dir, RECORD_FILE), recordText(record));
  const dir = batchDirectory(stateDir, record.id);
  renameSync(staging.dir, dir);
  const files = [path.join(dir, RECORD_FILE), ...copiedImages.map((image) => imagePath(stateDir, record, image))];
  return [
    ...files.map(flushByPath),
    { flush: () => fsyncDirectory(dir) },
    { flush: () => fsyncDirectory(path.join(stateDir, JOURNAL_SUBDIR)) },
  ];
}

/** Removes a staged batch that will not be published. */
export function discardStaging(staging: BatchStaging): void {
  rmSync(staging.dir, { recursive: true, force: true });
}

/**
 * The commit point of a published batch: its record, fsynced at publish time, is renamed to
 * committed.json (atomic). The rename itself is not fsynced: every op is durable before it, so a
 * commit lost to a power failure leaves a prepared batch whose ops all landed, which recovery
 * rolls forward.
 */
export function markCommitted(stateDir: string, id: string): void {
  const dir = batchDirectory(stateDir, id);
  renameSync(path.join(dir, RECORD_FILE), path.join(dir, COMMITTED_RECORD_FILE));
}

/** Drops the commit mark an older writer prepared beside a batch's record (the batch is being rolled back or recovered instead). */
export function discardCommitMark(stateDir: string, id: string): void {
  try {
    unlinkSync(path.join(batchDirectory(stateDir, id), LEGACY_COMMIT_MARK_FILE));
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function looksLikeRecord(value: unknown, id: string): value is BatchRecord {
  const record = value as Partial<BatchRecord> | null;
  return (
    typeof record === "object" &&
    record !== null &&
    (record.format === 1 || record.format === 2) &&
    record.id === id &&
    typeof record.state === "string" &&
    typeof record.createdAt === "string" &&
    isValidIdentity(record.writer) &&
    Array.isArray(record.ops) &&
    Array.isArray(record.roots)
  );
}

/** The record of batch `id`; undefined when there is none; ToolError when it cannot be understood. */
export async function readRecord(stateDir: string, id: string): Promise<BatchRecord | undefined> {
  const dir = batchDirectory(stateDir, id);
  let text: string | undefined;
  let committed = false;
  for (const name of [COMMITTED_RECORD_FILE, RECORD_FILE]) {
    try {
      text = await readFile(path.join(dir, name), "utf8");
      committed = name === COMMITTED_RECORD_FILE;
      break;
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ToolError("io_error", `The journal record of batch ${id} is not valid JSON.`, { retryable: false });
  }
  if (!looksLikeRecord(parsed, id)) throw new ToolError("io_error", `The journal record of batch ${id} has an unknown shape.`, { retryable: false });
  // Committed by its name: written as prepared, it committed when it was renamed (markCommitted).
  if (committed) return { ...parsed, state: "committed", committedAt: parsed.committedAt ?? parsed.createdAt };
  return parsed;
}

/** The names in the journal directory; none before the first batch made it. */
function journalNames(stateDir: string): string[] {
  try {
    return readdirSync(path.join(stateDir, JOURNAL_SUBDIR));
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** Every batch id in the journal, oldest first. */
export async function listBatchIds(stateDir: string): Promise<string[]> {
  return journalNames(stateDir).filter(isBatchId).sort();
}

/** Every readable record, oldest first; unreadable ones are logged and skipped. */
export async function readAllRecords(stateDir: string): Promise<BatchRecord[]> {
  const records: BatchRecord[] = [];
  for (const id of await listBatchIds(stateDir)) {
    try {
      const record = await readRecord(stateDir, id);
      if (record !== undefined) records.push(record);
    } catch (error) {
      log.warn("skipping an unreadable journal entry", { batch: id, error: (error as Error).message });
    }
  }
  return records;
}

/** Removes a batch directory as one step (renamed aside first), so no half-deleted batch is ever seen. */
export async function removeBatch(stateDir: string, id: string): Promise<void> {
  const tomb = path.join(stateDir, JOURNAL_SUBDIR, transitName(id, "gone"));
  try {
    renameSync(batchDirectory(stateDir, id), tomb);
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  await removeTree(tomb);
}

/** Removes journal directories a dead process left on their way in or out, and its spares; returns how many. */
export async function removeTransitDebris(stateDir: string, isDead: (pid: number) => boolean): Promise<number> {
  let removed = 0;
  for (const name of journalNames(stateDir)) {
    const pid = TRANSIT.exec(name)?.[2] ?? SPARE.exec(name)?.[1];
    if (pid === undefined || !isDead(Number(pid))) continue;
    await removeTree(path.join(stateDir, JOURNAL_SUBDIR, name));
    removed += 1;
  }
  return removed;
}

/** Every path a journaled op touches, in op order. */
export function pathsOfOp(op: JournalOp): string[] {
  return op.to === null ? [op.path] : [op.path, op.to];
}

// ---------------------------------------------------------------------------------------------
// Views for people and tools.

export interface BatchSummary {
  batchId: string;
  state: BatchState;
  createdAt: string;
  committedAt: string | null;
  sessionId: string;
  tool: string;
  description: string | null;
  /** Every path the batch touched. */
  files: string[];
  /** Bytes of before-images kept for undo. */
  imageBytes: number;
}

export interface BatchDetail extends BatchSummary {
  roots: string[];
  writer: ProcessIdentity;
  ops: Array<Pick<JournalOp, "kind" | "path" | "to" | "before" | "after" | "beforeMode" | "afterMode">>;
  recovery: BatchRecord["recovery"];
}

export function summarize(record: BatchRecord): BatchSummary {
  return {
    batchId: record.id,
    state: record.state,
    createdAt: record.createdAt,
    committedAt: record.committedAt,
    sessionId: record.sessionId,
    tool: record.tool,
    description: record.description,
    files: record.ops.flatMap(pathsOfOp),
    imageBytes: record.imageBytes,
  };
}

export function detail(record: BatchRecord): BatchDetail {
  return {
    ...summarize(record),
    roots: record.roots,
    writer: record.writer,
    ops: record.ops.map(({ kind, path: opPath, to, before, after, beforeMode, afterMode }) => ({ kind, path: opPath, to, before, after, beforeMode, afterMode })),
    recovery: record.recovery,
  };
}

/** The record of `id`, or invalid_input naming why there is none. */
export async function requireRecord(stateDir: string, id: string): Promise<BatchRecord> {
  if (!isBatchId(id)) throw new ToolError("invalid_input", `${JSON.stringify(id)} is not a batch id (ids look like 20260101T120000123Z-0123456789).`);
  const record = await readRecord(stateDir, id);
  if (record === undefined) {
    throw new ToolError("invalid_input", `No journal entry ${id}: it never existed or was pruned.`, {
      hint: "List the journal (`ast-mcp journal list`) for the batches that can still be undone.",
    });
  }
  return record;
}
