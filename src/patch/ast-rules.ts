/**
 * Structural rewrites: ast-grep rules applied in order, each to the text the previous one left.
 *
 * napi's replace() inserts the fix text as written (no metavariable expansion in 0.51.2), so
 * metavariables are substituted here from each match's captures, keeping the original source
 * text (separators included for $$$ captures).
 *
 * Nested matches (`foo(foo(1))` with `foo($A)`): commitEdits would silently drop the inner edit,
 * and re-running the rule on its own output could rewrite text the fix just produced (a swap
 * `$A + $B` → `$B + $A` would undo itself). So every rewrite happens in one pass over the
 * original matches: an outer match's fix is built from its captures with the matches inside
 * them rewritten first. A match counts as applied only when its rewritten text reaches the
 * output; one whose capture the outer fix leaves out is dropped with it and not counted.
 */
import type { NapiConfig, Rule, SgNode, SgRoot } from "@ast-grep/napi";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import {
  type LanguageId,
  languageIdFromName,
  oneLine,
  parseStatementRun,
  parseTreeAsync,
  patternLiterals,
  patternProblemOf,
  patternVariables,
  METAVARIABLE,
  sameStatement,
  statementRunsParseApart,
  supportsSyntaxTree,
  type TopLevelStatement,
} from "../syntax/index.ts";
import { loneCrLines } from "../text/index.ts";
import { LOCAL_CHECK_MAX_SHARE, type SyntaxGuard } from "./syntax-guard.ts";

export interface AstRule {
  /** An ast-grep pattern; with `selector` the surrounding code the selected node sits in. */
  pattern: string;
  /** Replacement text; $NAME and $$$NAME are replaced by what the pattern captured. */
  fix: string;
  /** Language id or extension overriding the file's language ("python", "py"). */
  lang?: string;
  /** Node kind within `pattern` that is the actual match (ast-grep pattern object `selector`). */
  selector?: string;
  /** ast-grep constraints: metavariable name → rule (for example { A: { regex: "^log" } }). */
  constraints?: Record<string, unknown>;
  /** How many matches the rule must have: a number (default 1; 0 asserts absence) or "all" (at least one). */
  expectedMatches?: number | "all";
}

export interface AstRuleMatch {
  /** 1-based lines and column (UTF-16 code units) of the match in the text the rule ran on. */
  startLine: number;
  endLine: number;
  column: number;
  /** The matched source, cut to LIMITS.patch.maxMatchTextChars. */
  text: string;
}

export interface AstRuleReport {
  index: number;
  /** The language id the rule ran with. */
  language: LanguageId;
  /** The matches, in source order, at most LIMITS.patch.maxListedMatches of them. */
  matches: AstRuleMatch[];
  /** Every match found (matches may list fewer). */
  matchCount: number;
  /** Matches whose rewrite is in the result (fewer than matchCount when a fix drops nested ones). */
  applied: number;
  /** $NAMEs in the fix that the pattern does not define; they were kept as literal text. */
  literalVariables?: string[];
}

interface Capture {
  start: number;
  end: number;
}

interface FoundMatch {
  start: number;
  end: number;
  order: number;
  node: SgNode;
  /** Where the node's tree starts in the text (see TreePart). */
  offset: number;
  line: number;
  children: FoundMatch[];
  captures?: Map<string, Capture | null>;
}

/** A tree of the whole text, or of a run of its statements starting `offset` characters and `line` lines in (at the start of a line). */
export interface TreePart {
  root: SgRoot;
  offset: number;
  line: number;
}

type FixPart = { literal: string } | { variable: string };

function parseFix(fix: string, defined: Map<string, "single" | "multi">): { parts: FixPart[]; literal: string[] } {
  const parts: FixPart[] = [];
  const literal = new Set<string>();
  let last = 0;
  for (const match of fix.matchAll(METAVARIABLE)) {
    const name = match[1] ?? match[2]!;
    if (!defined.has(name)) {
      literal.add(name);
      continue;
    }
    if (match.index > last) parts.push({ literal: fix.slice(last, match.index) });
    parts.push({ variable: name });
    last = match.index + match[0].length;
  }
  if (last < fix.length) parts.push({ literal: fix.slice(last) });
  return { parts, literal: [...literal] };
}

function invalidRule(index: number, field: string, message: string, hint?: string): ToolError {
  return new ToolError("invalid_input", `rules[${index}]${field ? `.${field}` : ""}: ${message}`, hint === undefined ? {} : { hint });
}

