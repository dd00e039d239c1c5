/**
 * The mutation tools: file_write, file_patch, file_rename, file_delete, file_chattr, file_undo.
 * Each plans every entry completely (policy, hash, transform, syntax guard, format) before anything
 * is locked or written, then commits the whole batch through the one pipeline in src/patch.
 * One failing entry refuses the whole batch; a refused or failed write leaves every byte as it was.
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { findImporters } from "../intel/import-scan.ts";
import { typeErrorReport } from "../intel/typescript/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { type AiderBlock, type AppliedBlock, applyAiderBlocks, parseAiderText } from "../patch/aider.ts";
import { type AstRule, type AstRuleReport, applyAstRulesAsync } from "../patch/ast-rules.ts";
import type { CommitResult } from "../patch/commit.ts";
import { listBatches, undoOps } from "../patch/journal.ts";
import {
  buildTextCandidate,
  commitPlans,
  type CandidateReport,
  decodeSource,
  formattersFor,
  loadSource,
  parseChmod,
  type PipelineContext,
  type Plan,
  previewDiff,
  refuseOverlaps,
  type TextCandidate,
} from "../patch/pipeline.ts";
import type { Formatters } from "../patch/format.ts";
import { receiptBook } from "../patch/receipts.ts";
import { adaptLineEndings, type DecodedFile, newFileDefaults } from "../text/index.ts";
import { sha256Hex } from "../helpers/hash.ts";
import { firstLineOf, languageOf } from "../syntax/index.ts";
import { plural } from "./common.ts";
import { defineTool, type ToolAnnotations, type ToolContext } from "./contract.ts";
import { planImportUpdates } from "./rename-imports.ts";

const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

const Sha256Input = z
  .string()
  .regex(/^[0-9a-f]{64}$/, "must be a lowercase hex SHA-256 (64 characters)")
  .describe("Lowercase hex SHA-256 of the file's current raw bytes (from file_hash or file_read).");

const ExpectedSha256 = Sha256Input.nullable()
  .optional()
  .describe(
    "The file's current SHA-256 (required for existing files unless [safety].require_hash is off); null means the file must not exist yet (exclusive create).",
  );

const PathKey = z.string().min(1).max(LIMITS.pathChars);

/** `{files: {"<path>": entry}}` with 1–50 entries. */
function filesRecord<Entry extends z.ZodType>(entry: Entry, what: string) {
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
    change: z.enum(["created", "modified", "unchanged", "deleted", "renamed", "mode"]).describe("What happened to the file."),
    renamedFrom: z.string().optional().describe("For renames: the source path."),
    importNotes: z.array(z.string()).optional().describe("For renames with updateImports: importers left unchanged and why, and the moved file's own relative imports that now need another specifier."),
    mode: z.string().optional().describe("For file_chattr: the new mode in octal."),
    matches: z
      .array(
        z.object({
          block: z.number().int().describe("0-based index of the Aider block."),
          matcher: z.string().describe("Which matcher applied: exact, whitespace, indentation, fuzzy or append."),
          startLine: z.number().int().describe("First line (1-based) of the matched text when the block applied."),
          endLine: z.number().int().describe("Last line (1-based) of the matched text."),
          similarity: z.number().optional().describe("Fuzzy matches: similarity from 0 to 1."),
        }),
      )
      .optional()
      .describe("Aider blocks: where each one matched."),
    rules: z
      .array(
        z.object({
          rule: z.number().int().describe("0-based index of the structural rule."),
          matched: z.number().int().describe("Matches found."),
          applied: z.number().int().describe("Rewrites actually applied."),
          locations: z.array(z.object({ startLine: z.number().int(), endLine: z.number().int() })).describe("1-based line ranges of the matches."),
        }),
      )
      .optional()
      .describe("Structural rules: what each matched and rewrote."),
    formatted: z.boolean().optional().describe("Whether the formatter ran on the candidate."),
    formatNote: z.string().optional().describe("Which formatter ran, or why the candidate was not formatted."),
    syntax: z
      .object({
        checked: z.boolean().describe("Whether a parser checked the candidate."),
        errorsBefore: z.number().int().describe("Syntax errors in the original."),
        errorsAfter: z.number().int().describe("Syntax errors in the candidate."),
      })
      .optional()
      .describe("The syntax guard's verdict."),
    typeErrors: z
      .object({
        checked: z.boolean().describe("Whether the TypeScript compiler checked the change (see note when not)."),
        introduced: z
          .array(
            z.object({
              path: z.string().describe("File with the error: the patched file or a file importing it."),
              line: z.number().int().describe("1-based line in the candidate."),
              column: z.number().int().describe("1-based column."),
              code: z.number().int().describe("TypeScript error code (TS2322 → 2322)."),
              message: z.string().describe("The compiler's message."),
            }),
          )
          .describe("Errors the change introduces (present after it, absent before)."),
        errorsBefore: z.number().int().describe("Type errors before the change, in the same files."),
        errorsAfter: z.number().int().describe("Type errors after the change."),
        complete: z.boolean().describe("False when a limit cut the list or files importing this one were left out."),
        note: z.string().optional().describe("Why nothing was checked, or what else was checked."),
      })
      .optional()
      .describe("With diagnostics: true, the type errors the change introduces. Reported only; they never refuse the write."),
    preview: z
      .object({
        diff: z.string().describe("Unified diff of the change (bounded)."),
        diffTruncated: z.boolean().describe("Whether the diff was cut."),
        added: z.number().int().describe("Lines added."),
        removed: z.number().int().describe("Lines removed."),
        candidateSha256: z.string().describe("SHA-256 the file would have after the change."),
        previewReceipt: z.string().describe("One-use receipt: commit exactly this candidate with {previewReceipt} within 10 minutes."),
        expiresAt: z.string().describe("When the receipt expires (ISO 8601)."),
      })
      .optional()
      .describe("Present when the entry was previewed: nothing was written."),
  })
  .describe("The outcome for one file.");
