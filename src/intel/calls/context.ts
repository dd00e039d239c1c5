/**
 * Packs what a model needs to work on one declaration into a token budget: the declaration's own
 * source first (cut to the budget if it alone is too large), then the bodies of what it calls
 * (exact and inferred callees, in call order; a body too large for what is left is skipped, not
 * cut), and the signatures of its callers, with a quarter of the rest kept for those so a few
 * large callees cannot crowd them out. Everything left out is named.
 */
import { cutToTokens, estimateTokens } from "../../helpers/tokens.ts";
import { splitLines } from "../../text/index.ts";
import type { CallGraph } from "./call-graph.ts";
import { type CallEdge, type Confidence, confidenceTag, type SymbolRef, symbolKey } from "./types.ts";

export interface ContextSection {
  role: "target" | "callee" | "caller";
  symbol: SymbolRef | undefined;
  /** For callers: the file and line of the call. */
  file: string;
  startLine: number;
  endLine: number;
  confidence?: Confidence;
  text: string;
  tokens: number;
  /** The text was cut to fit (only the target's body is ever cut). */
  cut?: boolean;
}

export interface PackedContext {
  sections: ContextSection[];
  usedTokens: number;
  budget: number;
  /** Callees and callers that did not fit, by qualified name and place. */
  omitted: Array<{ role: "callee" | "caller"; name: string; file: string; line: number }>;
  /** Calls the graph could only guess the callee of (not packed: name one precisely to see it), in call order. */
  ambiguousCallees: CallEdge[];
}

export type TextReader = (real: string) => Promise<string | undefined>;

function slice(text: string, startLine: number, endLine: number): string {
  return splitLines(text).slice(Math.max(0, startLine - 1), Math.max(startLine, endLine)).join("\n");
}

export async function packContext(
  graph: CallGraph,
  target: SymbolRef,
  budget: number,
  readText: TextReader,
  display: (real: string) => string,
): Promise<PackedContext> {
  const cache = new Map<string, Promise<string | undefined>>();
  const read = (real: string) => {
    let pending = cache.get(real);
    if (!pending) cache.set(real, pending = readText(real));
    return pending;
  };
  const sections: ContextSection[] = [];
  const omitted: PackedContext["omitted"] = [];
  let used = 0;

  const header = (symbol: SymbolRef) => `${display(symbol.file)}:${symbol.startLine}-${symbol.endLine} ${symbol.qualifiedName} (${symbol.kind})`;
  const targetText = (await read(target.file)) ?? "";
  const body = `${header(target)}\n${slice(targetText, target.startLine, target.endLine)}`;
  const cut = cutToTokens(body, budget);
  sections.push({
    role: "target",
    symbol: target,
    file: target.file,
    startLine: target.startLine,
    endLine: target.endLine,
    text: cut.text,
    tokens: cut.tokens,
    ...(cut.truncated ? { cut: true } : {}),
  });
  used += cut.tokens;

  const { edges: calleeEdges } = graph.calleesOf(target);
  const callees: Array<{ symbol: SymbolRef; confidence: Confidence }> = [];
  const ambiguous: CallEdge[] = [];
  const seen = new Set<string>([symbolKey(target)]);
  for (const edge of [...calleeEdges].sort((a, b) => a.site.fact.line - b.site.fact.line || a.site.fact.column - b.site.fact.column)) {
    if (edge.confidence === "ambiguous") {
      ambiguous.push(edge);
      continue;
    }
    for (const symbol of edge.targets) {
      const key = symbolKey(symbol);
      if (seen.has(key)) continue;
      seen.add(key);
      callees.push({ symbol, confidence: edge.confidence });
    }
  }
  const callerLines: ContextSection[] = [];
  const callerSeen = new Set<string>();
  for (const edge of graph.callersOf(target)) {
    const caller = edge.caller;
    const key = caller ? symbolKey(caller) : `${edge.site.file}\0module`;
    if (callerSeen.has(key)) continue;
    callerSeen.add(key);
    const tag = confidenceTag(edge.confidence, edge.targets.map((symbol) => `${display(symbol.file)}#${symbol.qualifiedName}`), edge.reason);
    const text = `${display(edge.site.file)}:${edge.site.fact.line} ${caller ? `${caller.qualifiedName}: ${caller.signature}` : "(module level)"}${tag}`;
    callerLines.push({
      role: "caller",
      symbol: caller,
      file: edge.site.file,
      startLine: edge.site.fact.line,
      endLine: edge.site.fact.line,
      confidence: edge.confidence,
      text,
      tokens: estimateTokens(text) + 1,
    });
  }

  const remaining = Math.max(0, budget - used);
  const callerTotal = callerLines.reduce((sum, line) => sum + line.tokens, 0);
  const reserve = Math.min(callerTotal, Math.floor(remaining / 4));
  let calleeBudget = remaining - reserve;
  for (const { symbol, confidence } of callees) {
    const text = `${header(symbol)}${confidenceTag(confidence, [])}\n${slice((await read(symbol.file)) ?? "", symbol.startLine, symbol.endLine)}`;
    const tokens = estimateTokens(text) + 1;
    if (tokens > calleeBudget) {
      omitted.push({ role: "callee", name: symbol.qualifiedName, file: symbol.file, line: symbol.startLine });
      continue;
    }
    calleeBudget -= tokens;
    used += tokens;
    sections.push({ role: "callee", symbol, file: symbol.file, startLine: symbol.startLine, endLine: symbol.endLine, confidence, text, tokens });
  }
  let callerBudget = budget - used;
  for (const line of callerLines) {
    if (line.tokens > callerBudget) {
      omitted.push({ role: "caller", name: line.symbol?.qualifiedName ?? "(module level)", file: line.file, line: line.startLine });
      continue;
    }
    callerBudget -= line.tokens;
    used += line.tokens;
    sections.push(line);
  }
  return { sections, usedTokens: used, budget, omitted, ambiguousCallees: ambiguous };
}