function validateRule(rule: AstRule, index: number): void {
  if (rule === null || typeof rule !== "object") throw invalidRule(index, "", "each rule is an object with pattern and fix.");
  if (typeof rule.pattern !== "string" || rule.pattern.trim() === "") throw invalidRule(index, "pattern", "must be non-empty ast-grep pattern text.");
  if (typeof rule.fix !== "string") throw invalidRule(index, "fix", "must be a string (\"\" deletes the match).");
  if (rule.selector !== undefined && (typeof rule.selector !== "string" || rule.selector.trim() === "")) {
    throw invalidRule(index, "selector", "must be a node kind name such as \"call_expression\".");
  }
  if (rule.constraints !== undefined && (rule.constraints === null || typeof rule.constraints !== "object" || Array.isArray(rule.constraints))) {
    throw invalidRule(index, "constraints", "must map metavariable names to ast-grep rules, for example {\"A\": {\"regex\": \"^log\"}}.");
  }
  const expected = rule.expectedMatches;
  if (expected !== undefined && expected !== "all" && !(Number.isInteger(expected) && expected >= 0)) {
    throw invalidRule(index, "expectedMatches", "must be a whole number (0 asserts there is no match) or \"all\".");
  }
}

function ruleLanguage(rule: AstRule, index: number, fileLanguage: LanguageId | null): LanguageId {
  if (rule.lang !== undefined) {
    const id = typeof rule.lang === "string" ? languageIdFromName(rule.lang) : undefined;
    if (id === undefined || !supportsSyntaxTree(id)) {
      throw invalidRule(index, "lang", `unknown language ${JSON.stringify(rule.lang)}.`, "Use a language id such as typescript, python, go or rust, or a file extension.");
    }
    return id;
  }
  if (!fileLanguage || !supportsSyntaxTree(fileLanguage)) {
    const what = !fileLanguage ? "the file's language is not known" : `${fileLanguage} files have no syntax tree support`;
    throw invalidRule(index, "lang", `${what}; structural rules need one.`, "Pass lang on the rule (for example \"python\"), or edit the file with a text patch.");
  }
  return fileLanguage;
}

function matcherFor(rule: AstRule): NapiConfig {
  const config: NapiConfig = {
    rule: { pattern: rule.selector === undefined ? rule.pattern : { context: rule.pattern, selector: rule.selector } },
  };
  // Shapes are checked by napi; a wrong one surfaces as invalid_input naming the rule.
  if (rule.constraints !== undefined) config.constraints = rule.constraints as Record<string, Rule>;
  return config;
}

function describeMatch(match: FoundMatch, text: string, crLines: ReturnType<typeof loneCrLines>): AstRuleMatch {
  const range = match.node.range();
  // Tree-sitter rows count LF alone: in CR-only text the lines come from the offsets.
  const start = crLines?.(match.start);
  return {
    startLine: start ? start.line + 1 : range.start.line + match.line + 1,
    endLine: crLines ? crLines(match.end).line + 1 : range.end.line + match.line + 1,
    column: (start ?? range.start).column + 1,
    text: text.slice(match.start, Math.min(match.end, match.start + LIMITS.patch.maxMatchTextChars)),
  };
}

/** Orders matches by position (outer before inner at the same start) and nests each in the innermost match containing it. */
function nestMatches(nodes: Array<{ node: SgNode; part: TreePart }>): FoundMatch[] {
  const matches: FoundMatch[] = nodes.map(({ node, part }, order) => {
    const range = node.range();
    return { start: range.start.index + part.offset, end: range.end.index + part.offset, order, node, offset: part.offset, line: part.line, children: [] };
  });
  matches.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
  const top: FoundMatch[] = [];
  const open: FoundMatch[] = [];
  for (const match of matches) {
    while (open.length > 0 && !(match.start >= open[open.length - 1]!.start && match.end <= open[open.length - 1]!.end)) open.pop();
    const parent = open[open.length - 1];
    if (parent) parent.children.push(match);
    else top.push(match);
    open.push(match);
  }
  return top;
}

class Rewriter {
  readonly applied = new Set<FoundMatch>();
  readonly #memo = new Map<FoundMatch, string>();

  constructor(
    private readonly text: string,
    private readonly parts: FixPart[],
    private readonly variables: Map<string, "single" | "multi">,
  ) {}

  /** `text` from start to end with the given matches inside it replaced by their rewrites. */
  render(start: number, end: number, inner: FoundMatch[]): string {
    let out = "";
    let position = start;
    for (const match of inner) {
      if (match.start < position || match.end > end) continue;
      out += this.text.slice(position, match.start) + this.rewrite(match);
      position = match.end;
    }
    return out + this.text.slice(position, end);
  }

