/**
 * The syntax guard: a candidate may not have more syntax errors than the text it replaces.
 * Source languages are parsed with ast-grep (ERROR and MISSING nodes); JSON, JSONC, TOML and YAML
 * candidates must parse with the same parsers document_query uses.
 */
import { ToolError } from "../core/errors.ts";
import { sha256Hex } from "../helpers/hash.ts";
import { LIMITS } from "../core/limits.ts";
import { log } from "../core/log.ts";
import { DOCUMENT_FORMAT_NAMES, documentSyntaxProblems, type SyntaxProblem } from "../helpers/documents.ts";
import { DOCUMENT_LANGUAGES, type DocumentLanguage } from "../helpers/language.ts";
import { parseSource, type LanguageId, type SyntaxErrorLocation } from "../intel/languages.ts";

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
}

function isDocumentId(id: LanguageId): id is DocumentLanguage {
  return (DOCUMENT_LANGUAGES as readonly string[]).includes(id);
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
  const signature = (lines: string[], error: SyntaxErrorLocation) =>
    `${error.kind}\u0000${error.expected ?? ""}\u0000${error.text}\u0000${(lines[error.line - 1] ?? "").trim()}`;
  const remaining = new Map<string, number>();
  if (beforeText !== undefined) {
    const lines = beforeText.split(/\r\n|\r|\n/);
    for (const error of before) {
      const key = signature(lines, error);
      remaining.set(key, (remaining.get(key) ?? 0) + 1);
    }
  }
  const afterLines = afterText.split(/\r\n|\r|\n/);
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
 * Error lists of recently checked texts: a candidate that gets written is the next edit's original,
 * so remembering it saves one full parse per edit.
 */
const recentErrors = new Map<string, { errors: SyntaxErrorLocation[]; errorCount: number }>();
const RECENT_ERROR_LISTS = 32;

function errorsOf(language: LanguageId, text: string): { errors: SyntaxErrorLocation[]; errorCount: number } | undefined {
  const key = `${language}\0${sha256Hex(Buffer.from(text, "utf8"))}`;
  const known = recentErrors.get(key);
  if (known) return known;
  const parsed = parseSource(language, text);
  if (!parsed) return undefined;
  const entry = { errors: parsed.errors, errorCount: parsed.errorCount };
  recentErrors.set(key, entry);
  while (recentErrors.size > RECENT_ERROR_LISTS) recentErrors.delete(recentErrors.keys().next().value as string);
  return entry;
}

function inspectTree(language: LanguageId, before: string | undefined, after: string): SyntaxReport {
  const parsedAfter = errorsOf(language, after);
  if (!parsedAfter) {
    return { checked: false, language, beforeErrors: 0, afterErrors: 0, newErrors: [], note: `No syntax tree parser for ${language}; syntax not checked.` };
  }
  const parsedBefore = before === undefined ? undefined : errorsOf(language, before);
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

/**
 * Reports the syntax errors `after` adds to `before` (undefined for a new file). Never throws:
 * a language without a parser, or a parser failure, gives checked: false with a note.
 */
export function inspectSyntax(filePath: string, languageId: LanguageId | null, before: string | undefined, after: string): SyntaxReport {
  if (languageId === null || languageId === "") {
    return { checked: false, language: null, beforeErrors: 0, afterErrors: 0, newErrors: [], note: "The file's language is not known; syntax not checked." };
  }
  try {
    if (isDocumentId(languageId)) return inspectDocument(languageId, before, after);
    return inspectTree(languageId, before, after);
  } catch (error) {
    log.warn("syntax check failed", { path: filePath, language: languageId, error });
    const reason = error instanceof Error ? error.message : String(error);
    return { checked: false, language: languageId, beforeErrors: 0, afterErrors: 0, newErrors: [], note: `The syntax check failed (${reason}); syntax not checked.` };
  }
}

function where(issue: SyntaxIssue): string {
  return issue.line === 0 ? issue.message : `line ${issue.line}, column ${issue.column}: ${issue.message}`;
}

/**
 * inspectSyntax, refusing with syntax_regression when the candidate has more errors than the
 * original, or when a JSON, JSONC, TOML or YAML candidate does not parse.
 */
export function checkSyntax(filePath: string, languageId: LanguageId | null, before: string | undefined, after: string): SyntaxReport {
  const report = inspectSyntax(filePath, languageId, before, after);
  if (!report.checked) return report;
  const document = report.language !== null && isDocumentId(report.language) ? report.language : undefined;
  const refused = document !== undefined ? report.afterErrors > 0 : report.afterErrors > report.beforeErrors;
  if (!refused) return report;
  // More errors than before means at least one has no counterpart, so the list is never empty.
  const listed = report.newErrors.slice(0, 5).map(where).join("; ");
  const message =
    document !== undefined
      ? `${filePath} would not be valid ${DOCUMENT_FORMAT_NAMES[document]}: ${listed}.${report.note ? ` ${report.note}` : ""}`
      : `The edit adds syntax errors to ${filePath} (${report.beforeErrors} before, ${report.afterErrors} after): ${listed}.`;
  throw new ToolError("syntax_regression", message, {
    details: { language: report.language, beforeErrors: report.beforeErrors, afterErrors: report.afterErrors, newErrors: report.newErrors },
  });
}
