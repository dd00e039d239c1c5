/**
 * The syntax guard: a candidate may not have more syntax errors than the text it replaces.
 * Source languages are parsed with ast-grep (ERROR and MISSING nodes); JSON, JSONC, TOML and YAML
 * candidates must parse with the same parsers document_query uses.
 */
import { ToolError } from "../core/errors.ts";
import { sha256OfText } from "../helpers/hash.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { lastIndexWhere } from "../core/bisect.ts";
import { DOCUMENT_FORMAT_NAMES, documentSyntaxProblems, type SyntaxProblem } from "../syntax/index.ts";
import {
  type DocumentLanguage,
  isDocumentLanguage,
  type LanguageId,
  parseSourceAsync,
  parseStatementRun,
  parseTreeAsync,
  sameStatement,
  shiftStatement,
  statementList,
  statementRunsParseApart,
  type SyntaxErrorLocation,
  syntaxTreeUnavailable,
  type TopLevelStatement,
  topLevelStatements,
  type TopLevelStatements,
} from "../syntax/index.ts";
import { splitLines } from "../text/index.ts";
import { changedSpan } from "./format-region.ts";
import type { SgRoot } from "@ast-grep/napi";

/** Syntax error lists remembered by text hash: a committed candidate is the next edit's original. */
const SYNTAX_CACHE_ENTRIES = 2_048;
/** Top-level statement lists remembered by text hash, so the next edit of a file parses only its statements (see localStatements). */
const STATEMENT_CACHE_ENTRIES = 32;
/** The guard parses only an edit's statements and their neighbours while they are at most this share of the file (see localStatements). */
export const LOCAL_CHECK_MAX_SHARE = 0.5;

export interface SyntaxIssue {
  /** 1-based line and column (UTF-16 code units); 0 when the parser gives no position. */
  line: number;
  column: number;
  /** Source text at the error (cut), "" for a missing token or a document parse error. */
  text: string;
  /** What is wrong, in words. */
  message: string;
}

export interface SyntaxReport {
  checked: boolean;
  language: LanguageId | null;
  beforeErrors: number;
  afterErrors: number;
  /** Errors of the candidate with no counterpart in the original, at most LIMITS.patch.maxListedSyntaxErrors. */
  newErrors: SyntaxIssue[];
  note?: string;
  /** Why a language that has a parser here could not be checked (the parser did not load, or failed): refused unless errors are allowed. */
  cannotCheck?: string;
}

function issueFromTree(error: SyntaxErrorLocation): SyntaxIssue {
  const message = error.kind === "missing" ? `missing ${JSON.stringify(error.expected ?? "")}` : `unexpected ${JSON.stringify(error.text)}`;
  return { line: error.line, column: error.column, text: error.text, message };
}

function issueFromDocument(problem: SyntaxProblem): SyntaxIssue {
  return { line: problem.line ?? 0, column: problem.column ?? 0, text: "", message: problem.message };
}

/**
 * Errors of `after` that do not correspond to an error of `before`. Lines move when an edit adds
 * or removes lines, so errors are paired by what they are and the line they sit on, not by position.
 */
function unmatchedErrors(beforeText: string | undefined, before: SyntaxErrorLocation[], afterText: string, after: SyntaxErrorLocation[]): SyntaxErrorLocation[] {
  // Nothing to pair (the usual case): no need to split either text into lines.
  if (after.length === 0 || before.length === 0) return after;
  const signature = (lines: string[], error: SyntaxErrorLocation) => `${error.kind}\u0000${error.expected ?? ""}\u0000${error.text}\u0000${(lines[error.line - 1] ?? "").trim()}`;
  const remaining = new Map<string, number>();
  if (beforeText !== undefined) {
    const lines = splitLines(beforeText);
    for (const error of before) {
      const key = signature(lines, error);
      remaining.set(key, (remaining.get(key) ?? 0) + 1);
    }
  }
  const afterLines = splitLines(afterText);
  const unmatched: SyntaxErrorLocation[] = [];
  for (const error of after) {
    const key = signature(afterLines, error);
    const left = remaining.get(key) ?? 0;
    if (left > 0) remaining.set(key, left - 1);
    else unmatched.push(error);
  }
  return unmatched;
}

