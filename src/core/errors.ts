/**
 * The one structured error every tool reports. Codes are stable and documented;
 * each carries a default hint and whether retrying the same call can succeed.
 */

export interface SuggestedCall {
  tool: string;
  arguments: Record<string, unknown>;
}

export interface ToolErrorPayload {
  code: ErrorCode;
  message: string;
  hint: string;
  retryable: boolean;
  suggestedNextCall?: SuggestedCall;
  /** Extra machine-readable facts (e.g. the current hash on stale_hash). */
  details?: Record<string, unknown>;
}

export const ERROR_CODES = {
  invalid_input: { retryable: false, hint: "Fix the named field and call again; tools/list shows each tool's input schema." },
  unknown_tool: { retryable: false, hint: "Call tools/list for the tools this server offers." },
  internal_error: { retryable: true, hint: "An unexpected failure was logged on the server; retry once, then report it." },
  too_many_items: { retryable: false, hint: "Split the request into batches within the stated limit." },
  no_roots: { retryable: false, hint: "Start the server with a root (`ast-mcp mcp /path/to/repo`) or set [workspace].roots in the user config." },
  invalid_path: { retryable: false, hint: "Pass a path without control characters, absolute or relative to the first root." },
  path_outside_roots: { retryable: false, hint: "Use a path inside one of the configured roots; config_status lists them." },
  path_denied: { retryable: false, hint: "A policy rule forbids this operation; policy_check shows which rule decided." },
  file_not_found: { retryable: false, hint: "Check the path; paths are absolute or relative to the first root." },
  not_a_file: { retryable: false, hint: "The path names a directory or special file; pass a regular file." },
  file_too_large: { retryable: false, hint: "Read the file in smaller line ranges or hash it instead." },
  binary_file: { retryable: false, hint: "The file looks binary; only file_hash and file_capabilities apply to it." },
  unsupported_encoding: { retryable: false, hint: "The file is not valid in its detected encoding; it is only handled byte-exactly." },
  invalid_range: { retryable: false, hint: "Lines are 1-based and inclusive; startLine must not exceed the file's line count." },
  invalid_selector: { retryable: false, hint: "Selectors are RFC 6901 JSON Pointers such as \"/compilerOptions/strict\" (\"\" is the whole document)." },
  unsupported_document: { retryable: false, hint: "document_query reads .json, .jsonc, .toml, .yaml and .yml files." },
  parse_error: { retryable: false, hint: "The document does not parse; fix its syntax or read it as text with file_read." },
  io_error: { retryable: true, hint: "The file system refused the operation; check permissions and retry." },
  path_changed: {
    retryable: true,
    hint: "A directory or file on the path was replaced (for example by a symbolic link) while the call ran; nothing was done through it. Call again.",
  },
  // Guarded writes (mutation tools) share the same catalog.
  stale_hash: { retryable: true, hint: "The file changed since you read it: read it again (file_hash or file_read) and rebuild the edit against the current content." },
  missing_hash: { retryable: false, hint: "Pass expectedSha256 from file_hash or file_read for every existing file." },
  ambiguous_match: { retryable: false, hint: "Extend the search text with surrounding lines until it matches exactly one place." },
  no_match: { retryable: false, hint: "Copy the search text from the nearest text shown, then retry." },
  match_count: { retryable: false, hint: "Adjust the pattern or expectedMatches to the listed matches." },
  syntax_regression: { retryable: false, hint: "The edit introduces syntax errors at the listed places; fix the replacement or pass allowSyntaxErrors." },
  syntax_unchecked: {
    retryable: false,
    hint:
      "The file's parser is unavailable in this server (see the message; restarting it loads the parsers again); pass allowSyntaxErrors: true to write without the syntax check.",
  },
  format_failed: { retryable: false, hint: "The formatter could not format the candidate; check the edit's syntax." },
  cancelled: { retryable: true, hint: "The client cancelled the call before its commit began; nothing was written. Call again to retry." },
  lock_timeout: { retryable: true, hint: "Another writer holds the file; retry shortly." },
  receipt_invalid: { retryable: false, hint: "Preview the change again to get a fresh receipt." },
  undo_conflict: { retryable: false, hint: "The listed files changed after the batch; undo them by hand or re-read them." },
  destination_exists: { retryable: false, hint: "Choose a destination that does not exist; renames never overwrite." },
  referenced_file: { retryable: false, hint: "Other files import this one; update them first or pass force: true." },
  // Code intelligence.
  symbol_not_found: { retryable: false, hint: "Check the name (map or search lists declarations); pass a path to look in one file, or a qualified name such as Class.method." },
  ambiguous_symbol: {
    retryable: false,
    hint: "Several declarations match: pass path (or path#Name) or a qualified name such as Class.method to pick one of the listed candidates.",
  },
} as const satisfies Record<string, { retryable: boolean; hint: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly hint: string;
  readonly retryable: boolean;
  readonly suggestedNextCall: SuggestedCall | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    extra: { hint?: string; retryable?: boolean; suggestedNextCall?: SuggestedCall; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.hint = extra.hint ?? ERROR_CODES[code].hint;
    this.retryable = extra.retryable ?? ERROR_CODES[code].retryable;
    this.suggestedNextCall = extra.suggestedNextCall;
    this.details = extra.details;
  }

  toPayload(): ToolErrorPayload {
    const payload: ToolErrorPayload = { code: this.code, message: this.message, hint: this.hint, retryable: this.retryable };
    if (this.suggestedNextCall) payload.suggestedNextCall = this.suggestedNextCall;
    if (this.details) payload.details = this.details;
    return payload;
  }
}

export function isToolError(error: unknown): error is ToolError {
  return error instanceof ToolError;
}
