/**
 * The one write façade: `writeBatch` plans every entry with the strategy of its kind, then previews
 * (issuing receipts) or commits the whole batch through `commitPlans`; `commitBatchReceipt` and
 * `undoBatch` commit what a receipt or the journal holds the same way. One failing entry refuses the
 * whole batch; a refused or failed write leaves every byte as it was.
 */
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { eachLimited } from "../helpers/concurrency.ts";
import { sha256Hex } from "../helpers/hash.ts";
import { unifiedDiff } from "../helpers/unified-diff.ts";
import { FormatterCache } from "./formatter-cache.ts";
import type { Formatters } from "./format.ts";
import { listBatches, recentBatches, undoDescription, undoOps } from "./journal.ts";
import { Journals } from "./journal-store.ts";
import { SyntaxGuard } from "./syntax-guard.ts";
import { commitPlans, loadSource, type Plan, refuseIfCancelled, refuseOverlaps, type WriteContext } from "./pipeline.ts";
import { ReceiptBook } from "./receipts.ts";
import type { BatchReport, Change, DiffFacts, FileFacts, FileOutcome, ReceiptTicket } from "./report.ts";
import { type Planned, planEntry, type WriteEntry, writePlan } from "./strategies.ts";

/** What a multi-file preview was of, returned when its receipt is committed. */
export interface PreviewSummary {
  languages: string[];
  matchCount: number;
}

interface BatchFileSummary {
  facts: FileFacts;
  added: number;
  removed: number;
}

/** The write path's per-process state: preview receipts, the formatter cache, the journal stores, the syntax guard's memory. */
export interface WriteServices {
  receipts: ReceiptBook<FileFacts, BatchFileSummary, PreviewSummary>;
  formatters: FormatterCache;
  journals: Journals;
  syntax: SyntaxGuard;
  /** Entries of one batch planned at once (reads, policy checks and parses overlap with formatting). */
  planConcurrency: number;
  /** Frees what a closed session held (its preview receipts; a stateless request's bearer receipts are not its own). */
  closeSession(sessionId: string): void;
}

export function createWriteServices(options: { formatterSettleMs?: number; planConcurrency?: number } = {}): WriteServices {
  const receipts = new ReceiptBook<FileFacts, BatchFileSummary, PreviewSummary>();
  return {
    receipts,
    formatters: new FormatterCache(options.formatterSettleMs === undefined ? {} : { settleMs: options.formatterSettleMs }),
    journals: new Journals(),
    syntax: new SyntaxGuard(),
    planConcurrency: options.planConcurrency ?? 8,
    closeSession: (sessionId) => receipts.dropSession(sessionId),
  };
}

export interface BatchOptions {
  /** The tool named in the journal. */
  tool: string;
  /** Write nothing: issue one receipt per file, or one for the whole batch. */
  preview?: { receipt: "per-file" } | { receipt: "one"; summary: PreviewSummary };
  /** Bounded diffs of the content changes: at most `perFile` bytes each and `total` for the batch. */
  diff?: { perFile: number; total?: number };
  /** Leave out of the batch the entries whose candidate has the bytes of the file (reported as unchanged). */
  skipUnchanged?: boolean;
  /** Plan one entry at a time even where several could overlap. */
  sequential?: boolean;
  maxOps?: number;
  /** How a failing entry is named to the caller (default: `files["key"]: …`). */
  nameFailure?: (key: string, error: ToolError) => ToolError;
  /** Called with the plans before anything is locked; throwing refuses the batch. */
  confirm?: (outcomes: readonly FileOutcome[]) => void;
  /** Entries that follow from the planned renames (their importers), and notes per moved file's real path. */
  follow?: (moves: ReadonlyArray<{ from: string; to: string }>) => Promise<{ entries: WriteEntry[]; notes: Map<string, string[]> }>;
}

