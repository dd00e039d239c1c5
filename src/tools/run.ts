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
import { relativeInside } from "../helpers/path-text.ts";
import { CodeIndex } from "../intel/index/index.ts";
import type { IndexedFile } from "../intel/index/types.ts";
import { type CompiledQuery, compileQuery, type LanguageId, patternError, type StructuralQuery, supportsSyntaxTree } from "../syntax/index.ts";
import { type RunFile, type ScanResult, type ScannedFile, scanFiles } from "../intel/run/scan.ts";
import { type AstRule, commitBatchReceipt, type FileOutcome, type WriteEntry, writeBatch } from "../patch/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { languageArg, PathInput, plural } from "./common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { EDIT_ERRORS, SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, type ToolContext } from "./contract.ts";
import { batchLine, RECEIPT_USE, writeContext } from "./mutation.ts";
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
  lang: z.string().min(1).max(40).optional().describe(
    "Language of the pattern (id or extension: typescript, tsx, python, go, rs…); only files of it are searched. Default: every language the pattern parses in.",
  ),
  selector: z.string().min(1).max(200).optional().describe(
    "Node kind inside the pattern that is the actual match; the pattern is then its context (ast-grep selector). Without it, a fragment that is another node on its own (a Go call) runs as that code inside a function body, and notes say so.",
  ),
  constraints: z.record(z.string(), z.unknown()).optional().describe("ast-grep constraints per metavariable, e.g. {\"A\": {\"regex\": \"^debug\"}}."),
  rewrite: z.string().max(100_000).optional().describe(
    "Replacement for every match; $NAME and $$$NAME insert what the pattern captured. Without write this previews: per-file diffs and one previewReceipt.",
  ),
  write: z.boolean().optional().describe("With rewrite: commit directly (needs expectedMatches) instead of previewing."),
  expectedMatches: z.number().int().min(0).optional().describe("Total matches expected across all files; a different count refuses the call (match_count) and writes nothing."),
  previewReceipt: z.string().min(1).max(200).optional().describe(
    "Commit exactly what a rewrite preview showed, for every file it touched (alone in the call): pass the receipt back as the preview gave it; nothing else needs keeping between the calls.",
  ),
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
  previewReceipt: z.string().optional().describe(
    `Preview: commit every change shown with run({previewReceipt}) within 10 minutes. ${RECEIPT_USE}`,
  ),
  expiresAt: z.string().optional().describe("When the receipt expires (ISO 8601)."),
  batchId: z.string().optional().describe("Written: the journal batch (undo it with file_undo)."),
  ...Completeness,
  notes: z.array(z.string()).describe("Other things to know: languages skipped, why nothing matched."),
});
type RunOutput = z.infer<typeof RunOutput>;

// ───────────────────────────── helpers ─────────────────────────────

/** A file's failure, prefixed with its path so the caller knows which file refused the run. */
function nameByPath(display: string, error: ToolError): ToolError {
  if (error.message.includes(display)) return error;
  return new ToolError(error.code, `${display}: ${error.message}`, {
    hint: error.hint,
    retryable: error.retryable,
    ...(error.suggestedNextCall ? { suggestedNextCall: error.suggestedNextCall } : {}),
    details: { ...error.details, path: display },
  });
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
        const file = index.get(resolved.real) ?? ((await index.load(resolved)).file);
        named.push({ real: file.real, display: file.display, language: file.language });
      }
    }
    if (directories.length > 0) walked.push(...index.files().filter((file) => directories.some((directory) => relativeInside(directory.real, file.real, path.sep) !== undefined)));
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

/** invalid_input for a pattern that parses in no form in the language, where it breaks named. */
function refusal(compiled: CompiledQuery): ToolError {
  return patternError(compiled.problem ?? { message: compiled.patternProblem ?? "it does not parse", line: 1, column: 1, fatal: true }, compiled.language);
}

/** What to know about a query that runs although its pattern does not parse cleanly. */
function problemNote(compiled: CompiledQuery): string {
  return `${compiled.language}: the pattern does not parse cleanly (${compiled.patternProblem}); it ran as given and may miss matches: write it as complete code, or pass the surrounding code as pattern and the node kind as selector.`;
}

/**
 * Compiles the query for each language in scope. A pattern no form of which can run (unbalanced
 * brackets, refused by ast-grep) is refused for an explicit lang, or when that holds in every
 * language in scope. Without lang, languages the pattern does not parse cleanly in are skipped
 * while others remain, and run as given (with a note) when none does. Every language whose pattern
 * runs in another form says so in the notes.
 */
