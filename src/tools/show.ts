import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { splitLines } from "../text/index.ts";
import { capText } from "../helpers/text-cap.ts";
import { editDistance } from "../helpers/edit-distance.ts";
import { cutToTokens, estimateTokens } from "../helpers/tokens.ts";
import type { SymbolFact } from "../intel/facts/types.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { typedSymbolsFor } from "../intel/typescript/index.ts";
import { PathInput, plural } from "./common.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { budgetCut, budgetOf, Cut, lineRange, MaxTokens } from "./outline.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";

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
  status: z.enum(["found", "ambiguous", "not_found", "omitted"]).describe(
    "found: source below; ambiguous: several symbols match, see candidates; not_found: see suggestions; omitted: the budget ran out before it.",
  ),
  symbols: z.array(ShownSymbol).describe("For found: the matching symbol (several for overloads of one name)."),
  candidates: z.array(Candidate).optional().describe("For ambiguous: every match, to ask again by qualifiedName."),
  suggestions: z.array(z.string()).optional().describe("For not_found: similar symbol names in the file."),
});
type ShowResultOut = z.infer<typeof ShowResult>;

function normalizeQuery(query: string): string {
  return query.trim().replace(/::|#/g, ".");
}

/** Symbols a query names: the exact qualified name, else a dotted suffix ("Class.method"), else the same case-insensitively. */
function matchSymbols(symbols: readonly SymbolFact[], query: string): SymbolFact[] {
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
    const score = name.includes(last) || last.includes(name) ? 0 : editDistance(name, last, 2) <= 2 ? 1 : -1;
    if (score >= 0) scored.push([score, symbol.qualifiedName]);
  }
  return [...new Set(scored.sort((a, b) => a[0] - b[0]).map(([, name]) => name))].slice(0, 10);
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
      results.push({
        query,
        status: "ambiguous",
        symbols: [],
        candidates: matched.map((symbol) => ({ qualifiedName: symbol.qualifiedName, kind: symbol.kind, startLine: symbol.startLine, endLine: symbol.endLine })),
      });
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
    if (symbol.shownEndLine < symbol.endLine) {
      out.push(`[lines ${symbol.shownEndLine + 1}-${symbol.endLine} not shown: file_read with startLine ${symbol.shownEndLine + 1}, or raise maxTokens]`);
    }
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
    symbols: z.array(z.string().min(1).max(500)).min(1).max(LIMITS.intel.outline.maxSymbols).describe(
      "Symbol names: plain (\"save\"), qualified (\"UserService.save\") or a qualified suffix.",
    ),
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
    ...Completeness,
    typedNote: z.string().optional().describe("With typed: why types are missing, or what the compiler's project reported."),
  }),
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: async (args, context) => {
    const resolved = await context.workspace.resolve(args.path, "read");
    const { file, text } = await context.services.indexes.forContext(context).load(resolved);
    const shown = showSymbols(file, text, args.symbols, args.maxTokens);
    let typedNote: string | undefined;
    if (args.typed === true) {
      const typed = await typedSymbolsFor(context.workspace, file.real, shown.results.flatMap((entry) => entry.symbols), {
        projects: context.services.typescript,
        signal: context.signal,
      });
      for (const [symbol, types] of typed.matches) Object.assign(symbol, { returnType: types.returnType, typedSignature: types.signature });
      typedNote = typed.note;
    }
    const next = shown.truncated ? "raise maxTokens, ask for fewer symbols, or read the remaining lines with file_read" : null;
    return {
      path: file.display,
      language: file.language,
      sha256: file.sha256,
      lines: file.lines,
      results: shown.results,
      cut: { next, tokens: shown.tokens },
      ...completeness(undefined, budgetCut(shown.truncated ? "maxTokens" : null, next, args.maxTokens)),
      ...(typedNote !== undefined ? { typedNote } : {}),
    };
  },
  render: (result) => {
    const out = [`${result.path} · ${result.language} · sha256 ${result.sha256}`];
    for (const entry of result.results) out.push(...renderShowResult(entry));
    if (result.typedNote !== undefined) out.push(`[typed: ${result.typedNote}]`);
    return capText(renderIncomplete(result, out), LIMITS.output.maxTextChars);
  },
});
