/**
 * What the outline tools share (map, digest, show, surface and index, one file each): the symbol
 * shape and its rendering, the files a list of paths names, the token budget and the limit that cut
 * it (stated through completeness.ts). Outputs fit a token budget measured by the shared estimator
 * and say what was cut and how to ask for the rest.
 */
import path from "node:path";
import picomatch from "picomatch";
import { z } from "zod";
import { isToolError, ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { relativeInside, toPosix } from "../helpers/path-text.ts";
import type { SymbolFact } from "../intel/facts/types.ts";
import { CodeIndex, type Coverage, type IndexedFile } from "../intel/index/index.ts";
import { isSkippedDirectory, outputDirectoryNames } from "../syntax/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { plural, toItemError, type ItemError } from "./common.ts";
import { type Completeness, renderIncomplete } from "./completeness.ts";
import type { ToolContext } from "./contract.ts";
import { progressOf } from "./progress.ts";

export const DETAILS = ["names", "signatures", "full"] as const;
type Detail = (typeof DETAILS)[number];

/** Characters kept free in the text rendering for notes and headers. */
const RENDER_RESERVE_CHARS = 600;

export const MaxTokens = (fallback: number) =>
  z
    .number()
    .int()
    .min(100)
    .max(LIMITS.intel.outline.maxTokensCeiling)
    .default(fallback)
    .describe(
      `Token budget of the answer (estimated o200k tokens, default ${fallback}). The text is also bounded by the ${LIMITS.output.maxTextChars}-character output limit; what does not fit is named with how to ask for it.`,
    );

/** Budget accounting beside the completeness pair (which names the limit that cut the answer). */
export const Cut = z.object({
  next: z.string().nullable().describe("How to ask for what was left out; null when nothing was."),
  tokens: z.number().int().describe("Estimated tokens of the text answer."),
});

export type BudgetLimit = "maxTokens" | "outputLimit" | "maxFiles";

/** The limit that cut an answer to its budget, as the completeness pair names it, with how to get the rest. */
export function budgetCut(
  limitedBy: BudgetLimit | null,
  next: string | null,
  maxTokens: number,
  maxFilesKey: string = `outline.maxFiles = ${LIMITS.intel.outline.maxFiles}`,
): string[] {
  if (limitedBy === null) return [];
  const key = {
    maxTokens: `maxTokens = ${maxTokens}`,
    outputLimit: `output limit = ${LIMITS.output.maxTextChars} characters`,
    maxFiles: maxFilesKey,
  }[limitedBy];
  return [next === null ? key : `${key}: ${next}`];
}

/**
 * Symbols an outline shows: locals only with `private`, private members only with `private`. Members
 * follow their parent wherever they are declared (a Go method sits under its receiver type, not under
 * the function before it); a member whose parent is declared in another file stands at the top level.
 */
export function visibleSymbols(symbols: readonly SymbolFact[], includePrivate: boolean): Array<{ symbol: SymbolFact; depth: number }> {
  const declared = new Set(symbols.map((symbol) => symbol.qualifiedName));
  const children = new Map<string, SymbolFact[]>();
  const roots: SymbolFact[] = [];
  for (const symbol of symbols) {
    if (symbol.parent === undefined || symbol.parent === symbol.qualifiedName || !declared.has(symbol.parent)) {
      roots.push(symbol);
      continue;
    }
    const siblings = children.get(symbol.parent);
    if (siblings) siblings.push(symbol);
    else children.set(symbol.parent, [symbol]);
  }
  const out: Array<{ symbol: SymbolFact; depth: number }> = [];
  // Overloads share a qualified name: their members are listed once, under the first.
  const expanded = new Set<string>();
  const visit = (symbol: SymbolFact, depth: number) => {
    // A member of a hidden symbol is hidden with it.
    if (!includePrivate && (symbol.local === true || symbol.visibility === "private")) return;
    out.push({ symbol, depth });
    if (expanded.has(symbol.qualifiedName)) return;
    expanded.add(symbol.qualifiedName);
    for (const child of children.get(symbol.qualifiedName) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return out;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export function lineRange(symbol: { startLine: number; endLine: number }): string {
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

export async function collectFiles(context: ToolContext, paths: readonly string[], glob: string | undefined, maxFiles: number = LIMITS.intel.outline.maxFiles): Promise<Collected> {
  const index = context.services.indexes.forContext(context);
  const matches = globMatcher(glob);
  const collected: Collected = { files: [], failed: [], coverage: undefined, overMaxFiles: 0 };
  const seen = new Set<string>();
  const add = (file: IndexedFile) => {
    if (seen.has(file.real)) return;
    seen.add(file.real);
    if (collected.files.length >= maxFiles) collected.overMaxFiles += 1;
    else collected.files.push({ file });
  };
  for (const input of paths) {
    context.signal.throwIfAborted();
    let resolved: ResolvedPath;
    try {
      resolved = await context.workspace.resolve(input, "read");
      if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
      if (resolved.kind === "file") {
        add((await index.load(resolved)).file);
        continue;
      }
      if (resolved.kind !== "directory") throw new ToolError("not_a_file", `${resolved.display} is not a regular file or directory.`);
    } catch (error) {
      if (context.signal.aborted || !isItemFailure(error)) throw error;
      collected.failed.push({ path: input, error: toItemError(error, input) });
      continue;
    }
    // While the first build runs, the folder's own files are outlined (or indexed) ahead of the rest of the tree.
    let outlined: IndexedFile[] = [];
    if (!collected.coverage || !index.built) {
      const wait = { ...progressOf(context), deadlineMs: LIMITS.intel.index.answerWithinMs };
      const ahead = await index.outlineAhead(resolved.real, wait);
      outlined = ahead?.files ?? [];
      collected.coverage = ahead?.coverage ?? (await index.ensureScope({ dirs: [resolved.real] }, wait));
    }
    if (index.covers(resolved.real)) {
      for (const file of [...index.files(), ...outlined]) {
        const relative = relativeInside(resolved.real, file.real, path.sep);
        if (relative === undefined || (matches && !matches(toPosix(relative, path.sep)))) continue;
        add(file);
      }
    } else {
      // A directory the walk leaves out (ignored, node_modules, …) was asked for by name: walk it here.
      await walkOutsideIndex(context, index, resolved, matches, add, collected, maxFiles);
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
  maxFiles: number,
): Promise<void> {
  const queue = [directory.real];
  while (queue.length > 0 && collected.files.length < maxFiles) {
    context.signal.throwIfAborted();
    const current = queue.shift()!;
    let listing;
    try {
      listing = context.workspace.listDirectory(current);
    } catch (error) {
      if (!isItemFailure(error)) throw error;
      continue;
    }
    // The index's rule: output folders are skipped only at a root or beside the manifest of a tool that writes them.
    const outputNames = outputDirectoryNames(
      listing.entries.filter((entry) => entry.kind !== "directory").map((entry) => entry.name),
      context.workspace.roots.some((root) => root.real === current),
    );
    for (const entry of listing.entries) {
      if (entry.kind === "directory") {
        if (!isSkippedDirectory(entry.name, outputNames)) queue.push(entry.real);
        continue;
      }
      if (entry.kind !== "file") continue;
      if (matches && !matches(toPosix(path.relative(directory.real, entry.real), path.sep))) continue;
      if (index.languageFor(entry.relative) === undefined) continue;
      try {
        add((await index.load(await context.workspace.resolve(entry.real, "read"))).file);
      } catch (error) {
        if (context.signal.aborted || !isItemFailure(error)) throw error;
        collected.failed.push({ path: entry.display, error: toItemError(error, entry.display) });
      }
    }
  }
}

export interface Budget {
  maxTokens: number;
  maxChars: number;
}

export function budgetOf(maxTokens: number): Budget {
  return { maxTokens, maxChars: LIMITS.output.maxTextChars - RENDER_RESERVE_CHARS };
}

/** The closing lines of a budgeted answer: what was left out, then the shared incomplete line (which says how to get it). */
export function footer(result: Completeness, omittedCount = 0): string[] {
  const out = omittedCount > 0 ? [`${plural(omittedCount, "more file")} not shown`] : [];
  renderIncomplete(result, out);
  return out;
}

export function roundUp(tokens: number): number {
  return Math.min(LIMITS.intel.outline.maxTokensCeiling, Math.ceil((tokens * 1.1) / 500) * 500);
}

export function compareDisplay(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
