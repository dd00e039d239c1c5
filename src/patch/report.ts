/** What the write façade reports for each file of a batch: typed here, rendered by the tools. */

export type Change = "created" | "modified" | "unchanged" | "deleted" | "renamed" | "mode";

/** Where an Aider block matched. */
export interface BlockMatch {
  block: number;
  matcher: string;
  startLine: number;
  endLine: number;
  similarity?: number;
}

/** What a structural rule matched and rewrote. */
export interface RuleOutcome {
  rule: number;
  matched: number;
  applied: number;
  locations: Array<{ startLine: number; endLine: number }>;
}

/** Type errors a change introduces (computed by the caller's `diagnose`; never a reason to refuse). */
export interface TypeErrors {
  checked: boolean;
  introduced: Array<{ path: string; line: number; column: number; code: number; message: string }>;
  errorsBefore: number;
  errorsAfter: number;
  complete: boolean;
  note?: string;
}

/** The facts about one file's change, as planned (and returned again when its receipt is committed). */
export interface FileFacts {
  change: Change;
  renamedFrom?: string;
  importNotes?: string[];
  mode?: string;
  matches?: BlockMatch[];
  rules?: RuleOutcome[];
  formatted?: boolean;
  formatNote?: string;
  syntax?: { checked: boolean; errorsBefore: number; errorsAfter: number };
  typeErrors?: TypeErrors;
}

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
