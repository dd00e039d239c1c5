/**
 * Read-only file tools: file_hash (streamed SHA-256), file_read (bounded line ranges of text)
 * and file_capabilities (what a file is and what may be done with it).
 */
import { stat } from "node:fs/promises";
import { z } from "zod";
import { firstLineOf, isDocumentLanguage, kindOf, type LanguageId, languageOf, LANGUAGES, supportsSyntaxTree } from "../syntax/index.ts";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { decodeText, detectBom, type DetectedEncoding, detectLineEnding, hasFinalNewline, looksBinary, splitLines, takeLineWindow, usesTabIndentation } from "../text/index.ts";
import { capText } from "../helpers/text-cap.ts";
import type { Operation, ResolvedPath } from "../policy/workspace.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { FILE_ERRORS, SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./contract.ts";
import { OutlineSymbol, renderSymbol, symbolOut, visibleSymbols } from "./outline.ts";
import { renderShowResult, ShowResult, showSymbols } from "./show.ts";
import {
  DecisionOut,
  decisionOut,
  FailedPath,
  hashFileStream,
  loadTextFile,
  PathInput,
  plural,
  readWholeOrHead,
  renderItemError,
  resolveReadableFile,
  toItemError,
  type ItemError,
} from "./common.ts";

const FilePathInput = PathInput.describe("A file path, absolute or relative to the first root.");
const ResultPath = z.string().describe("The file's path as the workspace displays it; usable as input to any tool.");
const Sha256 = z.string().describe("Lowercase hex SHA-256 of the file's raw bytes.");

const FilePathsInput = z
  .array(FilePathInput)
  .min(1)
  .max(LIMITS.batchPaths)
  .describe(`Files to process, 1 to ${LIMITS.batchPaths}; a failure on one file is reported for that file only.`);

/**
 * Runs each batch item, in order, on its path resolved as a readable file. A tool or I/O failure
 * becomes that item's error (under its displayed path once resolved, else as given); aborts and bugs
 * still propagate.
 */
async function eachFile<I, T>(
  context: ToolContext,
  items: readonly I[],
  pathOf: (item: I) => string,
  run: (resolved: ResolvedPath, item: I) => Promise<T>,
): Promise<Array<T | { path: string; error: ItemError }>> {
  const results: Array<T | { path: string; error: ItemError }> = [];
  for (const item of items) {
    context.signal.throwIfAborted();
    let display = pathOf(item);
    try {
      const resolved = await resolveReadableFile(context, pathOf(item));
      display = resolved.display;
      results.push(await run(resolved, item));
    } catch (error) {
      if (context.signal.aborted) throw error;
      results.push({ path: display, error: toItemError(error, display) });
    }
  }
  return results;
}

function isFailed(item: object): item is { path: string; error: ItemError } {
  return "error" in item;
}

// ---------------------------------------------------------------- file_hash

const HashedFile = z.object({
  path: ResultPath,
  sha256: Sha256,
  size: z.number().int().describe("File size in bytes."),
});

export const fileHashTool = defineTool({
  name: "file_hash",
  title: "Hash files",
  description:
    "SHA-256 and size of each file's raw bytes, without content. Use it to check whether files changed and to get the expectedSha256 guarded writes require. Works on any file, text or binary.",
  input: z.strictObject({ filePaths: FilePathsInput }),
  output: z.object({ files: z.array(z.union([HashedFile, FailedPath])).describe("One entry per requested path, in order.") }),
  annotations: READ_ONLY,
  errors: FILE_ERRORS,
  handler: async ({ filePaths }, context) => ({
    files: await eachFile(context, filePaths, (filePath) => filePath, async (resolved) => {
      const { sha256, size } = await hashFileStream(resolved, context.signal);
      return { path: resolved.display, sha256, size };
    }),
  }),
  render: ({ files }) =>
    capText(
      files.map((item) => (isFailed(item) ? renderItemError(item.path, item.error) : `${item.sha256}  ${plural(item.size, "byte")}  ${item.path}`)).join("\n"),
      LIMITS.output.maxTextChars,
    ),
});

