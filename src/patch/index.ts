/**
 * The write path's façade: everything outside `src/patch/` that writes, previews, undoes, recovers
 * or inspects the journal goes through these exports.
 */
export { commitBatchReceipt, createWriteServices, listRecentBatches, undoBatch, writeBatch } from "./write-batch.ts";
export type { WriteServices } from "./write-batch.ts";
export type { CommittedEvent, WriteContext } from "./pipeline.ts";
export type { Diagnose, WriteEntry } from "./strategies.ts";
export { type BatchReport, FileFactsSchema, type FileOutcome } from "./report.ts";
export type { AstRule } from "./ast-rules.ts";
export { commitBatch } from "./commit.ts";
export { listBatches, showBatch, undoDescription, undoOps } from "./journal.ts";
export type { BatchDetail, BatchSummary } from "./journal-store.ts";
export { recoverJournal, type RecoveryReport } from "./recover.ts";