type FileResult = z.infer<typeof FileResult>;

const MutationOutput = z.object({
  batchId: z.string().nullable().describe("Journal id of the committed batch (undo it with file_undo); null for previews."),
  committed: z.boolean().describe("Whether anything was written."),
  files: z.record(z.string(), FileResult).describe("One entry per input key, keyed the same way."),
});
type MutationOutput = z.infer<typeof MutationOutput>;

function pipelineContext(context: ToolContext): PipelineContext {
  return {
    workspace: context.workspace,
    config: context.config.config,
    configGeneration: context.config.generation,
    sessionId: context.sessionId,
    signal: context.signal,
  };
}

/** Prefixes an entry's failure with its key, so the caller knows which entry refused the batch. */
async function forEntry<T>(key: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ToolError) {
      throw new ToolError(error.code, `files[${JSON.stringify(key)}]: ${error.message}`, {
        hint: error.hint,
        retryable: error.retryable,
        ...(error.suggestedNextCall ? { suggestedNextCall: error.suggestedNextCall } : {}),
        details: { ...error.details, key },
      });
    }
    throw error;
  }
}

/**
 * Plans every entry, a few at a time so their file reads, policy checks and parses overlap with
 * the formatting of others. Entries start in order and none starts after one has failed, so the
 * refusal names the first failing entry, as planning them one by one would.
 */
async function planEntries<Entry, Planned>(
  entries: Array<[string, Entry]>,
  plan: (key: string, entry: Entry) => Promise<Planned>,
  concurrency: number = LIMITS.patch.planConcurrency,
): Promise<Planned[]> {
  const planned: Planned[] = [];
  const failures: Array<{ index: number; error: unknown }> = [];
  let next = 0;
  const worker = async () => {
    while (failures.length === 0 && next < entries.length) {
      const index = next++;
      const [key, entry] = entries[index] as [string, Entry];
      try {
        planned[index] = await forEntry(key, () => plan(key, entry));
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, entries.length)) }, worker));
  if (failures.length > 0) throw failures.reduce((first, failure) => (failure.index < first.index ? failure : first)).error;
  return planned;
}

function commitReport(plans: Plan[], result: CommitResult): MutationOutput {
  const files: Record<string, FileResult> = {};
  for (const [index, plan] of plans.entries()) {
    const committed = result.files[index];
    files[plan.key] = { path: plan.displayAfter, sha256: committed?.after ?? null, previousSha256: plan.before?.sha256 ?? null, ...(plan.report as Omit<FileResult, "path" | "sha256" | "previousSha256">) };
  }
  return { batchId: result.batchId, committed: true, files };
}

function candidateFacts(report: CandidateReport): Pick<FileResult, "formatted" | "formatNote" | "syntax"> {
  return {
    formatted: report.format.formatted,
    formatNote: report.format.reason,
    syntax: { checked: report.syntax.checked, errorsBefore: report.syntax.beforeErrors, errorsAfter: report.syntax.afterErrors },
  };
}