// ---------------------------------------------------------------- file_read

const LINE_ENDINGS = ["lf", "crlf", "cr", "mixed", "none"] as const;
const READ_MODES_IN = ["text", "ast", "auto"] as const;
const TEXT_ENCODINGS = ["utf-8", "utf-8-bom", "utf-16le", "utf-16be"] as const;

/** Narrowest line-number gutter in the rendering ("  12| text"). */
const MIN_GUTTER = 4;
/** Rendered characters set aside per file for its header and continuation note. */
const RENDER_OVERHEAD_PER_FILE = 320;

const ReadRequest = z.strictObject({
  filePath: FilePathInput,
  startLine: z.number().int().min(1).optional().describe("First line to return, 1-based (default 1)."),
  endLine: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Last line to return, inclusive; clamped to the file's last line. Default: startLine + ${LIMITS.read.defaultMaxLines - 1} (${LIMITS.read.defaultMaxLines} lines).`,
    ),
  maxBytes: z
    .number()
    .int()
    .min(1)
    .max(LIMITS.read.maxBytesCeiling)
    .optional()
    .describe(`Most UTF-8 bytes of content to return for this file (default ${LIMITS.read.defaultMaxBytes}); the range stops at the last whole line that fits.`),
  mode: z
    .enum(READ_MODES_IN)
    .optional()
    .describe(
      `text (default): the line range. ast: the file's outline (declarations with line ranges and signatures, no bodies), or with symbols the source of those symbols. auto: the outline for a source file larger than ${LIMITS.intel.outline.autoOutlineBytes} bytes read without startLine/endLine (or when symbols are given), the text otherwise.`,
    ),
  symbols: z
    .array(z.string().min(1).max(500))
    .min(1)
    .max(LIMITS.intel.outline.maxSymbols)
    .optional()
    .describe("With mode ast or auto: symbols whose source to return, by name or qualified suffix (\"Class.method\"), as the show tool does."),
});

const ReadFile = z.object({
  path: ResultPath,
  sha256: Sha256.describe("Lowercase hex SHA-256 of the whole file's raw bytes (not just the returned lines)."),
  size: z.number().int().describe("File size in bytes."),
  encoding: z.enum(TEXT_ENCODINGS).describe("Text encoding: UTF-8, or as announced by a byte-order mark."),
  bom: z.boolean().describe("Whether the file starts with a byte-order mark."),
  lineEnding: z.enum(LINE_ENDINGS).describe("The file's line terminators: one kind, mixed, or none (a single line)."),
  usesTabs: z.boolean().describe("Whether some line is indented with a tab."),
  finalNewline: z.boolean().describe("Whether the file ends with a line terminator."),
  totalLines: z.number().int().describe("Lines in the whole file; a final terminator does not start another line."),
  startLine: z.number().int().describe("First line returned, 1-based."),
  endLine: z.number().int().describe("Last line returned, inclusive (startLine - 1 when no line was returned)."),
  content: z
    .string()
    .describe("The returned lines joined with \"\\n\" and without a trailing newline, whatever the file's own terminators (see lineEnding)."),
  hasMore: z.boolean().describe("Whether the file has lines after endLine."),
  nextStartLine: z.number().int().nullable().describe("startLine for the next call to continue, or null at the end of the file."),
  truncated: z.boolean().describe("Whether less than the requested range was returned (see limitedBy and cutLine)."),
  limitedBy: z
    .enum(["maxLines", "maxBytes", "outputLimit"])
    .nullable()
    .describe(
      `What stopped the range early: the default line count (no endLine given), maxBytes, or the ${LIMITS.output.maxTextChars}-character output limit shared by all files of the call. Null when the requested range was returned whole.`,
    ),
  cutLine: z
    .object({ line: z.number().int(), keptChars: z.number().int(), totalChars: z.number().int() })
    .nullable()
    .describe("Set when a single line was longer than the budget and only its beginning is in content."),
});

