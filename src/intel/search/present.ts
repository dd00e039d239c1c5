/**
 * What search shows of a chunk (a few lines around where the query terms are densest) and how near
 * other files are to a context file in the import graph.
 */
import { LIMITS } from "../../core/limits.ts";
import type { SymbolFact } from "../facts/types.ts";
import { lineStarts } from "../../text/index.ts";
import { walkGraph } from "../graph/import-graph.ts";
import { TermDictionary } from "./dictionary.ts";
import { countTerms, TermCounter } from "./tokenize.ts";

const CALLABLE_KINDS: ReadonlySet<string> = new Set(["function", "method", "constructor"]);

/** The function or method whose lines hold `line`: the innermost one (a closure inside a method is the closure). */
export function enclosingCallable(symbols: readonly SymbolFact[], line: number): SymbolFact | undefined {
  let found: SymbolFact | undefined;
  for (const symbol of symbols) {
    if (!CALLABLE_KINDS.has(symbol.kind) || symbol.startLine > line || symbol.endLine < line) continue;
    if (found === undefined || symbol.endLine - symbol.startLine < found.endLine - found.startLine) found = symbol;
  }
  return found;
}

export interface Snippet {
  startLine: number;
  endLine: number;
  text: string;
}

/**
 * Start offsets of lines from `from.line` (at `from.offset`; default: line 1 at 0) up to lastLine + 1
 * (as far as the text goes), found without scanning past them: line n starts at starts[n - base].
 */
function offsetsUpTo(text: string, lastLine: number, from: { line: number; offset: number } = { line: 1, offset: 0 }): { base: number; starts: number[] } {
  return { base: from.line, starts: lineStarts(text, from.offset, lastLine - from.line + 2) };
}

/** Whether `offset` is where a line of `text` starts (CR, LF and CRLF each end a line). */
export function startsLine(text: string, offset: number): boolean {
  if (offset === 0) return true;
  if (offset < 0 || offset > text.length) return false;
  const before = text.charCodeAt(offset - 1);
  return before === 0x0a || (before === 0x0d && text.charCodeAt(offset) !== 0x0a);
}

/**
 * Up to LIMITS.intel.search.snippetLines lines of [startLine, endLine] around the line holding most
 * query terms. `known` (a line at or before startLine and its offset in `text`, e.g. where the chunk
 * starts) saves scanning the file from its beginning; one that does not start a line is ignored.
 */
export function snippetOf(text: string, startLine: number, endLine: number, terms: readonly string[], known?: { line: number; offset: number }): Snippet {
  const hint = known !== undefined && known.line >= 1 && known.line <= startLine && startsLine(text, known.offset) ? known : undefined;
  const { base, starts } = offsetsUpTo(text, endLine, hint);
  const lineStart = (line: number) => starts[line - base] ?? text.length;
  const lastLine = Math.min(endLine, base - 1 + starts.length);
  // The query terms as a dictionary of their own: counting a line then counts its query terms only.
  const wanted = new TermDictionary();
  for (const term of terms) wanted.intern(term);
  const counter = new TermCounter();
  let bestLine = startLine;
  let bestHits = 0;
  for (let line = startLine; line <= lastLine; line++) {
    counter.reset();
    countTerms(text, lineStart(line), lineStart(line + 1), wanted, counter, false);
    const hits = counter.length;
    if (hits > bestHits) {
      bestHits = hits;
      bestLine = line;
    }
  }
  const size = LIMITS.intel.search.snippetLines;
  // One line of context above the best line, when the chunk has it.
  const from = Math.max(startLine, Math.min(bestLine - 1, lastLine - size + 1));
  const to = Math.min(lastLine, from + size - 1);
  const lines = text
    .slice(lineStart(from), lineStart(to + 1))
    .split(/\r\n|\r|\n/)
    .slice(0, to - from + 1)
    .map((line) => (line.length > LIMITS.intel.search.snippetLineChars ? `${line.slice(0, LIMITS.intel.search.snippetLineChars)}…` : line));
  return { startLine: from, endLine: to, text: lines.join("\n") };
}

/** Hops from `start` to every file within `maxHops` imports, in either direction (start itself at 0). */
export function hopsFrom(graph: Parameters<typeof walkGraph>[0], start: string, maxHops: number): Map<string, number> {
  return new Map([[start, 0], ...walkGraph(graph, start, "both", maxHops, Infinity).levels]);
}
