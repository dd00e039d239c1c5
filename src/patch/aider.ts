/**
 * Aider-style SEARCH/REPLACE engine (pure, no I/O). Blocks apply in order to the evolving text.
 *
 * Each block's search text is located by matchers tried in a fixed order; the first matcher that
 * finds any candidate decides. More than one candidate at that stage is always `ambiguous_match`:
 * a later, looser matcher never breaks a tie.
 *   1. exact        — the search is a unique substring (the only matcher for fragments within a line).
 *   2. whitespace   — whole lines equal once trailing whitespace and "\r" are ignored; a multi-line
 *                     search whose first/last line is a fragment also matches here when only its line
 *                     breaks differ from the file's.
 *   3. indentation  — whole lines equal once all leading/trailing whitespace is ignored, with the same
 *                     relative indentation structure; the replacement is re-indented to the file.
 *   4. fuzzy        — only with options.fuzzy: the unique most similar window of whole lines.
 * An empty search appends. No candidate → `no_match` showing the nearest real text and a diff.
 */
import { diffChars } from "diff";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { lastIndexWhere } from "../core/bisect.ts";
import { adaptLineEndings, type Eol, splitLines } from "../text/index.ts";

export interface AiderBlock {
  search: string;
  replace: string;
  /** The filename line written before the block in raw Aider text, when there was one. */
  filename?: string;
}

export type Matcher = "exact" | "whitespace" | "indentation" | "fuzzy" | "append";

export interface AppliedBlock {
  /** 0-based position of the block in the list. */
  index: number;
  matcher: Matcher;
  /** 1-based inclusive range in the text as it was when the block applied (for "append": the appended lines in the result). */
  startLine: number;
  endLine: number;
  similarity?: number;
}

export interface AiderOptions {
  eol: Eol;
  fuzzy: boolean;
  fuzzyThreshold: number;
}

// Aider itself accepts 5 to 9 marker characters.
const SEARCH_MARKER = /^<{5,9} SEARCH>?\s*$/;
const DIVIDER_MARKER = /^={5,9}\s*$/;
const REPLACE_MARKER = /^>{5,9} REPLACE\s*$/;
const FENCE_LINE = /^\s*(```|~~~)/;
const LINE_BREAK = /\r\n|\r|\n/g;
/** Columns a tab advances to (the next multiple of this) when indentation widths are compared. */
const TAB_COLUMNS = 4;
/** Characters of unchanged text kept on each side of a change in the nearest-text diff. */
const DIFF_CONTEXT_CHARS = 24;

// ---------------------------------------------------------------------------------------------
// Parsing raw Aider text

type ParseState =
  | { kind: "outside" }
  | { kind: "search"; openedAt: number; filename: string | undefined; lines: string[] }
  | { kind: "replace"; openedAt: number; filename: string | undefined; search: string[]; lines: string[] };

/**
 * Parses `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` blocks. Around blocks only blank lines,
 * ``` fences and one filename line per block are tolerated. Sections become whole lines, each ending
 * in "\n" (an empty section is ""). A line of only "=" characters cannot be block content.
 */
export function parseAiderText(raw: string): AiderBlock[] {
  const lines = raw.split(LINE_BREAK);
  if (lines[lines.length - 1] === "") lines.pop();
  const blocks: AiderBlock[] = [];
  let state: ParseState = { kind: "outside" };
  let pendingText: { line: number; text: string } | undefined;

  const fail = (line: number, message: string): never => {
    throw new ToolError("invalid_input", `Aider text, line ${line}: ${message}`, { details: { line } });
  };

  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const lineNumber = index + 1;
    const isSearch = SEARCH_MARKER.test(line);
    const isDivider = DIVIDER_MARKER.test(line);
    const isReplace = REPLACE_MARKER.test(line);
    switch (state.kind) {
      case "outside":
        if (isSearch) {
          state = { kind: "search", openedAt: lineNumber, filename: pendingText?.text, lines: [] };
          pendingText = undefined;
        } else if (isDivider) {
          fail(lineNumber, `"=======" without an open "<<<<<<< SEARCH".`);
        } else if (isReplace) {
          fail(lineNumber, `">>>>>>> REPLACE" without an open "<<<<<<< SEARCH".`);
        } else if (line.trim() !== "" && !FENCE_LINE.test(line)) {
          if (pendingText) {
            fail(pendingText.line, `unexpected text outside a SEARCH/REPLACE block (only a filename line and \`\`\` fences may surround a block).`);
          }
          pendingText = { line: lineNumber, text: line.trim() };
        }
        break;
      case "search":
        if (isDivider) {
          state = { kind: "replace", openedAt: state.openedAt, filename: state.filename, search: state.lines, lines: [] };
        } else if (isSearch) {
          fail(lineNumber, `"<<<<<<< SEARCH" inside the block opened at line ${state.openedAt}, which has no "=======" yet.`);
        } else if (isReplace) {
          fail(lineNumber, `">>>>>>> REPLACE" before the "=======" of the block opened at line ${state.openedAt}.`);
        } else {
          state.lines.push(line);
        }
        break;
      case "replace":
        if (isReplace) {
          const block: AiderBlock = { search: joinSection(state.search), replace: joinSection(state.lines) };
          if (state.filename !== undefined) block.filename = state.filename;
          blocks.push(block);
          state = { kind: "outside" };
        } else if (isSearch) {
          fail(lineNumber, `"<<<<<<< SEARCH" before the ">>>>>>> REPLACE" closing the block opened at line ${state.openedAt}.`);
        } else if (isDivider) {
          fail(lineNumber, `a second "=======" in the block opened at line ${state.openedAt}; a line of only "=" cannot be block content (send the block as JSON instead).`);
        } else {
          state.lines.push(line);
        }
        break;
    }
  }
  if (state.kind === "search") fail(state.openedAt, `the block opened here has no "=======" and no ">>>>>>> REPLACE".`);
  if (state.kind === "replace") fail(state.openedAt, `the block opened here is not closed by ">>>>>>> REPLACE".`);
  if (pendingText) fail(pendingText.line, `unexpected text after the last SEARCH/REPLACE block.`);
  if (blocks.length === 0) {
    throw new ToolError("invalid_input", `Aider text contains no "<<<<<<< SEARCH" / "=======" / ">>>>>>> REPLACE" block.`);
  }
  return blocks;
}

