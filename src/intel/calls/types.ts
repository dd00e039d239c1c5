/** The shapes of the call graph. Paths are real paths; lines are 1-based. */
import type { CallFact, SymbolKind } from "../facts/types.ts";

/**
 * How sure an edge is: `exact` — the callee was found through an import binding (re-exports
 * followed), a declaration in scope, or (Go, Python, TS/JS) on the receiver's known type or what it
 * extends or embeds (through an interface value: the interface's method); `inferred` — the only
 * workspace declaration of that name (where receivers have no types: not in Go, Python or TS/JS);
 * `ambiguous` — several declarations could be meant (all listed), or in Go, Python and TS/JS the
 * receiver's type is unknown (with the reason).
 */
export type Confidence = "exact" | "inferred" | "ambiguous";

/**
 * How an edge's confidence reads in a text answer, the same in every call tool: nothing for exact,
 * `[inferred]`, `[ambiguous: <the candidates, or how many>; <reason>]`. `targets` are as displayed.
 */
export function confidenceTag(confidence: Confidence, targets: readonly string[], reason?: string, total: number = targets.length): string {
  if (confidence === "exact") return "";
  if (confidence === "inferred") return " [inferred]";
  const candidates = total <= 3 ? targets.slice(0, 3).join(", ") : `${total} candidates`;
  const detail = [candidates, reason ?? ""].filter((part) => part.length > 0).join("; ");
  return detail.length > 0 ? ` [ambiguous: ${detail}]` : " [ambiguous]";
}

export const CONFIDENCE_ORDER: Readonly<Record<Confidence, number>> = { exact: 0, inferred: 1, ambiguous: 2 };

export interface SymbolRef {
  file: string;
  name: string;
  qualifiedName: string;
  kind: SymbolKind;
  startLine: number;
  endLine: number;
  signature: string;
  exported: boolean;
  parent?: string;
  local?: boolean;
  heritage?: string[];
}

export function symbolKey(symbol: Pick<SymbolRef, "file" | "qualifiedName" | "startLine">): string {
  return `${symbol.file}#${symbol.qualifiedName}@${symbol.startLine}`;
}

/** One call expression in one file. */
export interface CallSite {
  file: string;
  /** Position of the fact in the file's calls (stable per file version). */
  ordinal: number;
  fact: CallFact;
}

export type CallResolution =
  /** `reason`: why an edge is ambiguous though one declaration may have the name (the receiver's type is unknown). */
  | { status: "resolved"; confidence: Confidence; targets: SymbolRef[]; reason?: string }
  /** Found to be outside the workspace (an external package's export, a builtin). */
  | { status: "external"; detail: string }
  | { status: "unresolved"; detail: string };

export interface CallEdge {
  site: CallSite;
  /** The function or method the call is written in; undefined at module level. */
  caller: SymbolRef | undefined;
  confidence: Confidence;
  /** The callee declarations (several when ambiguous). */
  targets: SymbolRef[];
  /** Why the edge is ambiguous, when it is not for several candidates: "receiver `backend` has no known type". */
  reason?: string;
}
