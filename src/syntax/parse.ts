/**
 * Parsing: source into a tree with its syntax errors located (ERROR nodes and MISSING tokens), and
 * the top-level statements of a tree, read lazily, for the write path's statement-wise checks.
 */
import type { Rule, SgNode, SgRoot } from "@ast-grep/napi";
import { LIMITS } from "../core/limits.ts";
import { loneCrLines } from "../text/lines.ts";
import { astGrepLanguageFor, napi, scannerTokensOf } from "./grammars.ts";
import type { LanguageId } from "./language-names.ts";

export interface SyntaxErrorLocation {
  /** 1-based line and column (UTF-16 code units) where the error starts. */
  line: number;
  column: number;
  endLine: number;
  /** The source text of an ERROR node (cut to a bounded length); "" for a missing token. */
  text: string;
  /** "error": text the parser could not fit; "missing": a token the parser had to assume. */
  kind: "error" | "missing";
  /** For a missing token: the token kind the parser expected, such as ")" or "identifier". */
  expected?: string;
}

export interface ParsedSource {
  root: SgRoot;
  /** Outermost ERROR nodes plus MISSING tokens outside them. */
  errorCount: number;
  /** Every counted error, in source order. */
  errors: SyntaxErrorLocation[];
}

/** A direct child of a tree's root: a top-level statement, declaration or comment. */
export interface TopLevelStatement {
  /** UTF-16 offsets into the parsed text, end exclusive. */
  start: number;
  end: number;
  /** 0-based lines of the first and last character. */
  startLine: number;
  endLine: number;
  kind: string;
  /** An import, or an export that names a module (`export … from "m"`): formatters may reorder these as a group. */
  namesModule: boolean;
}

/**
 * The root's direct children, read lazily: an edit needs only the few statements around it, and
 * each napi call on a file of hundreds of statements costs more than the search that avoids it.
 */
export interface TopLevelStatements {
  readonly length: number;
  at(index: number): TopLevelStatement;
}

/**
 * The text of each tree parsed here from text holding a "\r": tree-sitter counts rows by "\n" alone,
 * so topLevelStatements numbers such a tree's lines from offsets by lineStarts. An entry goes with its tree.
 */
const crTexts = new WeakMap<SgRoot, string>();

function parsedFrom(root: SgRoot, text: string): SgRoot {
  if (text.includes("\r")) crTexts.set(root, text);
  return root;
}

/** The root's direct children, with lines counted as text/lines.ts counts them (CR, LF and CRLF alike). */
export function topLevelStatements(root: SgRoot): TopLevelStatements {
  const nodes = root.root().children();
  const read = new Map<number, TopLevelStatement>();
  const source = crTexts.get(root);
  const crLines = source === undefined ? undefined : loneCrLines(source);
  return {
    length: nodes.length,
    at(index) {
      const known = read.get(index);
      if (known) return known;
      const node = nodes[index];
      if (node === undefined) throw new RangeError(`no top-level statement ${index}`);
      const range = node.range();
      const kind = String(node.kind());
      const statement = {
        start: range.start.index,
        end: range.end.index,
        startLine: crLines?.(range.start.index).line ?? range.start.line,
        endLine: crLines?.(range.end.index).line ?? range.end.line,
        kind,
        namesModule: kind === "import_statement" || (kind === "export_statement" && node.field("source" as never) !== null),
      };
      read.set(index, statement);
      return statement;
    },
  };
}

/** `statement` moved `chars` characters and `lines` lines further into its text. */
export function shiftStatement(statement: TopLevelStatement, chars: number, lines: number): TopLevelStatement {
  return { ...statement, start: statement.start + chars, end: statement.end + chars, startLine: statement.startLine + lines, endLine: statement.endLine + lines };
}

/** A list of statements read out earlier, seen as TopLevelStatements. */
export function statementList(statements: readonly TopLevelStatement[]): TopLevelStatements {
  return {
    length: statements.length,
    at(index) {
      const statement = statements[index];
      if (statement === undefined) throw new RangeError(`no top-level statement ${index}`);
      return statement;
    },
  };
}

/**
 * Languages whose grammar decides where a top-level statement ends from the next token alone (ASI
 * included): a run of statements, taken with one statement on either side, parses the same apart
 * from its file as inside it. Callers add what a cut text cannot show (see parseStatementRun).
 */
const RUNS_PARSE_APART = new Set<LanguageId>(["typescript", "tsx", "javascript"]);

export function statementRunsParseApart(id: LanguageId): boolean {
  return RUNS_PARSE_APART.has(id);
}

/**
 * text[start, end), a run of whole top-level statements whose first line is `startLine` (0-based),
 * parsed on its own: the tree, and its statements at their offsets and lines in `text`. Undefined
 * when the run has syntax errors or the language no parser. The caller checks the statements
 * against the ones it cut the run from: only statements that come back the same prove the run
 * parsed as it does in its file.
 */
