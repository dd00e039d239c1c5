/**
 * The one write pipeline every mutation uses:
 * validate → resolve (policy) → read raw bytes and compare SHA-256 → transform → syntax guard → format
 * → (no side effects so far) → lock in sorted canonical order → recheck hashes → atomic commit → journal → unlock.
 * Tools plan their entries with these steps; `commitPlans` is the only way a plan reaches the disk.
 */
import { lstatSync } from "node:fs";
import path from "node:path";
import type { EffectiveConfig } from "../config/schema.ts";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { sha256Hex as sha256 } from "../helpers/hash.ts";
import { firstLineOf, languageOf } from "../syntax/index.ts";
import { readFileBytes, readRegularFile } from "../policy/open.ts";
import type { ResolvedPath, Workspace } from "../policy/workspace.ts";
import { type CommitOp, type CommitResult, commitBatch } from "./commit.ts";
import { unifiedDiff } from "../helpers/unified-diff.ts";
import { type FormatResult, Formatters } from "./format.ts";
import { type SyntaxInspection, type SyntaxReport, inspectSyntax, refuseRegression } from "./syntax-guard.ts";
import { type DecodedFile, decodeForEdit, encodeLike } from "../text/index.ts";

export interface PipelineContext {
  workspace: Workspace;
  config: EffectiveConfig;
  configGeneration: number;
  sessionId: string;
  signal: AbortSignal;
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
export async function loadSource(resolved: ResolvedPath, expectedSha256: string | null | undefined, context: PipelineContext): Promise<SourceFile | null> {
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
  config: EffectiveConfig;
}

/**
 * Turns edited text into the bytes that would be written: syntax guard first (dprint throws on broken
 * code), then formatting under the stable-formatting rule, then encoding like the original.
 * The candidate's parse runs on the thread pool while dprint formats it on this thread; the syntax
 * verdict still comes first (a refused candidate reports syntax_regression, not format_failed).
 * Every promise started here is awaited before this returns or throws.
 */
export async function buildTextCandidate(options: CandidateOptions): Promise<TextCandidate> {
  const { resolved, original } = options;
  const firstLine = firstLineOf((original?.text ?? options.candidateText).slice(0, 200));
  const language = languageOf(resolved.relative, firstLine, options.config.languages.overrides) ?? null;
  const before = original?.text;
  // An edit of a formatter-clean script can have only its changed statements formatted; those come from the syntax parse.
  const byStatement = options.formatters.formatsByStatement(resolved.real, before, options.candidateText);
  const formatter = options.formatters.formatterFor(resolved.real);
  const format = (statements: SyntaxInspection["statements"]) => options.formatters.formatCandidate(resolved.real, before, options.candidateText, options.config.format.on_failure, statements);
  const syntaxJob = inspectSyntax(resolved.display, language, before, options.candidateText, { statements: byStatement });
  // dprint runs in process and may as well run alongside the parse; an external formatter is never started for a refused candidate.
  const early = !byStatement && formatter === "dprint" ? settle(format(undefined)) : undefined;
  const inspection = await syntaxJob;
  // Joined before any refusal below, so it never outlives this call.
  const earlyOutcome = early === undefined ? undefined : await early;
  const syntax = inspection.report;
  if (!options.allowSyntaxErrors) refuseRegression(resolved.display, syntax);
  // Statement boundaries of a tree with errors need not be the formatter's.
  const statements = syntax.checked && syntax.afterErrors === 0 ? inspection.statements : undefined;
  let formatted: FormatResult;
  if (options.allowSyntaxErrors && syntax.newErrors.length > 0) {
    formatted = { text: options.candidateText, formatted: false, reason: "syntax errors allowed: not formatted" };
  } else {
    const outcome = earlyOutcome ?? (await settle(format(statements)));
    if (!outcome.ok) throw outcome.error;
    formatted = outcome.value;
  }
  const bytes = encodeLike(formatted.text, options.encodeAs);
  if (bytes.length > LIMITS.patch.maxCandidateBytes) {
    throw new ToolError("file_too_large", `the new content of ${resolved.display} would be ${bytes.length} bytes; the limit is ${LIMITS.patch.maxCandidateBytes}.`);
  }
  return { bytes, sha256: sha256(bytes), text: formatted.text, report: { language, syntax, format: formatted } };
}

/** A promise's outcome as a value, to join it later without a rejection left unhandled meanwhile. */
function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

/** Decodes a source for editing (refusing binary files and invalid encodings). */
export function decodeSource(source: SourceFile, resolved: ResolvedPath): DecodedFile {
  return decodeForEdit(source.bytes, resolved.display);
}

/** The formatter set for a workspace, reloaded when the repository's dprint config or the settings change. */
let formattersCache: { key: string; formatters: Promise<Formatters> } | undefined;

const DPRINT_CONFIG_NAMES = ["dprint.json", ".dprint.json", "dprint.jsonc", ".dprint.jsonc"];

/**
 * What the last look for the repository's dprint config found, with an lstat signature of every
 * name it looked at: while none of them changed and the policy is the same (its rules, and the
 * roots a client's roots narrow per session), the policy-checked read is not repeated. A symbolic
 * link at one of the names, or one changed moments ago, is never trusted this way.
 */
let dprintConfigSeen: { rules: object; roots: string; signatures: Array<string | null>; text: string | undefined } | undefined;

/**
 * Type, inode, size and change time of a name (not following a link); null when nothing is there.
 * "unsettled" for an entry changed moments ago: timestamps are too coarse to tell two quick edits
 * of the same size apart, so such an entry is read again every time until it settles.
 */
function entrySignature(file: string): string | null {
  try {
    const stats = lstatSync(file, { bigint: true });
    if (stats.isSymbolicLink()) return "link";
    if (Date.now() - Number(stats.ctimeNs / 1_000_000n) < LIMITS.patch.configSettleMs) return "unsettled";
    return `${stats.mode}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    return "unreadable";
  }
}

async function readDprintConfig(context: PipelineContext, rootReal: string): Promise<string | undefined> {
  const names = DPRINT_CONFIG_NAMES.map((name) => path.join(rootReal, name));
  const rules = context.workspace.policyIdentity;
  const roots = context.workspace.roots.map((root) => root.real).join("\0");
  const seen = dprintConfigSeen;
  if (seen !== undefined && seen.rules === rules && seen.roots === roots) {
    const now = names.slice(0, seen.signatures.length).map(entrySignature);
    if (now.every((signature, index) => signature === seen.signatures[index] && signature !== "link" && signature !== "unsettled")) return seen.text;
  }
  const signatures: Array<string | null> = [];
  let text: string | undefined;
  for (const name of names) {
    signatures.push(entrySignature(name));
    try {
      const resolved = await context.workspace.resolve(name, "read");
      if (!resolved.exists || resolved.kind !== "file") continue;
      text = (await readFileBytes(resolved, LIMITS.config.maxFileBytes)).toString("utf8");
      break;
    } catch (error) {
      // Denied by policy, vanished, or too large: the repository's formatter config is not read.
      if (error instanceof ToolError) continue;
      throw error;
    }
  }
  // A name that changed while it was read is looked at again next time.
  const unchanged = signatures.every((signature, index) => signature === entrySignature(names[index] as string));
  dprintConfigSeen = unchanged ? { rules, roots, signatures, text } : undefined;
  return text;
}

export async function formattersFor(context: PipelineContext): Promise<Formatters> {
  const firstRoot = context.workspace.roots[0];
  const dprintText = firstRoot ? await readDprintConfig(context, firstRoot.real) : undefined;
  const key = JSON.stringify([firstRoot?.real, dprintText, context.config.format, context.config.formatters]);
  if (formattersCache?.key !== key) {
    formattersCache = {
      key,
      formatters: Formatters.load({
        firstRootReal: firstRoot?.real,
        readDprintConfig: async () => dprintText,
        external: context.config.formatters,
        enabled: context.config.format.enabled,
      }),
    };
  }
  return formattersCache.formatters;
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
  /** Tool-specific facts reported back for this entry. */
  report: Record<string, unknown>;
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

/** A preview's diff, bounded. */
export function previewDiff(plan: Plan, beforeText: string | undefined, afterText: string | undefined) {
  return unifiedDiff(plan.displayAfter, beforeText, afterText, LIMITS.patch.maxPreviewDiffBytes);
}

/**
 * Commits every plan as one journaled batch: locks in sorted canonical order, rechecks every source hash
 * under the lock, and refuses a rename whose target directory no longer resolves where the policy said.
 */
export async function commitPlans(plans: Plan[], context: PipelineContext, tool: string, options: { maxOps?: number } = {}): Promise<CommitResult> {
  refuseOverlaps(plans);
  refuseIfCancelled(context.signal);
  const expectedParents = new Set<string>();
  for (const plan of plans) for (const touched of plan.touches) expectedParents.add(path.dirname(touched));
  const result = await commitBatch(
    plans.map((plan) => plan.op),
    { sessionId: context.sessionId, tool, roots: context.workspace.roots.map((root) => root.real) },
    {
      journalLimits: {
        maxBatches: context.config.journal.max_batches,
        maxBytes: context.config.journal.max_bytes,
        maxAgeDays: context.config.journal.max_age_days,
      },
      // A symlink swapped into the path after the policy check must not redirect the write.
      verifyParent: async (dirReal: string) => expectedParents.has(dirReal) || isInsideNewParents(dirReal, expectedParents),
      ...(options.maxOps === undefined ? {} : { maxOps: options.maxOps }),
    },
  );
  announceCommitted({ realPaths: plans.flatMap((plan) => plan.touches), tool });
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

const committedListeners = new Set<(event: CommittedEvent) => void>();

/** Calls `listener` after every successful commit; returns a function that unsubscribes it. */
export function onCommitted(listener: (event: CommittedEvent) => void): () => void {
  committedListeners.add(listener);
  return () => committedListeners.delete(listener);
}

function announceCommitted(event: CommittedEvent): void {
  for (const listener of committedListeners) {
    try {
      listener(event);
    } catch (error) {
      // A cache that fails to update must not turn a committed write into a reported failure.
      log.warn("a commit listener failed", { error: error instanceof Error ? error.message : String(error) });
    }
  }
}

/** Directories created for a new file are inside a parent the policy resolved. */
function isInsideNewParents(dirReal: string, expected: Set<string>): boolean {
  for (const parent of expected) {
    if (dirReal.startsWith(parent + path.sep)) return true;
  }
  return false;
}

/** The file mode a chmod string asks for, relative to the current mode ("644", "0755", "+x", "-x"). */
export function parseChmod(chmod: string, currentMode: number): number {
  const trimmed = chmod.trim();
  if (/^0?[0-7]{3}$/.test(trimmed)) return Number.parseInt(trimmed, 8);
  if (trimmed === "+x") return currentMode | ((currentMode & 0o444) >> 2);
  if (trimmed === "-x") return currentMode & ~0o111;
  throw new ToolError("invalid_input", `chmod ${JSON.stringify(chmod)} is not supported: use three octal digits ("644", "0755"), "+x" or "-x".`);
}