  rewrite(match: FoundMatch): string {
    const known = this.#memo.get(match);
    if (known !== undefined) return known;
    this.applied.add(match);
    let out = "";
    for (const part of this.parts) {
      if ("literal" in part) {
        out += part.literal;
        continue;
      }
      const capture = this.#capture(match, part.variable);
      if (capture) out += this.render(capture.start, capture.end, match.children);
    }
    this.#memo.set(match, out);
    return out;
  }

  #capture(match: FoundMatch, name: string): Capture | null {
    match.captures ??= new Map();
    if (match.captures.has(name)) return match.captures.get(name)!;
    let capture: Capture | null = null;
    if (this.variables.get(name) === "multi") {
      const nodes = match.node.getMultipleMatches(name);
      const first = nodes[0];
      const last = nodes[nodes.length - 1];
      if (first && last) capture = { start: first.range().start.index + match.offset, end: last.range().end.index + match.offset };
    } else {
      const node = match.node.getMatch(name);
      if (node) {
        const range = node.range();
        capture = { start: range.start.index + match.offset, end: range.end.index + match.offset };
      }
    }
    match.captures.set(name, capture);
    return capture;
  }
}

function countMismatch(index: number, expected: number | "all", found: FoundMatch[], text: string, language: LanguageId): ToolError {
  const crLines = loneCrLines(text);
  const listed = found.slice(0, LIMITS.patch.maxListedMatches).map((match) => describeMatch(match, text, crLines));
  const wanted = expected === "all" ? "at least one" : String(expected);
  const where = listed.map((match) => `${match.startLine}:${match.column}`).join(", ");
  const more = found.length > listed.length ? ` (first ${listed.length} listed)` : "";
  const message = found.length === 0 ?
    `rules[${index}] matched nothing in the ${language} text; expected ${wanted}.` :
    `rules[${index}] matched ${found.length} times, expected ${wanted}; matches at ${where}${more}.`;
  const hint = found.length === 0 ?
    "Check the pattern against the current file; a fragment that is not valid code on its own (such as a Go call outside a function) needs the surrounding code as pattern and the node kind as selector." :
    undefined;
  return new ToolError("match_count", message, {
    ...(hint === undefined ? {} : { hint }),
    details: { ruleIndex: index, expected, found: found.length, matches: listed, listedAll: listed.length === found.length },
  });
}

export interface AstRulesResult {
  text: string;
  rules: AstRuleReport[];
}

function checkRuleCount(rules: AstRule[]): void {
  if (rules.length > LIMITS.patch.maxAstRules) {
    throw new ToolError("too_many_items", `${rules.length} structural rules given; at most ${LIMITS.patch.maxAstRules} per file.`);
  }
}

/** The language rule `index` runs with, checked before anything is parsed. */
function prepareRule(rule: AstRule, index: number, languageId: LanguageId | null): LanguageId {
  validateRule(rule, index);
  return ruleLanguage(rule, index, languageId);
}

/**
 * Applies the rules in order, each to the result of the previous one, rewriting every match.
 * Throws ToolError match_count when a rule's match count differs from expectedMatches, and
 * invalid_input for a rule that cannot run (bad pattern, selector, constraints or language).
 * Each parse runs on the thread pool, so a batch planned several files at a time formats some
 * while others parse. The first rule starts from the statements `guard` kept of the text, when it
 * checked it lately.
 */
export async function applyAstRules(text: string, languageId: LanguageId | null, rules: AstRule[], guard?: SyntaxGuard): Promise<AstRulesResult> {
  checkRuleCount(rules);
  const result: AstRulesResult = { text, rules: [] };
  for (const [index, rule] of rules.entries()) {
    const language = prepareRule(rule, index, languageId);
    const statements = index === 0 ? guard?.knownStatements(language, result.text) : undefined;
    const parts = (statements && statementsThatCanMatch(language, result.text, statements, rule)) ?? wholeTree(await parseTreeAsync(language, result.text));
    applyRule(rule, index, language, parts, result);
  }
  return result;
}

function wholeTree(root: SgRoot | undefined): TreePart[] | undefined {
  return root === undefined ? undefined : [{ root, offset: 0, line: 0 }];
}

/**
 * Trees of only the top-level statements of `text` that hold every literal of the rule's pattern (a
 * match is a node holding each of them), each run parsed with its neighbours on either side.
 * `statements` are the text's own, from an error-free parse, for a language whose statement runs
 * parse apart from their file (statementRunsParseApart); the text is unchanged, so no token crosses
 * a run's edge. Undefined unless each run parses into exactly the statements it was cut from
 * (then parse the whole text).
 */