export function parseStatementRun(id: LanguageId, text: string, start: number, end: number, startLine: number): { root: SgRoot; statements: TopLevelStatement[] } | undefined {
  const parsed = parseSource(id, text.slice(start, end));
  if (!parsed || parsed.errorCount > 0) return undefined;
  const found = topLevelStatements(parsed.root);
  const statements: TopLevelStatement[] = [];
  for (let index = 0; index < found.length; index++) statements.push(shiftStatement(found.at(index), start, startLine));
  return { root: parsed.root, statements };
}

/** Whether two statements have the same kind and place. */
export function sameStatement(a: TopLevelStatement, b: TopLevelStatement | undefined): boolean {
  return b !== undefined && a.kind === b.kind && a.start === b.start && a.end === b.end;
}

/** The tree alone, without locating syntax errors; undefined when the language has no parser here. */
export function parseTree(id: string, text: string): SgRoot | undefined {
  const language = astGrepLanguageFor(id);
  return language === undefined ? undefined : parsedFrom(napi().parse(language, text), text);
}

/**
 * The tree alone, parsed on the libuv thread pool so several files parse at once (the code index
 * keeps a few in flight); undefined when the language has no parser here.
 */
export async function parseTreeAsync(id: string, text: string): Promise<SgRoot | undefined> {
  const language = astGrepLanguageFor(id);
  return language === undefined ? undefined : parsedFrom(await napi().parseAsync(language, text), text);
}

/** Parses `text` as language `id`; undefined when the language has no parser here. */
export function parseSource(id: string, text: string): ParsedSource | undefined {
  const language = astGrepLanguageFor(id);
  if (language === undefined) return undefined;
  return withErrors(parsedFrom(napi().parse(language, text), text), text, language);
}

/** parseSource with the parse itself on the libuv thread pool (the write path formats meanwhile). */
export async function parseSourceAsync(id: string, text: string): Promise<ParsedSource | undefined> {
  const language = astGrepLanguageFor(id);
  if (language === undefined) return undefined;
  return withErrors(parsedFrom(await napi().parseAsync(language, text), text), text, language);
}

function withErrors(root: SgRoot, text: string, language: string): ParsedSource {
  const errors = syntaxErrorsOf(root.root(), text, language);
  return { root, errorCount: errors.length, errors };
}

interface Span {
  start: number;
  end: number;
  location: SyntaxErrorLocation;
}

function spanOf(node: SgNode, text: string, kind: "error" | "missing", crLines: ReturnType<typeof loneCrLines>): Span {
  const range = node.range();
  const start = crLines?.(range.start.index) ?? range.start;
  const location: SyntaxErrorLocation = {
    line: start.line + 1,
    column: start.column + 1,
    endLine: (crLines?.(range.end.index) ?? range.end).line + 1,
    text: kind === "error" ? text.slice(range.start.index, Math.min(range.end.index, range.start.index + LIMITS.patch.maxErrorTextChars)) : "",
    kind,
  };
  if (kind === "missing") location.expected = String(node.kind());
  return { start: range.start.index, end: range.end.index, location };
}

/**
 * The syntax errors of a tree parsed from `text` as napi language `language`. Both kinds are
 * found natively: ERROR nodes by kind, MISSING tokens as empty leaves (napi has no isMissing)
 * that are not scanner tokens. Errors inside an ERROR node fold into it, so one broken region
 * counts once.
 */
function syntaxErrorsOf(root: SgNode, text: string, language: string): SyntaxErrorLocation[] {
  const spans: Span[] = [];
  const crLines = loneCrLines(text);
  const scannerTokens = scannerTokensOf(language);
  // One traversal for both kinds (each findAll walks the whole tree); in an empty text every node is empty.
  const rule: Rule = text.length > 0 ? { any: [{ kind: "ERROR" }, { regex: "^$" }] } : { kind: "ERROR" };
  for (const node of root.findAll({ rule })) {
    const kind = String(node.kind());
    if (kind === "ERROR") {
      spans.push(spanOf(node, text, "error", crLines));
      continue;
    }
    // Empty inner nodes hold only empty leaves.
    if (!node.isLeaf() || node.parent() === null) continue;
    if (node.isNamed() && scannerTokens.includes(kind)) continue;
    spans.push(spanOf(node, text, "missing", crLines));
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const outermost: SyntaxErrorLocation[] = [];
  let covered: { start: number; end: number } | undefined;
  for (const span of spans) {
    if (covered && span.start >= covered.start && span.end <= covered.end) continue;
    outermost.push(span.location);
    if (span.location.kind === "error" && span.end > span.start) covered = { start: span.start, end: span.end };
  }
  return outermost;
}
