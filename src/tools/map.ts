import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { capText } from "../helpers/text-cap.ts";
import { estimateTokens } from "../helpers/tokens.ts";
import { typedSymbolsFor } from "../intel/typescript/index.ts";
import { FailedPath, PathInput, plural, renderItemError } from "./common.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import {
  budgetOf,
  type BudgetLimit,
  collectFiles,
  compareDisplay,
  budgetCut,
  Cut,
  DETAILS,
  MaxTokens,
  OutlineSymbol,
  renderSymbol,
  roundUp,
  symbolOut,
  visibleSymbols,
  footer,
} from "./outline.ts";
import { Completeness, completeness } from "./completeness.ts";

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
    ...Completeness,
    typedNotes: z.array(z.string()).optional().describe("With typed: files without types, or what the compiler's project reported."),
  }),
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: async (args, context) => {
    const detail = args.detail;
    const docs = args.docs ?? detail !== "names";
    const collected = await collectFiles(context, args.paths, args.glob);
    const budget = budgetOf(args.maxTokens);
    const files: MapFileOut[] = [];
    const omitted: string[] = [];
    let tokens = 0;
    let chars = 0;
    let limitedBy: BudgetLimit | null = null;
    let neededTokens = 0;
    const sorted = [...collected.files].sort((a, b) => compareDisplay(a.file.display, b.file.display));
    const typedNotes: string[] = [];
    for (const { file } of sorted) {
      const symbols = visibleSymbols(file.facts.symbols, args.private).map(({ symbol, depth }) => symbolOut(symbol, depth, detail, docs));
      if (args.typed === true && limitedBy === null) {
        const typed = await typedSymbolsFor(context.workspace, file.real, symbols, { projects: context.services.typescript, signal: context.signal });
        for (const [symbol, types] of typed.matches) symbol.returnType = types.returnType;
        if (typed.note !== undefined) typedNotes.push(typed.note);
      }
      const entry: MapFileOut = {
        path: file.display,
        language: file.language,
        lines: file.lines,
        sha256: file.sha256,
        parseErrors: file.facts.parseErrors,
        symbols: [],
        symbolsTotal: symbols.length,
      };
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
    let next: string | null = null;
    if (limitedBy !== null) {
      const hints: string[] = [];
      if (partial) hints.push(`call show with symbol names from ${partial.path}, or map it alone with detail "names"`);
      if (omitted.length > 0) hints.push(`call map with paths ${JSON.stringify(omitted.slice(0, 5))}${omitted.length > 5 ? " …" : ""}`);
      if (limitedBy === "maxTokens" && neededTokens <= LIMITS.intel.outline.maxTokensCeiling) hints.push(`or raise maxTokens to about ${roundUp(neededTokens)}`);
      if (detail !== "names") hints.push("or use detail \"names\"");
      if (limitedBy === "maxFiles") hints.push(`narrow paths or glob (at most ${LIMITS.intel.outline.maxFiles} files per call)`);
      next = hints.join("; ");
    }
    return {
      files,
      failed: collected.failed,
      omittedFiles: omitted.slice(0, LIMITS.batchPaths),
      omittedCount: omitted.length + collected.overMaxFiles,
      cut: { next, tokens },
      ...completeness(collected.coverage, budgetCut(limitedBy, next, args.maxTokens)),
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
    if (result.files.length === 0 && result.failed.length === 0) {
      out.push("No outlinable files matched (files need a language with a syntax tree parser; ignored folders are left out).");
    }
    for (const failed of result.failed) out.push(renderItemError(failed.path, failed.error));
    for (const note of result.typedNotes ?? []) out.push(`[typed: ${note}]`);
    out.push(...footer(result, result.omittedCount));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});
