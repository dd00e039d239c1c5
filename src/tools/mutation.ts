/**
 * What the mutation tools (file_write, file_patch, file_rename, file_delete, file_chattr, file_undo)
 * share: their input and output schemas, the write context they hand to the write façade, and the
 * rendering of its report. Each tool is an adapter: schema, one call to `src/patch/index.ts`, render.
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { Completeness, completeness } from "./completeness.ts";
import { type BatchReport, FileFactsSchema, type WriteContext } from "../patch/index.ts";
import { plural } from "./common.ts";
import type { ToolAnnotations, ToolContext } from "./contract.ts";

/** What a client must know about a preview receipt to pass it back. */
export const RECEIPT_USE = "From a stateless (2026-07-28) request it is a bearer handle, usable by its id alone in any later request; from a legacy session, in that session only.";

export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

const Sha256Input = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256 (64 characters)")
  .describe("Lowercase hex SHA-256 of the file's current raw bytes (from file_hash or file_read).");

export const ExpectedSha256 = Sha256Input.nullable()
  .optional()
  .describe(
    "The file's current SHA-256 (required for existing files unless [safety].require_hash is off); null means the file must not exist yet (exclusive create).",
  );

export const PathKey = z.string().min(1).max(LIMITS.pathChars);

/** `{files: {"<path>": entry}}` with 1–50 entries. */
export function filesRecord<Entry extends z.ZodType>(entry: Entry, what: string) {
  return z
    .record(PathKey, entry)
    .refine((files) => Object.keys(files).length >= 1, "name at least one file")
    .refine((files) => Object.keys(files).length <= LIMITS.batchPaths, `at most ${LIMITS.batchPaths} files per call`)
    .describe(`${what}, keyed by path (absolute or relative to the first root); up to ${LIMITS.batchPaths} files, committed together or not at all.`);
}

const Sha256Out = z.string().nullable().describe("Lowercase hex SHA-256 of the raw bytes (null: no file).");

const FileResult = z
  .object({
    path: z.string().describe("The file's path after the change, as the workspace displays it; usable as input."),
    sha256: Sha256Out.describe("SHA-256 of the file after the change (null when deleted). Pass it as expectedSha256 for the next edit."),
    previousSha256: Sha256Out.describe("SHA-256 before the change (null when the file was created)."),
    ...FileFactsSchema.shape,
    preview: z
      .object({
        diff: z.string().describe("Unified diff of the change (bounded)."),
        diffTruncated: z.boolean().describe("Whether the diff was cut."),
        added: z.number().int().describe("Lines added."),
        removed: z.number().int().describe("Lines removed."),
        candidateSha256: z.string().describe("SHA-256 the file would have after the change."),
        previewReceipt: z.string().describe(`One-use receipt: commit exactly this candidate with {previewReceipt} within 10 minutes. ${RECEIPT_USE}`),
        expiresAt: z.string().describe("When the receipt expires (ISO 8601)."),
      })
      .optional()
      .describe("Present when the entry was previewed: nothing was written."),
  })
  .describe("The outcome for one file.");
type FileResult = z.infer<typeof FileResult>;

export const MutationOutput = z.object({
  batchId: z
    .string()
    .nullable()
    .describe(
      "Journal id of the committed batch: keep it to take the batch back with file_undo({batchId}) (a stateless client has no session that remembers it); null for previews.",
    ),
  committed: z.boolean().describe("Whether anything was written."),
  files: z.record(z.string(), FileResult).describe("One entry per input key, keyed the same way."),
  ...Completeness,
});
export type MutationOutput = z.infer<typeof MutationOutput>;

/**
 * The write context of a call: built once per call from the tool context. Commits tell every code
 * index what they touched (the observer the tools layer hands to the write path).
 */
export function writeContext(context: ToolContext): WriteContext {
  return {
    workspace: context.workspace,
    config: context.config.config,
    configGeneration: context.config.generation,
    sessionId: context.sessionId,
    stateless: context.stateless,
    principal: context.principal,
    signal: context.signal,
    services: context.services.writes,
    onCommitted: (event) => context.services.indexes.noteCommitted(event.realPaths),
  };
}

/** The tools' output for a façade report: one entry per input key. */
export function mutationOutput(report: BatchReport): MutationOutput {
  const files: Record<string, FileResult> = {};
  for (const file of report.files) {
    const result: FileResult = { path: file.path, sha256: file.sha256, previousSha256: file.previousSha256, ...file.facts };
    if (file.receipt) {
      result.preview = {
        diff: file.diff?.text ?? "",
        diffTruncated: file.diff?.truncated ?? true,
        added: file.diff?.added ?? 0,
        removed: file.diff?.removed ?? 0,
        candidateSha256: file.candidateSha256 ?? "",
        previewReceipt: file.receipt.id,
        expiresAt: file.receipt.expiresAt,
      };
    }
    files[file.key] = result;
  }
  return { batchId: report.batchId, committed: report.committed, files, ...completeness(undefined, reportCuts(files)) };
}