export function statementsThatCanMatch(language: LanguageId, text: string, statements: readonly TopLevelStatement[], rule: AstRule): TreePart[] | undefined {
  if (!statementRunsParseApart(language) || statements.length === 0) return undefined;
  const literals = patternLiterals({ pattern: rule.pattern, ...(rule.selector === undefined ? {} : { selector: rule.selector }) }, language);
  if (literals.length === 0) return undefined;
  // How many of the literals each statement holds: one pass over the text per literal.
  const held = new Uint8Array(statements.length);
  for (const literal of literals) {
    let index = 0;
    let last = -1;
    for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + 1)) {
      while (index < statements.length && statements[index]!.end < at + literal.length) index++;
      if (index === statements.length) break;
      if (statements[index]!.start <= at && index !== last) {
        held[index]!++;
        last = index;
      }
    }
  }
  const keep = new Uint8Array(statements.length);
  held.forEach((count, index) => {
    if (count === literals.length) keep.fill(1, Math.max(0, index - 1), Math.min(statements.length, index + 2));
  });
  const parts: TreePart[] = [];
  let keptChars = 0;
  for (let first = keep.indexOf(1); first !== -1; first = keep.indexOf(1, first)) {
    let last = first;
    while (last + 1 < statements.length && keep[last + 1] === 1) last++;
    const { start, startLine } = statements[first]!;
    const end = statements[last]!.end;
    keptChars += end - start;
    // Match columns hold when a run starts its line.
    if (start !== text.lastIndexOf("\n", start - 1) + 1) return undefined;
    const run = parseStatementRun(language, text, start, end, startLine);
    if (!run || run.statements.length !== last - first + 1 || !run.statements.every((seen, index) => sameStatement(statements[first + index]!, seen))) return undefined;
    parts.push({ root: run.root, offset: start, line: startLine });
    first = last + 1;
  }
  if (parts.length === 0 || keptChars > text.length * LOCAL_CHECK_MAX_SHARE) return undefined;
  return parts;
}

/** Runs rule `index` on `result.text` (parsed as `root`), replacing the text and adding the rule's report. */
function applyRule(rule: AstRule, index: number, language: LanguageId, parts: TreePart[] | undefined, result: AstRulesResult): void {
  const current = result.text;
  if (!parts) throw invalidRule(index, "lang", `no parser for ${language}.`);

  const nodes: Array<{ node: SgNode; part: TreePart }> = [];
  try {
    const matcher = matcherFor(rule);
    for (const part of parts) for (const node of part.root.root().findAll(matcher)) nodes.push({ node, part });
  } catch (error) {
    const reason = oneLine(error);
    const field = rule.constraints !== undefined && /constraint/i.test(reason) ? "constraints" : rule.selector !== undefined && /\bKind\b/.test(reason) ? "selector" : "pattern";
    throw invalidRule(index, field, `ast-grep cannot use this rule: ${reason}`);
  }
  if (nodes.length === 0) {
    const problem = patternProblemOf({ pattern: rule.pattern }, language);
    if (problem !== undefined) {
      throw invalidRule(
        index,
        "pattern",
        `the pattern does not parse as ${language} (${problem}).`,
        "Write the pattern as complete code; for a fragment, pass the surrounding code as pattern and the node kind to match as selector.",
      );
    }
  }

  const top = nestMatches(nodes);
  const ordered: FoundMatch[] = [];
  const flatten = (list: FoundMatch[]) => {
    for (const match of list) {
      ordered.push(match);
      flatten(match.children);
    }
  };
  flatten(top);

  const expected = rule.expectedMatches ?? 1;
  const countOk = expected === "all" ? ordered.length >= 1 : ordered.length === expected;
  if (!countOk) throw countMismatch(index, expected, ordered, current, language);

  const defined = patternVariables(rule.pattern);
  const fix = parseFix(rule.fix, defined);
  const rewriter = new Rewriter(current, fix.parts, defined);
  const next = rewriter.render(0, current.length, top);

  const crLines = loneCrLines(current);
  const report: AstRuleReport = {
    index,
    language,
    matches: ordered.slice(0, LIMITS.patch.maxListedMatches).map((match) => describeMatch(match, current, crLines)),
    matchCount: ordered.length,
    applied: rewriter.applied.size,
  };
  if (fix.literal.length > 0) report.literalVariables = fix.literal;
  result.rules.push(report);
  result.text = next;
}
