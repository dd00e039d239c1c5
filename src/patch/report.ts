/**
 * What the write façade reports for each file of a batch: typed here, rendered by the tools. The
 * facts are one zod schema, so the tools' output schema and these types cannot drift apart.
 */
import { z } from "zod";

/** The facts about one file's change, as planned (and returned again when its receipt is committed). */
export const FileFactsSchema = z.object({
  change: z.enum(["created", "modified", "unchanged", "deleted", "renamed", "mode"]).describe("What happened to the file."),
  renamedFrom: z.string().optional().describe("For renames: the source path."),
  importNotes: z.array(z.string()).optional().describe(
    "For renames with updateImports: importers left unchanged and why, and the moved file's own relative imports that now need another specifier.",
  ),
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
});
export type FileFacts = z.infer<typeof FileFactsSchema>;
export type Change = FileFacts["change"];
/** Type errors a change introduces (computed by the caller's `diagnose`; never a reason to refuse). */
export type TypeErrors = NonNullable<FileFacts["typeErrors"]>;

/** A change's bounded diff, when the caller asked for diffs. */
export interface DiffFacts {
  /** Absent when the batch's diff budget was used up before this file. */
  text?: string;
  truncated: boolean;
  added: number;
  removed: number;
}

export interface FileOutcome {
  /** The caller's key for the entry. */
  key: string;
  /** Display path after the change (a rename's destination). */
  path: string;
  /** SHA-256 after the change (null when deleted); for a preview, the file's current hash. */
  sha256: string | null;
  /** SHA-256 before the change (null when the file did not exist). */
  previousSha256: string | null;
  /** SHA-256 of the candidate bytes, for entries that write content. */
  candidateSha256?: string;
  facts: FileFacts;
  diff?: DiffFacts;
  /** The entry's receipt, for a preview with one receipt per file. */
  receipt?: ReceiptTicket;
}

export interface ReceiptTicket {
  id: string;
  expiresAt: string;
}

export interface BatchReport {
  /** Journal id of the committed batch; null when nothing was written (previews, nothing to change). */
  batchId: string | null;
  committed: boolean;
  /** One outcome per entry, in entry order (entries left out as unchanged included). */
  files: FileOutcome[];
  /** The batch's one receipt, for a preview that binds every file to one receipt. */
  receipt?: ReceiptTicket;
}