function joinSection(lines: string[]): string {
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// Applying blocks

interface LineSpan {
  /** Offset of the line's first character. */
  start: number;
  /** Offset just past its content (before the terminator). */
  end: number;
  /** Offset just past its terminator (equal to `end` for a last line without one). */
  next: number;
}

interface LineRange {
  startLine: number;
  endLine: number;
}

/** Where an exact (or line-break adapted) search was found. */
interface CharMatch {
  from: number;
  to: number;
  range: LineRange;
}

export function applyAiderBlocks(text: string, blocks: AiderBlock[], options: AiderOptions): { text: string; applied: AppliedBlock[] } {
  const applied: AppliedBlock[] = [];
  let current = text;
  for (let index = 0; index < blocks.length; index++) {
    const result = applyOne(current, blocks[index]!, index, options);
    current = result.text;
    applied.push(result.applied);
  }
  return { text: current, applied };
}

function applyOne(text: string, block: AiderBlock, index: number, options: AiderOptions): { text: string; applied: AppliedBlock } {
  const replace = adaptLineEndings(block.replace, options.eol);
  if (block.search === "") return appendText(text, replace, index, options.eol);

  const spans = indexLines(text);
  const searchLines = splitLines(block.search);
  const context = { index, spans };

  // Stage 1: exact substring.
  const exact = occurrences(text, block.search);
  if (exact.total > 0) {
    const located = decideCharRanges(context, exact, block.search.length, "exact");
    return { text: spliceChars(text, located, exactReplacement(block.search, replace, options.eol)), applied: report(index, "exact", located.range) };
  }

  const fileLines = spans.map((span) => text.slice(span.start, span.end));

  // Stage 2: whole lines, trailing whitespace and line endings ignored.
  const trimmedFile = fileLines.map((line) => line.trimEnd());
  const trimmedSearch = searchLines.map((line) => line.trimEnd());
  const whitespaceWindows = lineWindows(trimmedFile, trimmedSearch);
  if (whitespaceWindows.length > 0) {
    const first = decideLineWindows(context, whitespaceWindows, searchLines.length, "whitespace");
    const newLines = splitLines(replace);
    return { text: spliceLines(text, spans, first, searchLines.length, newLines, options.eol), applied: report(index, "whitespace", windowRange(first, searchLines.length)) };
  }
  const adaptedSearch = adaptLineEndings(block.search, options.eol);
  if (adaptedSearch !== block.search) {
    const adapted = occurrences(text, adaptedSearch);
    if (adapted.total > 0) {
      const located = decideCharRanges(context, adapted, adaptedSearch.length, "whitespace");
      return { text: spliceChars(text, located, exactReplacement(adaptedSearch, replace, options.eol)), applied: report(index, "whitespace", located.range) };
    }
  }

  // Stage 3: indentation ignored, relative indentation structure kept.
  const strippedFile = fileLines.map((line) => line.trim());
  const strippedSearch = searchLines.map((line) => line.trim());
  const indentWindows = lineWindows(strippedFile, strippedSearch).filter((first) =>
    sameIndentStructure(fileLines.slice(first, first + searchLines.length), searchLines),
  );
  if (indentWindows.length > 0) {
    const first = decideLineWindows(context, indentWindows, searchLines.length, "indentation");
    const newLines = reindent(splitLines(replace), searchLines, fileLines.slice(first, first + searchLines.length), fileLines);
    return { text: spliceLines(text, spans, first, searchLines.length, newLines, options.eol), applied: report(index, "indentation", windowRange(first, searchLines.length)) };
  }

  // Stage 4: fuzzy; the same scan finds the nearest text for the no_match report.
  const scan = scanSimilarity(strippedFile, strippedSearch);
  if (options.fuzzy && scan.best && !scan.exhausted && scan.best.similarity >= options.fuzzyThreshold) {
    if (scan.rivals.length > 0) {
      const all = [scan.best, ...scan.rivals].sort((a, b) => a.first - b.first);
      const listed = all.slice(0, LIMITS.patch.maxListedMatches).map((window) => ({ ...windowRange(window.first, window.count), similarity: round(window.similarity) }));
      throw ambiguous(index, "fuzzy", listed, all.length);
    }
    const { first, count } = scan.best;
    const newLines = reindent(splitLines(replace), searchLines, fileLines.slice(first, first + count), fileLines);
    return {
      text: spliceLines(text, spans, first, count, newLines, options.eol),
      applied: { ...report(index, "fuzzy", windowRange(first, count)), similarity: round(scan.best.similarity) },
    };
  }
  throw noMatch(index, searchLines, fileLines, scan, options);
}

function report(index: number, matcher: Matcher, range: LineRange): AppliedBlock {
  return { index, matcher, startLine: range.startLine, endLine: range.endLine };
}

function appendText(text: string, replace: string, index: number, eol: Eol): { text: string; applied: AppliedBlock } {
  const separator = text.length > 0 && !/[\r\n]$/.test(text) ? eol : "";
  const before = text + separator;
  const result = before + replace;
  const startLine = indexLines(before).length + 1;
  const endLine = Math.max(startLine, indexLines(result).length);
  return { text: result, applied: report(index, "append", { startLine, endLine }) };
}

/** A search ending in a line break replaces whole lines, so its replacement keeps one too. */
function exactReplacement(search: string, replace: string, eol: Eol): string {
  const searchEndsLine = /[\r\n]$/.test(search);
  if (searchEndsLine && replace.length > 0 && !/[\r\n]$/.test(replace)) return replace + eol;
  return replace;
}

function indexLines(text: string): LineSpan[] {
  const spans: LineSpan[] = [];
  let start = 0;
  if (!text.includes("\r")) {
    // Line feeds only: a plain search, several times faster than matching the three line breaks.
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", start)) {
      spans.push({ start, end: at, next: at + 1 });
      start = at + 1;
    }
    if (start < text.length) spans.push({ start, end: text.length, next: text.length });
    return spans;
  }
  for (const match of text.matchAll(LINE_BREAK)) {
    spans.push({ start, end: match.index, next: match.index + match[0].length });
    start = match.index + match[0].length;
  }
  if (start < text.length) spans.push({ start, end: text.length, next: text.length });
  return spans;
}