/** Plans and then previews or commits one batch of entries. */
export async function writeBatch(entries: readonly WriteEntry[], context: WriteContext, options: BatchOptions): Promise<BatchReport> {
  let formatters: Promise<Formatters> | undefined;
  const run = { context, formatters: () => (formatters ??= context.services.formatters.for(context)) };
  const overlaps = !options.sequential &&
    entries.every((entry) => entry.kind === "content" || ((entry.kind === "aider" || entry.kind === "rules") && entry.diagnose === undefined));
  const nameFailure = options.nameFailure ?? nameByKey;
  const plan = (entry: WriteEntry) => planEntry(entry, run);
  const planned = await planEntries(entries, plan, nameFailure, context.signal, overlaps ? context.services.planConcurrency : 1);
  if (options.follow) {
    refuseOverlaps(planned.map((item) => item.plan)); // before the follow-up's own work; commitPlans checks the whole batch again
    const moves = planned.flatMap(({ plan: { op } }) => (op.kind === "rename" ? [{ from: op.from, to: op.to }] : []));
    const follow = await options.follow(moves);
    const more = await planEntries(follow.entries, plan, (_key, error) => error, context.signal, 1);
    for (const { plan: item } of planned) {
      const notes = item.op.kind === "rename" ? follow.notes.get(item.op.from) : undefined;
      if (notes) item.report.importNotes = notes;
    }
    planned.push(...more);
  }
  refuseOverlaps(planned.map((item) => item.plan));
  const outcomes = planned.map((item) => outcomeOf(item, item.plan.before?.sha256 ?? null));
  if (options.diff) attachDiffs(planned, outcomes, options.diff);
  options.confirm?.(outcomes);
  // Indices of the entries that reach the disk (or the receipt).
  const written = [...planned.keys()].filter((index) => !(options.skipUnchanged && outcomes[index]?.facts.change === "unchanged"));

  if (options.preview) {
    const report: BatchReport = { batchId: null, committed: false, files: outcomes };
    if (options.preview.receipt === "per-file") {
      for (const [index, item] of planned.entries()) (outcomes[index] as FileOutcome).receipt = ticket(issueReceipt(item, context));
    } else if (written.length > 0) {
      const files = written.map((index) => {
        const item = planned[index] as Planned;
        const outcome = outcomes[index] as FileOutcome;
        return {
          canonicalPath: item.plan.resolved.real,
          sourceSha256: item.plan.before?.sha256 as string,
          candidateSha256: outcome.candidateSha256 as string,
          candidate: item.plan.afterBytes as Buffer,
          summary: { facts: item.plan.report, added: outcome.diff?.added ?? 0, removed: outcome.diff?.removed ?? 0 },
        };
      });
      report.receipt = ticket(context.services.receipts.issueBatch(context, { configGeneration: context.configGeneration, files, summary: options.preview.summary }));
    }
    return report;
  }
  if (written.length === 0) return { batchId: null, committed: false, files: outcomes };
  const result = await commitPlans(written.map((index) => (planned[index] as Planned).plan), context, options.tool, options.maxOps);
  for (const [at, index] of written.entries()) (outcomes[index] as FileOutcome).sha256 = result.files[at]?.after ?? null;
  return { batchId: result.batchId, committed: true, files: outcomes };
}

/** Commits exactly what a multi-file preview showed, after rechecking every file. */
export async function commitBatchReceipt(
  receiptId: string,
  context: WriteContext,
  options: Pick<BatchOptions, "tool" | "maxOps" | "nameFailure">,
): Promise<BatchReport & { summary: PreviewSummary }> {
  const receipt = context.services.receipts.takeBatch(context, receiptId, { configGeneration: context.configGeneration });
  const nameFailure = options.nameFailure ?? nameByKey;
  const planned: Planned[] = [];
  const diffs: DiffFacts[] = [];
  for (const file of receipt.files) {
    refuseIfCancelled(context.signal);
    const resolved = await context.workspace.resolve(file.canonicalPath, "write");
    await named(resolved.display, nameFailure, async () => {
      if (resolved.real !== file.canonicalPath) throw new ToolError("receipt_invalid", "the path no longer leads to the previewed file.");
      const source = await loadSource(resolved, file.sourceSha256, context);
      if (!source) throw new ToolError("stale_hash", `${resolved.display} no longer exists.`, { details: { path: resolved.display, currentSha256: null } });
      const plan = writePlan(resolved.display, resolved, source, file.candidate, file.summary.facts);
      planned.push({ plan, candidateSha256: file.candidateSha256 });
      diffs.push({ truncated: false, added: file.summary.added, removed: file.summary.removed });
    });
  }
  const result = await commitPlans(planned.map((item) => item.plan), context, options.tool, options.maxOps);
  const files = planned.map((item, index) => ({ ...outcomeOf(item, result.files[index]?.after ?? null), diff: diffs[index] as DiffFacts }));
  return { batchId: result.batchId, committed: true, files, summary: receipt.summary };
}

