/**
 * run: structural search over the workspace with one ast-grep pattern, and structural rewrite of every
 * match. Files come from the code index (walked through the policy; explicit paths are resolved
 * through it too), a literal pre-filter skips files that cannot match before parsing, and matching
 * runs on the exact text each file was read as. A rewrite is previewed as per-file diffs plus ONE
 * receipt binding every touched file's hash; committing it (or write: true with expectedMatches)
 * goes through the guarded write pipeline as one journaled batch.
 */
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { isToolError, ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { CodeIndex } from "../intel/index/index.ts";
import type { IndexedFile } from "../intel/index/types.ts";
import { type CompiledQuery, compileQuery, type LanguageId, languageIdFromName, type StructuralQuery, supportsSyntaxTree } from "../syntax/index.ts";
import { loadFile, type RunFile, type ScanResult, type ScannedFile, scanFiles } from "../intel/run/scan.ts";
import { type AstRule, applyAstRules } from "../patch/ast-rules.ts";
import { unifiedDiff } from "../helpers/unified-diff.ts";
import { buildTextCandidate, commitPlans, formattersFor, loadSource, type PipelineContext, type Plan, refuseIfCancelled } from "../patch/pipeline.ts";
import { receiptBook } from "../patch/receipts.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { PathInput, plural } from "./common.ts";
import { defineTool, type ToolContext } from "./contract.ts";
import { phasedProgress } from "./progress.ts";

// ───────────────────────────── input and output ─────────────────────────────

const RunInput = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .describe("ast-grep pattern with metavariables, e.g. `console.log($$$ARGS)` or `$A.unwrap()`. Required unless previewReceipt is given."),
  paths: z
    .array(PathInput)
    .min(1)
    .max(LIMITS.batchPaths)
    .optional()
    .describe("Files or directories to search (default: every root). An explicit file is searched even if the index skips it (ignored, vendored)."),
  glob: z.string().min(1).max(1000).optional().describe("Only files whose root-relative path matches this glob, e.g. `src/**/*.ts`."),
  lang: z.string().min(1).max(40).optional().describe("Language of the pattern (id or extension: typescript, tsx, python, go, rs…); only files of it are searched. Default: every language the pattern parses in."),
  selector: z.string().min(1).max(200).optional().describe("Node kind inside the pattern that is the actual match; the pattern is then its context (ast-grep selector)."),
  constraints: z.record(z.string(), z.unknown()).optional().describe('ast-grep constraints per metavariable, e.g. {"A": {"regex": "^debug"}}.'),
  rewrite: z.string().max(100_000).optional().describe("Replacement for every match; $NAME and $$$NAME insert what the pattern captured. Without write this previews: per-file diffs and one previewReceipt."),
  write: z.boolean().optional().describe("With rewrite: commit directly (needs expectedMatches) instead of previewing."),
  expectedMatches: z.number().int().min(0).optional().describe("Total matches expected across all files; a different count refuses the call (match_count) and writes nothing."),
  previewReceipt: z.string().min(1).max(200).optional().describe("Commit exactly what a rewrite preview showed, for every file it touched (alone in the call)."),
});
type RunInput = z.infer<typeof RunInput>;

const Match = z.object({
  path: z.string().describe("File path as the workspace displays it; usable as input."),
  startLine: z.number().int().describe("First line of the match (1-based)."),
  endLine: z.number().int().describe("Last line of the match."),
  column: z.number().int().describe("Column where the match starts (1-based, UTF-16 code units)."),
  endColumn: z.number().int().describe("Column just past the match's end."),
  text: z.string().describe("The matched source (cut at 200 characters)."),
  captures: z.record(z.string(), z.string()).describe("Metavariable → captured source (cut at 200 characters)."),
});

