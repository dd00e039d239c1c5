/**
 * The outline tools, all read from the code index: map (signatures with line ranges, no bodies),
 * digest (a one-page map of a directory), show (the source of named symbols), surface (the public
 * API after re-exports) and index (build, refresh, report). Outputs fit a token budget measured by
 * the shared estimator and say what was cut and how to ask for the rest.
 */
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { isToolError, ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { splitLines } from "../text/index.ts";
import { capText } from "../helpers/text-cap.ts";
import { cutToTokens, estimateTokens } from "../helpers/tokens.ts";
import type { SymbolFact } from "../intel/facts/types.ts";
import { ImportGraph } from "../intel/graph/import-graph.ts";
import { CodeIndex } from "../intel/index/code-index.ts";
import { SKIPPED_DIRECTORY_NAMES } from "../syntax/index.ts";
import type { Coverage, IndexedFile } from "../intel/index/types.ts";
import { typedSymbolsFor } from "../intel/typescript/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { ItemErrorSchema, PathInput, plural, renderItemError, toItemError, type ItemError } from "./common.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./contract.ts";

// ───────────────────────────── shared pieces ─────────────────────────────

const DETAILS = ["names", "signatures", "full"] as const;
type Detail = (typeof DETAILS)[number];

/** Characters kept free in the text rendering for notes and headers. */
const RENDER_RESERVE_CHARS = 600;

const MaxTokens = (fallback: number) =>
  z
    .number()
    .int()
    .min(100)
    .max(LIMITS.intel.outline.maxTokensCeiling)
    .default(fallback)
    .describe(
      `Token budget of the answer (estimated o200k tokens, default ${fallback}). The text is also bounded by the ${LIMITS.output.maxTextChars}-character output limit; what does not fit is named with how to ask for it.`,
    );

const CoverageOut = z
  .object({
    complete: z.boolean().describe("Whether the index behind this answer covers everything the policy and .gitignore leave in (no limit cut it)."),
    limits: z.array(z.string()).describe("The limits that cut the index or this answer, e.g. \"index.max_files = 50000\" or \"maxTokens = 6000\"."),
  })
  .describe("Completeness of the answer.");

const Cut = z
  .object({
    truncated: z.boolean().describe("Whether something was left out to fit the budget."),
    limitedBy: z.enum(["maxTokens", "outputLimit", "maxFiles"]).nullable().describe("What cut the answer; null when nothing did."),
    next: z.string().nullable().describe("How to ask for what was left out; null when nothing was."),
    tokens: z.number().int().describe("Estimated tokens of the text answer."),
  })
  .describe("Budget accounting.");

const FailedPath = z.object({ path: z.string(), error: ItemErrorSchema });

function coverageOut(coverage: Coverage | undefined, extra: string[] = []): z.infer<typeof CoverageOut> {
  const limits = [...(coverage?.limits ?? []), ...extra];
  return { complete: (coverage?.complete ?? true) && extra.length === 0, limits };
}

function progressOf(context: ToolContext): { signal: AbortSignal; onProgress?: (done: number, total: number) => void } {
  return context.progress ? { signal: context.signal, onProgress: context.progress } : { signal: context.signal };
}

/** Symbols an outline shows: locals only with `private`, private members only with `private`. */
export function visibleSymbols(symbols: readonly SymbolFact[], includePrivate: boolean): Array<{ symbol: SymbolFact; depth: number }> {
  const shown = new Map<string, number>();
  const out: Array<{ symbol: SymbolFact; depth: number }> = [];
  for (const symbol of symbols) {
    if (!includePrivate && (symbol.local === true || symbol.visibility === "private")) continue;
    let depth = 0;
    if (symbol.parent !== undefined) {
      const parentDepth = shown.get(symbol.parent);
      // A member of a hidden symbol is hidden with it.
      if (parentDepth === undefined && !includePrivate) continue;
      depth = (parentDepth ?? 0) + 1;
    }
    shown.set(symbol.qualifiedName, depth);
    out.push({ symbol, depth });
  }
  return out;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function lineRange(symbol: { startLine: number; endLine: number }): string {
  return symbol.startLine === symbol.endLine ? `L${symbol.startLine}` : `L${symbol.startLine}-${symbol.endLine}`;
}

export const OutlineSymbol = z.object({
  name: z.string(),
  qualifiedName: z.string().describe("Dotted path through enclosing symbols (usable with show)."),
  kind: z.string().describe("class, interface, struct, trait, enum, function, method, field, constant, type, heading, …"),
  startLine: z.number().int().describe("1-based first line."),
  endLine: z.number().int().describe("1-based last line, inclusive."),
  depth: z.number().int().describe("Nesting level in this outline (0 = top level)."),
  signature: z.string().optional().describe("The declaration without its body (detail signatures and full)."),
  doc: z.string().optional().describe("First sentence of the doc comment (with docs)."),
  visibility: z.string().optional().describe("public, private, protected, internal, package or file (detail full)."),
  exported: z.boolean().optional().describe("Part of the file's public surface (detail full)."),
  heritage: z.array(z.string()).optional().describe("Types it extends or implements (detail full)."),
  returnType: z.string().optional().describe("With typed: the return type the TypeScript compiler infers (functions, methods, callable values)."),
});
type OutlineSymbolOut = z.infer<typeof OutlineSymbol>;

export function symbolOut(symbol: SymbolFact, depth: number, detail: Detail, docs: boolean): OutlineSymbolOut {
  const out: OutlineSymbolOut = { name: symbol.name, qualifiedName: symbol.qualifiedName, kind: symbol.kind, startLine: symbol.startLine, endLine: symbol.endLine, depth };
  if (detail !== "names") out.signature = clip(symbol.signature, LIMITS.intel.outline.maxSignatureChars);
  if (docs && symbol.doc !== undefined) out.doc = symbol.doc;
  if (detail === "full") {
    out.visibility = symbol.visibility;
    out.exported = symbol.exported;
    if (symbol.heritage && symbol.heritage.length > 0) out.heritage = symbol.heritage;
  }
  return out;
}

export function renderSymbol(symbol: OutlineSymbolOut, indent = "  "): string {
  const pad = indent + "  ".repeat(symbol.depth);
  const head = symbol.signature !== undefined && symbol.signature !== "" ? symbol.signature : `${symbol.kind} ${symbol.name}`;
  let line = `${pad}${lineRange(symbol)} ${head}`;
  if (symbol.signature !== undefined && !symbol.signature.includes(symbol.name)) line += `  [${symbol.kind} ${symbol.name}]`;
  if (symbol.visibility !== undefined) {
    const marks = [symbol.exported ? "exported" : symbol.visibility];
    if (symbol.heritage) marks.push(`: ${symbol.heritage.join(", ")}`);
    line += `  (${marks.join(" ")})`;
  }
  if (symbol.returnType !== undefined) line += `  → ${symbol.returnType}`;
  if (symbol.doc !== undefined) line += `  — ${symbol.doc}`;
  return line;
}

/** The files a list of path arguments names: files as given, directories expanded through the index. */
interface Collected {
  files: Array<{ file: IndexedFile; text?: string }>;
  failed: Array<{ path: string; error: ItemError }>;
  coverage: Coverage | undefined;
  /** Files left out by LIMITS.intel.outline.maxFiles. */
  overMaxFiles: number;
}

function globMatcher(glob: string | undefined): ((relative: string) => boolean) | undefined {
  if (glob === undefined) return undefined;
  return picomatch(glob, { dot: true, basename: !glob.includes("/") });
}

async function collectFiles(context: ToolContext, paths: readonly string[], glob: string | undefined): Promise<Collected> {
  const index = CodeIndex.forContext(context);
  const matches = globMatcher(glob);
  const collected: Collected = { files: [], failed: [], coverage: undefined, overMaxFiles: 0 };
  const seen = new Set<string>();
  const add = (file: IndexedFile) => {
    if (seen.has(file.real)) return;
    seen.add(file.real);
    if (collected.files.length >= LIMITS.intel.outline.maxFiles) collected.overMaxFiles += 1;
    else collected.files.push({ file });
  };
  for (const input of paths) {
    context.signal.throwIfAborted();
    let resolved: ResolvedPath;
    try {
      resolved = await context.workspace.resolve(input, "read");
      if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
      if (resolved.kind === "file") {
        add(await index.fileFor(resolved));
        continue;
      }
      if (resolved.kind !== "directory") throw new ToolError("not_a_file", `${resolved.display} is not a regular file or directory.`);
    } catch (error) {
      if (context.signal.aborted || !isItemFailure(error)) throw error;
      collected.failed.push({ path: input, error: toItemError(error, input) });
      continue;
    }
    collected.coverage ??= await index.ensureFresh(progressOf(context));
    const prefix = resolved.real.endsWith(path.sep) ? resolved.real : resolved.real + path.sep;
    const inside = (real: string) => real === resolved.real || real.startsWith(prefix);
    if (index.covers(resolved.real)) {
      for (const file of index.files()) {
        if (!inside(file.real)) continue;
        if (matches && !matches(path.relative(resolved.real, file.real).split(path.sep).join("/"))) continue;
        add(file);
      }
    } else {
      // A directory the walk leaves out (ignored, node_modules, …) was asked for by name: walk it here.
      await walkOutsideIndex(context, index, resolved, matches, add, collected);
    }
  }
  return collected;
}

function isItemFailure(error: unknown): boolean {
  return isToolError(error) || typeof (error as NodeJS.ErrnoException | undefined)?.code === "string";
}

async function walkOutsideIndex(
  context: ToolContext,
  index: CodeIndex,
  directory: ResolvedPath,
  matches: ((relative: string) => boolean) | undefined,
  add: (file: IndexedFile) => void,
  collected: Collected,
): Promise<void> {
  const queue = [directory.real];
  while (queue.length > 0 && collected.files.length < LIMITS.intel.outline.maxFiles) {
    context.signal.throwIfAborted();
    const current = queue.shift()!;
    let listing;
    try {
      listing = context.workspace.listDirectory(current);
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      continue;
    }
    for (const entry of listing.entries) {
      if (entry.kind === "directory") {
        if (!SKIPPED_DIRECTORY_NAMES.has(entry.name)) queue.push(entry.real);
        continue;
      }
      if (entry.kind !== "file") continue;
      const relative = path.relative(directory.real, entry.real).split(path.sep).join("/");
      if (matches && !matches(relative)) continue;
      if (index.languageFor(entry.relative) === undefined) continue;
      try {
        add(await index.fileFor(await context.workspace.resolve(entry.real, "read")));
      } catch (error) {
        if (context.signal.aborted || !isItemFailure(error)) throw error;
        collected.failed.push({ path: entry.display, error: toItemError(error, entry.display) });
      }
    }
  }
}

interface Budget {
  maxTokens: number;
  maxChars: number;
}

function budgetOf(maxTokens: number): Budget {
  return { maxTokens, maxChars: LIMITS.output.maxTextChars - RENDER_RESERVE_CHARS };
}

// ───────────────────────────── map ─────────────────────────────

const MapFile = z.object({
  path: z.string().describe("The file, as a path usable as input."),
  language: z.string(),
  lines: z.number().int().describe("Lines in the file."),
  sha256: z.string().describe("SHA-256 of the bytes the outline was read from."),
  parseErrors: z.number().int().describe("Syntax errors in the file (0 for a clean parse); symbols near them may be missing."),
  symbols: z.array(OutlineSymbol),
  symbolsTotal: z.number().int().describe("Symbols the outline has for this file at this privacy level."),
});
type MapFileOut = z.infer<typeof MapFile>;

function renderMapFileHeader(file: Pick<MapFileOut, "path" | "language" | "lines" | "parseErrors">): string {
  const errors = file.parseErrors > 0 ? ` · ${plural(file.parseErrors, "parse error")}` : "";
  return `${file.path} · ${file.language} · ${plural(file.lines, "line")}${errors}`;
}

const MapInput = z.strictObject({
  paths: z
    .array(PathInput)
    .min(1)
    .max(LIMITS.batchPaths)
    .describe("Files or directories (absolute or relative to the first root); directories cover the indexed files below them."),
  glob: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe("Only files under a given directory whose path relative to it matches, e.g. \"**/*.ts\" (a glob without \"/\" matches file names)."),
  detail: z
    .enum(DETAILS)
    .default("signatures")
    .describe("names: kind, name and lines; signatures (default): declarations without bodies; full: plus visibility, export and heritage."),
  private: z.boolean().default(false).describe("Also show private members and declarations local to function bodies."),
  docs: z.boolean().optional().describe("Show the first sentence of doc comments (default: true except with detail names)."),
  typed: z
    .boolean()
    .optional()
    .describe("TS/JS files: add the return types the TypeScript compiler infers (slower; the first call loads the compiler). Other languages ignore it."),
  maxTokens: MaxTokens(LIMITS.intel.outline.defaultMaxTokens),
});

export const mapTool = defineTool({
  name: "map",
  title: "Outline files",
  description:
    "The outline of files or directories: each declaration (classes, functions, methods, fields, types, constants, …) with its 1-based line range and signature, no bodies, plus each file's parse-error count. Use it before reading code; then read exact lines with file_read or bodies with show. The answer fits maxTokens and says what was cut and how to get the rest.",
  input: MapInput,
  output: z.object({
    files: z.array(MapFile).describe("Outlined files, in path order; the last one may show only some of its symbols (see symbolsTotal)."),
    failed: z.array(FailedPath).describe("Paths that could not be outlined, with why."),
    omittedFiles: z.array(z.string()).describe(`Files left out by the budget (first ${LIMITS.batchPaths}), to pass as paths in a follow-up call.`),
    omittedCount: z.number().int().describe("How many files were left out in all."),
    cut: Cut,
    coverage: CoverageOut,
    typedNotes: z.array(z.string()).optional().describe("With typed: files without types, or what the compiler's project reported."),
  }),
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const detail = args.detail;
    const docs = args.docs ?? detail !== "names";
    const collected = await collectFiles(context, args.paths, args.glob);
    const budget = budgetOf(args.maxTokens);
    const files: MapFileOut[] = [];
    const omitted: string[] = [];
    let tokens = 0;
    let chars = 0;
    let limitedBy: "maxTokens" | "outputLimit" | "maxFiles" | null = null;
    let neededTokens = 0;
    const sorted = [...collected.files].sort((a, b) => compareDisplay(a.file.display, b.file.display));
    const typedNotes: string[] = [];
    for (const { file } of sorted) {
      const symbols = visibleSymbols(file.facts.symbols, args.private).map(({ symbol, depth }) => symbolOut(symbol, depth, detail, docs));
      if (args.typed === true && limitedBy === null) {
        const typed = await typedSymbolsFor(context.workspace, file.real, symbols, { signal: context.signal });
        for (const [symbol, types] of typed.matches) symbol.returnType = types.returnType;
        if (typed.note !== undefined) typedNotes.push(typed.note);
      }
      const entry: MapFileOut = { path: file.display, language: file.language, lines: file.lines, sha256: file.sha256, parseErrors: file.facts.parseErrors, symbols: [], symbolsTotal: symbols.length };
      const header = renderMapFileHeader(entry);
      const lines = symbols.map((symbol) => renderSymbol(symbol));
      const fileTokens = estimateTokens(header) + 1 + lines.reduce((sum, line) => sum + estimateTokens(line) + 1, 0);
      const fileChars = header.length + 1 + lines.reduce((sum, line) => sum + line.length + 1, 0);
      neededTokens += fileTokens;
      if (limitedBy !== null) {
        omitted.push(file.display);
        continue;
      }
      if (tokens + fileTokens <= budget.maxTokens && chars + fileChars <= budget.maxChars) {
        entry.symbols = symbols;
        files.push(entry);
        tokens += fileTokens;
        chars += fileChars;
        continue;
      }
      limitedBy = tokens + fileTokens > budget.maxTokens ? "maxTokens" : "outputLimit";
      // The first file that does not fit shows the symbols that do, so a large file still gets an answer.
      if (files.length === 0) {
        tokens += estimateTokens(header) + 1;
        chars += header.length + 1;
        for (const [position, line] of lines.entries()) {
          const cost = estimateTokens(line) + 1;
          if (tokens + cost > budget.maxTokens || chars + line.length + 1 > budget.maxChars) break;
          tokens += cost;
          chars += line.length + 1;
          entry.symbols.push(symbols[position]!);
        }
        files.push(entry);
      } else {
        omitted.push(file.display);
      }
    }
    if (limitedBy === null && collected.overMaxFiles > 0) limitedBy = "maxFiles";
    const partial = files.find((file) => file.symbols.length < file.symbolsTotal);
    const truncated = limitedBy !== null;
    let next: string | null = null;
    if (truncated) {
      const hints: string[] = [];
      if (partial) hints.push(`call show with symbol names from ${partial.path}, or map it alone with detail "names"`);
      if (omitted.length > 0) hints.push(`call map with paths ${JSON.stringify(omitted.slice(0, 5))}${omitted.length > 5 ? " …" : ""}`);
      if (limitedBy === "maxTokens" && neededTokens <= LIMITS.intel.outline.maxTokensCeiling) hints.push(`or raise maxTokens to about ${roundUp(neededTokens)}`);
      if (detail !== "names") hints.push('or use detail "names"');
      if (limitedBy === "maxFiles") hints.push(`narrow paths or glob (at most ${LIMITS.intel.outline.maxFiles} files per call)`);
      next = hints.join("; ");
    }
    const extraLimits = limitedBy === "maxTokens" ? [`maxTokens = ${args.maxTokens}`] : limitedBy === "outputLimit" ? [`output limit = ${LIMITS.output.maxTextChars} characters`] : limitedBy === "maxFiles" ? [`outline.maxFiles = ${LIMITS.intel.outline.maxFiles}`] : [];
    return {
      files,
      failed: collected.failed,
      omittedFiles: omitted.slice(0, LIMITS.batchPaths),
      omittedCount: omitted.length + collected.overMaxFiles,
      cut: { truncated, limitedBy, next, tokens },
      coverage: coverageOut(collected.coverage, extraLimits),
      ...(typedNotes.length > 0 ? { typedNotes } : {}),
    };
  },
  render: (result) => {
    const out: string[] = [];
    for (const file of result.files) {
      out.push(renderMapFileHeader(file));
      for (const symbol of file.symbols) out.push(renderSymbol(symbol));
      if (file.symbols.length < file.symbolsTotal) out.push(`  … ${file.symbolsTotal - file.symbols.length} more symbols not shown`);
    }
    if (result.files.length === 0 && result.failed.length === 0) out.push("No outlinable files matched (files need a language with a syntax tree parser; ignored folders are left out).");
    for (const failed of result.failed) out.push(renderItemError(failed.path, failed.error));
    for (const note of result.typedNotes ?? []) out.push(`[typed: ${note}]`);
    out.push(...footer(result.cut, result.coverage, result.omittedCount));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function footer(cut: z.infer<typeof Cut>, coverage: z.infer<typeof CoverageOut>, omittedCount = 0): string[] {
  const out: string[] = [];
  if (cut.truncated) {
    const what = omittedCount > 0 ? `${plural(omittedCount, "more file")} not shown` : "cut";
    out.push(`[${what} (${cut.limitedBy ?? "budget"}); ${cut.next ?? ""}]`);
  }
  if (!coverage.complete) out.push(`[incomplete: ${coverage.limits.join(", ")}]`);
  return out;
}

function roundUp(tokens: number): number {
  return Math.min(LIMITS.intel.outline.maxTokensCeiling, Math.ceil((tokens * 1.1) / 500) * 500);
}

function compareDisplay(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// ───────────────────────────── digest ─────────────────────────────

const CONTAINER_KINDS = new Set(["class", "interface", "struct", "trait", "enum", "union", "module", "namespace"]);

const DigestFile = z.object({
  path: z.string(),
  language: z.string(),
  lines: z.number().int(),
  parseErrors: z.number().int(),
  types: z
    .array(z.object({ name: z.string(), kind: z.string(), line: z.number().int(), members: z.array(z.string()).describe("Public member names."), moreMembers: z.number().int() }))
    .describe("Public types with their public members."),
  functions: z.array(z.string()).describe("Public top-level functions."),
  values: z.array(z.string()).describe("Public top-level constants, variables and type aliases."),
  reexports: z.array(z.string()).describe("Names re-exported from other modules (\"*\" for everything of one)."),
});
type DigestFileOut = z.infer<typeof DigestFile>;

const DigestDirectory = z.object({
  path: z.string(),
  files: z.array(DigestFile),
  languages: z.record(z.string(), z.number().int()).describe("Files per language in this directory."),
});

/** Member names listed per type before "+N". */
const DIGEST_MEMBERS = 12;

function digestFile(file: IndexedFile): DigestFileOut {
  const isPublic = (symbol: SymbolFact) => symbol.local !== true && symbol.visibility !== "private" && (symbol.exported || symbol.visibility === "public");
  const top = file.facts.symbols.filter((symbol) => symbol.parent === undefined && isPublic(symbol));
  const out: DigestFileOut = { path: file.display, language: file.language, lines: file.lines, parseErrors: file.facts.parseErrors, types: [], functions: [], values: [], reexports: [] };
  const declared = new Set(top.map((symbol) => symbol.name));
  for (const exported of file.facts.exportedNames) {
    const label = exported.name === "*" && exported.from !== undefined ? `* from ${exported.from}` : exported.name;
    if (!declared.has(exported.name) && !out.reexports.includes(label)) out.reexports.push(label);
  }
  for (const symbol of top) {
    if (CONTAINER_KINDS.has(symbol.kind)) {
      const members = file.facts.symbols.filter((member) => member.parent === symbol.qualifiedName && isPublic(member) && member.visibility !== "protected").map((member) => member.name);
      out.types.push({ name: symbol.name, kind: symbol.kind, line: symbol.startLine, members: members.slice(0, DIGEST_MEMBERS), moreMembers: Math.max(0, members.length - DIGEST_MEMBERS) });
    } else if (symbol.kind === "function" || symbol.kind === "macro") {
      out.functions.push(symbol.name);
    } else if (symbol.kind !== "heading" && symbol.kind !== "key") {
      out.values.push(symbol.name);
    }
  }
  return out;
}

function renderDigestFile(file: DigestFileOut, directory: string): string {
  const name = directory === "." || directory === "" ? file.path : file.path.startsWith(`${directory}/`) ? file.path.slice(directory.length + 1) : file.path;
  const parts: string[] = [];
  for (const type of file.types) {
    const members = type.members.length > 0 ? ` { ${type.members.join(", ")}${type.moreMembers > 0 ? `, +${type.moreMembers}` : ""} }` : "";
    parts.push(`${type.kind} ${type.name}${members}`);
  }
  if (file.functions.length > 0) parts.push(`fn ${file.functions.join(", ")}`);
  if (file.values.length > 0) parts.push(`${file.values.join(", ")}`);
  if (file.reexports.length > 0) parts.push(`re-exports ${file.reexports.join(", ")}`);
  const errors = file.parseErrors > 0 ? ` (${plural(file.parseErrors, "parse error")})` : "";
  return `  ${name}${errors}: ${parts.length > 0 ? parts.join(" · ") : "—"}`;
}

export const digestTool = defineTool({
  name: "digest",
  title: "Digest a directory",
  description:
    "A one-page map of an unfamiliar directory: its files grouped by folder, each with its public types (and their public members), functions and constants. Use it first in code you do not know; then map for signatures and show for bodies.",
  input: z.strictObject({
    paths: z.array(PathInput).min(1).max(LIMITS.batchPaths).describe("Directories (or files) to digest, absolute or relative to the first root."),
    glob: z.string().min(1).max(1000).optional().describe("Only files whose path relative to a given directory matches, e.g. \"**/*.py\"."),
    maxTokens: MaxTokens(LIMITS.intel.outline.digestMaxTokens),
  }),
  output: z.object({
    directories: z.array(DigestDirectory),
    summary: z.object({ files: z.number().int(), languages: z.record(z.string(), z.number().int()), lines: z.number().int() }).describe("Totals over every matched file (also those cut)."),
    failed: z.array(FailedPath),
    omittedFiles: z.array(z.string()).describe("Files left out by the budget (first 50)."),
    omittedCount: z.number().int(),
    cut: Cut,
    coverage: CoverageOut,
  }),
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const collected = await collectFiles(context, args.paths, args.glob);
    const budget = budgetOf(args.maxTokens);
    // Grouped by folder: a folder's files come together, before its subfolders.
    const sorted = [...collected.files].sort(
      (a, b) => compareDisplay(path.posix.dirname(a.file.display), path.posix.dirname(b.file.display)) || compareDisplay(a.file.display, b.file.display),
    );
    const summary = { files: sorted.length, languages: {} as Record<string, number>, lines: 0 };
    for (const { file } of sorted) {
      summary.languages[file.language] = (summary.languages[file.language] ?? 0) + 1;
      summary.lines += file.lines;
    }
    const directories: Array<z.infer<typeof DigestDirectory>> = [];
    const omitted: string[] = [];
    let tokens = estimateTokens(renderDigestSummary(summary));
    let chars = 0;
    let limitedBy: "maxTokens" | "outputLimit" | "maxFiles" | null = null;
    for (const { file } of sorted) {
      if (limitedBy !== null) {
        omitted.push(file.display);
        continue;
      }
      const directory = path.posix.dirname(file.display);
      let group = directories.at(-1);
      const newGroup = group?.path !== directory;
      const digest = digestFile(file);
      const line = renderDigestFile(digest, directory);
      const cost = estimateTokens(line) + 1 + (newGroup ? estimateTokens(directory) + 8 : 0);
      if (tokens + cost > budget.maxTokens || chars + line.length > budget.maxChars) {
        limitedBy = tokens + cost > budget.maxTokens ? "maxTokens" : "outputLimit";
        omitted.push(file.display);
        continue;
      }
      tokens += cost;
      chars += line.length + 1;
      if (newGroup || !group) {
        group = { path: directory, files: [], languages: {} };
        directories.push(group);
      }
      group.files.push(digest);
      group.languages[file.language] = (group.languages[file.language] ?? 0) + 1;
    }
    if (limitedBy === null && collected.overMaxFiles > 0) limitedBy = "maxFiles";
    const truncated = limitedBy !== null;
    const next = truncated
      ? omitted.length > 0
        ? `call digest with paths naming the folders not shown (first: ${JSON.stringify(path.posix.dirname(omitted[0]!))}), or raise maxTokens`
        : "narrow paths or glob"
      : null;
    const extraLimits = limitedBy === "maxTokens" ? [`maxTokens = ${args.maxTokens}`] : limitedBy === "outputLimit" ? [`output limit = ${LIMITS.output.maxTextChars} characters`] : limitedBy === "maxFiles" ? [`outline.maxFiles = ${LIMITS.intel.outline.maxFiles}`] : [];
    return {
      directories,
      summary,
      failed: collected.failed,
      omittedFiles: omitted.slice(0, LIMITS.batchPaths),
      omittedCount: omitted.length + collected.overMaxFiles,
      cut: { truncated, limitedBy, next, tokens },
      coverage: coverageOut(collected.coverage, extraLimits),
    };
  },
  render: (result) => {
    const out: string[] = [renderDigestSummary(result.summary)];
    for (const directory of result.directories) {
      const languages = Object.entries(directory.languages).map(([language, count]) => `${language} ${count}`).join(", ");
      out.push(`${directory.path === "." ? "./" : `${directory.path}/`} (${plural(directory.files.length, "file")}: ${languages})`);
      for (const file of directory.files) out.push(renderDigestFile(file, directory.path));
    }
    for (const failed of result.failed) out.push(renderItemError(failed.path, failed.error));
    out.push(...footer(result.cut, result.coverage, result.omittedCount));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderDigestSummary(summary: { files: number; languages: Record<string, number>; lines: number }): string {
  const languages = Object.entries(summary.languages)
    .sort((a, b) => b[1] - a[1])
    .map(([language, count]) => `${language} ${count}`)
    .join(", ");
  return `${plural(summary.files, "file")}, ${plural(summary.lines, "line")}${languages ? ` (${languages})` : ""}`;
}

// ───────────────────────────── show ─────────────────────────────

const ShownSymbol = z.object({
  qualifiedName: z.string(),
  kind: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  source: z.string().describe("The symbol's source lines, joined with \"\\n\"."),
  shownEndLine: z.number().int().describe("Last line included in source (below endLine when the budget cut the body)."),
  returnType: z.string().optional().describe("With typed: the return type the TypeScript compiler infers."),
  typedSignature: z.string().optional().describe("With typed: the signature as the compiler sees it, inferred parameter and return types included."),
});

const Candidate = z.object({ qualifiedName: z.string(), kind: z.string(), startLine: z.number().int(), endLine: z.number().int() });

export const ShowResult = z.object({
  query: z.string(),
  status: z.enum(["found", "ambiguous", "not_found", "omitted"]).describe("found: source below; ambiguous: several symbols match, see candidates; not_found: see suggestions; omitted: the budget ran out before it."),
  symbols: z.array(ShownSymbol).describe("For found: the matching symbol (several for overloads of one name)."),
  candidates: z.array(Candidate).optional().describe("For ambiguous: every match, to ask again by qualifiedName."),
  suggestions: z.array(z.string()).optional().describe("For not_found: similar symbol names in the file."),
});
type ShowResultOut = z.infer<typeof ShowResult>;

function normalizeQuery(query: string): string {
  return query.trim().replace(/::|#/g, ".");
}

/** Symbols a query names: the exact qualified name, else a dotted suffix ("Class.method"), else the same case-insensitively. */
export function matchSymbols(symbols: readonly SymbolFact[], query: string): SymbolFact[] {
  const wanted = normalizeQuery(query);
  const attempts: Array<(symbol: SymbolFact) => boolean> = [
    (symbol) => symbol.qualifiedName === wanted,
    (symbol) => symbol.qualifiedName.endsWith(`.${wanted}`),
    (symbol) => symbol.qualifiedName.toLowerCase() === wanted.toLowerCase(),
    (symbol) => symbol.qualifiedName.toLowerCase().endsWith(`.${wanted.toLowerCase()}`),
  ];
  for (const attempt of attempts) {
    const found = symbols.filter(attempt);
    if (found.length > 0) return found;
  }
  return [];
}

function suggestionsFor(symbols: readonly SymbolFact[], query: string): string[] {
  const wanted = normalizeQuery(query).toLowerCase();
  const last = wanted.split(".").at(-1) ?? wanted;
  const scored: Array<[number, string]> = [];
  for (const symbol of symbols) {
    const name = symbol.name.toLowerCase();
    const score = name.includes(last) || last.includes(name) ? 0 : editDistance(name, last) <= 2 ? 1 : -1;
    if (score >= 0) scored.push([score, symbol.qualifiedName]);
  }
  return [...new Set(scored.sort((a, b) => a[0] - b[0]).map(([, name]) => name))].slice(0, 10);
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = current;
  }
  return previous[b.length]!;
}

/** Finds and cuts symbol sources to a budget; shared by show and file_read mode "ast". */
export function showSymbols(file: IndexedFile, text: string, queries: readonly string[], maxTokens: number): { results: ShowResultOut[]; tokens: number; truncated: boolean } {
  const lines = splitLines(text);
  const budget = budgetOf(maxTokens);
  let tokens = 0;
  let chars = 0;
  let truncated = false;
  const results: ShowResultOut[] = [];
  for (const query of queries) {
    const matched = matchSymbols(file.facts.symbols, query);
    const distinct = new Set(matched.map((symbol) => symbol.qualifiedName));
    if (matched.length === 0) {
      results.push({ query, status: "not_found", symbols: [], suggestions: suggestionsFor(file.facts.symbols, query) });
      continue;
    }
    if (distinct.size > 1) {
      results.push({ query, status: "ambiguous", symbols: [], candidates: matched.map((symbol) => ({ qualifiedName: symbol.qualifiedName, kind: symbol.kind, startLine: symbol.startLine, endLine: symbol.endLine })) });
      tokens += matched.length * 12;
      continue;
    }
    const result: ShowResultOut = { query, status: "found", symbols: [] };
    for (const symbol of matched) {
      const remainingTokens = budget.maxTokens - tokens;
      const remainingChars = budget.maxChars - chars;
      if (remainingTokens < 20 || remainingChars < 80) {
        truncated = true;
        break;
      }
      const source = lines.slice(symbol.startLine - 1, symbol.endLine).join("\n");
      const cut = cutToTokens(source, remainingTokens);
      let shown = cut.text;
      if (shown.length > remainingChars) shown = shown.slice(0, remainingChars);
      const shownLines = shown === "" ? 0 : shown.split("\n").length;
      if (cut.truncated || shown.length < cut.text.length) truncated = true;
      tokens += estimateTokens(shown) + 10;
      chars += shown.length + 80;
      result.symbols.push({
        qualifiedName: symbol.qualifiedName,
        kind: symbol.kind,
        startLine: symbol.startLine,
        endLine: symbol.endLine,
        source: shown,
        shownEndLine: Math.min(symbol.endLine, symbol.startLine + Math.max(0, shownLines - 1)),
      });
    }
    if (result.symbols.length === 0) result.status = "omitted";
    results.push(result);
  }
  return { results, tokens, truncated };
}

export function renderShowResult(result: ShowResultOut): string[] {
  const out: string[] = [];
  if (result.status === "not_found") {
    out.push(`${result.query}: not found${result.suggestions && result.suggestions.length > 0 ? `; similar: ${result.suggestions.join(", ")}` : ""}`);
    return out;
  }
  if (result.status === "ambiguous") {
    out.push(`${result.query}: ambiguous, ${plural(result.candidates?.length ?? 0, "candidate")} (ask again by qualified name):`);
    for (const candidate of result.candidates ?? []) out.push(`  ${candidate.qualifiedName} (${candidate.kind}) ${lineRange(candidate)}`);
    return out;
  }
  if (result.status === "omitted") {
    out.push(`${result.query}: not shown (budget used up; ask for it alone)`);
    return out;
  }
  for (const symbol of result.symbols) {
    out.push(`${symbol.qualifiedName} (${symbol.kind}) ${lineRange(symbol)}${symbol.typedSignature !== undefined ? `  : ${symbol.typedSignature}` : ""}`);
    const width = String(symbol.shownEndLine).length;
    symbol.source.split("\n").forEach((line, offset) => out.push(`${String(symbol.startLine + offset).padStart(width)}| ${line}`));
    if (symbol.shownEndLine < symbol.endLine) out.push(`[lines ${symbol.shownEndLine + 1}-${symbol.endLine} not shown: file_read with startLine ${symbol.shownEndLine + 1}, or raise maxTokens]`);
  }
  return out;
}

export const showTool = defineTool({
  name: "show",
  title: "Show symbols",
  description:
    "The source of named symbols in one file. Names match exactly, or by qualified suffix (\"Class.method\", \"method\"); when a name matches several symbols, every candidate is listed with its line range so you can ask again precisely. Cheaper than reading the file.",
  input: z.strictObject({
    path: PathInput.describe("The file, absolute or relative to the first root."),
    symbols: z.array(z.string().min(1).max(500)).min(1).max(LIMITS.intel.outline.maxSymbols).describe("Symbol names: plain (\"save\"), qualified (\"UserService.save\") or a qualified suffix."),
    typed: z
      .boolean()
      .optional()
      .describe("TS/JS files: add the compiler's inferred return type and signature to each symbol (slower; the first call loads the compiler)."),
    maxTokens: MaxTokens(LIMITS.intel.outline.defaultShowTokens),
  }),
  output: z.object({
    path: z.string(),
    language: z.string(),
    sha256: z.string().describe("SHA-256 of the bytes shown (use as expectedSha256 for a write)."),
    lines: z.number().int(),
    results: z.array(ShowResult).describe("One per requested name, in order."),
    cut: Cut,
    typedNote: z.string().optional().describe("With typed: why types are missing, or what the compiler's project reported."),
  }),
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const resolved = await context.workspace.resolve(args.path, "read");
    const { file, text } = await CodeIndex.forContext(context).load(resolved);
    const shown = showSymbols(file, text, args.symbols, args.maxTokens);
    let typedNote: string | undefined;
    if (args.typed === true) {
      const typed = await typedSymbolsFor(context.workspace, file.real, shown.results.flatMap((entry) => entry.symbols), { signal: context.signal });
      for (const [symbol, types] of typed.matches) Object.assign(symbol, { returnType: types.returnType, typedSignature: types.signature });
      typedNote = typed.note;
    }
    return {
      path: file.display,
      language: file.language,
      sha256: file.sha256,
      lines: file.lines,
      results: shown.results,
      cut: {
        truncated: shown.truncated,
        limitedBy: shown.truncated ? ("maxTokens" as const) : null,
        next: shown.truncated ? "raise maxTokens, ask for fewer symbols, or read the remaining lines with file_read" : null,
        tokens: shown.tokens,
      },
      ...(typedNote !== undefined ? { typedNote } : {}),
    };
  },
  render: (result) => {
    const out = [`${result.path} · ${result.language} · sha256 ${result.sha256}`];
    for (const entry of result.results) out.push(...renderShowResult(entry));
    if (result.typedNote !== undefined) out.push(`[typed: ${result.typedNote}]`);
    if (result.cut.truncated) out.push(`[cut (${result.cut.limitedBy}); ${result.cut.next}]`);
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

// ───────────────────────────── surface ─────────────────────────────

const SurfaceEntry = z.object({
  name: z.string().describe("The name importers use."),
  kind: z.string(),
  signature: z.string(),
  path: z.string().describe("The file that declares it."),
  startLine: z.number().int(),
  endLine: z.number().int(),
  qualifiedName: z.string().describe("Its qualified name in the declaring file (for show)."),
  via: z.array(z.string()).optional().describe("Files it is re-exported through, outermost first, when it is not declared in the file asked about."),
  doc: z.string().optional(),
  members: z
    .array(z.object({ name: z.string(), kind: z.string(), signature: z.string(), startLine: z.number().int(), endLine: z.number().int() }))
    .optional()
    .describe("Public members of an exported type."),
});
type SurfaceEntryOut = z.infer<typeof SurfaceEntry>;

const SurfaceProblem = z.object({
  name: z.string(),
  from: z.string().optional().describe("The module specifier it was re-exported from."),
  file: z.string().describe("The file with the re-export."),
  reason: z.string().describe("Why it could not be followed (unresolved module, external package, name not found, cycle, depth limit)."),
});

/** Index files that stand for their directory. */
const PACKAGE_ENTRY_FILES = ["index.ts", "index.tsx", "index.mts", "index.js", "index.jsx", "index.mjs", "__init__.py", "mod.rs", "lib.rs"];

interface SurfaceState {
  graph: ImportGraph;
  index: CodeIndex;
  problems: Array<z.infer<typeof SurfaceProblem>>;
  cache: Map<string, SurfaceEntryOut[]>;
}

function isPublicMember(symbol: SymbolFact): boolean {
  return symbol.local !== true && symbol.visibility !== "private" && symbol.visibility !== "protected" && symbol.visibility !== "file" && (symbol.exported || symbol.visibility === "public");
}

function declaredSurface(file: IndexedFile): SurfaceEntryOut[] {
  const entries: SurfaceEntryOut[] = [];
  for (const symbol of file.facts.symbols) {
    if (symbol.parent !== undefined || symbol.local === true || !symbol.exported) continue;
    entries.push(entryFor(file, symbol, symbol.name));
  }
  return entries;
}

function entryFor(file: IndexedFile, symbol: SymbolFact, name: string): SurfaceEntryOut {
  const entry: SurfaceEntryOut = {
    name,
    kind: symbol.kind,
    signature: clip(symbol.signature, LIMITS.intel.outline.maxSignatureChars),
    path: file.display,
    startLine: symbol.startLine,
    endLine: symbol.endLine,
    qualifiedName: symbol.qualifiedName,
  };
  if (symbol.doc !== undefined) entry.doc = symbol.doc;
  if (CONTAINER_KINDS.has(symbol.kind)) {
    const members = file.facts.symbols.filter((member) => member.parent === symbol.qualifiedName && isPublicMember(member));
    if (members.length > 0) {
      entry.members = members.map((member) => ({ name: member.name, kind: member.kind, signature: clip(member.signature, LIMITS.intel.outline.maxSignatureChars), startLine: member.startLine, endLine: member.endLine }));
    }
  }
  return entry;
}

/**
 * Where an exported name comes from: its own `from` and the import statement that brought the name
 * in (languages write the module differently in the two: Rust's `pub use a::b::C` names module
 * `a::b` but imports `a::b::C`), in that order. Empty for a name declared in this file.
 */
function sourcesOf(file: IndexedFile, exported: { name: string; from?: string; local?: string; line: number }): Array<{ specifier: string; imported: string }> {
  const local = exported.local ?? exported.name;
  const sources: Array<{ specifier: string; imported: string }> = [];
  if (exported.from !== undefined) sources.push({ specifier: exported.from, imported: local });
  const imports = [...file.facts.imports].sort((a, b) => Number(b.line === exported.line) - Number(a.line === exported.line));
  for (const fact of imports) {
    const binding = fact.names.find((candidate) => candidate.local === (exported.from !== undefined ? exported.name : local));
    if (binding && (exported.from === undefined || fact.line === exported.line)) {
      sources.push({ specifier: fact.specifier, imported: exported.from !== undefined ? local : binding.imported });
      break;
    }
  }
  return sources;
}

const IDENTIFIER_TEXT = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

async function surfaceOf(file: IndexedFile, state: SurfaceState, stack: string[]): Promise<SurfaceEntryOut[]> {
  const cached = state.cache.get(file.real);
  if (cached) return cached;
  const entries = new Map<string, SurfaceEntryOut>();
  for (const entry of declaredSurface(file)) if (!entries.has(entry.name)) entries.set(entry.name, entry);
  const stars: SurfaceEntryOut[][] = [];
  for (const exported of file.facts.exportedNames) {
    const sources = sourcesOf(file, exported);
    if (sources.length === 0) {
      // Exported under another name, or listed (`__all__`) without an import: a declaration of this file.
      const local = exported.local ?? exported.name;
      const symbol = file.facts.symbols.find((candidate) => candidate.parent === undefined && candidate.name === local);
      if (entries.has(exported.name)) continue;
      if (symbol) {
        entries.set(exported.name, entryFor(file, symbol, exported.name));
      } else if (!IDENTIFIER_TEXT.test(local)) {
        // `export default <expression>`: the value itself is the export.
        entries.set(exported.name, { name: exported.name, kind: "value", signature: clip(`${exported.name} = ${local}`, LIMITS.intel.outline.maxSignatureChars), path: file.display, startLine: exported.line, endLine: exported.line, qualifiedName: exported.name });
      } else {
        state.problems.push({ name: exported.name, file: file.display, reason: `no declaration or import named ${JSON.stringify(local)} in this file` });
      }
      continue;
    }
    const dependencies = state.graph.dependenciesOf(file.real);
    const source = sources.find((candidate) => dependencies.some((edge) => edge.specifier === candidate.specifier)) ?? sources[0]!;
    const problem = (reason: string) => state.problems.push({ name: exported.name, from: source.specifier, file: file.display, reason });
    const edges = dependencies.filter((edge) => edge.specifier === source.specifier);
    if (edges.length === 0) {
      const unresolved = state.graph.unresolvedOf(file.real).find((entry) => entry.specifier === source.specifier);
      const external = state.graph.externalsOf(file.real).some((use) => source.specifier === use.package || source.specifier.startsWith(`${use.package}/`));
      problem(unresolved ? `unresolved module (${unresolved.reason}: ${unresolved.detail})` : external ? "an external package (not followed)" : "module not resolved");
      continue;
    }
    const target = state.index.get(edges[0]!.to);
    if (!target) {
      problem("the module's file is not indexed");
      continue;
    }
    if (stack.includes(target.real)) {
      problem(`re-export cycle through ${target.display}`);
      continue;
    }
    if (stack.length >= LIMITS.intel.outline.maxReexportDepth) {
      problem(`more than ${LIMITS.intel.outline.maxReexportDepth} re-export hops`);
      continue;
    }
    const targetSurface = await surfaceOf(target, state, [...stack, target.real]);
    const via = (entry: SurfaceEntryOut): SurfaceEntryOut => ({ ...entry, via: [target.display, ...(entry.via ?? [])] });
    if (exported.name === "*" && (exported.local === undefined || exported.local === "*")) {
      // `export * from`: every name but default; explicit exports of this file win.
      stars.push(targetSurface.filter((entry) => entry.name !== "default").map(via));
      continue;
    }
    if (source.imported === "*") {
      // `export * as ns from` (or an exported namespace import): one namespace entry.
      if (!entries.has(exported.name)) {
        entries.set(exported.name, {
          name: exported.name,
          kind: "namespace",
          signature: `namespace ${exported.name} (${plural(targetSurface.length, "export")} of ${target.display})`,
          path: target.display,
          startLine: 1,
          endLine: target.lines,
          qualifiedName: exported.name,
          via: [target.display],
          members: targetSurface.map((entry) => ({ name: entry.name, kind: entry.kind, signature: entry.signature, startLine: entry.startLine, endLine: entry.endLine })),
        });
      }
      continue;
    }
    const found = targetSurface.find((entry) => entry.name === source.imported);
    if (!found) {
      problem(`${target.display} exports no ${JSON.stringify(source.imported)}`);
      continue;
    }
    if (!entries.has(exported.name)) entries.set(exported.name, { ...via(found), name: exported.name });
  }
  for (const list of stars) for (const entry of list) if (!entries.has(entry.name)) entries.set(entry.name, entry);
  const result = [...entries.values()];
  state.cache.set(file.real, result);
  return result;
}

export const surfaceTool = defineTool({
  name: "surface",
  title: "Public API",
  description:
    "The public API of a module or package after re-exports: exported declarations with signatures and line ranges, and names re-exported from other modules followed to where they are declared (TS/JS `export … from`, Python `__all__` and package imports, Rust `pub use`, Go capitalised names, Java/Kotlin public types). A directory means its index/__init__/mod/lib file, or every file in it (Go and Java packages).",
  input: z.strictObject({
    path: PathInput.describe("A file or a package directory, absolute or relative to the first root."),
    maxTokens: MaxTokens(LIMITS.intel.outline.defaultMaxTokens),
  }),
  output: z.object({
    path: z.string(),
    files: z.array(z.string()).describe("The files whose surface this is."),
    entries: z.array(SurfaceEntry).describe("Public names, in file order (re-exported names after declared ones)."),
    entriesTotal: z.number().int(),
    problems: z.array(SurfaceProblem).describe("Re-exports that could not be followed."),
    cut: Cut,
    coverage: CoverageOut,
  }),
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const resolved = await context.workspace.resolve(args.path, "read");
    if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
    const index = CodeIndex.forContext(context);
    const coverage = await index.ensureFresh(progressOf(context));
    const graph = await ImportGraph.for(index, context.workspace, { signal: context.signal, readHead: (file) => index.text(file as IndexedFile).catch(() => undefined) });
    let files: IndexedFile[];
    if (resolved.kind === "directory") {
      const entryFile = PACKAGE_ENTRY_FILES.map((name) => index.get(path.join(resolved.real, name))).find((file) => file !== undefined);
      files = entryFile ? [entryFile] : index.files().filter((file) => path.dirname(file.real) === resolved.real);
      if (files.length === 0) {
        throw new ToolError("file_not_found", `${resolved.display} holds no indexed source files.`, { hint: "Pass a source file, or a directory the index covers (see index with stats)." });
      }
    } else if (resolved.kind === "file") {
      files = [index.get(resolved.real) ?? (await index.fileFor(resolved))];
    } else {
      throw new ToolError("not_a_file", `${resolved.display} is not a file or directory.`);
    }
    const state: SurfaceState = { graph, index, problems: [], cache: new Map() };
    const all: SurfaceEntryOut[] = [];
    for (const file of files) all.push(...(await surfaceOf(file, state, [file.real])));
    const budget = budgetOf(args.maxTokens);
    let tokens = 0;
    let chars = 0;
    const entries: SurfaceEntryOut[] = [];
    for (const entry of all) {
      const text = renderSurfaceEntry(entry);
      const cost = estimateTokens(text) + 1;
      if (tokens + cost > budget.maxTokens || chars + text.length > budget.maxChars) break;
      tokens += cost;
      chars += text.length + 1;
      entries.push(entry);
    }
    const truncated = entries.length < all.length;
    return {
      path: resolved.display,
      files: files.map((file) => file.display),
      entries,
      entriesTotal: all.length,
      problems: state.problems,
      cut: {
        truncated,
        limitedBy: truncated ? ("maxTokens" as const) : null,
        next: truncated ? `raise maxTokens (about ${roundUp(all.reduce((sum, entry) => sum + estimateTokens(renderSurfaceEntry(entry)) + 1, 0))}), or show the names you need` : null,
        tokens,
      },
      coverage: coverageOut(coverage, truncated ? [`maxTokens = ${args.maxTokens}`] : []),
    };
  },
  render: (result) => {
    const out = [`${result.path}: ${plural(result.entriesTotal, "public name")}${result.files.length > 1 ? ` across ${plural(result.files.length, "file")}` : ""}`];
    for (const entry of result.entries) out.push(renderSurfaceEntry(entry));
    if (result.entries.length < result.entriesTotal) out.push(`… ${result.entriesTotal - result.entries.length} more not shown`);
    for (const problem of result.problems) out.push(`! ${problem.name}${problem.from ? ` from ${JSON.stringify(problem.from)}` : ""} (${problem.file}): ${problem.reason}`);
    out.push(...footer(result.cut, result.coverage));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderSurfaceEntry(entry: SurfaceEntryOut): string {
  const renamed = entry.qualifiedName !== entry.name && entry.kind !== "namespace" ? ` (as ${entry.name})` : "";
  const where = entry.via && entry.via.length > 0 ? ` ← ${entry.path}` : "";
  const lines = [`  ${lineRange(entry)} ${entry.signature || `${entry.kind} ${entry.name}`}${renamed}${where}${entry.doc ? `  — ${entry.doc}` : ""}`];
  for (const member of entry.members ?? []) lines.push(`    ${lineRange(member)} ${member.signature || `${member.kind} ${member.name}`}`);
  return lines.join("\n");
}

// ───────────────────────────── index ─────────────────────────────

const IndexOutput = z.object({
  scope: z.string().describe("The path reported on (\".\" for everything)."),
  files: z.number().int().describe("Indexed files in scope."),
  bytes: z.number().int(),
  lines: z.number().int(),
  complete: z.boolean(),
  limits: z.array(z.string()),
  skipped: z
    .object({
      tooLarge: z.number().int(),
      ignored: z.number().int(),
      denied: z.number().int(),
      unsupported: z.number().int(),
      overLimit: z.number().int(),
      minified: z.number().int(),
      unreadable: z.number().int(),
      tooDeep: z.number().int().describe("Directories deeper than the index walks; limits names the depth."),
    })
    .describe("Across the whole index (ignored and denied directories count once)."),
  ms: z.number().int().describe("Time this call spent building or refreshing."),
  generation: z.number().int(),
  languages: z.record(z.string(), z.number().int()).optional(),
  parseErrors: z.number().int().optional(),
  filesWithParseErrors: z.array(z.object({ path: z.string(), errors: z.number().int() })).optional().describe("Files with syntax errors, most first (first 20)."),
  freshness: z.enum(["stat", "watch"]).optional().describe("How the last refresh found changes."),
  watch: z.object({ active: z.boolean(), directories: z.number().int(), reason: z.string().optional() }).optional(),
  lastBuild: z.object({ ms: z.number(), parsed: z.number().int(), fromSnapshot: z.number().int(), bytes: z.number().int() }).optional(),
  snapshot: z.object({ enabled: z.boolean(), path: z.string().optional(), loaded: z.boolean(), reused: z.number().int(), savedAt: z.string().optional(), problem: z.string().optional() }).optional(),
});

export const indexTool = defineTool({
  name: "index",
  title: "Code index",
  description:
    "Builds or refreshes the code index every outline, graph and search tool reads, and reports it: files, languages, bytes, parse errors, what was skipped and why (ignored, too large, over the file limit, denied), timing, and whether a persisted snapshot was used. Other tools refresh the index themselves; call this to see coverage or to force a rebuild.",
  input: z.strictObject({
    path: PathInput.optional().describe("Report only on the indexed files under this file or directory."),
    rebuild: z.boolean().default(false).describe("Forget everything and parse every file again (ignores the snapshot)."),
    stats: z.boolean().default(false).describe("Include per-language counts, parse errors, watch and snapshot details."),
  }),
  output: IndexOutput,
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const index = CodeIndex.forContext(context);
    const started = performance.now();
    const coverage = args.rebuild ? await index.rebuild(progressOf(context)) : await index.ensureFresh(progressOf(context));
    const ms = Math.round(performance.now() - started);
    let scope = ".";
    let inScope = (_file: IndexedFile) => true;
    if (args.path !== undefined) {
      const resolved = await context.workspace.resolve(args.path, "read");
      if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
      scope = resolved.display;
      const prefix = resolved.real.endsWith(path.sep) ? resolved.real : resolved.real + path.sep;
      inScope = (file) => file.real === resolved.real || file.real.startsWith(prefix);
    }
    const files = index.files().filter(inScope);
    const stats = index.stats();
    const result: z.input<typeof IndexOutput> = {
      scope,
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.size, 0),
      lines: files.reduce((sum, file) => sum + file.lines, 0),
      complete: coverage.complete,
      limits: coverage.limits,
      skipped: coverage.skipped,
      ms,
      generation: index.generation,
    };
    if (args.stats) {
      const languages: Record<string, number> = {};
      for (const file of files) languages[file.language] = (languages[file.language] ?? 0) + 1;
      result.languages = languages;
      result.parseErrors = files.reduce((sum, file) => sum + file.facts.parseErrors, 0);
      result.filesWithParseErrors = files
        .filter((file) => file.facts.parseErrors > 0)
        .sort((a, b) => b.facts.parseErrors - a.facts.parseErrors)
        .slice(0, 20)
        .map((file) => ({ path: file.display, errors: file.facts.parseErrors }));
      result.freshness = stats.freshness;
      result.watch = stats.watch;
      if (stats.lastBuild) result.lastBuild = stats.lastBuild;
      result.snapshot = stats.snapshot;
    }
    return result;
  },
  render: (result) => {
    const skipped = Object.entries(result.skipped)
      .filter(([, count]) => count > 0)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(", ");
    const out = [
      `index ${result.scope}: ${plural(result.files, "file")}, ${plural(result.lines, "line")}, ${result.bytes} bytes · ${result.complete ? "complete" : `incomplete (${result.limits.join(", ")})`} · ${result.ms} ms · generation ${result.generation}`,
    ];
    if (skipped) out.push(`skipped: ${skipped}`);
    if (result.languages) out.push(`languages: ${Object.entries(result.languages).sort((a, b) => b[1] - a[1]).map(([language, count]) => `${language} ${count}`).join(", ")}`);
    if (result.parseErrors !== undefined) {
      out.push(`parse errors: ${result.parseErrors}${result.filesWithParseErrors && result.filesWithParseErrors.length > 0 ? ` (${result.filesWithParseErrors.map((file) => `${file.path} ${file.errors}`).join(", ")})` : ""}`);
    }
    if (result.lastBuild) out.push(`cold build: ${result.lastBuild.ms} ms, ${plural(result.lastBuild.parsed, "file")} parsed, ${result.lastBuild.fromSnapshot} from the snapshot`);
    if (result.watch) out.push(`freshness: ${result.freshness ?? "stat"}; watcher ${result.watch.active ? `on (${plural(result.watch.directories, "directory")})` : `off${result.watch.reason ? ` (${result.watch.reason})` : ""}`}`);
    if (result.snapshot) {
      const snapshot = result.snapshot;
      out.push(`snapshot: ${snapshot.enabled ? "on" : "off"}${snapshot.path ? ` ${snapshot.path}` : ""}${snapshot.loaded ? `, ${snapshot.reused} files reused` : ""}${snapshot.problem ? ` (${snapshot.problem})` : ""}`);
    }
    return out.join("\n");
  },
});

export const OUTLINE_TOOLS = [mapTool, digestTool, showTool, surfaceTool, indexTool];
