/**
 * Parsing of structured documents (JSON, JSONC, TOML, YAML) with located syntax problems.
 * Pure functions over text; callers turn a DocumentSyntaxError into their own error.
 */
// The ESM build: the UMD entry resolves its parts with a dynamic require a bundle cannot follow.
import { parse as parseJsonc, printParseErrorCode, type ParseError } from "jsonc-parser/lib/esm/main.js";
import { parse as parseToml, TomlError } from "smol-toml";
import { parseAllDocuments } from "yaml";
import { LIMITS } from "../core/limits.ts";
import type { DocumentLanguage } from "./language-names.ts";
import { lineColumnAt } from "../text/index.ts";

export interface SyntaxProblem {
  /** 1-based; null when the parser gives no position. */
  line: number | null;
  column: number | null;
  message: string;
}

/** Display names of the formats, as used in messages. */
export const DOCUMENT_FORMAT_NAMES: Readonly<Record<DocumentLanguage, string>> = { json: "JSON", jsonc: "JSONC", toml: "TOML", yaml: "YAML" };

export class DocumentSyntaxError extends Error {
  readonly format: DocumentLanguage;
  /** At most LIMITS.document.maxListedSyntaxErrors, in document order; may be empty when the parser gives no detail. */
  readonly problems: SyntaxProblem[];

  constructor(format: DocumentLanguage, problems: SyntaxProblem[]) {
    super(`not valid ${DOCUMENT_FORMAT_NAMES[format]}`);
    this.name = "DocumentSyntaxError";
    this.format = format;
    this.problems = problems;
  }
}

export interface ParsedDocument {
  value: unknown;
  documents: number;
  note: string | null;
}

function jsoncProblems(text: string, errors: ParseError[]): SyntaxProblem[] {
  return errors
    .slice(0, LIMITS.document.maxListedSyntaxErrors)
    .map((error) => ({ ...lineColumnAt(text, error.offset), message: printParseErrorCode(error.error) }));
}

function parseStrictJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // JSON.parse messages carry no reliable position across runtimes; a strict jsonc-parser pass locates the error.
    const errors: ParseError[] = [];
    try {
      parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    } catch {
      // Too deeply nested for the locating pass: report without a position.
    }
    throw new DocumentSyntaxError("json", jsoncProblems(text, errors));
  }
}

function parseJsoncText(text: string): unknown {
  const errors: ParseError[] = [];
  let value: unknown;
  try {
    value = parseJsonc(text, errors, { disallowComments: false, allowTrailingComma: true, allowEmptyContent: false });
  } catch {
    throw new DocumentSyntaxError("jsonc", []);
  }
  if (errors.length > 0) throw new DocumentSyntaxError("jsonc", jsoncProblems(text, errors));
  return value;
}

function parseTomlText(text: string): unknown {
  try {
    return parseToml(text, { integersAsBigInt: "asNeeded" });
  } catch (error) {
    if (error instanceof TomlError) {
      const message = (error.message.split("\n")[0] ?? "").replace(/^Invalid TOML document:\s*/, "");
      throw new DocumentSyntaxError("toml", [{ line: error.line, column: error.column, message }]);
    }
    throw error;
  }
}

type YamlDocuments = ReturnType<typeof parseAllDocuments>;

function yamlStream(text: string): YamlDocuments {
  return parseAllDocuments(text, { prettyErrors: false, logLevel: "silent" });
}

function yamlProblems(text: string, errors: Array<{ pos: [number, number]; message: string; code: string }>): SyntaxProblem[] {
  return errors.slice(0, LIMITS.document.maxListedSyntaxErrors).map((error) => ({
    ...lineColumnAt(text, error.pos[0]),
    message: error.message.split("\n")[0] ?? error.code,
  }));
}

/** The first document's value (a YAML stream may hold several; only the first one's errors count here). */
function parseYamlText(text: string): ParsedDocument {
  const documents = yamlStream(text);
  const first = documents[0];
  if (first === undefined) return { value: null, documents: 0, note: "The file holds no YAML document; the root is null." };
  if (first.errors.length > 0) throw new DocumentSyntaxError("yaml", yamlProblems(text, first.errors));
  let value: unknown;
  try {
    value = first.toJS({ maxAliasCount: LIMITS.document.maxYamlAliasCount });
  } catch (error) {
    throw new DocumentSyntaxError("yaml", [{ line: null, column: null, message: error instanceof Error ? error.message : String(error) }]);
  }
  const note = documents.length > 1 ? `The file holds ${documents.length} YAML documents; selectors apply to the first.` : null;
  return { value, documents: documents.length, note };
}

export function parseDocumentText(format: DocumentLanguage, text: string): ParsedDocument {
  switch (format) {
    case "json":
      return { value: parseStrictJson(text), documents: 1, note: null };
    case "jsonc":
      return { value: parseJsoncText(text), documents: 1, note: null };
    case "toml":
      return { value: parseTomlText(text), documents: 1, note: null };
    case "yaml":
      return parseYamlText(text);
  }
}

/**
 * Syntax problems of a whole document, [] when it is valid. Unlike parseDocumentText this checks
 * every document of a YAML stream and builds no values (so alias-heavy YAML is not a problem).
 */
export function documentSyntaxProblems(format: DocumentLanguage, text: string): SyntaxProblem[] {
  if (format === "yaml") {
    const errors = yamlStream(text).flatMap((document) => document.errors);
    return errors.length === 0 ? [] : yamlProblems(text, errors);
  }
  try {
    parseDocumentText(format, text);
    return [];
  } catch (error) {
    if (!(error instanceof DocumentSyntaxError)) throw error;
    return error.problems.length > 0 ? error.problems : [{ line: null, column: null, message: `not valid ${DOCUMENT_FORMAT_NAMES[format]}` }];
  }
}