const Change = z.object({
  path: z.string().describe("File path as the workspace displays it."),
  matches: z.number().int().describe("Matches in this file."),
  applied: z.number().int().describe("Matches whose rewrite is in the result (nested ones dropped by an outer rewrite are not)."),
  sha256: z.string().describe("SHA-256 of the file before the change (what the receipt binds)."),
  candidateSha256: z.string().describe("SHA-256 the file has after the change."),
  added: z.number().int().describe("Lines added."),
  removed: z.number().int().describe("Lines removed."),
  diff: z.string().optional().describe("Unified diff (bounded); absent when the run's diff budget was used up."),
  diffTruncated: z.boolean().optional().describe("Whether the diff was cut or left out."),
  formatNote: z.string().optional().describe("Which formatter ran, or why the candidate was not formatted."),
});

const RunOutput = z.object({
  mode: z.enum(["search", "preview", "write", "commit"]).describe("search: matches only; preview: nothing written, diffs and a receipt; write/commit: written as one batch."),
  languages: z.array(z.string()).describe("Languages the pattern ran in."),
  literals: z.array(z.string()).describe("Texts a file had to contain to be parsed at all (the pre-filter)."),
  files: z
    .object({
      considered: z.number().int().describe("Files of a searched language in scope."),
      ruledOut: z.number().int().describe("Files the literal pre-filter skipped without parsing."),
      parsed: z.number().int().describe("Files parsed and matched."),
      matched: z.number().int().describe("Files with at least one match."),
      unreadable: z.number().int().describe("Files that could not be read or decoded as text."),
      tooLarge: z.number().int().describe("Files over the size limit."),
    })
    .describe("What happened to the files in scope."),
  matchCount: z.number().int().describe("Matches across all files."),
  matches: z.array(Match).describe("Matches in file and source order, at most 200."),
  changes: z.array(Change).optional().describe("Rewrites: one entry per changed file."),
  unchanged: z.array(z.string()).optional().describe("Rewrites: files whose matches rewrite to the same text."),
  previewReceipt: z.string().optional().describe("Preview: commit every change shown with run({previewReceipt}) within 10 minutes."),
  expiresAt: z.string().optional().describe("When the receipt expires (ISO 8601)."),
  batchId: z.string().optional().describe("Written: the journal batch (undo it with file_undo)."),
  complete: z.boolean().describe("Whether every file in scope was searched and every match listed."),
  limits: z.array(z.string()).describe("Limits that cut the result, when incomplete."),
  notes: z.array(z.string()).describe("Other things to know: languages skipped, why nothing matched."),
});
type RunOutput = z.infer<typeof RunOutput>;

// ───────────────────────────── helpers ─────────────────────────────

function pipelineContext(context: ToolContext): PipelineContext {
  return { workspace: context.workspace, config: context.config.config, configGeneration: context.config.generation, sessionId: context.sessionId, signal: context.signal };
}

/** A file's failure, prefixed with its path so the caller knows which file refused the run. */
async function forFile<T>(display: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isToolError(error) && !error.message.includes(display)) {
      throw new ToolError(error.code, `${display}: ${error.message}`, {
        hint: error.hint,
        retryable: error.retryable,
        ...(error.suggestedNextCall ? { suggestedNextCall: error.suggestedNextCall } : {}),
        details: { ...error.details, path: display },
      });
    }
    throw error;
  }
}

function isInside(real: string, directory: string): boolean {
  return real === directory || real.startsWith(directory.endsWith(path.sep) ? directory : directory + path.sep);
}

/**
 * The files in scope: index files under the given paths, filtered by glob and language, plus files
 * named explicitly (searched even when the index skips them; with `lang`, parsed as that language).
 */