function changeOf(before: { sha256: string } | null, afterSha: string): FileResult["change"] {
  if (!before) return "created";
  return before.sha256 === afterSha ? "unchanged" : "modified";
}

/** Resolves a target for writing and loads what is there now (checking expectedSha256). */
async function openTarget(key: string, expected: string | null | undefined, context: ToolContext, pipeline: PipelineContext) {
  const resolved = await context.workspace.resolve(key, "write");
  const source = await loadSource(resolved, expected, pipeline);
  const decoded: DecodedFile | undefined = source ? decodeSource(source, resolved) : undefined;
  return { resolved, source, decoded };
}

/** Resolves an entry that acts on an existing file (rename source, delete, chmod) and checks its hash. */
async function openExisting(key: string, expected: string | null | undefined, operation: "write" | "delete", action: string, context: ToolContext, pipeline: PipelineContext) {
  if (expected === null) throw patchShapeError(key, "expectedSha256", `null is not meaningful for ${action}: the file must exist`);
  const resolved = await context.workspace.resolve(key, operation);
  if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  const source = await loadSource(resolved, expected, pipeline);
  if (!source) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  return { resolved, source };
}

/** The candidate for an entry's new text: checked, formatted and encoded like the file it replaces. */
function prepareText(
  target: { resolved: ResolvedPath; decoded: DecodedFile | undefined; style: Pick<DecodedFile, "encoding" | "bom"> },
  text: string,
  allowSyntaxErrors: boolean | undefined,
  how: { formatters: Formatters; pipeline: PipelineContext },
): Promise<TextCandidate> {
  return buildTextCandidate({
    resolved: target.resolved,
    original: target.decoded,
    candidateText: text,
    encodeAs: target.style,
    allowSyntaxErrors: allowSyntaxErrors ?? false,
    formatters: how.formatters,
    config: how.pipeline.config,
  });
}

/** A write plan for a checked candidate, its check facts in the report. */
function candidatePlan(key: string, resolved: ResolvedPath, source: Plan["before"], candidate: TextCandidate, facts: Partial<FileResult>): Plan {
  return writePlan(key, resolved, source, candidate.bytes, { change: changeOf(source, candidate.sha256), ...facts, ...candidateFacts(candidate.report) });
}

/** The plan that writes `after` over (or as) one file: file_write, file_patch and a committed preview receipt alike. */
function writePlan(key: string, resolved: ResolvedPath, source: Plan["before"], after: Buffer, report: Plan["report"]): Plan {
  return {
    key,
    resolved,
    touches: [resolved.real],
    op: { kind: "write" as const, path: resolved.real, expectedBefore: source?.sha256 ?? null, after, mkdirParents: !resolved.exists },
    displayAfter: resolved.display,
    before: source,
    afterBytes: after,
    report,
  };
}

const RENDERED_TYPE_ERRORS = 20;

function renderTypeErrors(report: NonNullable<FileResult["typeErrors"]>): string[] {
  if (!report.checked) return [`  type errors: not checked (${report.note ?? "unknown reason"})`];
  const head = `  type errors introduced: ${report.introduced.length}${report.complete ? "" : "+"} (${report.errorsBefore} → ${report.errorsAfter})${report.note ? `; ${report.note}` : ""}`;
  const listed = report.introduced.slice(0, RENDERED_TYPE_ERRORS).map((error) => `    ${error.path}:${error.line}:${error.column} TS${error.code} ${error.message.split("\n")[0]}`);
  const more = report.introduced.length > RENDERED_TYPE_ERRORS ? [`    … ${report.introduced.length - RENDERED_TYPE_ERRORS} more in structuredContent`] : [];
  return [head, ...listed, ...more];
}

