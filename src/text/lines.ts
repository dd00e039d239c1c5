/**
 * Line structure of decoded text: line endings, indentation style, and 1-based line windows
 * bounded by byte and character budgets. Pure functions over strings.
 */
import { lastIndexWhere } from "../core/bisect.ts";
import { utf8Length } from "./encoding.ts";

export type LineEnding = "lf" | "crlf" | "cr" | "mixed" | "none";

const LINE_BREAK = /\r\n|\r|\n/g;

/** A line break as it appears in text. */
export type LineBreak = "\n" | "\r\n" | "\r";

/** How many line breaks of each kind `text` has, in the order each kind first occurs. */
export function lineBreakCounts(text: string): Map<LineBreak, number> {
  const counts = new Map<LineBreak, number>();
  if (!text.includes("\r")) {
    // Most files: line feeds only, counted by a plain search, several times faster than matching the three breaks.
    let feeds = 0;
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) feeds++;
    if (feeds > 0) counts.set("\n", feeds);
    return counts;
  }
  for (const match of text.matchAll(LINE_BREAK)) {
    const kind = match[0] as LineBreak;
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return counts;
}

/** The line terminator style of text with these counts: one kind, "mixed" when several occur, "none" without any. */
export function lineEndingOf(counts: ReadonlyMap<LineBreak, number>): LineEnding {
  if (counts.size === 0) return "none";
  if (counts.size > 1) return "mixed";
  const only = counts.keys().next().value;
  return only === "\n" ? "lf" : only === "\r\n" ? "crlf" : "cr";
}

/** The file's line terminator style: one kind, "mixed" when several occur, "none" without any. */
export function detectLineEnding(text: string): LineEnding {
  return lineEndingOf(lineBreakCounts(text));
}

/**
 * The lines of `text` without their terminators. A terminator ends a line rather than starting
 * a new one, so "a\nb\n" has two lines and "" has none.
 */
export function splitLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split(LINE_BREAK);
  if (hasFinalNewline(text)) lines.pop();
  return lines;
}

export function hasFinalNewline(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last === 0x0a || last === 0x0d;
}

/** True when some line's leading whitespace contains a tab. */
export function usesTabIndentation(text: string): boolean {
  return /^ *\t/m.test(text);
}

/**
 * Offsets where each line of `text` starts: 0, then the offset after every line break, where "\n",
 * "\r\n" and a lone "\r" each end one line (as splitLines and file_read count them). After a final
 * terminator the list ends with text.length (an empty last line that callers may drop). The one
 * line table of the product: outline facts, search chunks and squeeze windows all number lines by it.
 * Given `from` (an offset where a line starts), the list begins there; `maxStarts` stops it early.
 */
export function lineStarts(text: string, from = 0, maxStarts = Number.POSITIVE_INFINITY): number[] {
  const starts = [from];
  if (!text.includes("\r", from)) {
    // Most files: line feeds only, found by a plain search, several times faster than a scan by character.
    for (let at = text.indexOf("\n", from); at !== -1 && starts.length < maxStarts; at = text.indexOf("\n", at + 1)) starts.push(at + 1);
    return starts;
  }
  for (let index = from; index < text.length && starts.length < maxStarts; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(index + 1) !== 0x0a)) starts.push(index + 1);
  }
  return starts;
}

/** The 0-based line of a UTF-16 offset, given the text's lineStarts. */
export function lineIndexAt(starts: readonly number[], offset: number): number {
  return Math.max(0, lastIndexWhere(starts.length, (index) => starts[index]! <= offset));
}

/**
 * Line numbering for positions a parser reports: tree-sitter counts rows by "\n" alone, which is
 * right for LF and CRLF text but puts a CR-only file on one line. For text with a lone "\r" this
 * gives 0-based line and column from the offset by lineStarts; undefined for every other text
 * (then the parser's own rows and columns are right and cost nothing more).
 */
export function loneCrLines(text: string): ((offset: number) => { line: number; column: number }) | undefined {
  if (!/\r(?!\n)/.test(text)) return undefined;
  const starts = lineStarts(text);
  return (offset) => {
    const line = lineIndexAt(starts, offset);
    return { line, column: offset - starts[line]! };
  };
}

/**
 * The offset where the line holding `offset` starts (any of the three line breaks ends a line).
 * Scans back only over that line: a search for the last "\r" would cross a whole LF-only file.
 */
