/**
 * file_patch: Aider SEARCH/REPLACE blocks or structural rules per file, previewed (one receipt per
 * file) or committed through the write façade; a preview's receipt commits the reviewed candidate.
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { typeErrorReport } from "../intel/typescript/index.ts";
import { type AstRule, type Diagnose, type WriteEntry, writeBatch } from "../patch/index.ts";
import { EDIT_ERRORS } from "./error-sets.ts";
import { defineTool } from "./contract.ts";
import { ExpectedSha256, filesRecord, MutationOutput, mutationOutput, renderMutation, shapeError, WRITE, writeContext } from "./mutation.ts";

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
    .describe("How many matches the rule must find (default 1); \"all\" accepts any number above zero. Every match is rewritten."),
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
  previewReceipt: z.string().min(1).max(200).optional().describe(
    "Commit exactly the candidate a preview returned (alone in the entry): pass the receipt back as the preview gave it; nothing else needs keeping between the calls.",
  ),
});
type PatchEntry = z.infer<typeof PatchEntry>;

function checkPatchShape(key: string, entry: PatchEntry): void {
  if (entry.previewReceipt !== undefined) {
    const extra = Object.keys(entry).filter((field) => field !== "previewReceipt");
    if (extra.length > 0) throw shapeError(key, extra[0] as string, "a previewReceipt entry takes no other fields");
    return;
  }
  if (entry.patchStrategy === undefined) throw shapeError(key, "patchStrategy", "required: \"aider_block\" or \"ast\"");
  if (entry.patchStrategy === "aider_block") {
    if (entry.aiderBlocks === undefined) throw shapeError(key, "aiderBlocks", "required for patchStrategy aider_block");
    if (entry.astRules !== undefined) throw shapeError(key, "astRules", "belongs to patchStrategy ast");
  } else {
    if (entry.astRules === undefined) throw shapeError(key, "astRules", "required for patchStrategy ast");
    if (entry.aiderBlocks !== undefined) throw shapeError(key, "aiderBlocks", "belongs to patchStrategy aider_block");
  }
}

export const filePatchTool = defineTool({
  name: "file_patch",
  title: "Patch files",
  description:
    "Edit files with Aider SEARCH/REPLACE blocks (exact, then whitespace-, then indentation-insensitive matching; ambiguous anchors are refused with every candidate listed) or structural ast-grep rules (every match rewritten; expectedMatches checked). Keeps encoding, BOM, line endings and untouched bytes; refuses edits that add syntax errors; formats formatter-clean files. preview: true returns a diff and a previewReceipt to commit the reviewed candidate. Needs expectedSha256 for existing files.",
  input: z.strictObject({ files: filesRecord(PatchEntry, "Files to patch") }),
  output: MutationOutput,
  annotations: WRITE,
  errors: [...EDIT_ERRORS, "ambiguous_match", "no_match", "match_count", "receipt_invalid"],
  handler: async ({ files }, context) => {
    const entries = Object.entries(files);
    for (const [key, entry] of entries) checkPatchShape(key, entry);
    const previews = entries.filter(([, entry]) => entry.preview === true).length;
    if (previews > 0 && previews < entries.length) {
      throw new ToolError("invalid_input", "files: preview must be set on every entry of a call or on none; preview and commit in separate calls.");
    }
    // Type errors come from the TypeScript services, which are driven by one edit at a time (the façade plans such entries in turn).
    const diagnose: Diagnose = (resolved, before, after) =>
      typeErrorReport(context.workspace, resolved, before, after, { projects: context.services.typescript, signal: context.signal });
    const batch = entries.map(([key, entry]): WriteEntry => {
      if (entry.previewReceipt !== undefined) return { kind: "receipt", key, receipt: entry.previewReceipt };
      const common = { key, expectedSha256: entry.expectedSha256, allowSyntaxErrors: entry.allowSyntaxErrors, diagnose: entry.diagnostics === true ? diagnose : undefined };
      if (entry.patchStrategy === "aider_block") return { kind: "aider", ...common, blocks: entry.aiderBlocks as NonNullable<PatchEntry["aiderBlocks"]> };
      const rules = (entry.astRules ?? []).map((rule) => Object.fromEntries(Object.entries(rule).filter(([, v]) => v !== undefined)) as unknown as AstRule);
      return { kind: "rules", ...common, rules };
    });
    const preview = previews > 0 ? { preview: { receipt: "per-file" as const }, diff: { perFile: LIMITS.patch.maxPreviewDiffBytes } } : {};
    return mutationOutput(await writeBatch(batch, writeContext(context), { tool: "file_patch", ...preview }));
  },
  render: renderMutation,
});