/** What the report leaves out: a preview diff cut to its budget, type errors a limit cut. */
function reportCuts(files: Record<string, FileResult>): string[] {
  const cuts: string[] = [];
  for (const [key, file] of Object.entries(files)) {
    if (file.preview?.diffTruncated) {
      cuts.push(`${key}: preview diff cut to its byte budget; preview fewer files at once to see it whole (the receipt commits the whole candidate)`);
    }
    if (file.typeErrors?.checked && !file.typeErrors.complete) cuts.push(`${key}: type errors ${file.typeErrors.note ?? "cut by a limit"}`);
  }
  return cuts;
}

/** An entry's input that does not fit its shape, named by key and field. */
export function shapeError(key: string, field: string, message: string): ToolError {
  return new ToolError("invalid_input", `files[${JSON.stringify(key)}].${field}: ${message}`);
}

const RENDERED_TYPE_ERRORS = 20;

function renderTypeErrors(report: NonNullable<FileResult["typeErrors"]>): string[] {
  if (!report.checked) return [`  type errors: not checked (${report.note ?? "unknown reason"})`];
  const head = `  type errors introduced: ${report.introduced.length}${report.complete ? "" : "+"} (${report.errorsBefore} → ${report.errorsAfter})${
    report.note ? `; ${report.note}` : ""
  }`;
  const listed = report.introduced.slice(0, RENDERED_TYPE_ERRORS).map((error) => `    ${error.path}:${error.line}:${error.column} TS${error.code} ${error.message.split("\n")[0]}`);
  const more = report.introduced.length > RENDERED_TYPE_ERRORS ? [`    … ${report.introduced.length - RENDERED_TYPE_ERRORS} more in structuredContent`] : [];
  return [head, ...listed, ...more];
}

/** "batch <id>; undo: file_undo {…}": how every commit's first line names its batch. */
export function batchLine(batchId: string | null | undefined): string {
  return batchId ? `batch ${batchId}; undo: file_undo {"batchId": "${batchId}"}` : "batch -";
}

export function renderMutation(result: MutationOutput): string {
  const lines: string[] = [];
  const count = Object.keys(result.files).length;
  // The batch id on the first line: the text cap cuts from the end, and a client without a session has only this id to undo with.
  lines.push(result.committed ? `committed ${plural(count, "file")} as ${batchLine(result.batchId)}` : `previewed ${plural(count, "file")}; nothing written`);
  // Every receipt before any diff: the text cap cuts from the end, and a host that shows the model
  // only text must still be able to commit each previewed file.
  const previewed = Object.entries(result.files).filter(([, file]) => file.preview);
  if (previewed.length > 0) {
    lines.push(`receipts (commit each with file_patch {"files": {"<path>": {"previewReceipt": "…"}}}):`);
    for (const [key, file] of previewed) lines.push(`  ${key}: previewReceipt=${file.preview!.previewReceipt} (expires ${file.preview!.expiresAt})`);
  }
  for (const [key, file] of Object.entries(result.files)) {
    const head = `${file.path}${file.renamedFrom ? ` (from ${file.renamedFrom})` : ""}: ${file.change}${file.sha256 ? ` sha256=${file.sha256}` : ""}${
      file.mode ? ` mode=${file.mode}` : ""
    }`;
    lines.push(key === file.path || file.renamedFrom ? head : `${key} → ${head}`);
    for (const match of file.matches ?? []) {
      lines.push(
        `  block ${match.block}: ${match.matcher} L${match.startLine}-${match.endLine}${match.similarity !== undefined ? ` similarity ${match.similarity.toFixed(3)}` : ""}`,
      );
    }
    for (const note of file.importNotes ?? []) lines.push(`  imports: ${note}`);
    for (const rule of file.rules ?? []) {
      lines.push(`  rule ${rule.rule}: ${rule.applied}/${rule.matched} rewritten at ${rule.locations.map((l) => `L${l.startLine}-${l.endLine}`).join(", ")}`);
    }
    if (file.formatNote) lines.push(`  format: ${file.formatted ? "formatted" : "not formatted"} (${file.formatNote})`);
    if (file.syntax?.checked) lines.push(`  syntax errors: ${file.syntax.errorsBefore} → ${file.syntax.errorsAfter}`);
    if (file.typeErrors) lines.push(...renderTypeErrors(file.typeErrors));
    if (file.preview) {
      lines.push(`  candidate sha256=${file.preview.candidateSha256} (+${file.preview.added} −${file.preview.removed})`);
      lines.push(file.preview.diff + (file.preview.diffTruncated ? "\n  … diff cut" : ""));
    }
  }
  return lines.join("\n");
}