function renderMutation(result: MutationOutput): string {
  const lines: string[] = [];
  const count = Object.keys(result.files).length;
  lines.push(result.committed ? `committed ${plural(count, "file")} as batch ${result.batchId}` : `previewed ${plural(count, "file")}; nothing written`);
  for (const [key, file] of Object.entries(result.files)) {
    const head = `${file.path}${file.renamedFrom ? ` (from ${file.renamedFrom})` : ""}: ${file.change}${file.sha256 ? ` sha256=${file.sha256}` : ""}${file.mode ? ` mode=${file.mode}` : ""}`;
    lines.push(key === file.path || file.renamedFrom ? head : `${key} → ${head}`);
    for (const match of file.matches ?? []) lines.push(`  block ${match.block}: ${match.matcher} L${match.startLine}-${match.endLine}${match.similarity !== undefined ? ` similarity ${match.similarity.toFixed(3)}` : ""}`);
    for (const note of file.importNotes ?? []) lines.push(`  imports: ${note}`);
    for (const rule of file.rules ?? []) lines.push(`  rule ${rule.rule}: ${rule.applied}/${rule.matched} rewritten at ${rule.locations.map((l) => `L${l.startLine}-${l.endLine}`).join(", ")}`);
    if (file.formatNote) lines.push(`  format: ${file.formatted ? "formatted" : "not formatted"} (${file.formatNote})`);
    if (file.syntax?.checked) lines.push(`  syntax errors: ${file.syntax.errorsBefore} → ${file.syntax.errorsAfter}`);
    if (file.typeErrors) lines.push(...renderTypeErrors(file.typeErrors));
    if (file.preview) {
      lines.push(`  candidate sha256=${file.preview.candidateSha256} (+${file.preview.added} −${file.preview.removed})`);
      lines.push(`  previewReceipt=${file.preview.previewReceipt} (expires ${file.preview.expiresAt})`);
      lines.push(file.preview.diff + (file.preview.diffTruncated ? "\n  … diff cut" : ""));
    }
  }
  return lines.join("\n");
}

// ───────────────────────────── file_write ─────────────────────────────

export const fileWriteTool = defineTool({
  name: "file_write",
  title: "Write files",
  description:
    "Create files (parent directories are created inside the roots) or replace whole files. Replacing needs the file's current expectedSha256; expectedSha256: null insists the file does not exist yet. An existing file keeps its encoding, BOM and line-ending style. Syntax-checked and formatted like file_patch; all files commit together or none.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        content: z.string().max(LIMITS.patch.maxCandidateBytes).describe("The complete new content of the file."),
        expectedSha256: ExpectedSha256,
        allowSyntaxErrors: z.boolean().optional().describe("Write even if the content has more syntax errors than the original, or its parser is unavailable (unchecked)."),
      }),
      "Files to write",
    ),
  }),
  output: MutationOutput,
  annotations: WRITE,
  handler: async ({ files }, context) => {
    const pipeline = pipelineContext(context);
    const formatters = await formattersFor(pipeline);
    const plans: Plan[] = await planEntries(Object.entries(files), async (key, entry) => {
      const { resolved, source, decoded } = await openTarget(key, entry.expectedSha256, context, pipeline);
      const style = decoded ?? { ...newFileDefaults() };
      const text = decoded ? adaptLineEndings(entry.content, decoded.eol) : entry.content;
      const candidate = await prepareText({ resolved, decoded, style }, text, entry.allowSyntaxErrors, { formatters, pipeline });
      return candidatePlan(key, resolved, source, candidate, {});
    });
    return commitReport(plans, await commitPlans(plans, pipeline, "file_write"));
  },
  render: renderMutation,
});

// ───────────────────────────── file_patch ─────────────────────────────

const AiderBlockInput = z.strictObject({
  search: z.string().describe("Exact existing text to find (whole lines are most robust); empty appends to the file (creating it if missing)."),
  replace: z.string().describe("Text that replaces the match; `$&`, `$1` are literal."),
});

const AstRuleInput = z.strictObject({
  pattern: z.string().min(1).describe("ast-grep pattern with metavariables, e.g. `console.log($A)` or `foo($$$ARGS)`."),
  fix: z.string().describe("Replacement; metavariables from the pattern are substituted."),
  lang: z.string().optional().describe("Language to parse with, when not the file's own (e.g. tsx)."),
  selector: z.string().optional().describe("Node kind to match inside the pattern's context (ast-grep selector)."),
  constraints: z.record(z.string(), z.unknown()).optional().describe("ast-grep constraints per metavariable, e.g. {\"A\": {\"regex\": \"^debug\"}}."),
  expectedMatches: z
    .union([z.number().int().min(0), z.literal("all")])
    .optional()
    .describe('How many matches the rule must find (default 1); "all" accepts any number above zero. Every match is rewritten.'),
});