async function collectTargets(args: RunInput, index: CodeIndex, language: LanguageId | undefined, context: ToolContext): Promise<RunFile[]> {
  const walked: IndexedFile[] = [];
  const named: RunFile[] = [];
  if (args.paths === undefined) {
    walked.push(...index.files());
  } else {
    const directories: ResolvedPath[] = [];
    for (const input of args.paths) {
      const resolved = await context.workspace.resolve(input, "read");
      if (!resolved.exists) throw new ToolError("file_not_found", `paths: ${resolved.display} does not exist.`);
      if (resolved.kind === "directory") directories.push(resolved);
      else if (resolved.kind !== "file") throw new ToolError("not_a_file", `paths: ${resolved.display} is neither a file nor a directory.`);
      else if (language !== undefined) named.push({ real: resolved.real, display: resolved.display, language });
      else {
        const file = index.get(resolved.real) ?? (await index.fileFor(resolved));
        named.push({ real: file.real, display: file.display, language: file.language });
      }
    }
    if (directories.length > 0) walked.push(...index.files().filter((file) => directories.some((directory) => isInside(file.real, directory.real))));
  }
  let chosen: Array<RunFile & { relative?: string }> = [...walked.filter((file) => language === undefined || file.language === language), ...named];
  if (args.glob !== undefined) {
    const matches = picomatch(args.glob, { dot: true });
    chosen = chosen.filter((file) => matches(file.display) || (file.relative !== undefined && matches(file.relative)));
  }
  const byReal = new Map<string, RunFile>();
  for (const file of chosen) if (!byReal.has(file.real)) byReal.set(file.real, { real: file.real, display: file.display, language: file.language });
  return [...byReal.values()].sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
}

/** Compiles the query for each language in scope; without `lang`, languages the pattern does not parse in are skipped. */
function compileForLanguages(query: StructuralQuery, files: readonly RunFile[], explicit: LanguageId | undefined, notes: string[]): Map<LanguageId, CompiledQuery> {
  const queries = new Map<LanguageId, CompiledQuery>();
  if (explicit !== undefined) {
    queries.set(explicit, compileQuery(query, explicit));
    return queries;
  }
  const languages = [...new Set(files.map((file) => file.language))].filter((language) => supportsSyntaxTree(language)).sort();
  const skipped: string[] = [];
  let onlyError: ToolError | undefined;
  for (const language of languages) {
    try {
      const compiled = compileQuery(query, language);
      if (compiled.patternProblem !== undefined) {
        skipped.push(`${language} (${compiled.patternProblem})`);
        continue;
      }
      queries.set(language, compiled);
    } catch (error) {
      if (!isToolError(error)) throw error;
      onlyError = error;
      skipped.push(`${language} (${error.message})`);
    }
  }
  if (queries.size === 0 && languages.length === 1 && onlyError) throw onlyError;
  if (skipped.length > 0) notes.push(`skipped languages the pattern does not parse in: ${skipped.join("; ")}. Pass lang to force one.`);
  return queries;
}

function listMatches(scanned: readonly ScannedFile[]): { matches: RunOutput["matches"]; total: number } {
  const matches: RunOutput["matches"] = [];
  let total = 0;
  for (const file of scanned) {
    total += file.count;
    for (const match of file.matches) {
      if (matches.length >= LIMITS.intel.run.maxListedMatches) break;
      matches.push({ path: file.file.display, ...match });
    }
  }
  return { matches, total };
}

function countMismatch(expected: number, found: number, scanned: readonly ScannedFile[]): ToolError {
  const perFile = scanned.slice(0, LIMITS.patch.maxListedMatches).map((file) => ({ path: file.file.display, matches: file.count }));
  return new ToolError("match_count", `the pattern matched ${plural(found, "time")} in ${plural(scanned.length, "file")}; expectedMatches is ${expected}. Nothing was written.`, {
    details: { expected, found, files: perFile },
  });
}

function filesSummary(scan: ScanResult): RunOutput["files"] {
  return { considered: scan.considered, ruledOut: scan.ruledOut, parsed: scan.parsed, matched: scan.matched.length, unreadable: scan.unreadable.length, tooLarge: scan.tooLarge.length };
}

// ───────────────────────────── rewrite planning ─────────────────────────────

