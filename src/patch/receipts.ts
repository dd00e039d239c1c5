/**
 * Preview receipts: a preview writes nothing and hands back a one-use receipt bound to the session,
 * the canonical path, the source hash, the configuration generation and the candidate hash.
 * Committing the receipt reuses the exact reviewed candidate after every recheck.
 */
import { randomBytes } from "node:crypto";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";

export interface Receipt<Summary = unknown> {
  id: string;
  sessionId: string;
  /** Canonical path of the file the candidate replaces or creates. */
  canonicalPath: string;
  /** SHA-256 of the source when previewed; null when the file did not exist. */
  sourceSha256: string | null;
  configGeneration: number;
  candidateSha256: string;
  candidate: Buffer;
  createdAt: number;
  /** What the preview reported (matchers, formatting, syntax), returned again on commit. */
  summary: Summary;
}

/** One file of a multi-file receipt (a structural `run` over many files). */
export interface BatchReceiptFile<Summary = unknown> {
  canonicalPath: string;
  /** SHA-256 of the source when previewed (batch receipts only rewrite existing files). */
  sourceSha256: string;
  candidateSha256: string;
  candidate: Buffer;
  summary: Summary;
}

/** A receipt that binds several files: committing it writes all of them as one batch, or none. */
export interface BatchReceipt<FileSummary = unknown, Summary = unknown> {
  id: string;
  sessionId: string;
  configGeneration: number;
  files: Array<BatchReceiptFile<FileSummary>>;
  createdAt: number;
  summary: Summary;
}

type ReceiptIssue = "unknown" | "used" | "expired" | "foreign_session" | "stale_config" | "wrong_path" | "batch_receipt" | "single_receipt";

const REASONS: Record<ReceiptIssue, string> = {
  unknown: "no such receipt (it never existed, or it was evicted)",
  used: "the receipt was already used",
  expired: `the receipt expired (receipts live ${LIMITS.patch.receiptTtlMs / 60_000} minutes)`,
  foreign_session: "the receipt belongs to another session",
  stale_config: "the configuration changed since the preview",
  wrong_path: "the receipt was issued for a different file",
  batch_receipt: "it binds several files; commit it with run({previewReceipt})",
  single_receipt: "it binds one file; commit it with file_patch",
};

type Stored = Receipt<unknown> | BatchReceipt<unknown, unknown>;

function isBatch(receipt: Stored): receipt is BatchReceipt<unknown, unknown> {
  return "files" in receipt;
}

function bytesOf(receipt: Stored): number {
  return isBatch(receipt) ? receipt.files.reduce((sum, file) => sum + file.candidate.length, 0) : receipt.candidate.length;
}

/**
 * All live receipts of the process, keyed by id, each bound to its session. Bounded per session in
 * count and bytes (oldest evicted first); a session's receipts go when the session closes. The type
 * parameters are what a preview stores with a file, with a batch's file, and with a batch.
 */
export class ReceiptBook<FileSummary = unknown, BatchFileSummary = unknown, BatchSummary = unknown> {
  private readonly receipts = new Map<string, Stored>();
  private readonly used = new Map<string, string>(); // id → session, so a reuse is named as such
  private readonly bytesBySession = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(sessionId: string, receipt: Omit<Receipt<FileSummary>, "id" | "sessionId" | "createdAt">): Receipt<FileSummary> {
    const full: Receipt<FileSummary> = { ...receipt, id: `rcpt_${randomBytes(16).toString("base64url")}`, sessionId, createdAt: this.now() };
    this.store(full);
    return full;
  }

  /**
   * Issues one receipt for a multi-file change. A batch larger than a session's receipt budget is
   * refused rather than stored and evicted at once.
   */
  issueBatch(sessionId: string, receipt: Omit<BatchReceipt<BatchFileSummary, BatchSummary>, "id" | "sessionId" | "createdAt">): BatchReceipt<BatchFileSummary, BatchSummary> {
    const full: BatchReceipt<BatchFileSummary, BatchSummary> = { ...receipt, id: `rcpt_${randomBytes(16).toString("base64url")}`, sessionId, createdAt: this.now() };
    const bytes = bytesOf(full);
    if (bytes > LIMITS.patch.maxReceiptBytesPerSession) {
      throw new ToolError("too_many_items", `the previewed files hold ${bytes} bytes of new content; a preview receipt keeps at most ${LIMITS.patch.maxReceiptBytesPerSession}.`, {
        hint: "Narrow the change (paths, glob), or write it directly with expectedMatches.",
      });
    }
    this.store(full);
    return full;
  }

