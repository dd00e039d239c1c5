/**
 * Structural search for `run`: one ast-grep pattern compiled per language, a literal pre-filter
 * that rules out files before they are parsed, and matching on the exact text the caller read (so
 * match positions, hashes and rewrites all refer to the same bytes).
 *
 * The pre-filter is sound because ast-grep's default ("smart") matching compares every leaf of the
 * pattern with a leaf of the code by text; only metavariables stand for other text. So each
 * non-metavariable leaf of the pattern (of the selected node, with a selector) occurs verbatim in
 * any file the pattern matches in.
 */
import type { NapiConfig, Rule, SgNode } from "@ast-grep/napi";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { loneCrLines } from "../text/lines.ts";
import { patternExpandoFor } from "./grammars.ts";
import type { LanguageId } from "./language-names.ts";
import { parseSource, parseTree, parseTreeAsync } from "./parse.ts";
import { configOf, escapeRegExp, type PatternProblem, patternForm } from "./pattern-form.ts";

export interface StructuralQuery {
  pattern: string;
  /** Node kind inside the pattern that is the actual match (the pattern is then its context). */
  selector?: string;
  /** ast-grep constraints per metavariable. */
  constraints?: Record<string, unknown>;
}

export interface CompiledQuery {
  language: LanguageId;
  config: NapiConfig;
  /** Texts every matching file contains; empty when nothing can be ruled out. */
  literals: string[];
  /** Metavariables the pattern captures, each single ($A) or multi ($$$A). */
  variables: Map<string, "single" | "multi">;
  /** The pattern and selector as they run: the given ones, or the context-and-selector form that parses (see pattern-form.ts). */
  query: StructuralQuery;
  /** Set when the query runs in a form other than the one given: what was done, for the answer's notes. */
  formNote?: string;
  /** Why the pattern itself does not parse cleanly in this language, if it does not. */
  patternProblem?: string;
  /** Where it breaks, with patternProblem (1-based, inside the pattern), and whether no form of it can run. */
  problem?: PatternProblem;
}

export interface StructuralMatch {
  /** 1-based lines; columns are 1-based UTF-16 code units. */
  startLine: number;
  endLine: number;
  column: number;
  endColumn: number;
  /** The matched source, cut to LIMITS.intel.run.maxMatchTextChars. */
  text: string;
  /** Metavariable → captured source (cut like text); a multi capture is the source from its first to its last node. */
  captures: Record<string, string>;
}

/** A metavariable in a pattern or a fix: $$$NAME (group 1) or $NAME / $$NAME (group 2). */
export const METAVARIABLE = /\$\$\$([A-Z_][A-Z0-9_]*)|\$\$?([A-Z_][A-Z0-9_]*)/g;

/** Metavariables of a pattern ("_"-prefixed ones capture nothing). */
export function patternVariables(pattern: string): Map<string, "single" | "multi"> {
  const variables = new Map<string, "single" | "multi">();
  for (const match of pattern.matchAll(METAVARIABLE)) {
    const name = match[1] ?? match[2]!;
    if (name.startsWith("_")) continue;
    variables.set(name, match[1] !== undefined ? "multi" : (variables.get(name) ?? "single"));
  }
  return variables;
}

function leavesOf(node: SgNode, out: SgNode[]): void {
  const children = node.children();
  if (children.length === 0) {
    out.push(node);
    return;
  }
  for (const child of children) leavesOf(child, out);
}

/**
 * The literal texts a file must contain to possibly match: the pattern's leaves (within the selected
 * node when there is a selector) that are not metavariables, comments or punctuation. Empty when the
 * pattern does not parse cleanly, since then no leaf can be trusted.
 */