interface PlannedChange {
  plan: Plan;
  change: z.input<typeof Change>;
  before: string;
  after: string;
}

/** A file's rewrite, from the file as it is now; `unchanged` when the rewrite gives the same bytes. */
async function planRewrite(scanned: ScannedFile, args: RunInput, explicit: LanguageId | undefined, context: ToolContext, pipeline: PipelineContext, formatters: Awaited<ReturnType<typeof formattersFor>>): Promise<PlannedChange | { unchanged: number }> {
  return forFile(scanned.file.display, async () => {
    const resolved = await context.workspace.resolve(scanned.file.real, "write");
    const loaded = await loadFile(scanned.file);
    if (!loaded) throw new ToolError("stale_hash", `${scanned.file.display} changed or disappeared while the run read it.`, { retryable: true, hint: "Run again." });
    const rule: AstRule = { pattern: args.pattern!, fix: args.rewrite!, expectedMatches: "all" };
    if (explicit !== undefined) rule.lang = explicit;
    if (args.selector !== undefined) rule.selector = args.selector;
    if (args.constraints !== undefined) rule.constraints = args.constraints;
    const rewritten = applyAstRules(loaded.decoded.text, scanned.file.language, [rule]);
    const report = rewritten.rules[0]!;
    const candidate = await buildTextCandidate({
      resolved,
      original: loaded.decoded,
      candidateText: rewritten.text,
      encodeAs: loaded.decoded,
      allowSyntaxErrors: false,
      formatters,
      config: pipeline.config,
    });
    if (candidate.sha256 === loaded.sha256) return { unchanged: report.matchCount };
    const plan: Plan = {
      key: resolved.display,
      resolved,
      touches: [resolved.real],
      op: { kind: "write", path: resolved.real, expectedBefore: loaded.sha256, after: candidate.bytes },
      displayAfter: resolved.display,
      before: { bytes: loaded.bytes, sha256: loaded.sha256, mode: loaded.mode },
      afterBytes: candidate.bytes,
      report: { matches: report.matchCount, applied: report.applied },
    };
    return {
      plan,
      before: loaded.decoded.text,
      after: candidate.text,
      change: {
        path: resolved.display,
        matches: report.matchCount,
        applied: report.applied,
        sha256: loaded.sha256,
        candidateSha256: candidate.sha256,
        added: 0,
        removed: 0,
        formatNote: candidate.report.format.reason,
      },
    };
  });
}

/** Fills each change's diff within the per-file and per-run budgets. */
function attachDiffs(planned: PlannedChange[]): void {
  let remaining = LIMITS.intel.run.maxDiffBytesTotal;
  for (const item of planned) {
    const budget = Math.min(LIMITS.intel.run.maxDiffBytesPerFile, remaining);
    const diff = unifiedDiff(item.change.path, item.before, item.after, Math.max(budget, 1));
    item.change.added = diff.added;
    item.change.removed = diff.removed;
    if (budget < 200) {
      item.change.diffTruncated = true;
      continue;
    }
    item.change.diff = diff.diff;
    item.change.diffTruncated = diff.truncated;
    remaining -= Buffer.byteLength(diff.diff);
  }
}

// ───────────────────────────── the tool ─────────────────────────────