function inspectDocument(language: DocumentLanguage, before: string | undefined, after: string): SyntaxReport {
  const afterProblems = documentSyntaxProblems(language, after);
  const beforeProblems = before === undefined ? [] : documentSyntaxProblems(language, before);
  const report: SyntaxReport = {
    checked: true,
    language,
    beforeErrors: beforeProblems.length,
    afterErrors: afterProblems.length,
    newErrors: afterProblems.slice(0, LIMITS.patch.maxListedSyntaxErrors).map(issueFromDocument),
  };
  if (afterProblems.length > 0 && beforeProblems.length > 0) report.note = `The original did not parse as ${DOCUMENT_FORMAT_NAMES[language]} either.`;
  return report;
}

/**
 * Text that may start or end a token spanning lines (block comments, template literals, strings
 * continued with a backslash, JSX), or a hashbang that is only valid at the start of a file.
 */
const SPANNING = /\/\*|\*\/|`|\\|#!|[\u2028\u2029]/;
const SPANNING_JSX = /\/\*|\*\/|`|\\|#!|[\u2028\u2029<>]/;

/** The whole lines of `text` holding [start, end). */
function linesAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf("\n", start - 1) + 1;
  const newline = text.indexOf("\n", end);
  return text.slice(from, newline === -1 ? text.length : newline);
}

/**
 * The candidate's top-level statements from a parse of only the statements an edit touched, with
 * one unchanged statement on each side, when the original parsed without errors into `statements`;
 * undefined whenever that is not conclusive, and the whole candidate must be parsed.
 *
 * Why the answer equals the whole parse's: the text before the left neighbour and after the right
 * one is the original's, which parsed without errors and with statement boundaries at both
 * neighbours' outer edges. The parser reaches the left neighbour in the state it has at the start
 * of a file, and where a statement ends depends on the token after it: the window holds every
 * token next to changed text, and the neighbours coming back whole shows that both boundaries fall
 * where the whole parse puts them. What a cut window cannot show is a token that runs past its end
 * in the file (the lexer takes the longest match): the window ends at a line end, and the changed
 * lines may hold nothing that starts or ends a token spanning lines; the rest of the window is
 * text that lexed the same way in the original. The fuzz test in test/patch/local-syntax.test.ts
 * holds the local answer to the whole parse's.
 */
export function localStatements(language: LanguageId, before: string, after: string, statements: readonly TopLevelStatement[]): readonly TopLevelStatement[] | undefined {
  if (!statementRunsParseApart(language) || statements.length === 0 || before === after) return undefined;
  const changed = changedSpan(before, after);
  const shift = after.length - before.length;
  const originalEnd = changed.end - shift;
  const spanning = language === "typescript" ? SPANNING : SPANNING_JSX;
  if (spanning.test(linesAround(after, changed.start, changed.end)) || spanning.test(linesAround(before, changed.start, originalEnd))) return undefined;
  // Statements touching the change (ending at its start or starting at its end) count as changed.
  const firstChanged = lastIndexWhere(statements.length, (index) => statements[index]!.end < changed.start) + 1;
  const lastChanged = lastIndexWhere(statements.length, (index) => statements[index]!.start <= originalEnd);
  const left = firstChanged > 0 ? statements[firstChanged - 1] : undefined;
  const right = lastChanged + 1 < statements.length ? statements[lastChanged + 1] : undefined;
  // The right neighbour as it stands in the candidate.
  const rightAfter = right && shiftStatement(right, shift, 0);
  const start = left?.start ?? 0;
  const end = rightAfter?.end ?? after.length;
  const next = after.charCodeAt(end);
  if (end < after.length && next !== 10 && next !== 13) return undefined;
  // A window of most of the file saves nothing over parsing all of it.
  if (end - start > after.length * LOCAL_CHECK_MAX_SHARE) return undefined;
  const run = parseStatementRun(language, after, start, end, left?.startLine ?? 0);
  if (!run || run.statements.length === 0) return undefined;
  const found = run.statements;
  if ((left && !sameStatement(left, found[0])) || (rightAfter && !sameStatement(rightAfter, found[found.length - 1]))) return undefined;
  const result = [...statements.slice(0, Math.max(0, firstChanged - 1)), ...found];
  if (right) {
    const lineShift = found[found.length - 1]!.startLine - right.startLine;
    for (let index = lastChanged + 2; index < statements.length; index++) result.push(shiftStatement(statements[index]!, shift, lineShift));
  }
  return result;
}

function unknownLanguage(): SyntaxReport {
  return { checked: false, language: null, beforeErrors: 0, afterErrors: 0, newErrors: [], note: "The file's language is not known; syntax not checked." };
}

