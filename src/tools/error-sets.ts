/**
 * The error codes that come together, by the mechanism below the tools that raises them, so each
 * tool's `errors` names the mechanisms it uses plus its own codes. COMMON_ERRORS (contract.ts) is
 * added to every tool by defineTool.
 */
import type { ErrorCode } from "../core/errors.ts";

/**
 * Resolving a path through the workspace policy (policy/workspace.ts): the policy's refusals,
 * io_error when an in-root lstat fails, path_changed when a directory on the walk was swapped.
 */
export const PATH_ERRORS: readonly ErrorCode[] = ["invalid_path", "no_roots", "path_outside_roots", "path_denied", "io_error", "path_changed"];

/** Resolving and opening a regular file (policy/open.ts): missing, a directory or device, or swapped while opened. */
export const FILE_ERRORS: readonly ErrorCode[] = [...PATH_ERRORS, "file_not_found", "not_a_file"];

/** Loading a file as text: over the size limit, binary, or not valid in its encoding. */
export const TEXT_ERRORS: readonly ErrorCode[] = [...FILE_ERRORS, "file_too_large", "binary_file", "unsupported_encoding"];

/** Loading a source file through the code index (intel/index): as text, plus a file that changed while it was read. */
export const SOURCE_ERRORS: readonly ErrorCode[] = [...TEXT_ERRORS, "stale_hash"];

/** Naming a symbol to start from (call-common.ts): none matches, or several do. */
export const SYMBOL_ERRORS: readonly ErrorCode[] = [...SOURCE_ERRORS, "symbol_not_found", "ambiguous_symbol"];

/**
 * A batch through the write façade (patch/index.ts): the policy and the file checks, the batch and
 * size limits, the expected-hash guard, the lock, a cancelled call, and the commit's own I/O.
 */
export const WRITE_ERRORS: readonly ErrorCode[] = [...FILE_ERRORS, "file_too_large", "too_many_items", "stale_hash", "missing_hash", "cancelled", "lock_timeout"];

/**
 * A batch that changes file content: besides WRITE_ERRORS, the file must be editable as text in its
 * own encoding (text/codec.ts), and the candidate passes the syntax guard and the formatter.
 */
export const EDIT_ERRORS: readonly ErrorCode[] = [
  ...WRITE_ERRORS,
  "binary_file",
  "unsupported_encoding",
  "syntax_regression",
  "syntax_unchecked",
  "format_failed",
];