const PatchEntry = z.strictObject({
  expectedSha256: ExpectedSha256,
  patchStrategy: z
    .enum(["aider_block", "ast"])
    .optional()
    .describe("aider_block: SEARCH/REPLACE blocks. ast: structural rules. Required unless previewReceipt is given."),
  aiderBlocks: z
    .union([z.array(AiderBlockInput).min(1).max(LIMITS.patch.maxAstRules), z.string().min(1)])
    .optional()
    .describe("For aider_block: blocks applied in order, or raw Aider text (<<<<<<< SEARCH / ======= / >>>>>>> REPLACE)."),
  astRules: z.array(AstRuleInput).min(1).max(LIMITS.patch.maxAstRules).optional().describe("For ast: rules applied in order, each to every match."),
  preview: z.boolean().optional().describe("Write nothing; return the diff, the candidate hash and a one-use previewReceipt."),
  allowSyntaxErrors: z.boolean().optional().describe("Accept a candidate with more syntax errors than the original, or one its unavailable parser cannot check."),
  diagnostics: z
    .boolean()
    .optional()
    .describe("TS/JS files: report the type errors the change introduces (in this file and files importing it) with the TypeScript compiler. Slower; never refuses the write."),
  previewReceipt: z.string().min(1).max(200).optional().describe("Commit exactly the candidate a preview returned (alone in the entry)."),
});
type PatchEntry = z.infer<typeof PatchEntry>;

function patchShapeError(key: string, field: string, message: string): ToolError {
  return new ToolError("invalid_input", `files[${JSON.stringify(key)}].${field}: ${message}`);
}

function checkPatchShape(key: string, entry: PatchEntry): void {
  if (entry.previewReceipt !== undefined) {
    const extra = Object.keys(entry).filter((field) => field !== "previewReceipt");
    if (extra.length > 0) throw patchShapeError(key, extra[0] as string, "a previewReceipt entry takes no other fields");
    return;
  }
  if (entry.patchStrategy === undefined) throw patchShapeError(key, "patchStrategy", 'required: "aider_block" or "ast"');
  if (entry.patchStrategy === "aider_block") {
    if (entry.aiderBlocks === undefined) throw patchShapeError(key, "aiderBlocks", "required for patchStrategy aider_block");
    if (entry.astRules !== undefined) throw patchShapeError(key, "astRules", "belongs to patchStrategy ast");
  } else {
    if (entry.astRules === undefined) throw patchShapeError(key, "astRules", "required for patchStrategy ast");
    if (entry.aiderBlocks !== undefined) throw patchShapeError(key, "aiderBlocks", "belongs to patchStrategy aider_block");
  }
}

function matchesOf(applied: AppliedBlock[]): FileResult["matches"] {
  return applied.map((block) => ({
    block: block.index,
    matcher: block.matcher,
    startLine: block.startLine,
    endLine: block.endLine,
    ...(block.similarity !== undefined ? { similarity: block.similarity } : {}),
  }));
}

function rulesOf(reports: AstRuleReport[]): FileResult["rules"] {
  return reports.map((report) => ({
    rule: report.index,
    matched: report.matchCount,
    applied: report.applied,
    locations: report.matches.map((match) => ({ startLine: match.startLine, endLine: match.endLine })),
  }));
}