/**
 * Undoes a committed batch (by id, or a legacy session's last one): every file goes back to its
 * before-image, but only if it still has the content the batch left. The undo is itself a batch.
 * A stateless request has no "last batch" of its own: without an id it is refused with the recent
 * batches of its workspace, never a guess.
 */
export async function undoBatch(batchId: string | undefined, context: WriteContext): Promise<BatchReport> {
  let target = batchId;
  if (target === undefined && context.stateless) throw await undoNeedsBatchId(context);
  if (target === undefined) {
    const mine = await listBatches({ sessionId: context.sessionId });
    const last = mine.filter((batch) => batch.state === "committed").at(-1);
    if (!last) throw new ToolError("invalid_input", "this session has committed no batch to undo; pass a batchId (see `ast-mcp journal list`).");
    target = last.batchId;
  }
  const { ops, conflicts } = await undoOps(target);
  if (conflicts.length > 0) {
    const shown = conflicts.map((file) => context.workspace.display(file));
    throw new ToolError("undo_conflict", `batch ${target} cannot be undone: ${shown.length} ${shown.length === 1 ? "file" : "files"} changed since: ${shown.join(", ")}.`, {
      details: { batchId: target, files: shown },
    });
  }
  const plans: Plan[] = [];
  for (const op of ops) {
    // The policy of today decides: an undo may not write where the agent may no longer write.
    const resolved = await context.workspace.resolve(op.kind === "rename" ? op.from : op.path, op.kind === "rename" || op.kind === "delete" ? "delete" : "write");
    if (op.kind === "rename") await context.workspace.resolve(op.to, "write");
    const change: Change = op.kind === "delete" ? "deleted" : op.kind === "rename" ? "renamed" : op.kind === "chmod" ? "mode" : "modified";
    plans.push({
      key: resolved.display,
      resolved,
      touches: op.kind === "rename" ? [op.from, op.to] : [op.path],
      op,
      displayAfter: op.kind === "rename" ? context.workspace.display(op.to) : resolved.display,
      before: op.expectedBefore === null ? null : { bytes: Buffer.alloc(0), sha256: op.expectedBefore, mode: 0 },
      report: { change, ...(op.kind === "rename" ? { renamedFrom: resolved.display } : {}) },
    });
  }
  const result = await commitPlans(plans, context, "file_undo", undefined, undoDescription(target));
  const files = plans.map((plan, index) => {
    const committed = result.files[index];
    const outcome = outcomeOf({ plan }, committed?.after ?? null);
    if (committed && plan.op.kind === "write") outcome.facts.change = committed.before === null ? "created" : "modified";
    return outcome;
  });
  return { batchId: result.batchId, committed: true, files };
}

/** The newest batches the workspace could take back, newest first (journal_list's answer). */
export function listRecentBatches(context: Pick<WriteContext, "workspace">, options: { limit: number; within?: string }): ReturnType<typeof recentBatches> {
  return recentBatches(options.within === undefined ? context.workspace.roots.map((root) => root.real) : [options.within], options);
}

/** The refusal of a stateless undo without a batch id: what it could mean, listed, and the call that lists more. */
async function undoNeedsBatchId(context: WriteContext): Promise<ToolError> {
  const { batches } = await listRecentBatches(context, { limit: LIMITS.patch.listedBatches });
  const undoable = batches.filter((batch) => batch.state === "committed" && batch.undoneBy === null);
  const listed = undoable.map((batch) => ({
    batchId: batch.batchId,
    committedAt: batch.committedAt,
    tool: batch.tool,
    files: batch.files.slice(0, LIMITS.patch.listedBatchFiles).map((file) => context.workspace.display(file)),
    fileCount: batch.files.length,
  }));
  const named = listed.map((batch) => `${batch.batchId} (${batch.tool}: ${batch.files.slice(0, 3).join(", ")}${batch.fileCount > 3 ? ", …" : ""})`);
  return new ToolError(
    "invalid_input",
    `batchId: a stateless request has no session whose last batch could be meant; pass the batchId a commit returned.${
      named.length > 0 ? ` Recent batches not undone yet, newest first: ${named.join("; ")}.` : " The journal holds no batch of this workspace that is not undone yet."
    }`,
    {
      hint: "Pass batchId from the commit's answer; journal_list lists the recent batches of the workspace with their files.",
      suggestedNextCall: { tool: "journal_list", arguments: {} },
      details: { recentBatches: listed },
    },
  );
}