const AstReadFile = z.object({
  path: ResultPath,
  mode: z.literal("ast").describe("This entry is a syntax-tree read: an outline or symbol sources instead of lines."),
  sha256: Sha256.describe("Lowercase hex SHA-256 of the whole file's raw bytes."),
  size: z.number().int().describe("File size in bytes."),
  language: z.string().describe("The language the file was parsed as."),
  totalLines: z.number().int().describe("Lines in the whole file."),
  parseErrors: z.number().int().describe("Syntax errors in the file; declarations near them may be missing."),
  outline: z.array(OutlineSymbol).optional().describe("Without symbols: the declarations, in file order."),
  outlineTotal: z.number().int().optional().describe("Declarations the outline has (more than listed when the output limit cut it)."),
  symbols: z.array(ShowResult).optional().describe("With symbols: one result per requested name."),
  truncated: z.boolean().describe("Whether the output limit cut the outline or a symbol's source."),
});

export const fileReadTool = defineTool({
  name: "file_read",
  title: "Read text files",
  description:
    `Read line ranges of text files (1-based, inclusive), with each file's SHA-256, line count, encoding and line-ending style. Reads are bounded: by default ${LIMITS.read.defaultMaxLines} lines or ${LIMITS.read.defaultMaxBytes} bytes per file; when more remains, hasMore is true and nextStartLine says where to continue. Binary files and invalid encodings are refused. mode "ast" returns a source file's outline (or named symbols' source) instead of lines; "auto" does that for large source files.`,
  input: z.strictObject({
    files: z
      .array(ReadRequest)
      .min(1)
      .max(LIMITS.batchPaths)
      .describe(`Files and ranges to read, 1 to ${LIMITS.batchPaths}; a failure on one file is reported for that file only.`),
  }),
  output: z.object({ files: z.array(z.union([ReadFile, AstReadFile, FailedPath])).describe("One entry per request, in order."), ...Completeness }),
  annotations: READ_ONLY,
  errors: [...SOURCE_ERRORS, "invalid_range"],
  handler: async ({ files }, context) => {
    let outputBudget = Math.max(0, LIMITS.output.maxTextChars - files.length * RENDER_OVERHEAD_PER_FILE);
    let returnedAnyContent = false;
    const cuts: string[] = [];
    const results = await eachFile(context, files, (request) => request.filePath, async (resolved, request): Promise<ReadFileResult | AstReadFileResult> => {
      if (await wantsAst(request, resolved, context)) {
        const item = await readAst(request, resolved, context, outputBudget);
        outputBudget = Math.max(0, outputBudget - renderAstRead(item).length);
        if (item.truncated) cuts.push(`${item.path}: output limit = ${LIMITS.output.maxTextChars} characters; read fewer files per call, ask for fewer symbols, or use map`);
        return item;
      }
      const loaded = await loadTextFile(
        resolved,
        LIMITS.read.maxDecodeBytes,
        `Files over ${LIMITS.read.maxDecodeBytes} bytes are not decoded; use file_hash for their identity.`,
      );
      const lines = splitLines(loaded.text);
      const totalLines = lines.length;
      const startLine = request.startLine ?? 1;
      if (request.endLine !== undefined && request.endLine < startLine) {
        throw new ToolError("invalid_range", `endLine ${request.endLine} is before startLine ${startLine}.`);
      }
      // An empty file still answers the default range (line 1) with no content.
      if (startLine > Math.max(totalLines, 1)) {
        throw new ToolError("invalid_range", `startLine ${startLine} is past the end of ${resolved.display}, which has ${plural(totalLines, "line")}.`);
      }
      const wantedEnd = Math.min(request.endLine ?? startLine + LIMITS.read.defaultMaxLines - 1, totalLines);
      const window = takeLineWindow(lines, {
        startLine,
        endLine: wantedEnd,
        maxBytes: request.maxBytes ?? LIMITS.read.defaultMaxBytes,
        maxChars: outputBudget,
        perLineOverhead: gutterWidth(wantedEnd) + 3,
        // Cutting a huge first line keeps every call useful, but only the first file gets to spend the shared budget that way.
        cutFirstLineAtOutputLimit: !returnedAnyContent,
      });
      outputBudget = Math.max(0, outputBudget - window.charsUsed);
      if (window.lines.length > 0) returnedAnyContent = true;
      const hasMore = window.endLine < totalLines;
      const limitedBy: ReadFileResult["limitedBy"] = window.limitedBy ?? (request.endLine === undefined && hasMore ? "maxLines" : null);
      if (limitedBy !== null || window.cutLine !== null) {
        const key = {
          maxLines: `read.defaultMaxLines = ${LIMITS.read.defaultMaxLines}`,
          maxBytes: `maxBytes = ${request.maxBytes ?? LIMITS.read.defaultMaxBytes}`,
          outputLimit: `output limit = ${LIMITS.output.maxTextChars} characters`,
        }[limitedBy ?? "outputLimit"];
        const line = window.cutLine === null ? "" : ` (line ${window.cutLine.line} cut to ${window.cutLine.keptChars} characters)`;
        cuts.push(`${resolved.display}: ${key}${line}${hasMore ? `; call again with startLine ${window.endLine + 1}` : ""}`);
      }
      return {
        path: resolved.display,
        sha256: loaded.sha256,
        size: loaded.bytes.length,
        encoding: loaded.encoding,
        bom: loaded.bom,
        lineEnding: detectLineEnding(loaded.text),
        usesTabs: usesTabIndentation(loaded.text),
        finalNewline: hasFinalNewline(loaded.text),
        totalLines,
        startLine,
        endLine: window.endLine,
        content: window.lines.join("\n"),
        hasMore,
        nextStartLine: hasMore ? window.endLine + 1 : null,
        truncated: limitedBy !== null || window.cutLine !== null,
        limitedBy,
        cutLine: window.cutLine,
      };
    });
    return { files: results, ...completeness(undefined, cuts) };
  },
  render: (result) => {
    const lines = [result.files.map(renderReadFile).join("\n\n")];
    return capText(renderIncomplete(result, lines), LIMITS.output.maxTextChars);
  },
});