export function patternLiterals(query: StructuralQuery, language: LanguageId): string[] {
  const expando = patternExpandoFor(language);
  if (expando === undefined) return [];
  const parsed = parseSource(language, query.pattern.replaceAll("$", expando));
  if (!parsed || parsed.errorCount > 0) return [];
  // Where "$" is the language's own (bash, PHP), $A parses as "$" and "A": no leaf inside a metavariable is literal.
  const held = [...query.pattern.matchAll(/\$+[A-Z_][A-Z0-9_]*|\$\$\$/g)].map((match) => [match.index, match.index + match[0].length] as const);
  const inMetavariable = (leaf: SgNode) => {
    const range = leaf.range();
    return held.some(([start, end]) => range.start.index < end && range.end.index > start);
  };
  let top: SgNode | null = parsed.root.root();
  if (query.selector !== undefined) {
    top = top.find({ rule: { kind: query.selector } } as NapiConfig);
    if (!top) return [];
  }
  // $A, $$$ARGS, $_ and the anonymous $$$; a leaf made only of expando characters is treated as one too.
  const metavariable = new RegExp(`^(?:${escapeRegExp(expando)})+(?:[A-Z_][A-Z0-9_]*)?$`);
  const leaves: SgNode[] = [];
  leavesOf(top, leaves);
  const literals = new Set<string>();
  for (const leaf of leaves) {
    const text = leaf.text();
    if (text.length === 0 || !/[\p{L}\p{N}_]/u.test(text)) continue;
    if (String(leaf.kind()).includes("comment") || metavariable.test(text) || inMetavariable(leaf)) continue;
    literals.add(text);
  }
  // Longest first: the rarest texts usually rule a file out soonest.
  return [...literals].sort((a, b) => b.length - a.length);
}

/** Where a pattern fails to parse as `language` (its first syntax error), for an error message; undefined when it parses. */
export function patternProblemOf(query: StructuralQuery, language: LanguageId): string | undefined {
  const expando = patternExpandoFor(language) ?? "$";
  const parsed = parseSource(language, query.pattern.replaceAll("$", expando));
  const first = parsed?.errors[0];
  if (!first) return undefined;
  return first.kind === "missing" ?
    `a ${JSON.stringify(first.expected)} is missing at line ${first.line}, column ${first.column}` :
    `a syntax error at line ${first.line}, column ${first.column}`;
}

/** napi's rule errors span several "|->" lines; one line reads better in a tool result. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\.?\s*\n\s*\|->\s*/g, ": ").replace(/\s*\n\s*/g, " ").trim();
}

/**
 * The query for one language, in the form that parses there (see pattern-form.ts), checked by
 * running it once on an empty tree (napi rejects a bad selector kind or constraint there). Throws
 * ToolError invalid_input naming the field at fault. A pattern that parses in no form comes back
 * with patternProblem: the caller decides whether that refuses the call.
 */
export function compileQuery(query: StructuralQuery, language: LanguageId): CompiledQuery {
  const form = patternForm(query, language);
  const effective: StructuralQuery = { pattern: form.pattern };
  if (form.selector !== undefined) effective.selector = form.selector;
  if (query.constraints !== undefined) effective.constraints = query.constraints;
  const config: NapiConfig = configOf(effective);
  if (query.constraints !== undefined) config.constraints = query.constraints as Record<string, Rule>;
  const empty = parseTree(language, "");
  if (!empty) throw new ToolError("invalid_input", `lang: ${language} has no syntax tree support here.`);
  try {
    empty.root().findAll(config);
  } catch (error) {
    if (form.problem) throw patternError(form.problem, language);
    const reason = oneLine(error);
    const field = query.constraints !== undefined && /constraint/i.test(reason) ? "constraints" : query.selector !== undefined && /\bkind\b/i.test(reason) ? "selector" : "pattern";
    throw new ToolError("invalid_input", `${field}: ast-grep cannot use this ${language} rule: ${reason}`);
  }
  const compiled: CompiledQuery = { language, config, query: effective, literals: patternLiterals(effective, language), variables: patternVariables(query.pattern) };
  if (form.note !== undefined) compiled.formNote = form.note;
  const problem = form.problem ?? (query.selector === undefined ? undefined : selectorProblem(query, language));
  if (problem !== undefined) {
    compiled.patternProblem = problem.message;
    compiled.problem = problem;
  }
  return compiled;
}