/** 1-based line holding `offset` (binary search over line starts). */
function lineAt(spans: LineSpan[], offset: number): number {
  return Math.max(0, lastIndexWhere(spans.length, (index) => spans[index]!.start <= offset)) + 1;
}

/**
 * Start offsets of `needle`, overlapping ones included (they are distinct places): the first
 * LIMITS.patch.maxListedMatches of them, and how many there are in all.
 */
function occurrences(text: string, needle: string): { starts: number[]; total: number } {
  const starts: number[] = [];
  let total = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    if (starts.length < LIMITS.patch.maxListedMatches) starts.push(at);
    total++;
  }
  return { starts, total };
}

/** Start indexes of windows whose lines equal `wanted` line by line. */
function lineWindows(lines: string[], wanted: string[]): number[] {
  const found: number[] = [];
  const count = wanted.length;
  for (let first = 0; first + count <= lines.length; first++) {
    let equal = true;
    for (let offset = 0; offset < count; offset++) {
      if (lines[first + offset] !== wanted[offset]) {
        equal = false;
        break;
      }
    }
    if (equal) found.push(first);
  }
  return found;
}

function windowRange(first: number, count: number): LineRange {
  return { startLine: first + 1, endLine: first + Math.max(count, 1) };
}

interface BlockContext {
  index: number;
  spans: LineSpan[];
}