type AstReadFileResult = z.output<typeof AstReadFile>;

/**
 * mode "ast" always; mode "auto" when symbols are asked for, or for a source file with a parser
 * that is larger than the auto threshold and read without a line range.
 */
async function wantsAst(request: z.output<typeof ReadRequest>, resolved: ResolvedPath, context: ToolContext): Promise<boolean> {
  const mode = request.mode ?? "text";
  if (mode === "text") {
    if (request.symbols !== undefined) {
      throw new ToolError("invalid_input", "symbols apply to mode \"ast\" (or \"auto\"), not to text reads.", { hint: "Add mode: \"ast\", or use the show tool." });
    }
    return false;
  }
  if (mode === "ast") {
    if (request.startLine !== undefined || request.endLine !== undefined) {
      throw new ToolError("invalid_input", "startLine and endLine apply to mode \"text\"; mode \"ast\" returns the outline or named symbols.", {
        hint: "Drop the range, or read it with mode \"text\".",
      });
    }
    return true;
  }
  if (request.symbols !== undefined) return true;
  if (request.startLine !== undefined || request.endLine !== undefined) return false;
  const stats = await stat(resolved.real);
  if (stats.size <= LIMITS.intel.outline.autoOutlineBytes) return false;
  const language = context.services.indexes.forContext(context).languageFor(resolved.relative);
  // Data and prose (JSON, YAML, Markdown) read better as text.
  return language !== undefined && kindOf(language as LanguageId, false) === "source";
}

