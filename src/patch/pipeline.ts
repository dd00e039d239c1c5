/**
 * The one write pipeline every mutation uses:
 * validate → resolve (policy) → read raw bytes and compare SHA-256 → transform → syntax guard → format
 * → (no side effects so far) → lock in sorted canonical order → recheck hashes → atomic commit → journal → unlock.
 * Tools plan their entries with these steps; `commitPlans` is the only way a plan reaches the disk.
 */
import path from "node:path";
import type { EffectiveConfig } from "../config/schema.ts";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { sha256Hex as sha256 } from "../helpers/hash.ts";
import { firstLineOf, languageOf } from "../syntax/index.ts";
import { readRegularFile } from "../policy/open.ts";
import type { ResolvedPath, Workspace } from "../policy/workspace.ts";
import { type CommitOp, type CommitResult, commitBatch } from "./commit.ts";
import type { FormatResult, Formatters } from "./format.ts";
import type { FileFacts } from "./report.ts";
import { type SyntaxGuard, type SyntaxReport, refuseRegression } from "./syntax-guard.ts";
import { type DecodedFile, encodeLike } from "../text/index.ts";
import type { WriteServices } from "./write-batch.ts";

/** Everything a write needs from its call: the policy, the configuration, the session, the services. */
export interface WriteContext {
  workspace: Workspace;
  config: EffectiveConfig;
  configGeneration: number;
  sessionId: string;
  /** A stateless request: its receipts are bearer handles, and nothing is looked up by its (per-request) session id. */
  stateless: boolean;
  /** Who an authenticated stateless request came from: its bearer receipts count against that client's share. */
  principal?: string | undefined;
  signal: AbortSignal;
  services: WriteServices;
  /** Told after every successful commit what it touched, for caches that mirror the disk (the code index). */
  onCommitted?: (event: CommittedEvent) => void;
}

export interface SourceFile {
  bytes: Buffer;
  sha256: string;
  mode: number;
}

/**
 * Reads the current raw bytes of a resolved target and checks them against the caller's expectation:
 * `undefined` (no hash given; refused for existing files when safety.require_hash is on),
 * a hash (must match), or `null` (the file must not exist yet).
 */
export async function loadSource(resolved: ResolvedPath, expectedSha256: string | null | undefined, context: WriteContext): Promise<SourceFile | null> {
  if (resolved.kind === "directory") throw new ToolError("not_a_file", `${resolved.display} is a directory.`);
  if (resolved.kind === "other") throw new ToolError("not_a_file", `${resolved.display} is not a regular file.`);
  if (!resolved.exists) {
    if (typeof expectedSha256 === "string") {
      throw new ToolError("stale_hash", `${resolved.display} does not exist, but expectedSha256 names a version of it.`, {
        details: { path: resolved.display, currentSha256: null },
        retryable: false,
        hint: "Pass expectedSha256: null (or omit it) to create the file.",
      });
    }
    return null;
  }
  const source = await readRegular(resolved);
  if (expectedSha256 === null) {
    throw new ToolError("stale_hash", `${resolved.display} already exists; expectedSha256: null means it must not exist yet.`, {
      details: { path: resolved.display, currentSha256: source.sha256 },
      hint: "Read the file and pass its current SHA-256 as expectedSha256 to replace it.",
      suggestedNextCall: { tool: "file_hash", arguments: { filePaths: [resolved.display] } },
    });
  }
  if (expectedSha256 === undefined) {
    if (context.config.safety.require_hash) {
      throw new ToolError("missing_hash", `${resolved.display} exists: pass its current SHA-256 as expectedSha256.`, {
        details: { path: resolved.display, currentSha256: source.sha256 },
        suggestedNextCall: { tool: "file_hash", arguments: { filePaths: [resolved.display] } },
      });
    }
    return source;
  }
  if (expectedSha256 !== source.sha256) {
    throw new ToolError("stale_hash", `${resolved.display} changed: its SHA-256 is ${source.sha256}, not ${expectedSha256}.`, {
      details: { path: resolved.display, currentSha256: source.sha256 },
      suggestedNextCall: { tool: "file_read", arguments: { files: [{ filePath: resolved.display }] } },
    });
  }
  return source;
}

async function readRegular(resolved: ResolvedPath): Promise<SourceFile> {
  const tooLarge = `the write path handles files up to ${LIMITS.patch.maxCandidateBytes} bytes; larger files cannot be edited`;
  const { bytes, mode } = await readRegularFile(resolved, LIMITS.patch.maxCandidateBytes, tooLarge);
  return { bytes, sha256: sha256(bytes), mode };
}

/** What happened to a text candidate on its way to the disk. */
export interface CandidateReport {
  language: string | null;
  syntax: SyntaxReport;
  format: FormatResult;
}

export interface TextCandidate {
  bytes: Buffer;
  sha256: string;
  text: string;
  report: CandidateReport;
}

interface CandidateOptions {
  resolved: ResolvedPath;
  original: DecodedFile | undefined;
  candidateText: string;
  encodeAs: Pick<DecodedFile, "encoding" | "bom">;
  allowSyntaxErrors: boolean;
  formatters: Formatters;
  syntax: SyntaxGuard;
  config: EffectiveConfig;
}

/**
 * Turns edited text into the bytes that would be written: syntax guard first (dprint throws on broken
 * code), then formatting under the stable-formatting rule, then encoding like the original.
 */