function decideCharRanges(context: BlockContext, found: { starts: number[]; total: number }, length: number, matcher: Matcher): CharMatch {
  const rangeAt = (from: number) => ({ startLine: lineAt(context.spans, from), endLine: lineAt(context.spans, from + Math.max(length, 1) - 1) });
  if (found.total > 1) throw ambiguous(context.index, matcher, found.starts.map(rangeAt), found.total);
  const from = found.starts[0]!;
  return { from, to: from + length, range: rangeAt(from) };
}

function decideLineWindows(context: BlockContext, firsts: number[], count: number, matcher: Matcher): number {
  if (firsts.length > 1) {
    throw ambiguous(context.index, matcher, firsts.slice(0, LIMITS.patch.maxListedMatches).map((first) => windowRange(first, count)), firsts.length);
  }
  return firsts[0]!;
}

function spliceChars(text: string, located: { from: number; to: number }, replacement: string): string {
  // Concatenation, never String.replace: "$&", "$1" and "$$" in the replacement stay literal.
  return text.slice(0, located.from) + replacement + text.slice(located.to);
}

/**
 * Replaces the content of `count` whole lines from `first`; the last line keeps its own terminator.
 * An empty replacement deletes the lines with their terminators.
 */
function spliceLines(text: string, spans: LineSpan[], first: number, count: number, newLines: string[], eol: Eol): string {
  const head = spans[first]!;
  const tail = spans[Math.min(first + count, spans.length) - 1]!;
  if (newLines.length > 0) return text.slice(0, head.start) + newLines.join(eol) + text.slice(tail.end);
  if (tail.next > tail.end) return text.slice(0, head.start) + text.slice(tail.next);
  // Deleting through a last line without terminator: drop the terminator before it instead.
  const cutFrom = first > 0 ? spans[first - 1]!.end : head.start;
  return text.slice(0, cutFrom) + text.slice(tail.end);
}

// ---------------------------------------------------------------------------------------------
// Indentation

function leadingWhitespace(line: string): string {
  return /^[ \t]*/.exec(line)![0];
}

function indentColumns(indent: string): number {
  let columns = 0;
  for (const char of indent) columns = char === "\t" ? columns + TAB_COLUMNS - (columns % TAB_COLUMNS) : columns + 1;
  return columns;
}

function isBlank(line: string): boolean {
  return line.trim() === "";
}

/** Rank of each non-blank line's indentation among the distinct indentations of its side. */
function indentRanks(lines: string[]): number[] {
  const columns = lines.filter((line) => !isBlank(line)).map((line) => indentColumns(leadingWhitespace(line)));
  const distinct = [...new Set(columns)].sort((a, b) => a - b);
  return columns.map((value) => distinct.indexOf(value));
}

function sameIndentStructure(window: string[], search: string[]): boolean {
  const left = indentRanks(window);
  const right = indentRanks(search);
  return left.length === right.length && left.every((rank, position) => rank === right[position]);
}

/**
 * Moves replacement lines from the search's indentation to the matched window's: each line keeps
 * its depth relative to the search's shallowest line, expressed in the file's indentation unit.
 */