export const filePatchTool = defineTool({
  name: "file_patch",
  title: "Patch files",
  description:
    "Edit files with Aider SEARCH/REPLACE blocks (exact, then whitespace-, then indentation-insensitive matching; ambiguous anchors are refused with every candidate listed) or structural ast-grep rules (every match rewritten; expectedMatches checked). Keeps encoding, BOM, line endings and untouched bytes; refuses edits that add syntax errors; formats formatter-clean files. preview: true returns a diff and a previewReceipt to commit the reviewed candidate. Needs expectedSha256 for existing files.",
  input: z.strictObject({ files: filesRecord(PatchEntry, "Files to patch") }),
  output: MutationOutput,
  annotations: WRITE,
  handler: async ({ files }, context) => {
    const pipeline = pipelineContext(context);
    const entries = Object.entries(files);
    for (const [key, entry] of entries) checkPatchShape(key, entry);
    const previews = entries.filter(([, entry]) => entry.preview === true).length;
    if (previews > 0 && previews < entries.length) {
      throw new ToolError("invalid_input", "files: preview must be set on every entry of a call or on none; preview and commit in separate calls.");
    }
    const formatters = await formattersFor(pipeline);
    const texts = new Map<string, { before: string | undefined; after: string }>();
    // One at a time when an entry takes a preview receipt (a refused batch uses up only the receipts
    // of entries before the failing one) or asks for diagnostics (the TypeScript services behind
    // them are not meant to be driven by several edits at once).
    const sequential = entries.some(([, entry]) => entry.diagnostics === true || entry.previewReceipt !== undefined);
    const concurrency = sequential ? 1 : LIMITS.patch.planConcurrency;
    const plans = await planEntries(entries, async (key, entry) => {
      if (entry.previewReceipt !== undefined) {
        const resolved = await context.workspace.resolve(key, "write");
        const receipt = receiptBook.take(context.sessionId, entry.previewReceipt, { canonicalPath: resolved.real, configGeneration: context.config.generation });
        const source = await loadSource(resolved, receipt.sourceSha256, pipeline);
        return writePlan(key, resolved, source, receipt.candidate, { ...(receipt.summary as Partial<FileResult>), change: changeOf(source, receipt.candidateSha256) });
      }
      const { resolved, source, decoded } = await openTarget(key, entry.expectedSha256, context, pipeline);
      const style = decoded ?? { ...newFileDefaults(), text: "" };
      const original = decoded?.text ?? "";
      let edited: string;
      let facts: Partial<FileResult>;
      if (entry.patchStrategy === "aider_block") {
        const blocks: AiderBlock[] = typeof entry.aiderBlocks === "string" ? parseAiderText(entry.aiderBlocks) : (entry.aiderBlocks as AiderBlock[]);
        if (!decoded && blocks.some((block) => block.search !== "")) {
          throw new ToolError("file_not_found", `${resolved.display} does not exist; only an empty search creates a file.`);
        }
        const result = applyAiderBlocks(original, blocks, {
          eol: decoded?.eol ?? newFileDefaults().eol,
          fuzzy: pipeline.config.safety.fuzzy_match,
          fuzzyThreshold: pipeline.config.safety.fuzzy_threshold,
        });
        edited = result.text;
        facts = { matches: matchesOf(result.applied) };
      } else {
        if (!decoded) throw new ToolError("file_not_found", `${resolved.display} does not exist; structural rules edit existing files.`);
        const language = languageOf(resolved.relative, firstLineOf(original.slice(0, 200)), pipeline.config.languages.overrides) ?? null;
        const rules = (entry.astRules ?? []).map((rule) => Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined)) as unknown as AstRule);
        const result = await applyAstRulesAsync(original, language, rules);
        edited = result.text;
        facts = { rules: rulesOf(result.rules) };
      }
      const candidate = await prepareText({ resolved, decoded, style }, edited, entry.allowSyntaxErrors, { formatters, pipeline });
      texts.set(key, { before: decoded?.text, after: candidate.text });
      if (entry.diagnostics === true) facts.typeErrors = await typeErrorReport(context.workspace, resolved, decoded?.text, candidate.text, { projects: context.services.typescript, signal: context.signal });
      return candidatePlan(key, resolved, source, candidate, facts);
    }, concurrency);
    refuseOverlaps(plans);
    if (previews === 0) return commitReport(plans, await commitPlans(plans, pipeline, "file_patch"));

    const results: Record<string, FileResult> = {};
    for (const plan of plans) {
      const bytes = plan.afterBytes as Buffer;
      const candidateSha256 = sha256Hex(bytes);
      const text = texts.get(plan.key);
      const diff = previewDiff(plan, plan.before ? text?.before : undefined, text?.after);
      const receipt = receiptBook.issue(context.sessionId, {
        canonicalPath: plan.resolved.real,
        sourceSha256: plan.before?.sha256 ?? null,
        configGeneration: context.config.generation,
        candidateSha256,
        candidate: bytes,
        summary: plan.report,
      });
      results[plan.key] = {
        path: plan.displayAfter,
        sha256: plan.before?.sha256 ?? null,
        previousSha256: plan.before?.sha256 ?? null,
        ...(plan.report as Omit<FileResult, "path" | "sha256" | "previousSha256">),
        preview: {
          diff: diff.diff,
          diffTruncated: diff.truncated,
          added: diff.added,
          removed: diff.removed,
          candidateSha256,
          previewReceipt: receipt.id,
          expiresAt: new Date(receipt.createdAt + LIMITS.patch.receiptTtlMs).toISOString(),
        },
      };
    }
    return { batchId: null, committed: false, files: results };
  },
  render: renderMutation,
});

// ───────────────────────────── file_rename ─────────────────────────────

