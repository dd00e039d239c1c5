/**
 * document_query: values from JSON, JSONC, TOML and YAML files selected by RFC 6901 JSON Pointers.
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { DOCUMENT_FORMAT_NAMES, DocumentSyntaxError, parseDocumentText, type ParsedDocument, type SyntaxProblem } from "../syntax/index.ts";
import { evaluatePointer, parsePointer, PointerSyntaxError } from "../helpers/json-pointer.ts";
import { capJsonValue, jsonBytes, normalizeValue, valueTypeOf, type ValueType } from "../helpers/json-value.ts";
import { DOCUMENT_LANGUAGES, type DocumentLanguage, isDocumentLanguage, languageOf } from "../syntax/index.ts";
import { capText } from "../helpers/text-cap.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { TEXT_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { ItemErrorSchema, loadTextFile, PathInput, renderItemError, resolveReadableFile, type ItemError } from "./common.ts";

const VALUE_TYPES = ["object", "array", "string", "number", "boolean", "null", "datetime", "bigint"] as const satisfies readonly ValueType[];

/** Rendered characters set aside per selector for its label and annotations. */
const RENDER_OVERHEAD_PER_SELECTOR = 160;

const SelectorResult = z.object({
  selector: z.string().describe("The selector as given."),
  found: z.boolean().describe("Whether the selector names a value in the document."),
  type: z
    .enum(VALUE_TYPES)
    .nullable()
    .describe("Type of the value; datetime (TOML dates, given as ISO text) and bigint (integers beyond 2^53, given as decimal text) extend JSON's types. Null when not found."),
  value: z
    .unknown()
    .optional()
    .describe("The value as JSON; infinite and NaN numbers appear as \"inf\", \"-inf\", \"nan\". Absent when not found."),
  truncated: z.boolean().describe("Whether value was cut to fit the size limit: strings keep a prefix, arrays and objects their leading entries."),
  bytes: z.number().int().optional().describe("Size of the whole value as compact JSON, before any cut."),
  existingPrefix: z.string().optional().describe("When not found: the deepest pointer on the way that exists."),
  availableKeys: z.array(z.string()).optional().describe(`When not found below an object: up to ${LIMITS.document.maxSuggestedKeys} of its keys.`),
  arrayLength: z.number().int().optional().describe("When not found below an array: its length (valid indices are 0 to length-1)."),
  error: ItemErrorSchema.optional().describe("Set when the selector itself is invalid."),
});
type SelectorResultInput = z.input<typeof SelectorResult>;