function reindent(replaceLines: string[], searchLines: string[], windowLines: string[], fileLines: string[]): string[] {
  const anchors = searchLines.map((line, position) => position).filter((position) => position < windowLines.length && !isBlank(searchLines[position]!));
  if (anchors.length === 0) return replaceLines;
  const columnsOf = (line: string) => indentColumns(leadingWhitespace(line));
  const searchBase = Math.min(...anchors.map((position) => columnsOf(searchLines[position]!)));
  const basePosition = anchors.find((position) => columnsOf(searchLines[position]!) === searchBase)!;
  const fileBase = leadingWhitespace(windowLines[basePosition]!);

  const positiveDepths = (lines: string[]) => lines.filter((line) => !isBlank(line)).map((line) => columnsOf(line) - searchBase).filter((depth) => depth > 0);
  // The agent's indentation step: its smallest nesting in the search, else in the replacement.
  const searchDepths = positiveDepths(searchLines);
  const replaceDepths = positiveDepths(replaceLines);
  const agentUnit = searchDepths.length > 0 ? Math.min(...searchDepths) : replaceDepths.length > 0 ? Math.min(...replaceDepths) : TAB_COLUMNS;

  let fileUnit: string | undefined;
  for (const position of anchors) {
    const depth = columnsOf(searchLines[position]!) - searchBase;
    if (depth <= 0 || depth % agentUnit !== 0) continue;
    const levels = depth / agentUnit;
    const indent = leadingWhitespace(windowLines[position]!);
    if (!indent.startsWith(fileBase)) continue;
    const extra = indent.slice(fileBase.length);
    if (extra.length === 0 || extra.length % levels !== 0) continue;
    const piece = extra.slice(0, extra.length / levels);
    if (piece.repeat(levels) === extra) {
      fileUnit = piece;
      break;
    }
  }
  fileUnit ??= fileBase.includes("\t") ? "\t" : (fileIndentUnit(fileLines) ?? " ".repeat(agentUnit));
  const unit = fileUnit;

  return replaceLines.map((line) => {
    if (isBlank(line)) return "";
    const indent = leadingWhitespace(line);
    const content = line.slice(indent.length);
    const depth = indentColumns(indent) - searchBase;
    if (depth >= 0) {
      const levels = Math.floor(depth / agentUnit);
      return fileBase + unit.repeat(levels) + " ".repeat(depth - levels * agentUnit) + content;
    }
    // Shallower than the search: take whole units off the file's base indentation.
    const levels = Math.ceil(-depth / agentUnit);
    let base = fileBase;
    for (let step = 0; step < levels && base.length > 0; step++) base = base.endsWith(unit) ? base.slice(0, -unit.length) : base.slice(0, -1);
    return base + " ".repeat(levels * agentUnit + depth) + content;
  });
}

/** The file's indentation unit: a tab when tab-indented lines dominate, else the commonest step in spaces. */
function fileIndentUnit(lines: string[]): string | undefined {
  let tabLines = 0;
  let spaceLines = 0;
  let previous = 0;
  const steps = new Map<number, number>();
  for (const line of lines) {
    if (isBlank(line)) continue;
    const indent = leadingWhitespace(line);
    if (indent.startsWith("\t")) tabLines++;
    else if (indent.length > 0) spaceLines++;
    if (indent.includes("\t")) continue;
    const step = indent.length - previous;
    if (step > 0) steps.set(step, (steps.get(step) ?? 0) + 1);
    previous = indent.length;
  }
  if (tabLines > spaceLines) return "\t";
  let best: number | undefined;
  for (const [step, count] of steps) {
    if (best === undefined || count > steps.get(best)! || (count === steps.get(best)! && step < best)) best = step;
  }
  return best === undefined ? undefined : " ".repeat(best);
}

// ---------------------------------------------------------------------------------------------
// Similarity (fuzzy stage and nearest-text report)

interface WindowScore {
  first: number;
  count: number;
  similarity: number;
}

interface SimilarityScan {
  best: WindowScore | undefined;
  /** Other windows within the ambiguity margin of the best. */
  rivals: WindowScore[];
  /** The work budget ran out before every window that could matter was scored. */
  exhausted: boolean;
  /** When exhausted: the highest similarity an unscored window could still have. */
  stoppedAtBound: number | undefined;
}

/**
 * Scores windows of whole lines (as many as the search has) by 1 − Σ edit distance / Σ longer length
 * over aligned line pairs, best first: every window gets a cheap upper bound from sliding character
 * histograms, windows are scored in descending bound order, and the scan ends once no remaining
 * window can come within the ambiguity margin of the best. Each scored window is abandoned as soon
 * as its lower bounds or partial distance rule it out, so only near candidates cost full comparisons.
 */