  /**
   * Takes a receipt for commit: it must exist, be unused, unexpired, from this session, for this file,
   * and from the current configuration generation. Taking it uses it up, even if a later recheck fails.
   */
  take(sessionId: string, id: string, expected: { canonicalPath: string; configGeneration: number }): Receipt<FileSummary> {
    return this.takeChecked(sessionId, id, this.check(sessionId, id, expected)) as Receipt<FileSummary>;
  }

  /** Takes a multi-file receipt for commit, under the same rules as take() (each file's path is the receipt's own). */
  takeBatch(sessionId: string, id: string, expected: { configGeneration: number }): BatchReceipt<BatchFileSummary, BatchSummary> {
    return this.takeChecked(sessionId, id, this.check(sessionId, id, { ...expected, batch: true })) as BatchReceipt<BatchFileSummary, BatchSummary>;
  }

  private takeChecked(sessionId: string, id: string, issue: ReceiptIssue | undefined): Stored {
    if (issue) {
      throw new ToolError("receipt_invalid", `previewReceipt ${JSON.stringify(id.slice(0, 64))} cannot be committed: ${REASONS[issue]}.`, {
        details: { reason: issue },
      });
    }
    const receipt = this.receipts.get(id) as Stored;
    this.forget(receipt);
    this.used.set(id, sessionId);
    return receipt;
  }

  private store(receipt: Stored): void {
    this.receipts.set(receipt.id, receipt);
    this.bytesBySession.set(receipt.sessionId, (this.bytesBySession.get(receipt.sessionId) ?? 0) + bytesOf(receipt));
    this.evict(receipt.sessionId);
  }

  dropSession(sessionId: string): void {
    for (const receipt of [...this.receipts.values()]) if (receipt.sessionId === sessionId) this.forget(receipt);
    for (const [id, owner] of [...this.used]) if (owner === sessionId) this.used.delete(id);
    this.bytesBySession.delete(sessionId);
  }

  private check(
    sessionId: string,
    id: string,
    expected: { canonicalPath: string; configGeneration: number } | { batch: true; configGeneration: number },
  ): ReceiptIssue | undefined {
    if (this.used.get(id) === sessionId) return "used";
    const receipt = this.receipts.get(id);
    if (!receipt) return this.used.has(id) ? "foreign_session" : "unknown";
    if (receipt.sessionId !== sessionId) return "foreign_session";
    if (this.now() - receipt.createdAt > LIMITS.patch.receiptTtlMs) return "expired";
    if ("batch" in expected) {
      if (!isBatch(receipt)) return "single_receipt";
    } else {
      if (isBatch(receipt)) return "batch_receipt";
      if (receipt.canonicalPath !== expected.canonicalPath) return "wrong_path";
    }
    if (receipt.configGeneration !== expected.configGeneration) return "stale_config";
    return undefined;
  }

  private forget(receipt: Stored): void {
    if (!this.receipts.delete(receipt.id)) return;
    this.bytesBySession.set(receipt.sessionId, (this.bytesBySession.get(receipt.sessionId) ?? 0) - bytesOf(receipt));
  }

  private evict(sessionId: string): void {
    const now = this.now();
    const mine = [...this.receipts.values()].filter((r) => r.sessionId === sessionId);
    for (const receipt of mine) {
      if (now - receipt.createdAt > LIMITS.patch.receiptTtlMs) this.forget(receipt);
    }
    const live = mine.filter((r) => this.receipts.has(r.id));
    while (live.length > 0 && (live.length > LIMITS.patch.maxReceiptsPerSession || (this.bytesBySession.get(sessionId) ?? 0) > LIMITS.patch.maxReceiptBytesPerSession)) {
      this.forget(live.shift() as Stored);
    }
    // Used ids matter only while such a receipt could still be presented.
    if (this.used.size > LIMITS.patch.maxReceiptsPerSession * 64) this.used.clear();
  }
}