export const fileRenameTool = defineTool({
  name: "file_rename",
  title: "Rename files",
  description:
    "Move files without ever overwriting: each destination must not exist (destination_exists otherwise). The source needs delete permission, the destination write permission. A batch moves all files or, if one fails, moves the earlier ones back.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        destination: PathKey.describe("The new path (absolute or relative to the first root); its parent directories are created inside the roots."),
        expectedSha256: ExpectedSha256,
      }),
      "Files to rename",
    ),
    updateImports: z
      .boolean()
      .optional()
      .describe("Also rewrite the import specifiers that point at each moved JS/TS/Python file, in every importer, in the same batch (original style kept; what cannot be rewritten is listed in importNotes)."),
  }),
  output: MutationOutput,
  annotations: WRITE,
  handler: async ({ files, updateImports }, context) => {
    const pipeline = pipelineContext(context);
    const plans: Plan[] = [];
    for (const [key, entry] of Object.entries(files)) {
      plans.push(
        await forEntry(key, async () => {
          const { resolved, source } = await openExisting(key, entry.expectedSha256, "delete", "a rename", context, pipeline);
          const destination = await context.workspace.resolve(entry.destination, "write");
          if (destination.exists) {
            throw new ToolError("destination_exists", `${destination.display} already exists; renames never overwrite.`, { details: { destination: destination.display } });
          }
          return {
            key,
            resolved,
            touches: [resolved.real, destination.real],
            op: { kind: "rename" as const, from: resolved.real, to: destination.real, expectedBefore: source.sha256, mkdirParents: true },
            displayAfter: destination.display,
            before: source,
            report: { change: "renamed", renamedFrom: resolved.display },
          };
        }),
      );
    }
    if (updateImports) {
      refuseOverlaps(plans); // before the import scan; commitPlans checks the whole batch again
      const moves = plans.map((plan) => plan.op).filter((op) => op.kind === "rename");
      const updates = await planImportUpdates(moves, context, pipeline, await formattersFor(pipeline));
      for (const plan of plans) {
        const notes = plan.op.kind === "rename" ? updates.notes.get(plan.op.from) : undefined;
        if (notes) plan.report.importNotes = notes;
      }
      plans.push(...updates.plans);
    }
    return commitReport(plans, await commitPlans(plans, pipeline, "file_rename"));
  },
  render: renderMutation,
});

// ───────────────────────────── file_delete ─────────────────────────────

export const fileDeleteTool = defineTool({
  name: "file_delete",
  title: "Delete files",
  description:
    "Delete files (parent directories left empty are removed, within the roots). Refuses to delete a source file that other files import (referenced_file, listing them) unless force: true. Needs expectedSha256; undo with file_undo.",
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        expectedSha256: ExpectedSha256,
        force: z.boolean().optional().describe("Delete even if other files import this one."),
      }),
      "Files to delete",
    ),
  }),
  output: MutationOutput,
  annotations: WRITE,
  handler: async ({ files }, context) => {
    const pipeline = pipelineContext(context);
    const plans: Plan[] = [];
    for (const [key, entry] of Object.entries(files)) {
      plans.push(
        await forEntry(key, async () => {
          const { resolved, source } = await openExisting(key, entry.expectedSha256, "delete", "a delete", context, pipeline);
          if (!entry.force) {
            const importers = await findImporters(resolved, context, { signal: context.signal });
            // Files deleted in the same batch do not keep this one alive.
            const others = importers.filter((importer) => importer !== resolved.display && !Object.hasOwn(files, importer));
            if (others.length > 0) {
              throw new ToolError("referenced_file", `${resolved.display} is imported by ${plural(others.length, "file")}: ${others.slice(0, 20).join(", ")}${others.length > 20 ? ", …" : ""}.`, {
                details: { importers: others.slice(0, LIMITS.patch.maxListedMatches) },
              });
            }
          }
          return {
            key,
            resolved,
            touches: [resolved.real],
            op: { kind: "delete" as const, path: resolved.real, expectedBefore: source.sha256, removeEmptyParentsUpTo: resolved.root.real },
            displayAfter: resolved.display,
            before: source,
            report: { change: "deleted" },
          };
        }),
      );
    }
    return commitReport(plans, await commitPlans(plans, pipeline, "file_delete"));
  },
  render: renderMutation,
});

// ───────────────────────────── file_chattr ─────────────────────────────