async function readAst(request: z.output<typeof ReadRequest>, resolved: ResolvedPath, context: ToolContext, outputBudget: number): Promise<AstReadFileResult> {
  const { file, text } = await context.services.indexes.forContext(context).load(resolved);
  const item: AstReadFileResult = {
    path: file.display,
    mode: "ast",
    sha256: file.sha256,
    size: file.size,
    language: file.language,
    totalLines: file.lines,
    parseErrors: file.facts.parseErrors,
    truncated: false,
  };
  // The output limit is shared by every file of the call; a token budget on top of it keeps one read modest.
  const maxTokens = LIMITS.intel.outline.defaultShowTokens;
  if (request.symbols !== undefined) {
    const shown = showSymbols(file, text, request.symbols, Math.max(100, Math.min(maxTokens, Math.floor(outputBudget / 3))));
    item.symbols = shown.results;
    item.truncated = shown.truncated;
    return item;
  }
  const symbols = visibleSymbols(file.facts.symbols, false).map(({ symbol, depth }) => symbolOut(symbol, depth, "signatures", true));
  item.outline = [];
  item.outlineTotal = symbols.length;
  let chars = 0;
  for (const symbol of symbols) {
    const line = renderSymbol(symbol);
    if (chars + line.length + 1 > outputBudget) {
      item.truncated = true;
      break;
    }
    chars += line.length + 1;
    item.outline.push(symbol);
  }
  return item;
}

function renderAstRead(item: AstReadFileResult): string {
  const errors = item.parseErrors > 0 ? ` · ${plural(item.parseErrors, "parse error")}` : "";
  const out = [`${item.path} · ast · ${item.language} · ${plural(item.totalLines, "line")}${errors} · sha256 ${item.sha256}`];
  for (const symbol of item.outline ?? []) out.push(renderSymbol(symbol));
  for (const result of item.symbols ?? []) out.push(...renderShowResult(result));
  if (item.outline && item.outlineTotal !== undefined && item.outline.length < item.outlineTotal) {
    out.push(`[${item.outlineTotal - item.outline.length} more declarations not shown (output limit); read fewer files per call or use map]`);
  } else if (item.truncated) {
    out.push("[cut by the output limit; ask for fewer symbols per call]");
  }
  if (item.outline) out.push("[outline only: file_read mode \"text\" with startLine/endLine for lines, show for bodies]");
  return out.join("\n");
}

function gutterWidth(lastLine: number): number {
  return Math.max(MIN_GUTTER, String(lastLine).length);
}

type ReadFileResult = z.output<typeof ReadFile>;

function renderReadFile(item: ReadFileResult | AstReadFileResult | { path: string; error: ItemError }): string {
  if (isFailed(item)) return renderItemError(item.path, item.error);
  if ("mode" in item) return renderAstRead(item);
  const traits: string[] = [item.encoding, item.lineEnding === "none" ? "no line breaks" : `${item.lineEnding} line endings`];
  if (item.usesTabs) traits.push("tab indentation");
  if (!item.finalNewline && item.totalLines > 0) traits.push("no final newline");
  const range = item.totalLines === 0 ?
    "empty file" :
    item.endLine < item.startLine ?
    `no lines returned of ${item.totalLines}` :
    `lines ${item.startLine}-${item.endLine} of ${item.totalLines}`;
  const out = [`${item.path} · ${range} · ${traits.join(", ")} · sha256 ${item.sha256}`];
  if (item.endLine >= item.startLine) {
    const width = gutterWidth(item.endLine);
    item.content.split("\n").forEach((text, index) => {
      out.push(`${String(item.startLine + index).padStart(width)}| ${text}`);
    });
  }
  if (item.cutLine) {
    out.push(`[line ${item.cutLine.line} cut: ${item.cutLine.keptChars} of ${item.cutLine.totalChars} characters shown]`);
  }
  if (item.hasMore && item.nextStartLine !== null) {
    const why = item.limitedBy === "outputLimit" ? " (output limit of this call reached)" : item.limitedBy === "maxBytes" ? " (maxBytes reached)" : "";
    out.push(`[${plural(item.totalLines - item.endLine, "more line")}${why}; continue with startLine ${item.nextStartLine}]`);
  }
  return out.join("\n");
}

// ---------------------------------------------------------------- file_capabilities

