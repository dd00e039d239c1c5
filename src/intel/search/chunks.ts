/**
 * Cuts a file into search chunks along its symbols: a symbol of moderate size is one chunk; a longer
 * one is split into its head, its members and the code between them; the code between symbols (and
 * files without symbols) is cut into windows of a fixed number of lines. Chunks never overlap, and
 * every line of the file falls in exactly one.
 */
import type { SymbolFact } from "../facts/types.ts";
import { lastIndexWhere } from "../../core/bisect.ts";

/** How files are cut: lines per window (a file, a long symbol, or the code between symbols), and the longest symbol kept as one chunk (a longer one is split into its members and windows). */
export const CHUNK_LINES = { window: 40, maxSymbol: 80 } as const;

export interface ChunkSpan {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  /** The innermost symbol the chunk belongs to (undefined for code between top-level symbols). */
  owner?: SymbolFact;
  /** Symbols whose declaration starts inside this chunk: the chunk defines them. */
  defines: SymbolFact[];
}

interface SymbolNode {
  symbol: SymbolFact;
  children: SymbolNode[];
}

/** Nests symbols by line containment (outer first at equal start); a symbol poking out of its container becomes a sibling. */
function nest(symbols: readonly SymbolFact[], lineCount: number): SymbolNode[] {
  const sorted = symbols
    .filter((symbol) => symbol.startLine >= 1 && symbol.endLine >= symbol.startLine && symbol.startLine <= lineCount)
    .map((symbol) => ({ symbol: symbol.endLine <= lineCount ? symbol : { ...symbol, endLine: lineCount }, children: [] as SymbolNode[] }))
    .sort((a, b) => a.symbol.startLine - b.symbol.startLine || b.symbol.endLine - a.symbol.endLine);
  const top: SymbolNode[] = [];
  const open: SymbolNode[] = [];
  for (const node of sorted) {
    while (open.length > 0 && node.symbol.endLine > open[open.length - 1]!.symbol.endLine) open.pop();
    const parent = open[open.length - 1];
    if (parent) parent.children.push(node);
    else top.push(node);
    open.push(node);
  }
  return top;
}

function lineSpan(symbol: SymbolFact): number {
  return symbol.endLine - symbol.startLine + 1;
}

/** Splits [start, end] into windows; `owner` labels them. */
function windows(start: number, end: number, owner: SymbolFact | undefined, out: ChunkSpan[]): void {
  const size = CHUNK_LINES.window;
  for (let from = start; from <= end; from += size) {
    const span: ChunkSpan = { startLine: from, endLine: Math.min(end, from + size - 1), defines: [] };
    if (owner) span.owner = owner;
    out.push(span);
  }
}

function descendants(node: SymbolNode, out: SymbolFact[]): SymbolFact[] {
  for (const child of node.children) {
    out.push(child.symbol);
    descendants(child, out);
  }
  return out;
}

function cover(start: number, end: number, nodes: SymbolNode[], owner: SymbolFact | undefined, out: ChunkSpan[]): void {
  let cursor = start;
  for (const node of nodes) {
    const { symbol } = node;
    if (symbol.startLine < cursor) continue; // overlaps an earlier sibling: its lines are already covered
    if (symbol.startLine > cursor) windows(cursor, symbol.startLine - 1, owner, out);
    if (lineSpan(symbol) <= CHUNK_LINES.maxSymbol) {
      out.push({ startLine: symbol.startLine, endLine: symbol.endLine, owner: symbol, defines: [symbol, ...descendants(node, [])] });
    } else if (node.children.length === 0) {
      windows(symbol.startLine, symbol.endLine, symbol, out);
    } else {
      cover(symbol.startLine, symbol.endLine, node.children, symbol, out);
    }
    cursor = symbol.endLine + 1;
  }
  if (cursor <= end) windows(cursor, end, owner, out);
}

/** The chunks of a file of `lineCount` lines with these symbols, in line order. */
export function chunkFile(lineCount: number, symbols: readonly SymbolFact[]): ChunkSpan[] {
  if (lineCount <= 0) return [];
  const out: ChunkSpan[] = [];
  const top = nest(symbols, lineCount);
  cover(1, lineCount, top, undefined, out);
  // Symbols no symbol chunk claimed (split symbols, overlapping siblings) are defined by the chunk holding their first line.
  const claimed = new Set<SymbolFact>();
  for (const span of out) for (const symbol of span.defines) claimed.add(symbol);
  for (const symbol of top.flatMap((node) => [node.symbol, ...descendants(node, [])])) {
    if (claimed.has(symbol)) continue;
    out[Math.max(0, lastIndexWhere(out.length, (index) => out[index]!.startLine <= symbol.startLine))]?.defines.push(symbol);
  }
  return out;
}