async function commitReceipt(args: RunInput, context: ToolContext): Promise<z.input<typeof RunOutput>> {
  const extra = Object.entries(args).filter(([key, value]) => key !== "previewReceipt" && value !== undefined);
  if (extra.length > 0) throw new ToolError("invalid_input", `${extra[0]![0]}: a previewReceipt call takes no other fields.`);
  const pipeline = pipelineContext(context);
  const receipt = receiptBook.takeBatch(context.sessionId, args.previewReceipt!, { configGeneration: context.config.generation });
  const plans: Plan[] = [];
  const changes: Array<z.input<typeof Change>> = [];
  for (const file of receipt.files) {
    refuseIfCancelled(context.signal);
    const resolved = await context.workspace.resolve(file.canonicalPath, "write");
    await forFile(resolved.display, async () => {
      if (resolved.real !== file.canonicalPath) throw new ToolError("receipt_invalid", "the path no longer leads to the previewed file.");
      const source = await loadSource(resolved, file.sourceSha256, pipeline);
      if (!source) throw new ToolError("stale_hash", `${resolved.display} no longer exists.`, { details: { path: resolved.display, currentSha256: null } });
      plans.push({
        key: resolved.display,
        resolved,
        touches: [resolved.real],
        op: { kind: "write", path: resolved.real, expectedBefore: source.sha256, after: file.candidate },
        displayAfter: resolved.display,
        before: source,
        afterBytes: file.candidate,
        report: file.summary,
      });
      const summary = file.summary as { matches?: number; applied?: number; added?: number; removed?: number };
      changes.push({
        path: resolved.display,
        matches: summary.matches ?? 0,
        applied: summary.applied ?? 0,
        sha256: source.sha256,
        candidateSha256: file.candidateSha256,
        added: summary.added ?? 0,
        removed: summary.removed ?? 0,
      });
    });
  }
  const result = await commitPlans(plans, pipeline, "run", { maxOps: LIMITS.intel.run.maxWriteFiles });
  const summary = receipt.summary as { languages?: string[]; matchCount?: number };
  return {
    mode: "commit",
    languages: summary.languages ?? [],
    literals: [],
    files: { considered: plans.length, ruledOut: 0, parsed: 0, matched: plans.length, unreadable: 0, tooLarge: 0 },
    matchCount: summary.matchCount ?? changes.reduce((sum, change) => sum + change.matches, 0),
    matches: [],
    changes,
    batchId: result.batchId,
    complete: true,
    limits: [],
    notes: [],
  };
}