function compileForLanguages(query: StructuralQuery, files: readonly RunFile[], explicit: LanguageId | undefined, notes: string[]): Map<LanguageId, CompiledQuery> {
  const queries = new Map<LanguageId, CompiledQuery>();
  if (explicit !== undefined) {
    const compiled = compileQuery(query, explicit);
    if (compiled.problem?.fatal === true) throw refusal(compiled);
    queries.set(explicit, compiled);
    if (compiled.formNote !== undefined) notes.push(compiled.formNote);
    if (compiled.patternProblem !== undefined) notes.push(problemNote(compiled));
    return queries;
  }
  const languages = [...new Set(files.map((file) => file.language))].filter((language) => supportsSyntaxTree(language)).sort();
  const skipped: string[] = [];
  const unclean: CompiledQuery[] = [];
  let onlyError: ToolError | undefined;
  let firstFatal: CompiledQuery | undefined;
  for (const language of languages) {
    try {
      const compiled = compileQuery(query, language);
      if (compiled.patternProblem !== undefined) {
        if (compiled.problem?.fatal === true) firstFatal ??= compiled;
        else unclean.push(compiled);
        skipped.push(`${language} (${compiled.patternProblem})`);
        continue;
      }
      queries.set(language, compiled);
      if (compiled.formNote !== undefined) notes.push(compiled.formNote);
    } catch (error) {
      if (!isToolError(error)) throw error;
      onlyError = error;
      skipped.push(`${language} (${error.message})`);
    }
  }
  if (queries.size === 0 && unclean.length > 0) {
    for (const compiled of unclean) {
      queries.set(compiled.language, compiled);
      notes.push(problemNote(compiled));
    }
    const refused = skipped.filter((entry) => !unclean.some((compiled) => entry.startsWith(`${compiled.language} (`)));
    if (refused.length > 0) notes.push(`skipped languages the pattern cannot run in: ${refused.join("; ")}. Pass lang to force one.`);
    return queries;
  }
  if (queries.size === 0 && languages.length === 1 && onlyError) throw onlyError;
  if (queries.size === 0 && firstFatal !== undefined) {
    const error = refusal(firstFatal);
    if (languages.length === 1) throw error;
    throw new ToolError("invalid_input", `pattern: does not parse in any language in scope: ${skipped.join("; ")}.`, { hint: error.hint, details: { ...error.details } });
  }
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
  return {
    considered: scan.considered,
    ruledOut: scan.ruledOut,
    parsed: scan.parsed,
    matched: scan.matched.length,
    unreadable: scan.unreadable.length,
    tooLarge: scan.tooLarge.length,
  };
}

// ───────────────────────────── rewrites ─────────────────────────────

/** Matches a file's rewrite found (what is written is what counts). */
function rewriteCount(outcome: FileOutcome): number {
  return outcome.facts.rules?.[0]?.matched ?? 0;
}

function changeOf(outcome: FileOutcome): z.input<typeof Change> {
  const rule = outcome.facts.rules?.[0];
  const diff = outcome.diff;
  return {
    path: outcome.path,
    matches: rule?.matched ?? 0,
    applied: rule?.applied ?? 0,
    sha256: outcome.previousSha256 ?? "",
    candidateSha256: outcome.candidateSha256 ?? "",
    added: diff?.added ?? 0,
    removed: diff?.removed ?? 0,
    ...(diff?.text === undefined ? {} : { diff: diff.text }),
    ...(diff === undefined ? {} : { diffTruncated: diff.truncated }),
    ...(outcome.facts.formatNote === undefined ? {} : { formatNote: outcome.facts.formatNote }),
  };
}

/** Each matched file's rewrite entry: every match of the pattern, on the file as it is now. */
function rewriteEntries(scan: ScanResult, args: RunInput, explicit: LanguageId | undefined, queries: ReadonlyMap<LanguageId, CompiledQuery>): WriteEntry[] {
  return scan.matched.map((scanned) => {
    // The form the search ran in, so the rewrite finds exactly the matches the search counted.
    const form = queries.get(explicit ?? scanned.file.language)?.query ?? { pattern: args.pattern!, ...(args.selector === undefined ? {} : { selector: args.selector }) };
    const rule: AstRule = { pattern: form.pattern, fix: args.rewrite!, expectedMatches: "all" };
    if (explicit !== undefined) rule.lang = explicit;
    if (form.selector !== undefined) rule.selector = form.selector;
    if (args.constraints !== undefined) rule.constraints = args.constraints;
    return { kind: "rules", key: scanned.file.display, path: scanned.file.real, rules: [rule], expectedSha256: "current", language: scanned.file.language };
  });
}