function failedCheck(filePath: string, languageId: LanguageId, error: unknown): SyntaxReport {
  log.warn("syntax check failed", { path: filePath, language: languageId, error });
  const reason = error instanceof Error ? error.message : String(error);
  return {
    checked: false,
    language: languageId,
    beforeErrors: 0,
    afterErrors: 0,
    newErrors: [],
    note: `The syntax check failed (${reason}); syntax not checked.`,
    cannotCheck: `the syntax check failed (${reason})`,
  };
}

export interface SyntaxInspection {
  report: SyntaxReport;
  /** The candidate's top-level statements, when asked for and its language has a tree parser. */
  statements?: TopLevelStatements;
}

function treeReport(language: LanguageId, before: string | undefined, after: string, parsedBefore: ErrorList | undefined, parsedAfter: ErrorList | undefined): SyntaxReport {
  if (!parsedAfter) {
    const unavailable = syntaxTreeUnavailable(language);
    if (unavailable !== undefined) {
      return {
        checked: false,
        language,
        beforeErrors: 0,
        afterErrors: 0,
        newErrors: [],
        note: `The ${language} parser did not load (${unavailable}); syntax not checked.`,
        cannotCheck: `the ${language} parser did not load (${unavailable})`,
      };
    }
    return { checked: false, language, beforeErrors: 0, afterErrors: 0, newErrors: [], note: `No syntax tree parser for ${language}; syntax not checked.` };
  }
  const beforeErrors = parsedBefore?.errors ?? [];
  const fresh = unmatchedErrors(before, beforeErrors, after, parsedAfter.errors);
  return {
    checked: true,
    language,
    beforeErrors: beforeErrors.length,
    afterErrors: parsedAfter.errorCount,
    newErrors: fresh.slice(0, LIMITS.patch.maxListedSyntaxErrors).map(issueFromTree),
  };
}

/** Error list of a checked text, and its top-level statements when the caller asked for them. */
interface ErrorList {
  errors: SyntaxErrorLocation[];
  errorCount: number;
  statements?: TopLevelStatements;
}

function textKey(language: LanguageId, text: string): string {
  return `${language}\0${sha256OfText(text)}`;
}

/** Sets `key` as the newest entry of `cache`, dropping the oldest beyond `limit`. */
function remember<V>(cache: Map<string, V>, key: string, value: V, limit: number): void {
  cache.delete(key);
  cache.set(key, value);
  while (cache.size > limit) cache.delete(cache.keys().next().value as string);
}

/**
 * The syntax guard with its memory of recently checked texts, owned by the writes service
 * (WriteServices.syntax): a candidate that gets written is the next edit's original, so its error
 * list saves one full parse per edit, and its top-level statements (read out of the tree, which is
 * not kept) let that edit parse only the statements around its change (see localStatements).
 */
export class SyntaxGuard {
  readonly #errors = new Map<string, ErrorList>();
  readonly #statements = new Map<string, readonly TopLevelStatement[]>();
  /** Candidates checked by localStatements so far (tests watch it). */
  localChecks = 0;

  /**
   * Reports the syntax errors `after` adds to `before` (undefined for a new file). Never throws: a
   * language without a parser, or a parser failure, gives checked: false with a note. Tree parses
   * run on the thread pool and are queued before this returns, so work the caller does before
   * awaiting (formatting the same candidate) runs alongside them. With `statements`, the
   * candidate's top-level statements come back too, from the same parse.
   */
  async inspect(filePath: string, languageId: LanguageId | null, before: string | undefined, after: string, options: { statements?: boolean } = {}): Promise<SyntaxInspection> {
    if (languageId === null) return { report: unknownLanguage() };
    try {
      if (isDocumentLanguage(languageId)) return { report: inspectDocument(languageId, before, after) };
      return await this.#inspectTree(languageId, before, after, options.statements === true);
    } catch (error) {
      return { report: failedCheck(filePath, languageId, error) };
    }
  }

  /** The top-level statements of `text` when a recent check parsed it for them; nothing is parsed here. */
  knownStatements(language: LanguageId, text: string): readonly TopLevelStatement[] | undefined {
    return this.#statements.get(textKey(language, text));
  }