function selectorProblem(query: StructuralQuery, language: LanguageId): PatternProblem | undefined {
  const expando = patternExpandoFor(language) ?? "$";
  const first = parseSource(language, query.pattern.replaceAll("$", expando))?.errors[0];
  if (!first) return undefined;
  return { line: first.line, column: first.column, fatal: false, message: patternProblemOf(query, language)! };
}

/** invalid_input for a pattern that parses in no form in `language`, with where it breaks. */
export function patternError(problem: PatternProblem, language: LanguageId): ToolError {
  return new ToolError("invalid_input", `pattern: does not parse as ${language}: ${problem.message}.`, {
    hint:
      "Write the pattern as complete code (balanced brackets, a whole expression, statement or declaration), with $A for one node and $$$A for any number; for a fragment, pass the surrounding code as pattern and the node kind as selector.",
    details: { language, line: problem.line, column: problem.column },
  });
}

/** Whether the text can contain a match at all. */
export function passesLiterals(text: string, literals: readonly string[]): boolean {
  for (const literal of literals) if (!text.includes(literal)) return false;
  return true;
}

function cut(text: string): string {
  return text.length <= LIMITS.intel.run.maxMatchTextChars ? text : `${text.slice(0, LIMITS.intel.run.maxMatchTextChars)}…`;
}

export interface TextMatches {
  /** Every match found. */
  count: number;
  /** The first `detail` matches in source order, with text and captures. */
  matches: StructuralMatch[];
}

/**
 * Text and captures of the first `limit` nodes in source order. `text` is the source the nodes were
 * parsed from (positions are UTF-16 offsets into it, as napi reports them for parse and findInFiles).
 */
export function describeMatches(nodes: readonly SgNode[], text: string, compiled: CompiledQuery, limit: number): StructuralMatch[] {
  if (limit <= 0 || nodes.length === 0) return [];
  const located = nodes.map((node) => ({ node, range: node.range() }));
  located.sort((a, b) => a.range.start.index - b.range.start.index || b.range.end.index - a.range.end.index);
  const crLines = loneCrLines(text);
  return located.slice(0, limit).map(({ node, range }) => {
    const start = crLines?.(range.start.index) ?? range.start;
    const end = crLines?.(range.end.index) ?? range.end;
    const captures: Record<string, string> = {};
    for (const [name, kind] of compiled.variables) {
      if (kind === "multi") {
        const captured = node.getMultipleMatches(name);
        const first = captured[0];
        const last = captured[captured.length - 1];
        if (first && last) captures[name] = cut(text.slice(first.range().start.index, last.range().end.index));
        else if (captured.length === 0) captures[name] = "";
      } else {
        const captured = node.getMatch(name);
        if (captured) captures[name] = cut(captured.text());
      }
    }
    return {
      startLine: start.line + 1,
      endLine: end.line + 1,
      column: start.column + 1,
      endColumn: end.column + 1,
      text: cut(text.slice(range.start.index, range.end.index)),
      captures,
    };
  });
}

/**
 * The matches of the compiled query in `text` (nested matches included, as ast-grep reports them):
 * all counted, the first `detail` in source order described (text and captures cost several native
 * calls each).
 */
export async function matchText(text: string, compiled: CompiledQuery, detail = Number.POSITIVE_INFINITY): Promise<TextMatches> {
  // On the libuv thread pool, so wide runs use both cores and the event loop stays free.
  const root = await parseTreeAsync(compiled.language, text);
  if (root === undefined) throw new ToolError("invalid_input", `lang: ${compiled.language} has no syntax tree support here.`);
  const nodes = root.root().findAll(compiled.config);
  return { count: nodes.length, matches: describeMatches(nodes, text, compiled, Math.min(detail, nodes.length)) };
}
