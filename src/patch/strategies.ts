/**
 * One strategy per edit kind, behind one interface: each turns an entry into a fully computed plan
 * (policy, hash check, transform, syntax guard, format) before anything is locked or written.
 */
import { ToolError } from "../core/errors.ts";
import { firstLineOf, languageOf } from "../syntax/index.ts";
import type { LanguageId } from "../syntax/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { adaptLineEndings, type DecodedFile, decodeForEdit, newFileDefaults } from "../text/index.ts";
import { type AiderBlock, type AppliedBlock, applyAiderBlocks } from "./aider.ts";
import { parseAiderText } from "./aider-parse.ts";
import { type AstRule, type AstRuleReport, applyAstRules } from "./ast-rules.ts";
import type { Formatters } from "./format.ts";
import { buildTextCandidate, type CandidateReport, loadSource, parseChmod, type WriteContext, type Plan, type SourceFile, type TextCandidate } from "./pipeline.ts";
import type { Change, FileFacts, TypeErrors } from "./report.ts";

/** What to check a file against: a hash, null (must not exist), undefined (no hash given), or "current" (whatever is there now). */
export type Expected = string | null | undefined;

/** Type errors the change would introduce, from the caller (the compiler is not the write path's). */
export type Diagnose = (resolved: ResolvedPath, before: string | undefined, after: string) => Promise<TypeErrors>;

interface EntryBase {
  /** The caller's key for the entry, reported back. */
  key: string;
  /** What to resolve, when not the key. */
  path?: string | undefined;
}

export type WriteEntry =
  | (EntryBase & { kind: "content"; content: string; expectedSha256?: Expected; allowSyntaxErrors?: boolean | undefined })
  | (EntryBase & { kind: "aider"; blocks: AiderBlock[] | string; expectedSha256?: Expected; allowSyntaxErrors?: boolean | undefined; diagnose?: Diagnose | undefined })
  | (EntryBase & {
    kind: "rules";
    rules: AstRule[];
    expectedSha256?: Expected | "current";
    language?: LanguageId | undefined;
    allowSyntaxErrors?: boolean | undefined;
    diagnose?: Diagnose | undefined;
  })
  | (EntryBase & { kind: "receipt"; receipt: string })
  | (EntryBase & { kind: "rename"; destination: string; expectedSha256?: Expected })
  | (EntryBase & { kind: "delete"; expectedSha256?: Expected; refuse?: ((resolved: ResolvedPath) => Promise<void>) | undefined })
  | (EntryBase & { kind: "chmod"; chmod: string; expectedSha256?: Expected })
  /** Rewrites the current text of a file planned against `expectedSha256`; undefined or the same text leaves the entry out. */
  | (EntryBase & { kind: "transform"; expectedSha256: string; transform: (text: string, display: string) => string | undefined });

/** A planned entry: the plan, and for content the texts its diff is made of. */
export interface Planned {
  plan: Plan;
  texts?: { before: string | undefined; after: string };
  candidateSha256?: string;
}

/** What a strategy may use while planning. */
export interface PlanningRun {
  context: WriteContext;
  formatters: () => Promise<Formatters>;
}

type EntryOf<Kind extends WriteEntry["kind"]> = Extract<WriteEntry, { kind: Kind }>;