export async function buildTextCandidate(options: CandidateOptions): Promise<TextCandidate> {
  const { resolved, original } = options;
  const firstLine = firstLineOf((original?.text ?? options.candidateText).slice(0, 200));
  const language = languageOf(resolved.relative, firstLine, options.config.languages.overrides) ?? null;
  // Where an override gave the file its language, that language picks the formatter, not the name.
  const formatAs = language !== null && language !== languageOf(resolved.relative, firstLine) ? language : undefined;
  const before = original?.text;
  // An edit of a formatter-clean script can have only its changed statements formatted; those come from the syntax parse.
  const byStatement = options.formatters.formatsByStatement(resolved.real, before, options.candidateText, formatAs);
  const inspection = await options.syntax.inspect(resolved.display, language, before, options.candidateText, { statements: byStatement });
  const syntax = inspection.report;
  if (!options.allowSyntaxErrors) refuseRegression(resolved.display, syntax);
  // Statement boundaries of a tree with errors need not be the formatter's.
  const statements = syntax.checked && syntax.afterErrors === 0 ? inspection.statements : undefined;
  const formatted: FormatResult = options.allowSyntaxErrors && syntax.newErrors.length > 0 ?
    { text: options.candidateText, formatted: false, reason: "syntax errors allowed: not formatted" } :
    await options.formatters.formatCandidate(resolved.real, before, options.candidateText, options.config.format.on_failure, statements, formatAs);
  const bytes = encodeLike(formatted.text, options.encodeAs);
  if (bytes.length > LIMITS.patch.maxCandidateBytes) {
    throw new ToolError("file_too_large", `the new content of ${resolved.display} would be ${bytes.length} bytes; the limit is ${LIMITS.patch.maxCandidateBytes}.`);
  }
  return { bytes, sha256: sha256(bytes), text: formatted.text, report: { language, syntax, format: formatted } };
}

/** One planned change to one file, fully computed before anything is locked or written. */
export interface Plan {
  /** The key the caller used for this entry. */
  key: string;
  resolved: ResolvedPath;
  /** Canonical paths this plan touches (a rename touches two). */
  touches: string[];
  op: CommitOp;
  /** Display path of the file after the change (a rename's destination). */
  displayAfter: string;
  before: SourceFile | null;
  /** New raw bytes, for writes. */
  afterBytes?: Buffer;
  /** The facts reported back for this entry. */
  report: FileFacts;
}

/** Two keys naming the same canonical file are an error: the batch would race itself. */
export function refuseOverlaps(plans: Plan[]): void {
  const owners = new Map<string, string>();
  for (const plan of plans) {
    for (const touched of plan.touches) {
      const other = owners.get(touched);
      if (other !== undefined) {
        throw new ToolError("invalid_input", `files: ${JSON.stringify(other)} and ${JSON.stringify(plan.key)} name the same file; give each file once per batch.`);
      }
      owners.set(touched, plan.key);
    }
  }
}

/**
 * Commits every plan as one journaled batch: locks in sorted canonical order, rechecks every source hash
 * under the lock, and refuses a rename whose target directory no longer resolves where the policy said.
 */
export async function commitPlans(plans: Plan[], context: WriteContext, tool: string, maxOps?: number, description?: string): Promise<CommitResult> {
  refuseOverlaps(plans);
  refuseIfCancelled(context.signal);
  const expectedParents = new Set<string>();
  for (const plan of plans) for (const touched of plan.touches) expectedParents.add(path.dirname(touched));
  const result = await commitBatch(
    plans.map((plan) => plan.op),
    { sessionId: context.sessionId, tool, roots: context.workspace.roots.map((root) => root.real), ...(description === undefined ? {} : { description }) },
    {
      journalLimits: context.config.journal,
      journals: context.services.journals,
      // A symlink swapped into the path after the policy check must not redirect the write; directories
      // created for a new file lie inside a parent the policy resolved.
      verifyParent: async (dirReal: string) => expectedParents.has(dirReal) || [...expectedParents].some((parent) => dirReal.startsWith(parent + path.sep)),
      maxOps,
    },
  );
  announceCommitted(context, { realPaths: plans.flatMap((plan) => plan.touches), tool });
  return result;
}

/**
 * Throws `cancelled` once the client cancelled the call: the server drops the answer to a cancelled
 * call, so a commit begun after it would change files without ever reporting it.
 */
export function refuseIfCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new ToolError("cancelled", "the client cancelled the call; nothing was written.");
}

/** What a committed batch touched, for caches that mirror the disk (the code index). */
export interface CommittedEvent {
  /** Canonical paths written, created, deleted or renamed (both ends of a rename). */
  realPaths: string[];
  tool: string;
}

function announceCommitted(context: WriteContext, event: CommittedEvent): void {
  try {
    context.onCommitted?.(event);
  } catch (error) {
    // A cache that fails to update must not turn a committed write into a reported failure.
    log.warn("a commit observer failed", { error: error instanceof Error ? error.message : String(error) });
  }
}

/** The file mode a chmod string asks for, relative to the current mode ("644", "0755", "+x", "-x"). */
export function parseChmod(chmod: string, currentMode: number): number {
  const trimmed = chmod.trim();
  if (/^0?[0-7]{3}$/.test(trimmed)) return Number.parseInt(trimmed, 8);
  if (trimmed === "+x") return currentMode | ((currentMode & 0o444) >> 2);
  if (trimmed === "-x") return currentMode & ~0o111;
  throw new ToolError("invalid_input", `chmod ${JSON.stringify(chmod)} is not supported: use three octal digits ("644", "0755"), "+x" or "-x".`);
}