export const documentQueryTool = defineTool({
  name: "document_query",
  title: "Query a structured document",
  description:
    `Read values from a JSON, JSONC, TOML or YAML file by JSON Pointer (RFC 6901: "/compilerOptions/strict", "/items/0", "~1" for "/" and "~0" for "~" inside a key; "" is the whole document). Up to ${LIMITS.document.maxSelectors} selectors per call; each value is capped at ${LIMITS.document.maxValueBytes} bytes of JSON. YAML files with several documents are queried in their first document.`,
  input: z.strictObject({
    filePath: PathInput.describe("The document's path, absolute or relative to the first root; the format follows the extension (.json, .jsonc, .toml, .yaml, .yml)."),
    selectors: z
      .array(z.string().max(LIMITS.pathChars).describe("An RFC 6901 JSON Pointer."))
      .min(1)
      .max(LIMITS.document.maxSelectors)
      .describe(`JSON Pointers to look up, 1 to ${LIMITS.document.maxSelectors}; an invalid one is reported for that selector only.`),
  }),
  output: z.object({
    path: z.string().describe("The file's path as the workspace displays it; usable as input to any tool."),
    sha256: z.string().describe("Lowercase hex SHA-256 of the whole file's raw bytes."),
    format: z.enum(DOCUMENT_LANGUAGES).describe("How the file was parsed."),
    documents: z.number().int().describe("Documents in the file (YAML streams may hold several; otherwise 1)."),
    note: z.string().nullable().describe("Anything the caller should know about how the selectors were applied."),
    results: z.array(SelectorResult).describe("One entry per selector, in order."),
    ...Completeness,
  }),
  annotations: READ_ONLY,
  errors: [...TEXT_ERRORS, "invalid_selector", "unsupported_document", "parse_error"],
  handler: async ({ filePath, selectors }, context) => {
    const resolved = await resolveReadableFile(context, filePath);
    const format = languageOf(resolved.relative, undefined, context.config.config.languages.overrides);
    if (!isDocumentLanguage(format)) {
      throw new ToolError("unsupported_document", `${resolved.display} is not a JSON, JSONC, TOML or YAML file by its name or [languages].overrides.`);
    }
    const loaded = await loadTextFile(
      resolved,
      LIMITS.document.maxFileBytes,
      `Documents over ${LIMITS.document.maxFileBytes} bytes are not parsed; read the part you need with file_read.`,
    );
    const parsed = parseDocument(format, loaded.text, resolved.display);

    let budget = Math.max(0, LIMITS.output.maxTextChars - selectors.length * RENDER_OVERHEAD_PER_SELECTOR);
    const results: SelectorResultInput[] = selectors.map((selector) => {
      let tokens: string[];
      try {
        tokens = parsePointer(selector);
      } catch (error) {
        if (!(error instanceof PointerSyntaxError)) throw error;
        const invalid = new ToolError("invalid_selector", `Invalid selector ${JSON.stringify(selector)}: ${error.message}.`);
        return { selector, found: false, type: null, truncated: false, error: { code: invalid.code, message: invalid.message, hint: invalid.hint, retryable: invalid.retryable } };
      }
      const lookup = evaluatePointer(parsed.value, tokens);
      if (!lookup.found) {
        const missing: SelectorResultInput = { selector, found: false, type: null, truncated: false, existingPrefix: lookup.existingPrefix };
        if (Array.isArray(lookup.parent)) missing.arrayLength = lookup.parent.length;
        else if (lookup.parent !== null && typeof lookup.parent === "object") missing.availableKeys = Object.keys(lookup.parent).slice(0, LIMITS.document.maxSuggestedKeys);
        return missing;
      }
      const normalized = normalizeValue(lookup.value, LIMITS.document.maxValueDepth);
      const capped = capJsonValue(normalized.value, Math.min(LIMITS.document.maxValueBytes, budget));
      budget = Math.max(0, budget - jsonBytes(capped.value));
      return {
        selector,
        found: true,
        type: valueTypeOf(lookup.value),
        value: capped.value,
        truncated: capped.truncated || normalized.depthCut,
        bytes: capped.bytes,
      };
    });

    const cuts = results.filter((item) => item.truncated).map((item) =>
      `document.maxValueBytes = ${LIMITS.document.maxValueBytes} (or depth ${LIMITS.document.maxValueDepth}, or the output limit) cut ${
        JSON.stringify(item.selector)
      }: select a deeper pointer`
    );
    return { path: resolved.display, sha256: loaded.sha256, format, documents: parsed.documents, note: parsed.note, results, ...completeness(undefined, cuts) };
  },
  render: (result) => {
    const header = [`${result.path} · ${result.format} · sha256 ${result.sha256}`];
    if (result.note) header.push(result.note);
    const lines = [...header, ...result.results.map(renderSelectorResult)];
    return capText(renderIncomplete(result, lines), LIMITS.output.maxTextChars);
  },
});

function renderSelectorResult(item: z.output<typeof SelectorResult>): string {
  const label = item.selector === "" ? "\"\" (whole document)" : item.selector;
  if (item.error) return renderItemError(label, item.error as ItemError);
  if (!item.found) {
    let where = item.existingPrefix === "" ? "the document root" : (item.existingPrefix ?? "the document root");
    if (item.availableKeys !== undefined) where += item.availableKeys.length > 0 ? ` has keys: ${item.availableKeys.join(", ")}` : " is empty";
    else if (item.arrayLength !== undefined) where += ` is an array of length ${item.arrayLength}`;
    else where += " is not an object or array";
    return `${label}: not found (${where})`;
  }
  const cut = item.truncated ? `, cut from ${item.bytes} bytes` : "";
  return `${label} = ${JSON.stringify(item.value)} (${item.type}${cut})`;
}

// ---------------------------------------------------------------- parsing

function parseDocument(format: DocumentLanguage, text: string, display: string): ParsedDocument {
  try {
    return parseDocumentText(format, text);
  } catch (error) {
    if (error instanceof DocumentSyntaxError) throw parseError(display, DOCUMENT_FORMAT_NAMES[error.format], error.problems);
    throw error;
  }
}

function at(problem: SyntaxProblem): string {
  return problem.line === null ? "" : ` at line ${problem.line}, column ${problem.column}`;
}

function parseError(display: string, format: string, problems: SyntaxProblem[]): ToolError {
  const first = problems[0];
  const where = first ? `${at(first)}: ${first.message}` : "";
  const more = problems.length > 1 ? ` (then${problems.slice(1).map((problem) => `${at(problem)}: ${problem.message}`).join(";")})` : "";
  return new ToolError("parse_error", `${display} is not valid ${format}${where}${more}.`, {
    details: { line: first?.line ?? null, column: first?.column ?? null, errors: problems },
  });
}