const STRATEGIES: { [Kind in WriteEntry["kind"]]: (entry: EntryOf<Kind>, run: PlanningRun) => Promise<Planned | undefined> } = {
  content: async (entry, run) => {
    const target = await openTarget(entry, entry.expectedSha256, run);
    const text = target.decoded ? adaptLineEndings(entry.content, target.decoded.eol) : entry.content;
    return textPlan(entry, target, text, {}, run);
  },
  aider: async (entry, run) => {
    const target = await openTarget(entry, entry.expectedSha256, run);
    const blocks = typeof entry.blocks === "string" ? parseAiderText(entry.blocks) : entry.blocks;
    if (!target.decoded && blocks.some((block) => block.search !== "")) {
      throw new ToolError("file_not_found", `${target.resolved.display} does not exist; only an empty search creates a file.`);
    }
    const result = applyAiderBlocks(target.decoded?.text ?? "", blocks, {
      eol: target.decoded?.eol ?? newFileDefaults().eol,
      fuzzy: run.context.config.safety.fuzzy_match,
      fuzzyThreshold: run.context.config.safety.fuzzy_threshold,
    });
    return textPlan(entry, target, result.text, { matches: matchesOf(result.applied) }, run);
  },
  rules: async (entry, run) => {
    const current = entry.expectedSha256 === "current";
    const target = await openTarget(entry, current ? "current" : entry.expectedSha256, run);
    if (!target.decoded) {
      if (current) throw new ToolError("stale_hash", `${target.resolved.display} changed or disappeared while the run read it.`, { retryable: true, hint: "Run again." });
      throw new ToolError("file_not_found", `${target.resolved.display} does not exist; structural rules edit existing files.`);
    }
    const original = target.decoded.text;
    const language = entry.language ?? languageOf(target.resolved.relative, firstLineOf(original.slice(0, 200)), run.context.config.languages.overrides) ?? null;
    const result = await applyAstRules(original, language, entry.rules, run.context.services.syntax);
    return textPlan(entry, target, result.text, { rules: rulesOf(result.rules) }, run);
  },
  receipt: async (entry, run) => {
    const resolved = await run.context.workspace.resolve(entry.path ?? entry.key, "write");
    const receipt = run.context.services.receipts.take(run.context, entry.receipt, { canonicalPath: resolved.real, configGeneration: run.context.configGeneration });
    const source = await loadSource(resolved, receipt.sourceSha256, run.context);
    return {
      plan: writePlan(entry.key, resolved, source, receipt.candidate, { ...receipt.summary, change: changeOf(source, receipt.candidateSha256) }),
      candidateSha256: receipt.candidateSha256,
    };
  },
  rename: async (entry, run) => {
    const { resolved, source } = await openExisting(entry, "delete", "a rename", run);
    const destination = await run.context.workspace.resolve(entry.destination, "write");
    if (destination.exists) {
      throw new ToolError("destination_exists", `${destination.display} already exists; renames never overwrite.`, { details: { destination: destination.display } });
    }
    const op = { kind: "rename", from: resolved.real, to: destination.real, expectedBefore: source.sha256, mkdirParents: true } as const;
    return existingPlan(entry, resolved, source, op, { change: "renamed", renamedFrom: resolved.display }, destination);
  },
  delete: async (entry, run) => {
    const { resolved, source } = await openExisting(entry, "delete", "a delete", run);
    await entry.refuse?.(resolved);
    return existingPlan(entry, resolved, source, { kind: "delete", path: resolved.real, expectedBefore: source.sha256, removeEmptyParentsUpTo: resolved.root.real }, {
      change: "deleted",
    });
  },
  chmod: async (entry, run) => {
    const { resolved, source } = await openExisting(entry, "write", "a mode change", run);
    const mode = parseChmod(entry.chmod, source.mode);
    return existingPlan(entry, resolved, source, { kind: "chmod", path: resolved.real, expectedBefore: source.sha256, mode }, {
      change: "mode",
      mode: mode.toString(8).padStart(3, "0"),
    });
  },
  transform: async (entry, run) => {
    const target = await openTarget(entry, entry.expectedSha256, run);
    if (!target.source || !target.decoded) return undefined;
    const text = entry.transform(target.decoded.text, target.resolved.display);
    if (text === undefined || text === target.decoded.text) return undefined;
    return textPlan(entry, target, text, {}, run);
  },
};

/** Plans one entry with the strategy of its kind; undefined when the entry turns out to change nothing worth a plan. */
export function planEntry(entry: WriteEntry, run: PlanningRun): Promise<Planned | undefined> {
  const strategy = STRATEGIES[entry.kind] as (entry: WriteEntry, run: PlanningRun) => Promise<Planned | undefined>;
  return strategy(entry, run);
}

function changeOf(before: { sha256: string } | null, afterSha: string): Change {
  if (!before) return "created";
  return before.sha256 === afterSha ? "unchanged" : "modified";
}

interface Target {
  resolved: ResolvedPath;
  source: SourceFile | null;
  decoded: DecodedFile | undefined;
}

/** Resolves a target for writing and loads what is there now (checking the expected hash; "current" takes any version). */
async function openTarget(entry: EntryBase, expected: Expected | "current", run: PlanningRun): Promise<Target> {
  const resolved = await run.context.workspace.resolve(entry.path ?? entry.key, "write");
  const source = expected === "current" ?
    await loadSource(resolved, resolved.exists ? undefined : null, { ...run.context, config: anyVersion(run.context) }) :
    await loadSource(resolved, expected, run.context);
  return { resolved, source, decoded: source ? decodeForEdit(source.bytes, resolved.display) : undefined };
}