export function lineStartBefore(text: string, offset: number): number {
  let index = offset - 1;
  // A "\r" right before `offset` whose "\n" is at `offset` is half of a CRLF inside this line's terminator.
  if (index >= 0 && text.charCodeAt(index) === 0x0d && text.charCodeAt(offset) === 0x0a) index--;
  for (; index >= 0; index--) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || code === 0x0d) return index + 1;
  }
  return 0;
}

/** 1-based line and column (in UTF-16 code units) of a character offset. */
export function lineColumnAt(text: string, offset: number): { line: number; column: number } {
  const end = Math.max(0, Math.min(offset, text.length));
  const starts = lineStarts(text);
  const line = lineIndexAt(starts, end);
  return { line: line + 1, column: end - starts[line]! + 1 };
}

export interface LineWindowRequest {
  /** First line wanted, 1-based; must be within 1..lines.length (checked by the caller). */
  startLine: number;
  /** Last line wanted, inclusive, already clamped to the file. */
  endLine: number;
  /** Budget for the returned lines in UTF-8 bytes, counting one "\n" between lines. */
  maxBytes: number;
  /** Budget in rendered characters: each line costs its length plus `perLineOverhead`. */
  maxChars: number;
  perLineOverhead: number;
  /**
   * A first line that alone exceeds maxBytes is always cut to fit (the caller chose that budget).
   * One that exceeds maxChars is cut only when this is true; otherwise nothing is returned.
   */
  cutFirstLineAtOutputLimit: boolean;
}

export interface LineWindow {
  lines: string[];
  /** Last line returned (startLine - 1 when none). */
  endLine: number;
  /** Which budget stopped the window before `endLine`, or null when it reached it. */
  limitedBy: "maxBytes" | "outputLimit" | null;
  /** Set when the first line was cut to fit: how much of it is present. */
  cutLine: { line: number; keptChars: number; totalChars: number } | null;
  /** Characters charged against maxChars. */
  charsUsed: number;
}

/** Takes whole lines from startLine while both budgets allow, reporting which budget stopped it. */
export function takeLineWindow(lines: readonly string[], request: LineWindowRequest): LineWindow {
  const taken: string[] = [];
  let bytes = 0;
  let chars = 0;
  for (let lineNumber = request.startLine; lineNumber <= request.endLine; lineNumber++) {
    const line = lines[lineNumber - 1] ?? "";
    const lineBytes = utf8Length(line) + (taken.length > 0 ? 1 : 0);
    const lineChars = line.length + request.perLineOverhead;
    const overBytes = bytes + lineBytes > request.maxBytes;
    const overChars = chars + lineChars > request.maxChars;
    if (overBytes || overChars) {
      // Raising maxBytes does not help past the output limit, so that one is reported first.
      const limitedBy = overChars ? "outputLimit" : "maxBytes";
      if (taken.length === 0 && (!overChars || request.cutFirstLineAtOutputLimit)) {
        const keep = prefixWithin(line, request.maxBytes, request.maxChars - request.perLineOverhead);
        if (keep > 0) {
          return {
            lines: [line.slice(0, keep)],
            endLine: lineNumber,
            limitedBy,
            cutLine: { line: lineNumber, keptChars: keep, totalChars: line.length },
            charsUsed: keep + request.perLineOverhead,
          };
        }
      }
      return { lines: taken, endLine: lineNumber - 1, limitedBy, cutLine: null, charsUsed: chars };
    }
    taken.push(line);
    bytes += lineBytes;
    chars += lineChars;
  }
  return { lines: taken, endLine: request.endLine, limitedBy: null, cutLine: null, charsUsed: chars };
}

/** Longest prefix length of `text` within both budgets that does not split a surrogate pair. */
export function prefixWithin(text: string, maxBytes: number, maxChars: number): number {
  let bytes = 0;
  let index = 0;
  const charLimit = Math.max(0, Math.min(text.length, maxChars));
  while (index < charLimit) {
    const code = text.charCodeAt(index);
    const isPair = code >= 0xd800 && code <= 0xdbff && index + 1 < text.length && isLowSurrogate(text.charCodeAt(index + 1));
    const width = isPair ? 2 : 1;
    const size = isPair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (bytes + size > maxBytes || index + width > charLimit) break;
    bytes += size;
    index += width;
  }
  return index;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