  /** The error list of `text`, parsed on the thread pool: the parse starts before this returns, so the caller can format meanwhile. */
  async #errorsOf(language: LanguageId, text: string, withStatements = false): Promise<ErrorList | undefined> {
    const key = textKey(language, text);
    const known = this.#errors.get(key);
    // A text seen moments ago (the usual original) needs no parse, unless its statements are wanted and were not kept.
    if (known && !withStatements) return known;
    const kept = known && this.#statements.get(key);
    if (known && kept) return { ...known, statements: statementList(kept) };
    let entry: ErrorList;
    let root: SgRoot | undefined;
    if (known) {
      entry = known;
      root = await parseTreeAsync(language, text);
      if (!root) return known;
    } else {
      const parsed = await parseSourceAsync(language, text);
      if (!parsed) return undefined;
      entry = { errors: parsed.errors, errorCount: parsed.errorCount };
      remember(this.#errors, key, entry, SYNTAX_CACHE_ENTRIES);
      root = parsed.root;
    }
    if (!withStatements) return entry;
    const statements = topLevelStatements(root);
    // Read out once the caller has moved on (to its commit's I/O, usually): nobody waits for it.
    if (entry.errorCount === 0) {
      setImmediate(() => remember(this.#statements, key, Array.from({ length: statements.length }, (_, index) => statements.at(index)), STATEMENT_CACHE_ENTRIES));
    }
    return { ...entry, statements };
  }

  /**
   * The candidate's error list from localStatements when the original is a text checked moments ago
   * with no errors and its statements kept: a parse of a few statements instead of the whole file.
   * The result is remembered like a whole parse's, so the next edit of the file starts from it.
   */
  #checkedLocally(language: LanguageId, before: string, after: string): { before: ErrorList; after: ErrorList } | undefined {
    const beforeKey = textKey(language, before);
    const statements = this.#statements.get(beforeKey);
    const known = this.#errors.get(beforeKey);
    if (statements === undefined || known?.errorCount !== 0) return undefined;
    const found = localStatements(language, before, after, statements);
    if (found === undefined) return undefined;
    const key = textKey(language, after);
    const entry: ErrorList = { errors: [], errorCount: 0 };
    remember(this.#errors, key, entry, SYNTAX_CACHE_ENTRIES);
    remember(this.#statements, key, found, STATEMENT_CACHE_ENTRIES);
    this.localChecks++;
    return { before: known, after: { ...entry, statements: statementList(found) } };
  }

  async #inspectTree(language: LanguageId, before: string | undefined, after: string, withStatements: boolean): Promise<SyntaxInspection> {
    const local = before === undefined ? undefined : this.#checkedLocally(language, before, after);
    if (local !== undefined) {
      const report = treeReport(language, before, after, local.before, local.after);
      return withStatements ? { report, statements: local.after.statements! } : { report };
    }
    // Both parses are queued before the first await.
    const [parsedAfter, parsedBefore] = await Promise.all([this.#errorsOf(language, after, withStatements), before === undefined ? undefined : this.#errorsOf(language, before)]);
    const report = treeReport(language, before, after, parsedAfter === undefined ? undefined : parsedBefore, parsedAfter);
    return withStatements && parsedAfter?.statements ? { report, statements: parsedAfter.statements } : { report };
  }
}

function where(issue: SyntaxIssue): string {
  return issue.line === 0 ? issue.message : `line ${issue.line}, column ${issue.column}: ${issue.message}`;
}

/**
 * Throws syntax_regression when `report` shows the candidate adding errors, and syntax_unchecked when
 * a parser the language has could not check it (the guard never passes what it could not see);
 * returns it otherwise.
 */
export function refuseRegression(filePath: string, report: SyntaxReport): SyntaxReport {
  if (!report.checked) {
    if (report.cannotCheck === undefined) return report;
    throw new ToolError("syntax_unchecked", `${filePath} was not written: ${report.cannotCheck}, so the syntax guard cannot check it.`, {
      details: { language: report.language, reason: report.cannotCheck },
    });
  }
  const document = isDocumentLanguage(report.language) ? report.language : undefined;
  const refused = document !== undefined ? report.afterErrors > 0 : report.afterErrors > report.beforeErrors;
  if (!refused) return report;
  // More errors than before means at least one has no counterpart, so the list is never empty.
  const listed = report.newErrors.slice(0, 5).map(where).join("; ");
  const message = document !== undefined ?
    `${filePath} would not be valid ${DOCUMENT_FORMAT_NAMES[document]}: ${listed}.${report.note ? ` ${report.note}` : ""}` :
    `The edit adds syntax errors to ${filePath} (${report.beforeErrors} before, ${report.afterErrors} after): ${listed}.`;
  throw new ToolError("syntax_regression", message, {
    details: { language: report.language, beforeErrors: report.beforeErrors, afterErrors: report.afterErrors, newErrors: report.newErrors },
  });
}
