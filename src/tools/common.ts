/**
 * What the read-only tools share: resolving a path to a readable regular file through the
 * workspace, reading and hashing its bytes, and reporting per-item failures in batches.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { ToolError } from "../core/errors.ts";
import { decodeText, type TextEncodingName } from "../text/index.ts";
import { type LanguageId, languageIdFromName } from "../syntax/index.ts";
import { sha256Hex } from "../helpers/hash.ts";
import { fileSystemError, openRegularFile, readRegularFile, readSmallRegularFileSync } from "../policy/open.ts";
import type { Decision, ResolvedPath } from "../policy/workspace.ts";
import type { ToolContext } from "./contract.ts";

/** Large files are hashed in chunks of this size. */
const HASH_CHUNK_BYTES = 256 * 1024;

export const PathInput = z.string().min(1).max(LIMITS.pathChars);

export const ItemErrorSchema = z
  .object({
    code: z.string().describe("Stable error code from the error catalog, e.g. file_not_found."),
    message: z.string().describe("What went wrong for this item."),
    hint: z.string().describe("How to fix the call."),
    retryable: z.boolean().describe("Whether the same call can succeed later unchanged."),
  })
  .describe("Why this item failed; the other items are unaffected.");
export type ItemError = z.infer<typeof ItemErrorSchema>;

/** A batch item that failed: its path (as displayed once resolved, else as given) and why. */
export const FailedPath = z.object({ path: z.string().describe("The file's path as the workspace displays it, or as given when it did not resolve."), error: ItemErrorSchema });

/** What the workspace policy decides for one operation on a path (policy_check, file_capabilities). */
export const DecisionOut = z.object({
  allowed: z.boolean(),
  code: z.string().optional().describe("The error code the operation would fail with, when not allowed (path_denied, path_outside_roots, invalid_path, no_roots)."),
  reason: z.string().describe("Why the operation is allowed or not."),
  rule: z
    .object({
      path: z.string().describe("The rule's path or glob (\"<roots>\" for the implicit allow-inside-roots rule)."),
      source: z.string().describe("Where the rule came from: default, user:<file> or project:<file>."),
      access: z.enum(["allow", "deny"]),
    })
    .optional()
    .describe("The rule that decided, when one did."),
});

export function decisionOut(decision: Decision): z.input<typeof DecisionOut> {
  const out: z.input<typeof DecisionOut> = { allowed: decision.allowed, reason: decision.reason };
  if (decision.code !== undefined) out.code = decision.code;
  if (decision.rule !== undefined) out.rule = { path: decision.rule.path, source: decision.rule.source, access: decision.rule.access };
  return out;
}

/**
 * Resolves `input` for reading and insists on an existing regular file. Every file access of the
 * read tools starts here so the workspace policy sees each path first.
 */
export async function resolveReadableFile(context: ToolContext, input: string): Promise<ResolvedPath> {
  const resolved = await context.workspace.resolve(input, "read");
  if (resolved.kind === "missing" || !resolved.exists) {
    throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  }
  if (resolved.kind === "directory") {
    throw new ToolError("not_a_file", `${resolved.display} is a directory.`);
  }
  if (resolved.kind !== "file") {
    throw new ToolError("not_a_file", `${resolved.display} is not a regular file (device, socket or pipe).`);
  }
  return resolved;
}

/** Turns a per-item failure into its reported form; anything that is not a tool or I/O error is a bug and propagates. */
export function toItemError(error: unknown, display: string): ItemError {
  const toolError = fileSystemError(error, display);
  return { code: toolError.code, message: toolError.message, hint: toolError.hint, retryable: toolError.retryable };
}

/** Hashes a file: small files in one synchronous read, larger ones in chunks so hashing never holds them in memory. */
export async function hashFileStream(resolved: ResolvedPath, signal: AbortSignal): Promise<{ sha256: string; size: number }> {
  const small = readSmallRegularFileSync(resolved);
  if (small) return { sha256: sha256Hex(small.bytes), size: small.bytes.length };
  const file = openRegularFile(resolved);
  const hash = createHash("sha256");
  let size = 0;
  try {
    await file.eachChunk(HASH_CHUNK_BYTES, (bytes) => {
      hash.update(bytes);
      size += bytes.length;
    }, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw fileSystemError(error, resolved.display);
  } finally {
    file.close();
  }
  return { sha256: hash.digest("hex"), size };
}

/**
 * The whole file when it has at most `maxBytes`; otherwise only its first `headBytes`
 * (enough to sniff binary content and a BOM) and `complete: false`.
 */
export async function readWholeOrHead(resolved: ResolvedPath, maxBytes: number, headBytes: number): Promise<{ bytes: Buffer; size: number; complete: boolean }> {
  const small = readSmallRegularFileSync(resolved);
  if (small && small.bytes.length <= maxBytes) return { bytes: small.bytes, size: small.bytes.length, complete: true };
  const file = openRegularFile(resolved);
  try {
    if (file.size <= maxBytes) {
      const bytes = await file.readToEnd(maxBytes);
      if (bytes !== undefined) return { bytes, size: bytes.length, complete: true };
    }
    const head = await file.readHead(headBytes);
    return { bytes: head, size: Math.max(file.size, head.length), complete: false };
  } catch (error) {
    throw fileSystemError(error, resolved.display);
  } finally {
    file.close();
  }
}

export interface LoadedText {
  bytes: Buffer;
  sha256: string;
  text: string;
  encoding: TextEncodingName;
  bom: boolean;
}

/** Reads and decodes a text file: binary files and invalid encodings are refused, never guessed at. */
export async function loadTextFile(resolved: ResolvedPath, maxBytes: number, tooLargeHint?: string): Promise<LoadedText> {
  const { bytes } = await readRegularFile(resolved, maxBytes, tooLargeHint);
  const decoded = decodeText(bytes);
  if (!decoded.ok && decoded.binary) throw new ToolError("binary_file", `${resolved.display} looks binary (it contains a NUL byte).`);
  if (!decoded.ok) {
    throw new ToolError("unsupported_encoding", `${resolved.display} has encoding "unknown": ${decoded.reason}.`);
  }
  return { bytes, sha256: sha256Hex(bytes), text: decoded.text, encoding: decoded.encoding, bom: decoded.bom };
}

/** A language argument (an id or a file extension) → its id; an unknown one, or one `usable` refuses, is invalid_input naming the field. */
export function languageArg(field: string, name: string, usable: (id: LanguageId) => boolean = () => true): LanguageId {
  const id = languageIdFromName(name);
  if (id === undefined || !usable(id)) {
    throw new ToolError("invalid_input", `${field}: unknown language ${JSON.stringify(name)}.`, {
      hint: "Use a language id such as typescript, tsx, python, go or rust, or a file extension.",
    });
  }
  return id;
}

/** "1 line", "3 lines". */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** "typescript 12, python 3": counts, most first. */
export function renderCounts(counts: Record<string, number>): string {
  return Object.entries(counts).sort((a, b) => b[1] - a[1]).map(([name, count]) => `${name} ${count}`).join(", ");
}

/** One-line rendering of a failed item. */
export function renderItemError(label: string, error: ItemError): string {
  return `${label}: error ${error.code}: ${error.message} Hint: ${error.hint}`;
}