function scanSimilarity(fileLines: string[], searchLines: string[]): SimilarityScan {
  const margin = LIMITS.patch.fuzzyAmbiguityMargin;
  const count = Math.min(searchLines.length, fileLines.length);
  const scan: SimilarityScan = { best: undefined, rivals: [], exhausted: false, stoppedAtBound: undefined };
  if (count === 0) return scan;
  const work = { spent: 0, limit: LIMITS.patch.fuzzyMaxWork };
  const fileHistograms = histograms(fileLines);
  const searchHistograms = histograms(searchLines);
  const bounds = windowUpperBounds(fileLines, fileHistograms, searchLines, searchHistograms, count, work);
  const order = Array.from(bounds.keys()).sort((left, right) => bounds[right]! - bounds[left]! || left - right);
  const near: WindowScore[] = [];
  for (const first of order) {
    const upper = bounds[first]!;
    if (scan.best && upper < scan.best.similarity - margin - 1e-9) break;
    if (work.spent > work.limit) {
      scan.exhausted = true;
      scan.stoppedAtBound = upper;
      break;
    }
    work.spent += searchLines.length;
    let denominator = 0;
    let lengthBound = 0;
    for (let offset = 0; offset < searchLines.length; offset++) {
      const a = fileLines[first + offset]?.length ?? 0;
      const b = searchLines[offset]!.length;
      denominator += Math.max(a, b);
      lengthBound += Math.abs(a - b);
    }
    const floor = scan.best ? Math.max(0, scan.best.similarity - margin) : 0;
    const budget = Math.floor((1 - floor) * denominator + 1e-9);
    if (lengthBound > budget) continue;
    const pairBounds: number[] = [];
    let histogramBound = 0;
    for (let offset = 0; offset < searchLines.length && histogramBound <= budget; offset++) {
      const bound = first + offset < fileLines.length ? histogramDistance(fileHistograms, first + offset, searchHistograms, offset) : searchLines[offset]!.length;
      pairBounds.push(bound);
      histogramBound += bound;
    }
    work.spent += pairBounds.length * 8;
    if (histogramBound > budget) continue;
    // Invariant: distance so far + lower bounds of the pairs still to come <= budget.
    let distance = 0;
    let over = false;
    for (let offset = 0; offset < searchLines.length; offset++) {
      const later = histogramBound - pairBounds[offset]!;
      const cap = budget - distance - later;
      const pairDistance = deepeningLevenshtein(fileLines[first + offset] ?? "", searchLines[offset]!, pairBounds[offset]!, cap, work);
      if (pairDistance > cap) {
        over = true;
        break;
      }
      distance += pairDistance;
      histogramBound = later;
    }
    if (over) continue;
    const window = { first, count, similarity: denominator === 0 ? 1 : 1 - distance / denominator };
    if (!scan.best || window.similarity > scan.best.similarity || (window.similarity === scan.best.similarity && first < scan.best.first)) scan.best = window;
    near.push(window);
  }
  const best = scan.best;
  if (best) scan.rivals = near.filter((window) => window !== best && window.similarity >= best.similarity - margin - 1e-9);
  return scan;
}

/**
 * An upper bound of every window's similarity: the character histogram of the whole window against
 * the search's bounds the summed edit distance from below, and Σ lengths bounds the denominator from
 * above. Both slide along the file, so all windows cost O(file lines × buckets).
 */
function windowUpperBounds(
  fileLines: string[],
  fileHistograms: Uint16Array,
  searchLines: string[],
  searchHistograms: Uint16Array,
  count: number,
  work: { spent: number },
): Float64Array {
  const difference = new Int32Array(HISTOGRAM_BUCKETS);
  let searchChars = 0;
  searchLines.forEach((line, index) => {
    searchChars += line.length;
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) difference[bucket]! -= searchHistograms[index * HISTOGRAM_BUCKETS + bucket]!;
  });
  const shift = (lineIndex: number, sign: 1 | -1) => {
    const base = lineIndex * HISTOGRAM_BUCKETS;
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) difference[bucket]! += sign * fileHistograms[base + bucket]!;
  };
  let windowChars = 0;
  for (let index = 0; index < count; index++) {
    shift(index, 1);
    windowChars += fileLines[index]!.length;
  }
  const windowCount = fileLines.length - count + 1;
  const bounds = new Float64Array(windowCount);
  for (let first = 0; first < windowCount; first++) {
    if (first > 0) {
      shift(first - 1, -1);
      shift(first + count - 1, 1);
      windowChars += fileLines[first + count - 1]!.length - fileLines[first - 1]!.length;
    }
    let surplus = 0;
    let deficit = 0;
    for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) {
      const value = difference[bucket]!;
      if (value > 0) surplus += value;
      else deficit -= value;
    }
    const total = windowChars + searchChars;
    bounds[first] = total === 0 ? 1 : 1 - Math.max(surplus, deficit) / total;
  }
  work.spent += windowCount * 4;
  return bounds;
}