export const runTool = defineTool({
  name: "run",
  title: "Structural search and rewrite",
  description:
    "Find code by syntax-tree pattern across the workspace (ast-grep: `$A` one node, `$$$A` any number), with match locations and captures. With rewrite, preview per-file diffs and get ONE previewReceipt for all files; commit it with run({previewReceipt}), or pass write: true with expectedMatches (total across files). Writes are syntax-guarded, formatted and committed as one undoable batch (up to 500 files).",
  input: RunInput,
  output: RunOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler: async (args, context) => {
    if (args.previewReceipt !== undefined) return commitReceipt(args, context);
    if (args.pattern === undefined) throw new ToolError("invalid_input", "pattern: required (or previewReceipt to commit a preview).");
    if (args.write !== undefined && args.rewrite === undefined) throw new ToolError("invalid_input", "write: only meaningful with rewrite.");
    if (args.write === true && args.expectedMatches === undefined) {
      throw new ToolError("invalid_input", "expectedMatches: required with write: true (the total number of matches across files); preview first to learn it.", {
        suggestedNextCall: { tool: "run", arguments: { ...args, write: undefined } },
      });
    }
    let explicit: LanguageId | undefined;
    if (args.lang !== undefined) {
      explicit = languageIdFromName(args.lang);
      if (explicit === undefined || !supportsSyntaxTree(explicit)) {
        throw new ToolError("invalid_input", `lang: unknown language ${JSON.stringify(args.lang)}.`, { hint: "Use a language id such as typescript, tsx, python, go or rust, or a file extension." });
      }
    }
    const query: StructuralQuery = { pattern: args.pattern };
    if (args.selector !== undefined) query.selector = args.selector;
    if (args.constraints !== undefined) query.constraints = args.constraints;

    const progress = phasedProgress(context.progress);
    const index = CodeIndex.forContext(context);
    const indexProgress = progress.phase();
    const coverage = await index.ensureFresh({ signal: context.signal, ...(indexProgress ? { onProgress: indexProgress } : {}) });
    const targets = await collectTargets(args, index, explicit, context);
    const notes: string[] = [];
    const limits = [...coverage.limits];
    const queries = compileForLanguages(query, targets, explicit, notes);
    const scanProgress = progress.phase();
    const scan = await scanFiles(targets, queries, { signal: context.signal, ...(scanProgress ? { progress: scanProgress } : {}) });
    const { matches, total } = listMatches(scan.matched);
    if (total > matches.length) limits.push(`LIMITS.intel.run.maxListedMatches (${LIMITS.intel.run.maxListedMatches} matches listed of ${total})`);
    if (scan.tooLarge.length > 0) limits.push(`LIMITS.intel.run.maxFileBytes (${plural(scan.tooLarge.length, "file")} not searched: ${scan.tooLarge.slice(0, 5).join(", ")})`);
    if (scan.unreadable.length > 0) notes.push(`${plural(scan.unreadable.length, "file")} could not be read as text: ${scan.unreadable.slice(0, 5).join(", ")}`);
    if (total === 0) {
      const problems = [...queries.values()].flatMap((compiled) => (compiled.patternProblem === undefined ? [] : [`${compiled.language}: ${compiled.patternProblem}`]));
      if (problems.length > 0) notes.push(`the pattern does not parse cleanly (${problems.join("; ")}); write it as complete code, or pass the surrounding code as pattern and the node kind as selector.`);
      if (targets.length === 0) notes.push("no file in scope: check paths, glob and lang (files the index skips, such as ignored ones, are searched only when named in paths).");
    }
    const base = {
      languages: [...queries.keys()],
      literals: [...new Set([...queries.values()].flatMap((compiled) => compiled.literals))],
      files: filesSummary(scan),
      matchCount: total,
      matches,
      notes,
    };
    const complete = () => coverage.complete && limits.length === 0 && scan.unreadable.length === 0;

    if (args.rewrite === undefined) {
      if (args.expectedMatches !== undefined && total !== args.expectedMatches) throw countMismatch(args.expectedMatches, total, scan.matched);
      return { mode: "search" as const, ...base, complete: complete(), limits };
    }

    if (scan.matched.length > LIMITS.intel.run.maxWriteFiles) {
      throw new ToolError("too_many_items", `the pattern matches in ${scan.matched.length} files; one run rewrites at most ${LIMITS.intel.run.maxWriteFiles}.`, {
        hint: "Narrow the run with paths or glob and rewrite in several runs.",
      });
    }
    // Refuse before the costly planning when the scan already disagrees.
    if (args.expectedMatches !== undefined && total !== args.expectedMatches) throw countMismatch(args.expectedMatches, total, scan.matched);
    const pipeline = pipelineContext(context);
    const formatters = await formattersFor(pipeline);
    const planned: PlannedChange[] = [];
    const unchanged: string[] = [];
    // What is written is what counts: each file's matches as its rewrite found them.
    const perFile: Array<{ file: ScannedFile; count: number }> = [];
    for (const scanned of scan.matched) {
      refuseIfCancelled(context.signal);
      const item = await planRewrite(scanned, args, explicit, context, pipeline, formatters);
      if ("unchanged" in item) {
        unchanged.push(scanned.file.display);
        perFile.push({ file: scanned, count: item.unchanged });
      } else {
        planned.push(item);
        perFile.push({ file: scanned, count: item.change.matches });
      }
    }
    const rewriteTotal = perFile.reduce((sum, entry) => sum + entry.count, 0);
    if (args.expectedMatches !== undefined && rewriteTotal !== args.expectedMatches) {
      throw countMismatch(args.expectedMatches, rewriteTotal, perFile.map((entry) => ({ ...entry.file, count: entry.count })));
    }
    base.matchCount = rewriteTotal;
    attachDiffs(planned);
    const changes = planned.map((item) => item.change);

    if (args.write === true) {
      if (planned.length === 0) return { mode: "write" as const, ...base, changes, unchanged, complete: complete(), limits };
      const result = await commitPlans(
        planned.map((item) => item.plan),
        pipeline,
        "run",
        { maxOps: LIMITS.intel.run.maxWriteFiles },
      );
      return { mode: "write" as const, ...base, changes, unchanged, batchId: result.batchId, complete: complete(), limits };
    }

    if (planned.length === 0) return { mode: "preview" as const, ...base, changes, unchanged, complete: complete(), limits };
    const receipt = receiptBook.issueBatch(context.sessionId, {
      configGeneration: context.config.generation,
      files: planned.map((item) => ({
        canonicalPath: item.plan.resolved.real,
        sourceSha256: item.change.sha256,
        candidateSha256: item.change.candidateSha256,
        candidate: item.plan.afterBytes!,
        summary: { matches: item.change.matches, applied: item.change.applied, added: item.change.added, removed: item.change.removed },
      })),
      summary: { languages: base.languages, matchCount: total },
    });
    return {
      mode: "preview" as const,
      ...base,
      changes,
      unchanged,
      previewReceipt: receipt.id,
      expiresAt: new Date(receipt.createdAt + LIMITS.patch.receiptTtlMs).toISOString(),
      complete: complete(),
      limits,
    };
  },
  render: renderRun,
});