export const fileChattrTool = defineTool({
  name: "file_chattr",
  title: "Change file modes",
  description:
    'Change a file\'s permission bits: "644", "0755", "+x" or "-x" (no setuid/setgid/sticky bits). Refused on a file with more than one hard link, which could change an inode outside the roots. Needs expectedSha256.',
  input: z.strictObject({
    files: filesRecord(
      z.strictObject({
        chmod: z.string().min(1).max(8).describe('The new mode: three octal digits ("644", "0755"), "+x" or "-x".'),
        expectedSha256: ExpectedSha256,
      }),
      "Files to change",
    ),
  }),
  output: MutationOutput,
  annotations: { ...WRITE, destructiveHint: false, idempotentHint: true },
  handler: async ({ files }, context) => {
    const pipeline = pipelineContext(context);
    const plans: Plan[] = [];
    for (const [key, entry] of Object.entries(files)) {
      plans.push(
        await forEntry(key, async () => {
          const { resolved, source } = await openExisting(key, entry.expectedSha256, "write", "a mode change", context, pipeline);
          const mode = parseChmod(entry.chmod, source.mode);
          return {
            key,
            resolved,
            touches: [resolved.real],
            op: { kind: "chmod" as const, path: resolved.real, expectedBefore: source.sha256, mode },
            displayAfter: resolved.display,
            before: source,
            report: { change: "mode", mode: mode.toString(8).padStart(3, "0") },
          };
        }),
      );
    }
    return commitReport(plans, await commitPlans(plans, pipeline, "file_chattr"));
  },
  render: renderMutation,
});

// ───────────────────────────── file_undo ─────────────────────────────

export const fileUndoTool = defineTool({
  name: "file_undo",
  title: "Undo a batch",
  description:
    "Undo a committed batch (by batchId, or this session's last one): every file goes back to its before-image, but only if it still has the content the batch left (undo_conflict names the files that changed since). The undo is itself a journaled batch.",
  input: z.strictObject({
    batchId: z.string().min(1).max(200).optional().describe("The batch to undo (from a mutation result or `ast-mcp journal list`); default: this session's last batch."),
  }),
  output: MutationOutput,
  annotations: WRITE,
  handler: async ({ batchId }, context) => {
    const pipeline = pipelineContext(context);
    let target = batchId;
    if (target === undefined) {
      const mine = await listBatches({ sessionId: context.sessionId });
      const last = mine.filter((batch) => batch.state === "committed").at(-1);
      if (!last) throw new ToolError("invalid_input", "this session has committed no batch to undo; pass a batchId (see `ast-mcp journal list`).");
      target = last.batchId;
    }
    const { ops, conflicts } = await undoOps(target);
    if (conflicts.length > 0) {
      const shown = conflicts.map((file) => context.workspace.display(file));
      throw new ToolError("undo_conflict", `batch ${target} cannot be undone: ${plural(shown.length, "file")} changed since: ${shown.join(", ")}.`, {
        details: { batchId: target, files: shown },
      });
    }
    const plans: Plan[] = [];
    for (const op of ops) {
      // The policy of today decides: an undo may not write where the agent may no longer write.
      const resolved = await context.workspace.resolve(op.kind === "rename" ? op.from : op.path, op.kind === "rename" || op.kind === "delete" ? "delete" : "write");
      if (op.kind === "rename") await context.workspace.resolve(op.to, "write");
      const touches = op.kind === "rename" ? [op.from, op.to] : [op.path];
      const displayAfter = op.kind === "rename" ? context.workspace.display(op.to) : resolved.display;
      const change: FileResult["change"] = op.kind === "delete" ? "deleted" : op.kind === "rename" ? "renamed" : op.kind === "chmod" ? "mode" : "modified";
      plans.push({
        key: resolved.display,
        resolved,
        touches,
        op,
        displayAfter,
        before: op.expectedBefore === null ? null : { bytes: Buffer.alloc(0), sha256: op.expectedBefore, mode: 0 },
        report: { change, ...(op.kind === "rename" ? { renamedFrom: resolved.display } : {}) },
      });
    }
    const result = await commitPlans(plans, pipeline, "file_undo");
    const report = commitReport(plans, result);
    for (const [index, plan] of plans.entries()) {
      const file = report.files[plan.key];
      const committed = result.files[index];
      if (file && committed && plan.op.kind === "write") file.change = committed.before === null ? "created" : "modified";
    }
    return report;
  },
  render: renderMutation,
});

export const WRITE_TOOLS = [fileWriteTool, filePatchTool, fileRenameTool, fileDeleteTool, fileChattrTool, fileUndoTool];

/** Frees what a closed session held (its preview receipts). */
export function closeWriteSession(sessionId: string): void {
  receiptBook.dropSession(sessionId);
}