const HISTOGRAM_BUCKETS = 64;

/** Per-line character counts folded into 64 buckets (folding keeps the bound below a lower bound). */
function histograms(lines: string[]): Uint16Array {
  const table = new Uint16Array(lines.length * HISTOGRAM_BUCKETS);
  lines.forEach((line, index) => {
    const base = index * HISTOGRAM_BUCKETS;
    for (let position = 0; position < line.length; position++) {
      const slot = base + (line.charCodeAt(position) & (HISTOGRAM_BUCKETS - 1));
      if (table[slot]! < 0xffff) table[slot]!++;
    }
  });
  return table;
}

/** A lower bound of the edit distance: one edit changes each side's surplus characters by at most one. */
function histogramDistance(left: Uint16Array, leftIndex: number, right: Uint16Array, rightIndex: number): number {
  let surplus = 0;
  let deficit = 0;
  const leftBase = leftIndex * HISTOGRAM_BUCKETS;
  const rightBase = rightIndex * HISTOGRAM_BUCKETS;
  for (let bucket = 0; bucket < HISTOGRAM_BUCKETS; bucket++) {
    const difference = left[leftBase + bucket]! - right[rightBase + bucket]!;
    if (difference > 0) surplus += difference;
    else deficit -= difference;
  }
  return Math.max(surplus, deficit);
}

/**
 * Edit distance with a band that doubles from the known lower bound up to `cap`, so a near pair costs
 * O(length × distance) rather than O(length × cap). Returns a value above `cap` when it exceeds it.
 */
function deepeningLevenshtein(a: string, b: string, lowerBound: number, cap: number, work: { spent: number }): number {
  if (a === b) return 0;
  if (lowerBound > cap) return cap + 1;
  let band = Math.max(1, lowerBound);
  for (;;) {
    const limit = Math.min(band, cap);
    const distance = boundedLevenshtein(a, b, limit, work);
    if (distance <= limit || limit >= cap) return distance;
    band *= 2;
  }
}

/** Levenshtein distance of a and b, or any value above `cap` once it is certain to exceed it. */
function boundedLevenshtein(a: string, b: string, cap: number, work: { spent: number }): number {
  if (a === b) return 0;
  if (cap < 0) return 1;
  if (Math.abs(a.length - b.length) > cap) return cap + 1;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const over = cap + 1;
  const width = b.length;
  let previous = new Int32Array(width + 1);
  let current = new Int32Array(width + 1);
  for (let column = 0; column <= width; column++) previous[column] = column <= cap ? column : over;
  for (let row = 1; row <= a.length; row++) {
    const low = Math.max(1, row - cap);
    const high = Math.min(width, row + cap);
    current[0] = row <= cap ? row : over;
    if (low > 1) current[low - 1] = over;
    let rowMinimum = low === 1 ? current[0]! : over;
    const charA = a.charCodeAt(row - 1);
    for (let column = low; column <= high; column++) {
      const substitute = previous[column - 1]! + (charA === b.charCodeAt(column - 1) ? 0 : 1);
      const value = Math.min(substitute, previous[column]! + 1, current[column - 1]! + 1, over);
      current[column] = value;
      if (value < rowMinimum) rowMinimum = value;
    }
    if (high < width) current[high + 1] = over;
    work.spent += high - low + 1;
    if (rowMinimum > cap) return over;
    [previous, current] = [current, previous];
  }
  return previous[width]!;
}

/** Three decimals, rounded down so a near-identical window never shows as 1. */
function round(value: number): number {
  return Math.floor(value * 1000) / 1000;
}

// ---------------------------------------------------------------------------------------------
// Errors

function blockLabel(index: number): string {
  return `Block ${index + 1}`;
}