const READ_MODES = ["text", "document"] as const;
/** Bytes examined for a shebang when the file as a whole does not decode. */
const SHEBANG_PEEK_BYTES = 256;
const OPERATIONS: readonly Operation[] = ["read", "write", "delete"];

const FileCapabilities = z.object({
  path: ResultPath,
  size: z.number().int().describe("File size in bytes."),
  kind: z.enum(["source", "document", "text", "binary"]).describe(
    "source: a programming or markup language; document: data or prose (JSON, YAML, TOML, Markdown); text: other text; binary.",
  ),
  language: z.enum(LANGUAGES).nullable().describe("Language by file name, extension or shebang; null when unknown."),
  encoding: z
    .enum([...TEXT_ENCODINGS, "unknown"])
    .nullable()
    .describe("Text encoding; \"unknown\" when the bytes are not valid UTF-8 (or not valid in their BOM's encoding); null for binary files and files too large to decode."),
  bom: z.boolean().describe("Whether the file starts with a byte-order mark."),
  lineEnding: z.enum(LINE_ENDINGS).nullable().describe("Line terminator style; null when the file is not decodable text."),
  readModes: z.array(z.enum(READ_MODES)).describe("How the file can be read now: text (file_read) and document (document_query)."),
  patchStrategies: z
    .array(z.enum(["aider_block", "ast"]))
    .describe("file_patch strategies this file supports: aider_block for any editable text file, ast where a syntax tree parser exists."),
  policy: z
    .object({ read: DecisionOut, write: DecisionOut, delete: DecisionOut })
    .describe("What the workspace policy decides for each operation on this path."),
  parseHealth: z
    .object({
      language: z.string().describe("The language the file parses as."),
      parseErrors: z.number().int().describe("Syntax errors in the file (0 = clean parse)."),
      symbols: z.number().int().describe("Declarations in the file's outline (what map and file_read mode \"ast\" show)."),
    })
    .nullable()
    .describe("How the file's syntax tree looks, for files with a parser (null otherwise, and for files too large to parse)."),
  notes: z.array(z.string()).describe("Anything that limited the inspection."),
});

export const fileCapabilitiesTool = defineTool({
  name: "file_capabilities",
  title: "Describe files",
  description:
    "What each file is (kind, language, encoding, line endings, size), how it can be read (file_read text, document_query), and what the policy allows (read, write, delete, with the deciding rule).",
  input: z.strictObject({ filePaths: FilePathsInput }),
  output: z.object({ files: z.array(z.union([FileCapabilities, FailedPath])).describe("One entry per requested path, in order.") }),
  annotations: READ_ONLY,
  errors: FILE_ERRORS,
  handler: async ({ filePaths }, context) => ({
    files: await eachFile(context, filePaths, (filePath) => filePath, async (resolved, filePath) => {
      const { bytes, size, complete } = await readWholeOrHead(resolved, LIMITS.read.maxDecodeBytes, LIMITS.read.binarySniffBytes);
      const notes: string[] = [];
      const binary = looksBinary(bytes);
      let encoding: DetectedEncoding | null = null;
      let lineEnding: (typeof LINE_ENDINGS)[number] | null = null;
      let bom = detectBom(bytes).length > 0;
      let firstLine: string | undefined;
      if (!binary && complete) {
        const decoded = decodeText(bytes);
        encoding = decoded.encoding;
        bom = decoded.bom;
        if (decoded.ok) {
          lineEnding = detectLineEnding(decoded.text);
          firstLine = firstLineOf(decoded.text);
        } else {
          // A shebang is ASCII, so a lenient look at the start still identifies scripts.
          firstLine = firstLineOf(new TextDecoder().decode(bytes.subarray(0, SHEBANG_PEEK_BYTES)));
          notes.push(`Not readable as text: ${decoded.reason}.`);
        }
      } else if (!binary) {
        notes.push(`Larger than ${LIMITS.read.maxDecodeBytes} bytes: not decoded, so encoding and line endings are unknown and text reads are refused.`);
      }
      const language: LanguageId | null = languageOf(resolved.relative, firstLine, context.config.config.languages.overrides) ?? null;
      const readModes: Array<(typeof READ_MODES)[number]> = [];
      if (lineEnding !== null) {
        readModes.push("text");
        if (isDocumentLanguage(language)) {
          if (size <= LIMITS.document.maxFileBytes) readModes.push("document");
          else notes.push(`Larger than ${LIMITS.document.maxFileBytes} bytes: too large for document_query.`);
        }
      }
      const [read, write, remove] = await Promise.all(OPERATIONS.map((operation) => context.workspace.check(filePath, operation)));
      const parseHealth = lineEnding !== null ? await parseHealthOf(context, resolved, notes) : null;
      return {
        path: resolved.display,
        size,
        kind: kindOf(language, binary),
        language,
        encoding,
        bom,
        lineEnding,
        readModes,
        patchStrategies: patchStrategiesFor(language, lineEnding !== null, size),
        policy: { read: decisionOut(read!), write: decisionOut(write!), delete: decisionOut(remove!) },
        parseHealth,
        notes,
      };
    }),
  }),
  render: ({ files }) => capText(files.map(renderCapabilities).join("\n"), LIMITS.output.maxTextChars),
});

