/**
 * Small helpers the language modules share: reading a field's text or start, splitting lists,
 * and turning a declaration into a symbol with the usual signature/doc/lines.
 */
import type { Rule, SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, LanguageExtractor, ScopeRole } from "../engine.ts";
import { headText, type CommentStyle, docAbove } from "../text.ts";
import type { SymbolFact, SymbolKind, Visibility } from "../types.ts";

export function kinds(...names: string[]): Rule[] {
  return names.map((kind) => ({ kind }));
}

/** An extractor that matches exactly the node kinds it has handlers for. */
export function extractorFor(handlers: Readonly<Record<string, Handler>>, rest: Omit<LanguageExtractor, "rules" | "handlers"> = {}): LanguageExtractor {
  return { rules: kinds(...Object.keys(handlers)), handlers, ...rest };
}

/** Where a node's `body` field starts (the end of its declaration head), or undefined. */
export function bodyStart(node: SgNode | undefined): number | undefined {
  const body = node?.field("body" as never) as SgNode | null | undefined;
  return body ? body.range().start.index : undefined;
}

/** Calls whose callee is the call node's `function` field, arguments in parentheses (Go, Python, Rust). */
export const FUNCTION_FIELD_CALLS: CallSyntax = { openers: "(", callee: (node) => node.field("function" as never) as SgNode | null };

/** `new Foo(…)`: a call of Foo, the callee read after the keyword. */
export const newExpression: Handler = (node, at, facts) => {
  const skip = /^new\s+/.exec(facts.text.slice(at.start, at.start + 12))?.[0].length;
  // `outer.new Inner()` (Java) and the like: the callee is read from the node.
  facts.queueCall(node, at, skip ?? 0);
};

/** The offset just after the parenthesis opening at `open` closes (nested ones skipped), or -1. */
export function parenEnd(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (char === 40 /* ( */) depth++;
    else if (char === 41 /* ) */ && --depth === 0) return index + 1;
  }
  return -1;
}

/** Splits at top-level separators (outside (), [], {}, <> and quotes). */
export function splitTopLevel(text: string, separator = ","): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let current = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quote !== undefined) {
      current += char;
      if (char === quote && text[index - 1] !== "\\") quote = undefined;
      continue;
    }
    if (char === "\"" || char === "'" || char === "`") quote = char;
    else if ("([{<".includes(char)) depth++;
    else if (")]}>".includes(char) && !(char === ">" && text[index - 1] === "=")) depth = Math.max(0, depth - 1);
    else if (depth === 0 && text.startsWith(separator, index)) {
      parts.push(current.trim());
      current = "";
      index += separator.length - 1;
      continue;
    }
    current += char;
  }
  if (current.trim().length > 0) parts.push(current.trim());
  return parts.filter((part) => part.length > 0);
}

/** `Base<T>` → `Base`; `a.B<C>` → `a.B`. */
export function stripTypeArguments(name: string): string {
  let result = "";
  let depth = 0;
  for (const char of name) {
    if (char === "<" || char === "[" || char === "(") depth++;
    else if (char === ">" || char === "]" || char === ")") depth = Math.max(0, depth - 1);
    else if (depth === 0) result += char;
  }
  return result.trim();
}

/** A comma-separated list of type names, without type arguments or modifiers. */
export function typeNames(list: string): string[] {
  return splitTopLevel(list)
    .map((item) => stripTypeArguments(item.replace(/^(?:public|private|protected|virtual|open|final|sealed)\s+/, "")).trim())
    .filter((item) => item.length > 0);
}

export interface DeclareOptions {
  name: string;
  kind: SymbolKind;
  visibility: Visibility;
  exported: boolean;
  /** Lines and doc position (defaults to the node's). */
  at: At;
  /** Where the signature starts (defaults to at.start) and ends (the body start; defaults to at.end). */
  headStart?: number;
  headEnd?: number | undefined;
  /** A signature already built. */
  signature?: string;
  doc?: string | undefined;
  docStyle?: CommentStyle;
  /** Where the doc comment is looked for above (defaults to at.start). */
  docAt?: number;
  heritage?: string[] | undefined;
  role?: ScopeRole;
  scopeData?: unknown;
  /** Where the member scope starts and ends, if not at.start/at.end. */
  scopeStart?: number;
  scopeEnd?: number;
  /** Open the scope when the traversal reaches it (the symbol was recorded ahead of the traversal). */
  later?: boolean;
  /** Declared inside a function body (an anonymous one the scope stack does not know). */
  local?: boolean;
}

/** Adds a symbol with a signature read from the text between headStart and headEnd. */
export function declare(facts: FactsBuilder, options: DeclareOptions): SymbolFact {
  const text = facts.text;
  const signature = options.signature ?? headText(text, options.headStart ?? options.at.start, options.headEnd ?? options.at.end);
  const doc = options.doc ?? (options.docStyle === undefined ? undefined : docAbove(text, options.docAt ?? options.at.start, options.docStyle));
  return facts.addSymbol(
    { ...options, signature, doc },
    options.role,
    { start: options.scopeStart, end: options.scopeEnd, data: options.scopeData, later: options.later },
  );
}

/** An At spanning from one position to another (lines from both). */
export function spanAt(from: At, to: At): At {
  return { start: from.start, end: to.end, line: from.line, column: from.column, endLine: to.endLine };
}

/**
 * Marks top-level symbols named in exportedNames (without `from`) as exported, for `export { a }`,
 * `module.exports = { a }` and `__all__`; their non-private members join the surface too.
 */
export function markExportedByName(facts: FactsBuilder): void {
  const names = new Set<string>();
  for (const entry of facts.exportedNames) if (entry.from === undefined) names.add(entry.local ?? entry.name);
  if (names.size === 0) return;
  const surfaced = new Set<string>();
  for (const symbol of facts.symbols) {
    if (symbol.parent === undefined) {
      if (!symbol.local && names.has(symbol.name)) {
        symbol.exported = true;
        symbol.visibility = "public";
        surfaced.add(symbol.qualifiedName);
      }
    } else if (surfaced.has(symbol.parent) && !symbol.local && symbol.visibility !== "private") {
      symbol.exported = true;
      surfaced.add(symbol.qualifiedName);
    }
  }
}

/**
 * For bindings found in the text once the traversal is over: the qualifiedName of the innermost
 * declaration of one of `kinds` around a line (undefined: none, the module or package level).
 */
export function innermostAt(facts: FactsBuilder, kinds: ReadonlySet<string>): (line: number) => string | undefined {
  const around = facts.symbols.filter((symbol) => kinds.has(symbol.kind)).sort((a, b) => a.startLine - b.startLine);
  return (line) => {
    // Nested declarations start later: the last one starting before the line that still holds it is the innermost.
    let found: string | undefined;
    for (const symbol of around) {
      if (symbol.startLine > line) break;
      if (line <= symbol.endLine) found = symbol.qualifiedName;
    }
    return found;
  };
}