function outcomeOf(item: Planned, sha256: string | null): FileOutcome {
  const { plan } = item;
  return {
    key: plan.key,
    path: plan.displayAfter,
    sha256,
    previousSha256: plan.before?.sha256 ?? null,
    ...(item.candidateSha256 === undefined ? {} : { candidateSha256: item.candidateSha256 }),
    facts: { ...plan.report },
  };
}

function issueReceipt(item: Planned, context: WriteContext) {
  const bytes = item.plan.afterBytes as Buffer;
  return context.services.receipts.issue(context, {
    canonicalPath: item.plan.resolved.real,
    sourceSha256: item.plan.before?.sha256 ?? null,
    configGeneration: context.configGeneration,
    candidateSha256: item.candidateSha256 ?? sha256Hex(bytes),
    candidate: bytes,
    summary: item.plan.report,
  });
}

function ticket(receipt: { id: string; createdAt: number }): ReceiptTicket {
  return { id: receipt.id, expiresAt: new Date(receipt.createdAt + LIMITS.patch.receiptTtlMs).toISOString() };
}

/** Fills each content change's diff within the per-file and per-batch budgets. */
function attachDiffs(planned: readonly Planned[], outcomes: FileOutcome[], budget: { perFile: number; total?: number }): void {
  let remaining = budget.total ?? Number.POSITIVE_INFINITY;
  for (const [index, item] of planned.entries()) {
    if (!item.texts) continue;
    const allowed = Math.min(budget.perFile, remaining);
    const diff = unifiedDiff(item.plan.displayAfter, item.plan.before ? item.texts.before : undefined, item.texts.after, Math.max(allowed, 1));
    const outcome = outcomes[index] as FileOutcome;
    if (allowed < 200) {
      outcome.diff = { truncated: true, added: diff.added, removed: diff.removed };
      continue;
    }
    outcome.diff = { text: diff.diff, truncated: diff.truncated, added: diff.added, removed: diff.removed };
    remaining -= Buffer.byteLength(diff.diff);
  }
}

/** Prefixes an entry's failure with its key, so the caller knows which entry refused the batch. */
function nameByKey(key: string, error: ToolError): ToolError {
  return new ToolError(error.code, `files[${JSON.stringify(key)}]: ${error.message}`, {
    hint: error.hint,
    retryable: error.retryable,
    ...(error.suggestedNextCall ? { suggestedNextCall: error.suggestedNextCall } : {}),
    details: { ...error.details, key },
  });
}

async function named<T>(key: string, nameFailure: (key: string, error: ToolError) => ToolError, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof ToolError ? nameFailure(key, error) : error;
  }
}

/**
 * Plans every entry, a few at a time so their file reads, policy checks and parses overlap with
 * the formatting of others. Entries start in order and none starts after one has failed, so the
 * refusal names the first failing entry, as planning them one by one would. Entries that plan to
 * nothing (an import rewrite that changes no text) are left out.
 */
async function planEntries(
  entries: readonly WriteEntry[],
  plan: (entry: WriteEntry) => Promise<Planned | undefined>,
  nameFailure: (key: string, error: ToolError) => ToolError,
  signal: AbortSignal,
  concurrency: number,
): Promise<Planned[]> {
  const planned: Array<Planned | undefined> = [];
  const failures: Array<{ index: number; error: unknown }> = [];
  await eachLimited(entries, concurrency, async (entry, index) => {
    if (failures.length > 0) return;
    try {
      refuseIfCancelled(signal);
      planned[index] = await named(entry.key, entry.kind === "transform" ? (_key, error) => error : nameFailure, () => plan(entry));
    } catch (error) {
      failures.push({ index, error });
    }
  });
  if (failures.length > 0) throw failures.reduce((first, failure) => (failure.index < first.index ? failure : first)).error;
  return planned.filter((item): item is Planned => item !== undefined);
}