/** The configuration with require_hash off: for a caller that read the file itself moments ago. */
function anyVersion(context: WriteContext): WriteContext["config"] {
  return { ...context.config, safety: { ...context.config.safety, require_hash: false } };
}

/** Resolves an entry that acts on an existing file (rename source, delete, chmod) and checks its hash. */
async function openExisting(
  entry: EntryBase & { expectedSha256?: Expected },
  operation: "write" | "delete",
  action: string,
  run: PlanningRun,
): Promise<{ resolved: ResolvedPath; source: SourceFile }> {
  if (entry.expectedSha256 === null) {
    throw new ToolError("invalid_input", `files[${JSON.stringify(entry.key)}].expectedSha256: null is not meaningful for ${action}: the file must exist`);
  }
  const resolved = await run.context.workspace.resolve(entry.path ?? entry.key, operation);
  if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  const source = await loadSource(resolved, entry.expectedSha256, run.context);
  if (!source) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  return { resolved, source };
}

/** The plan for an entry's new text: checked (as the entry allows), formatted and encoded like the file it replaces. */
async function textPlan(
  entry: EntryBase & { allowSyntaxErrors?: boolean | undefined; diagnose?: Diagnose | undefined },
  target: Target,
  text: string,
  facts: Partial<FileFacts>,
  run: PlanningRun,
): Promise<Planned> {
  const { resolved, source, decoded } = target;
  const candidate: TextCandidate = await buildTextCandidate({
    resolved,
    original: decoded,
    candidateText: text,
    encodeAs: decoded ?? newFileDefaults(),
    allowSyntaxErrors: entry.allowSyntaxErrors ?? false,
    formatters: await run.formatters(),
    syntax: run.context.services.syntax,
    config: run.context.config,
  });
  const report: FileFacts = { change: changeOf(source, candidate.sha256), ...facts, ...candidateFacts(candidate.report) };
  if (entry.diagnose) report.typeErrors = await entry.diagnose(resolved, decoded?.text, candidate.text);
  return { plan: writePlan(entry.key, resolved, source, candidate.bytes, report), texts: { before: decoded?.text, after: candidate.text }, candidateSha256: candidate.sha256 };
}

function candidateFacts(report: CandidateReport): Pick<FileFacts, "formatted" | "formatNote" | "syntax"> {
  return {
    formatted: report.format.formatted,
    formatNote: report.format.reason,
    syntax: { checked: report.syntax.checked, errorsBefore: report.syntax.beforeErrors, errorsAfter: report.syntax.afterErrors },
  };
}

/** The plan of a rename, delete or mode change of an existing file (a rename touches its destination too). */
function existingPlan(entry: EntryBase, resolved: ResolvedPath, source: SourceFile, op: Plan["op"], report: FileFacts, destination?: ResolvedPath): Planned {
  const touches = destination ? [resolved.real, destination.real] : [resolved.real];
  return { plan: { key: entry.key, resolved, touches, op, displayAfter: (destination ?? resolved).display, before: source, report } };
}

/** The plan that writes `after` over (or as) one file. */
export function writePlan(key: string, resolved: ResolvedPath, source: SourceFile | null, after: Buffer, report: FileFacts): Plan {
  return {
    key,
    resolved,
    touches: [resolved.real],
    op: { kind: "write", path: resolved.real, expectedBefore: source?.sha256 ?? null, after, mkdirParents: !resolved.exists },
    displayAfter: resolved.display,
    before: source,
    afterBytes: after,
    report,
  };
}

function matchesOf(applied: AppliedBlock[]): NonNullable<FileFacts["matches"]> {
  return applied.map((block) => ({
    block: block.index,
    matcher: block.matcher,
    startLine: block.startLine,
    endLine: block.endLine,
    ...(block.similarity !== undefined ? { similarity: block.similarity } : {}),
  }));
}

function rulesOf(reports: AstRuleReport[]): NonNullable<FileFacts["rules"]> {
  return reports.map((report) => ({
    rule: report.index,
    matched: report.matchCount,
    applied: report.applied,
    locations: report.matches.map((match) => ({ startLine: match.startLine, endLine: match.endLine })),
  }));
}