async function commitReceipt(args: RunInput, context: ToolContext): Promise<z.input<typeof RunOutput>> {
  const extra = Object.entries(args).filter(([key, value]) => key !== "previewReceipt" && value !== undefined);
  if (extra.length > 0) throw new ToolError("invalid_input", `${extra[0]![0]}: a previewReceipt call takes no other fields.`);
  const report = await commitBatchReceipt(args.previewReceipt!, writeContext(context), { tool: "run", maxOps: LIMITS.intel.run.maxWriteFiles, nameFailure: nameByPath });
  const changes = report.files.map((file) => {
    const { diff: _diff, diffTruncated: _truncated, formatNote: _note, ...change } = changeOf(file);
    return change;
  });
  return {
    mode: "commit",
    languages: report.summary.languages,
    literals: [],
    files: { considered: changes.length, ruledOut: 0, parsed: 0, matched: changes.length, unreadable: 0, tooLarge: 0 },
    matchCount: report.summary.matchCount,
    matches: [],
    changes,
    ...(report.batchId === null ? {} : { batchId: report.batchId }),
    ...completeness(undefined),
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
  errors: [...SOURCE_ERRORS, ...EDIT_ERRORS, "match_count", "receipt_invalid"],
  handler: async (args, context) => {
    if (args.previewReceipt !== undefined) return commitReceipt(args, context);
    if (args.pattern === undefined) throw new ToolError("invalid_input", "pattern: required (or previewReceipt to commit a preview).");
    if (args.write !== undefined && args.rewrite === undefined) throw new ToolError("invalid_input", "write: only meaningful with rewrite.");
    if (args.write === true && args.expectedMatches === undefined) {
      throw new ToolError("invalid_input", "expectedMatches: required with write: true (the total number of matches across files); preview first to learn it.", {
        suggestedNextCall: { tool: "run", arguments: { ...args, write: undefined } },
      });
    }
    const explicit = args.lang === undefined ? undefined : languageArg("lang", args.lang, supportsSyntaxTree);
    const query: StructuralQuery = { pattern: args.pattern };
    if (args.selector !== undefined) query.selector = args.selector;
    if (args.constraints !== undefined) query.constraints = args.constraints;

    const progress = phasedProgress(context.progress);
    const index = context.services.indexes.forContext(context);
    const indexProgress = progress.phase();
    // A search may answer from the files indexed so far (saying so); a rewrite waits for them all.
    const deadline = args.rewrite === undefined ? { deadlineMs: LIMITS.intel.index.answerWithinMs } : {};
    const coverage = await index.ensureFresh({ signal: context.signal, ...deadline, ...(indexProgress ? { onProgress: indexProgress } : {}) });
    const targets = await collectTargets(args, index, explicit, context);
    const notes: string[] = [];
    const cuts: string[] = [];
    const queries = compileForLanguages(query, targets, explicit, notes);
    const scanProgress = progress.phase();
    const scan = await scanFiles(targets, queries, { signal: context.signal, ...(scanProgress ? { progress: scanProgress } : {}) });
    const { matches, total } = listMatches(scan.matched);
    if (total > matches.length) cuts.push(`intel.run.maxListedMatches = ${LIMITS.intel.run.maxListedMatches} (${total} matches): narrow paths or glob`);
    if (scan.tooLarge.length > 0) {
      cuts.push(`intel.run.maxFileBytes = ${LIMITS.intel.run.maxFileBytes} (${plural(scan.tooLarge.length, "file")} not searched: ${scan.tooLarge.slice(0, 5).join(", ")})`);
    }
    if (scan.unreadable.length > 0) cuts.push(`${plural(scan.unreadable.length, "file")} could not be read as text: ${scan.unreadable.slice(0, 5).join(", ")}`);
    if (total === 0) {
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
    if (args.rewrite === undefined) {
      if (args.expectedMatches !== undefined && total !== args.expectedMatches) throw countMismatch(args.expectedMatches, total, scan.matched);
      return { mode: "search" as const, ...base, ...completeness(coverage, cuts) };
    }

    if (scan.matched.length > LIMITS.intel.run.maxWriteFiles) {
      throw new ToolError("too_many_items", `the pattern matches in ${scan.matched.length} files; one run rewrites at most ${LIMITS.intel.run.maxWriteFiles}.`, {
        hint: "Narrow the run with paths or glob and rewrite in several runs.",
      });
    }
    // Refuse before the costly planning when the scan already disagrees.
    if (args.expectedMatches !== undefined && total !== args.expectedMatches) throw countMismatch(args.expectedMatches, total, scan.matched);
    let rewriteTotal = 0;
    const report = await writeBatch(rewriteEntries(scan, args, explicit, queries), writeContext(context), {
      tool: "run",
      sequential: true,
      skipUnchanged: true,
      maxOps: LIMITS.intel.run.maxWriteFiles,
      nameFailure: nameByPath,
      diff: { perFile: LIMITS.intel.run.maxDiffBytesPerFile, total: LIMITS.intel.run.maxDiffBytesTotal },
      confirm: (outcomes) => {
        rewriteTotal = outcomes.reduce((sum, outcome) => sum + rewriteCount(outcome), 0);
        if (args.expectedMatches !== undefined && rewriteTotal !== args.expectedMatches) {
          throw countMismatch(args.expectedMatches, rewriteTotal, outcomes.map((outcome, index) => ({ ...(scan.matched[index] as ScannedFile), count: rewriteCount(outcome) })));
        }
      },
      ...(args.write === true ? {} : { preview: { receipt: "one" as const, summary: { languages: base.languages, matchCount: total } } }),
    });
    base.matchCount = rewriteTotal;
    const changes = report.files.filter((file) => file.facts.change !== "unchanged").map(changeOf);
    const unchanged = report.files.filter((file) => file.facts.change === "unchanged").map((file) => file.path);
    const written = report.batchId === null ? {} : { batchId: report.batchId };
    const cutDiffs = changes.filter((change) => change.diffTruncated).length;
    if (cutDiffs > 0) {
      cuts.push(
        `intel.run.maxDiffBytesPerFile = ${LIMITS.intel.run.maxDiffBytesPerFile}, intel.run.maxDiffBytesTotal = ${LIMITS.intel.run.maxDiffBytesTotal} (${
          plural(cutDiffs, "diff")
        } cut or left out): narrow paths to see them whole`,
      );
    }
    const complete = completeness(coverage, cuts);
    if (args.write === true) return { mode: "write" as const, ...base, changes, unchanged, ...written, ...complete };
    return {
      mode: "preview" as const,
      ...base,
      changes,
      unchanged,
      ...(report.receipt ? { previewReceipt: report.receipt.id, expiresAt: report.receipt.expiresAt } : {}),
      ...complete,
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
    write: `wrote ${plural(result.changes?.length ?? 0, "file")} (${matchesText(result.matchCount)}) as ${batchLine(result.batchId)}`,
    commit: `committed ${plural(result.changes?.length ?? 0, "file")} as ${batchLine(result.batchId)}`,
  }[result.mode];
  lines.push(head);
  if (result.languages.length > 0 && result.mode !== "commit") {
    lines.push(`languages: ${result.languages.join(", ")}${
      result.literals.length > 0 ?
        `; pre-filter literals: ${result.literals.map((literal) => JSON.stringify(literal)).join(", ")}` :
        ""
    }`);
  }
  // The receipt and the notes come before the listing and the diffs: the text cap cuts from the end,
  // and a host that shows the model only text must still be able to commit.
  if (result.previewReceipt) lines.push(`previewReceipt=${result.previewReceipt} (expires ${result.expiresAt}); commit with run({previewReceipt})`);
  for (const note of result.notes) lines.push(`note: ${note}`);
  let currentPath = "";
  for (const match of result.matches) {
    if (match.path !== currentPath) {
      lines.push(match.path);
      currentPath = match.path;
    }
    const captures = Object.entries(match.captures).map(([name, text]) => `${name}=${JSON.stringify(text)}`);
    lines.push(
      `  ${match.startLine}:${match.column} ${match.text.split("\n")[0]}${match.endLine > match.startLine ? " …" : ""}${captures.length > 0 ? `  {${captures.join(", ")}}` : ""}`,
    );
  }
  for (const change of result.changes ?? []) {
    lines.push(`${change.path}: ${matchesText(change.matches)}, +${change.added} −${change.removed}${change.formatNote ? ` (format: ${change.formatNote})` : ""}`);
    if (change.diff) lines.push(change.diff.trimEnd());
    else if (change.diffTruncated && result.mode === "preview") lines.push("  (diff left out: the run's diff budget is used up)");
  }
  if (result.unchanged && result.unchanged.length > 0) lines.push(`unchanged after rewrite: ${result.unchanged.join(", ")}`);
  return renderIncomplete(result, lines);
}