function matchesText(count: number): string {
  return `${count} ${count === 1 ? "match" : "matches"}`;
}

function renderRun(result: RunOutput): string {
  const lines: string[] = [];
  const { files } = result;
  const scope = `${plural(files.considered, "file")} in scope, ${files.ruledOut} skipped by the literal pre-filter, ${files.parsed} parsed`;
  const head = {
    search: `${matchesText(result.matchCount)} in ${plural(files.matched, "file")} (${scope})`,
    preview: `preview: ${matchesText(result.matchCount)} → ${plural(result.changes?.length ?? 0, "file")} would change; nothing written`,
    write: `wrote ${plural(result.changes?.length ?? 0, "file")} (${matchesText(result.matchCount)}) as batch ${result.batchId ?? "-"}`,
    commit: `committed ${plural(result.changes?.length ?? 0, "file")} as batch ${result.batchId ?? "-"}`,
  }[result.mode];
  lines.push(head);
  if (result.languages.length > 0 && result.mode !== "commit") lines.push(`languages: ${result.languages.join(", ")}${result.literals.length > 0 ? `; pre-filter literals: ${result.literals.map((literal) => JSON.stringify(literal)).join(", ")}` : ""}`);
  let currentPath = "";
  for (const match of result.matches) {
    if (match.path !== currentPath) {
      lines.push(match.path);
      currentPath = match.path;
    }
    const captures = Object.entries(match.captures).map(([name, text]) => `${name}=${JSON.stringify(text)}`);
    lines.push(`  ${match.startLine}:${match.column} ${match.text.split("\n")[0]}${match.endLine > match.startLine ? " …" : ""}${captures.length > 0 ? `  {${captures.join(", ")}}` : ""}`);
  }
  for (const change of result.changes ?? []) {
    lines.push(`${change.path}: ${matchesText(change.matches)}, +${change.added} −${change.removed}${change.formatNote ? ` (format: ${change.formatNote})` : ""}`);
    if (change.diff) lines.push(change.diff.trimEnd());
    else if (change.diffTruncated && result.mode === "preview") lines.push("  (diff left out: the run's diff budget is used up)");
  }
  if (result.unchanged && result.unchanged.length > 0) lines.push(`unchanged after rewrite: ${result.unchanged.join(", ")}`);
  if (result.previewReceipt) lines.push(`previewReceipt=${result.previewReceipt} (expires ${result.expiresAt}); commit with run({previewReceipt})`);
  for (const note of result.notes) lines.push(`note: ${note}`);
  if (!result.complete) lines.push(`incomplete: ${result.limits.join("; ") || "some files could not be read"}`);
  return lines.join("\n");
}
