/**
 * Puts the compiler's types onto the syntax-tree outline: each outline symbol is matched to the
 * typed symbol with the same qualified name and first line, else the same qualified name when
 * that is unique, else the same last name segment on the same line.
 */
import { isToolError } from "../../core/errors.ts";
import type { Workspace } from "../../policy/workspace.ts";
import { supportsTypedAnswers } from "./services.ts";
import { type TypedOptions, typedOutline, type TypedSymbol } from "./typed.ts";

interface Located {
  qualifiedName: string;
  startLine: number;
}

function lastSegment(name: string): string {
  return name.slice(name.lastIndexOf(".") + 1);
}

function matchTyped<T extends Located>(symbols: readonly T[], typed: readonly TypedSymbol[]): Map<T, TypedSymbol> {
  const byNameAndLine = new Map<string, TypedSymbol>();
  const byName = new Map<string, TypedSymbol[]>();
  const byShortNameAndLine = new Map<string, TypedSymbol[]>();
  for (const symbol of typed) {
    if (symbol.error !== undefined) continue;
    const key = `${symbol.qualifiedName}@${symbol.startLine}`;
    // Several call signatures of one value: the first is the one shown.
    if (!byNameAndLine.has(key)) byNameAndLine.set(key, symbol);
    byName.set(symbol.qualifiedName, [...(byName.get(symbol.qualifiedName) ?? []), symbol]);
    const short = `${lastSegment(symbol.qualifiedName)}@${symbol.startLine}`;
    byShortNameAndLine.set(short, [...(byShortNameAndLine.get(short) ?? []), symbol]);
  }
  const matched = new Map<T, TypedSymbol>();
  for (const symbol of symbols) {
    const exact = byNameAndLine.get(`${symbol.qualifiedName}@${symbol.startLine}`);
    const sameName = byName.get(symbol.qualifiedName);
    const sameLine = byShortNameAndLine.get(`${lastSegment(symbol.qualifiedName)}@${symbol.startLine}`);
    const found = exact ?? (sameName?.length === 1 ? sameName[0] : undefined) ?? (sameLine?.length === 1 ? sameLine[0] : undefined);
    if (found) matched.set(symbol, found);
  }
  return matched;
}

/**
 * For typed: true on a tool: the compiler's symbols matched to an outline's. Never throws a
 * ToolError (a file the compiler cannot take yields a note instead); other languages yield nothing.
 */
export async function typedSymbolsFor<T extends Located>(
  workspace: Workspace,
  real: string,
  symbols: readonly T[],
  options: TypedOptions,
): Promise<{ matches: Map<T, TypedSymbol>; note?: string }> {
  if (!supportsTypedAnswers(real) || symbols.length === 0) return { matches: new Map() };
  try {
    const resolved = await workspace.resolve(real, "read");
    const outline = await typedOutline(workspace, resolved, options);
    const notes = outline.project.notes.map((note) => `${resolved.display}: ${note}`);
    return { matches: matchTyped(symbols, outline.symbols), ...(notes.length > 0 ? { note: notes.join("; ") } : {}) };
  } catch (error) {
    if (options.signal?.aborted || !isToolError(error)) throw error;
    return { matches: new Map(), note: `no typed answer for ${workspace.display(real)}: ${error.message}` };
  }
}