/** `listed` holds at most LIMITS.patch.maxListedMatches of the `total` candidates, in file order. */
function ambiguous(index: number, matcher: Matcher, listed: Array<LineRange & { similarity?: number }>, total: number): ToolError {
  const places = listed.map((range) => `${range.startLine}-${range.endLine}`).join(", ");
  const more = total > listed.length ? ` and ${total - listed.length} more` : "";
  return new ToolError(
    "ambiguous_match",
    `${blockLabel(index)}: the search text matches ${total} places (${matcher} match) at lines ${places}${more}; ` +
      `extend it with neighbouring lines until it matches one place.${index > 0 ? " Line numbers count the text after the earlier blocks applied." : ""}`,
    { details: { block: index, matcher, candidates: listed, totalCandidates: total } },
  );
}

function noMatch(index: number, searchLines: string[], fileLines: string[], scan: SimilarityScan, options: AiderOptions): ToolError {
  const tried = options.fuzzy ? "exact, whitespace, indentation and fuzzy" : "exact, whitespace and indentation";
  const later = index > 0 ? " Line numbers count the text after the earlier blocks applied." : "";
  // The fuzzy verdict is only incomplete when an unscored window could still have reached the threshold.
  const fuzzyIncomplete =
    options.fuzzy && scan.exhausted && (scan.stoppedAtBound ?? 1) >= options.fuzzyThreshold - LIMITS.patch.fuzzyAmbiguityMargin;
  const best = scan.best;
  if (!best) {
    const why = fileLines.length === 0 ? "the file is empty" : "no similar text was found within the work limit";
    return new ToolError("no_match", `${blockLabel(index)}: the search text was not found (tried ${tried} matching); ${why}.`, {
      details: { block: index, nearest: null, fuzzyIncomplete },
    });
  }
  const range = windowRange(best.first, best.count);
  const nearestText = fileLines.slice(best.first, best.first + best.count).join("\n");
  const searchText = searchLines.join("\n").replace(/\r/g, "");
  const diff = compactDiff(searchText, nearestText);
  const similarity = round(best.similarity);
  const fuzzyNote = options.fuzzy
    ? fuzzyIncomplete
      ? " The fuzzy scan stopped at its work limit before it could rule out every near window, so no fuzzy match was taken."
      : best.similarity >= options.fuzzyThreshold
        ? ""
        : ` Its similarity is below the fuzzy threshold ${options.fuzzyThreshold}.`
    : "";
  const diffText =
    diff === undefined
      ? ` The texts differ too much for a character diff; the file has there:\n${cut(nearestText, LIMITS.patch.nearestDiffChars)}`
      : ` Differences (-[only in your search] +[only in the file]): ${diff}`;
  return new ToolError(
    "no_match",
    `${blockLabel(index)}: the search text was not found (tried ${tried} matching). Nearest text: lines ${range.startLine}-${range.endLine} (similarity ${similarity}).${fuzzyNote}${diffText}${later}`,
    {
      details: {
        block: index,
        nearest: {
          startLine: range.startLine,
          endLine: range.endLine,
          similarity,
          text: cut(nearestText, LIMITS.patch.nearestTextChars),
          diff: diff ?? null,
        },
        fuzzyIncomplete,
      },
    },
  );
}

/** A character diff from the search to the file text as `-[removed]+[added]` runs with elided context. */
export function compactDiff(fromSearch: string, inFile: string): string | undefined {
  const changes = diffChars(fromSearch, inFile, { maxEditLength: LIMITS.patch.nearestDiffMaxEdits });
  if (!changes) return undefined;
  let out = "";
  changes.forEach((change, position) => {
    if (change.added) out += `+[${visible(change.value)}]`;
    else if (change.removed) out += `-[${visible(change.value)}]`;
    else out += elide(change.value, position === 0, position === changes.length - 1);
  });
  return cut(out, LIMITS.patch.nearestDiffChars);
}

function visible(value: string): string {
  return value.replace(/\t/g, "\\t").replace(/\r/g, "\\r").replace(/\n/g, "\\n");
}

function elide(value: string, isFirst: boolean, isLast: boolean): string {
  const keep = DIFF_CONTEXT_CHARS;
  if (isFirst && isLast) return value.length > 2 * keep ? `${value.slice(0, keep)}…${value.slice(-keep)}` : value;
  if (isFirst) return value.length > keep ? `…${value.slice(-keep)}` : value;
  if (isLast) return value.length > keep ? `${value.slice(0, keep)}…` : value;
  return value.length > 2 * keep ? `${value.slice(0, keep)}…${value.slice(-keep)}` : value;
}

function cut(value: string, maxChars: number): string {
  if (value.length <= maxChars) return value;
  let end = maxChars;
  const code = value.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${value.slice(0, end)}…`;
}
