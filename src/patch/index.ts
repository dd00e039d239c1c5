/**
 * The write path's façade: everything outside `src/patch/` that writes, previews, undoes, recovers
 * or inspects the journal goes through these exports.
 */
export { commitBatchReceipt, createWriteServices, undoBatch, writeBatch } from "./write-batch.ts";
export type { WriteServices } from "./write-batch.ts";
export type { WriteContext } from "./pipeline.ts";
export type { Diagnose, WriteEntry } from "./strategies.ts";
export { type BatchReport, FileFactsSchema, type FileOutcome } from "./report.ts";
export type { AstRule } from "./ast-rules.ts";
export type { CommittedEvent } from "./pipeline.ts";
export { commitBatch } from "./commit.ts";
export { listBatches, showBatch, undoOps, type BatchDetail, type BatchSummary } from "./journal.ts";
export { recoverJournal, type RecoveryReport } from "./recover.ts";