/** Parse errors and outline size, from the code index (which parses the file when the walk has not). */
async function parseHealthOf(context: ToolContext, resolved: ResolvedPath, notes: string[]): Promise<z.input<typeof FileCapabilities>["parseHealth"]> {
  const index = context.services.indexes.forContext(context);
  try {
    const { file } = await index.load(resolved);
    return { language: file.language, parseErrors: file.facts.parseErrors, symbols: file.facts.symbols.length };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    // No parser for the language is the common case and says nothing new; other refusals are worth a note.
    if (error.code !== "invalid_input") notes.push(`No parse health: ${error.message}`);
    return null;
  }
}

function renderDecision(operation: string, decision: z.output<typeof DecisionOut>): string {
  const verdict = decision.allowed ? "allowed" : `denied (${decision.code ?? "path_denied"})`;
  const rule = decision.rule && decision.rule.path !== "<roots>" ? ` by ${JSON.stringify(decision.rule.path)} from ${decision.rule.source}` : "";
  return `${operation} ${verdict}${rule}`;
}

function renderCapabilities(item: z.output<typeof FileCapabilities> | { path: string; error: ItemError }): string {
  if (isFailed(item)) return renderItemError(item.path, item.error);
  const what = [item.kind, item.language ?? "unknown language"].join(" ");
  const breaks = item.lineEnding === "none" ? "no line breaks" : `${item.lineEnding} line endings`;
  const text = item.encoding === null ? "not decoded" : item.lineEnding === null ? `encoding ${item.encoding}` : `${item.encoding}, ${breaks}`;
  const policy = [renderDecision("read", item.policy.read), renderDecision("write", item.policy.write), renderDecision("delete", item.policy.delete)].join(", ");
  const modes = item.readModes.length > 0 ? item.readModes.join("+") : "none";
  const patches = item.patchStrategies.length > 0 ? item.patchStrategies.join("+") : "none";
  const health = item.parseHealth ?
    ` · parse ${item.parseHealth.parseErrors === 0 ? "clean" : plural(item.parseHealth.parseErrors, "error")}, ${plural(item.parseHealth.symbols, "symbol")}` :
    "";
  const line = `${item.path}: ${what} · ${text} · ${plural(item.size, "byte")} · read modes ${modes} · patch strategies ${patches}${health} · ${policy}`;
  return item.notes.length > 0 ? `${line}\n  ${item.notes.join("\n  ")}` : line;
}

/** Text files within the write path's size limit take Aider blocks; those with a parser also take structural rules. */
function patchStrategiesFor(language: LanguageId | null, decodable: boolean, size: number): Array<"aider_block" | "ast"> {
  if (!decodable || size > LIMITS.patch.maxCandidateBytes) return [];
  return language !== null && supportsSyntaxTree(language) ? ["aider_block", "ast"] : ["aider_block"];
}
