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
import { FUZZY_AMBIGUITY_MARGIN, round, type SimilarityScan, scanSimilarity } from "./aider-similarity.ts";

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

const LINE_BREAK = /\r\n|\r|\n/g;
/** Columns a tab advances to (the next multiple of this) when indentation widths are compared. */
const TAB_COLUMNS = 4;
/** Characters of unchanged text kept on each side of a change in the nearest-text diff. */
const DIFF_CONTEXT_CHARS = 24;
/** Edit distance the nearest-text character diff may explore before it gives up. */
const NEAREST_DIFF_MAX_EDITS = 256;

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
  const indentWindows = lineWindows(strippedFile, strippedSearch).filter((first) => sameIndentStructure(fileLines.slice(first, first + searchLines.length), searchLines));
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
  const fuzzyIncomplete = options.fuzzy && scan.exhausted && (scan.stoppedAtBound ?? 1) >= options.fuzzyThreshold - FUZZY_AMBIGUITY_MARGIN;
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
  const fuzzyNote = options.fuzzy ?
    fuzzyIncomplete ?
      " The fuzzy scan stopped at its work limit before it could rule out every near window, so no fuzzy match was taken." :
      best.similarity >= options.fuzzyThreshold ?
      "" :
      ` Its similarity is below the fuzzy threshold ${options.fuzzyThreshold}.` :
    "";
  const diffText = diff === undefined ?
    ` The texts differ too much for a character diff; the file has there:\n${cut(nearestText, LIMITS.patch.nearestDiffChars)}` :
    ` Differences (-[only in your search] +[only in the file]): ${diff}`;
  return new ToolError(
    "no_match",
    `${
      blockLabel(index)
    }: the search text was not found (tried ${tried} matching). Nearest text: lines ${range.startLine}-${range.endLine} (similarity ${similarity}).${fuzzyNote}${diffText}${later}`,
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
  const changes = diffChars(fromSearch, inFile, { maxEditLength: NEAREST_DIFF_MAX_EDITS });
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
