/**
 * The shared machinery of the fact extractors. Each language names the node kinds it cares about;
 * ONE native traversal (`findAll` with an `any` of kind rules) returns them in document order, and
 * JavaScript only touches those nodes. Nesting is tracked by position (a stack of open scopes
 * popped by start offset), so parents, `local` and the caller of every call cost no extra tree
 * walks; doc comments and signatures are read from the source string.
 */
import type { Rule, SgNode } from "@ast-grep/napi";
import { LIMITS } from "../../core/limits.ts";
import type { LanguageId } from "../../syntax/index.ts";
import { lineIndexAt, lineStarts } from "../../text/index.ts";
import { collapseTail } from "./text.ts";
import type { CallFact, ExportedName, FileFacts, ImportFact, SymbolFact, SymbolKind, TypeBinding, Visibility } from "./types.ts";

/** Where a node is: UTF-16 offsets into the text, 1-based lines and column. */
export interface At {
  start: number;
  end: number;
  line: number;
  column: number;
  endLine: number;
}

export type Handler = (node: SgNode, at: At, facts: FactsBuilder) => void;

/** How calls of a language are written, for reading a callee from the text. */
export interface CallSyntax {
  /** Characters that may start the argument list right after the callee (after optional whitespace or `?.`). */
  openers: string;
  /** A callee chain that runs to the end of the call node is a call without arguments (Ruby `a.b`). */
  bareCalls?: boolean;
  /** Whitespace itself opens the arguments (command calls: Ruby `puts x`, Elixir `foo x`). */
  spaceOpens?: boolean;
  /** The callee node of a call node, for callees the text path cannot read (`(f || g)(x)`, `a[i](x)`). */
  callee(node: SgNode): SgNode | null;
}

export interface LanguageExtractor {
  /** Matched in one traversal (ERROR nodes are added and counted by the engine). */
  rules: Rule[];
  handlers: Readonly<Record<string, Handler>>;
  calls?: CallSyntax;
  /** Runs after the traversal (surface rules that need every symbol, such as `__all__`). */
  finish?: (facts: FactsBuilder) => void;
  /**
   * Kinds matched only (or mostly) for calls, with what to match instead when calls are not
   * wanted: null drops the kind; a rule keeps the nodes that also make imports (`require(…)`).
   */
  callKinds?: Readonly<Record<string, Rule | null>>;
}

/**
 * "container": members are named through it (class, namespace, impl); "callable": a body whose
 * declarations are local (function, method); "value": an initialiser (calls in it belong to the
 * symbol); "object": an object literal whose function members become methods.
 */
export type ScopeRole = "container" | "callable" | "value" | "object";

export interface Scope {
  start: number;
  end: number;
  role: ScopeRole;
  /** The symbol the scope belongs to (calls inside are attributed to it unless it is a container). */
  symbol?: SymbolFact;
  /** Name prefix for members; defaults to the symbol's qualifiedName. */
  qualifiedName?: string;
  /** Whether members may be exported (the scope itself is part of the surface). */
  exported: boolean;
  /** Language-specific data (default member visibility, the object node's start, …). */
  data?: unknown;
}

export interface SymbolInit {
  name: string;
  kind: SymbolKind;
  /** Lines come from here. */
  at: At;
  visibility: Visibility;
  exported: boolean;
  signature: string;
  doc?: string | undefined;
  heritage?: string[] | undefined;
  /** Declared in a function body even when no named function scope is open (callbacks). */
  local?: boolean;
}

interface Wrapper {
  start: number;
  end: number;
  kind: string;
  data?: unknown;
}

interface RawCall {
  start: number;
  end: number;
  line: number;
  column: number;
  caller: string | undefined;
  node: SgNode;
  /** Characters at the start that are not the callee (`new `). */
  skip: number;
}

/** Identifier characters of every supported language (non-ASCII letters count). */
function isNameCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 36 || code === 35 || code === 64 || code > 127
  );
}

function isSpaceCode(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

/**
 * The end of a callee chain starting at `from`: names joined by `.`, `?.`, `::`, `->` or `:`
 * (whitespace allowed around joiners), each name optionally ending in `!` or `?`. The first
 * name may itself be preceded by a joiner (a chain continuing after an inner call).
 */
function scanChain(text: string, from: number, limit: number): number {
  let index = from;
  let end = from;
  let needJoiner = false;
  while (index < limit) {
    let cursor = index;
    while (cursor < limit && isSpaceCode(text.charCodeAt(cursor))) cursor++;
    const code = text.charCodeAt(cursor);
    const next = text.charCodeAt(cursor + 1);
    let joined = false;
    if (code === 46 /* . */) {
      cursor += 1;
      joined = true;
    } else if (code === 63 /* ? */ && next === 46) {
      cursor += 2;
      joined = true;
    } else if (code === 63 /* ? */ && next === 45 && text.charCodeAt(cursor + 2) === 62) {
      cursor += 3;
      joined = true;
    } else if (code === 92 /* \ */) {
      cursor += 1;
      joined = true;
    } else if (code === 58 /* : */) {
      cursor += next === 58 ? 2 : 1;
      joined = true;
    } else if (code === 45 /* - */ && next === 62 /* > */) {
      cursor += 2;
      joined = true;
    }
    if (needJoiner && !joined) break;
    while (cursor < limit && isSpaceCode(text.charCodeAt(cursor))) cursor++;
    const nameStart = cursor;
    while (cursor < limit && isNameCode(text.charCodeAt(cursor))) cursor++;
    if (cursor === nameStart) break;
    const suffix = text.charCodeAt(cursor);
    if ((suffix === 33 || suffix === 63) && text.charCodeAt(cursor + 1) !== 46 && text.charCodeAt(cursor + 1) !== 61) cursor++;
    end = cursor;
    index = cursor;
    needJoiner = true;
  }
  return end;
}

/** Whitespace runs → one space, trimmed; skips the regex when there is nothing to do. */
function flatten(text: string): string {
  return /\s\s|[\t\n\r]|^\s|\s$/.test(text) ? text.replace(/\s+/g, " ").trim() : text;
}

type SymbolScope = { start?: number | undefined; end?: number | undefined; data?: unknown; qualifiedName?: string; later?: boolean | undefined };

export class FactsBuilder {
  readonly symbols: SymbolFact[] = [];
  readonly imports: ImportFact[] = [];
  readonly exportedNames: ExportedName[] = [];
  readonly #bindings: TypeBinding[] = [];
  parseErrors = 0;
  /** Offsets a language module has handled already (free for its own bookkeeping). */
  readonly marks = new Set<number>();
  /** False when the caller asked for no calls: call records are dropped. */
  callsEnabled = true;
  readonly #calls: RawCall[] = [];
  readonly #readyCalls: CallFact[] = [];
  readonly #stack: Scope[] = [];
  readonly #wrappers: Wrapper[] = [];
  /** Scopes opened ahead of the traversal (module-level declarations read from their statement list), by start. */
  readonly #scheduled: Scope[] = [];
  #errorEnd = -1;

  #lineStarts: number[] | undefined;
  #lineHint = 0;

  constructor(
    readonly language: LanguageId,
    readonly text: string,
  ) {}

  /**
   * Where a node is. Read through `replace("")`, which hands back the node's UTF-16 offsets in one
   * flat object (about half the cost of `range()`, whose nested objects dominated extraction of
   * call-dense files); lines and columns come from a line table of the text.
   */
  at(node: SgNode, startOnly = false): At {
    const edit = node.replace("");
    const start = edit.startPos;
    const end = edit.endPos;
    const line = this.lineOf(start);
    // Calls need no end line.
    if (startOnly) return { start, end, line, column: start - this.#lineStarts![line - 1]! + 1, endLine: line };
    // The last line with text: a node may swallow the newline (and blank lines) after it.
    let last = end;
    while (last > start && isSpaceCode(this.text.charCodeAt(last - 1))) last--;
    let endLine = last > start ? this.lineOf(last - 1) : line;
    if (endLine < line) endLine = line;
    return { start, end, line, column: start - this.#lineStarts![line - 1]! + 1, endLine };
  }

  /** The 1-based line of a UTF-16 offset. */
  lineOf(offset: number): number {
    const starts = (this.#lineStarts ??= lineStarts(this.text));
    // The traversal asks in document order: the last answer or the next line is usually right.
    const hint = this.#lineHint;
    if (starts[hint]! <= offset) {
      if (hint + 1 >= starts.length || offset < starts[hint + 1]!) return hint + 1;
      if (hint + 2 >= starts.length || offset < starts[hint + 2]!) return (this.#lineHint = hint + 1) + 1;
    }
    this.#lineHint = lineIndexAt(starts, offset);
    return this.#lineHint + 1;
  }

  /** Closes the scopes and wrappers that end before `start`. */
  enter(start: number): void {
    const stack = this.#stack;
    while (stack.length > 0 && stack[stack.length - 1]!.end <= start) stack.pop();
    const scheduled = this.#scheduled;
    while (scheduled.length > 0 && scheduled[0]!.start <= start) {
      const scope = scheduled.shift()!;
      if (scope.end > start) stack.push(scope);
    }
    const wrappers = this.#wrappers;
    while (wrappers.length > 0 && wrappers[wrappers.length - 1]!.end <= start) wrappers.pop();
  }

  /** Counts an ERROR node unless it lies inside one already counted. */
  error(at: At): void {
    if (at.start < this.#errorEnd) return;
    this.parseErrors++;
    this.#errorEnd = Math.max(at.end, at.start + 1);
  }

  top(): Scope | undefined {
    return this.#stack[this.#stack.length - 1];
  }

  /** The nearest scope that names its members (has a qualifiedName). */
  owner(): Scope | undefined {
    for (let index = this.#stack.length - 1; index >= 0; index--) {
      const scope = this.#stack[index]!;
      if (scope.qualifiedName !== undefined || scope.symbol !== undefined) return scope;
    }
    return undefined;
  }

  /** Inside a function or method body. */
  inCallable(): boolean {
    for (let index = this.#stack.length - 1; index >= 0; index--) if (this.#stack[index]!.role === "callable") return true;
    return false;
  }

  /** qualifiedName of the innermost enclosing symbol that is not a container. */
  callerName(): string | undefined {
    for (let index = this.#stack.length - 1; index >= 0; index--) {
      const scope = this.#stack[index]!;
      if (scope.role !== "container" && scope.symbol !== undefined) return scope.symbol.qualifiedName;
    }
    return undefined;
  }

  pushScope(scope: Scope): void {
    this.#stack.push(scope);
  }

  /** Runs `fn` with `scope` open (to record members of a symbol whose own scope opens later). */
  withScope(scope: Scope, fn: () => void): void {
    this.#stack.push(scope);
    try {
      fn();
    } finally {
      const index = this.#stack.lastIndexOf(scope);
      if (index !== -1) this.#stack.splice(index);
    }
  }

  /** The scope a symbol would open, for withScope. */
  scopeOf(symbol: SymbolFact, role: ScopeRole = "container"): Scope {
    return { start: 0, end: Number.MAX_SAFE_INTEGER, role, symbol, exported: symbol.exported };
  }

  /** Opens `scope` when the traversal reaches its start (for symbols recorded ahead of it). */
  schedule(scope: Scope): void {
    const scheduled = this.#scheduled;
    let index = scheduled.length;
    while (index > 0 && scheduled[index - 1]!.start > scope.start) index--;
    scheduled.splice(index, 0, scope);
  }

  /**
   * Records a symbol nested under the current owner; `role` opens a scope over the symbol (or
   * `scope.start`–`scope.end`), right away or, with `scope.later`, when the traversal gets there.
   */
  addSymbol(init: SymbolInit, role?: ScopeRole, scope?: SymbolScope): SymbolFact {
    const owner = this.owner();
    const parent = owner === undefined ? undefined : (owner.qualifiedName ?? owner.symbol!.qualifiedName);
    const local = init.local === true || this.inCallable();
    const symbol: SymbolFact = {
      name: init.name,
      qualifiedName: parent === undefined ? init.name : `${parent}.${init.name}`,
      kind: init.kind,
      visibility: init.visibility,
      exported: init.exported && !local,
      startLine: init.at.line,
      endLine: init.at.endLine,
      signature: init.signature,
    };
    if (init.doc !== undefined) symbol.doc = init.doc;
    if (parent !== undefined) symbol.parent = parent;
    if (init.heritage !== undefined && init.heritage.length > 0) symbol.heritage = init.heritage;
    if (local) symbol.local = true;
    this.symbols.push(symbol);
    if (role !== undefined) {
      const opened: Scope = {
        start: scope?.start ?? init.at.start,
        end: scope?.end ?? init.at.end,
        role,
        symbol,
        exported: symbol.exported,
      };
      if (scope?.data !== undefined) opened.data = scope.data;
      if (scope?.qualifiedName !== undefined) opened.qualifiedName = scope.qualifiedName;
      if (scope?.later === true) this.schedule(opened);
      else this.#stack.push(opened);
    }
    return symbol;
  }

  /** Remembers a node that wraps a declaration (`export …`, decorators) until the traversal leaves it. */
  wrap(at: At, kind: string, data?: unknown): void {
    const wrapper: Wrapper = { start: at.start, end: at.end, kind };
    if (data !== undefined) wrapper.data = data;
    this.#wrappers.push(wrapper);
  }

  /** The innermost open wrapper of `kind` that ends where `at` ends (ignoring a trailing `;`). */
  wrapperOf(at: At, kind: string): { start: number; end: number; data?: unknown } | undefined {
    for (let index = this.#wrappers.length - 1; index >= 0; index--) {
      const wrapper = this.#wrappers[index]!;
      if (wrapper.start > at.start || wrapper.end < at.end) return undefined;
      if (wrapper.kind !== kind) continue;
      const tail = this.text.slice(at.end, wrapper.end);
      return /^[\s;]*$/.test(tail) ? wrapper : undefined;
    }
    return undefined;
  }

  addExportedName(name: string, line: number, from?: string, local?: string): void {
    const entry: ExportedName = { name, line };
    if (from !== undefined) entry.from = from;
    if (local !== undefined && local !== name) entry.local = local;
    this.exportedNames.push(entry);
  }

  /**
   * Queues a call whose callee starts the node's text (after `skip` characters such as `new `);
   * the callee is read from the text once the traversal is over.
   */
  queueCall(node: SgNode, at: At, skip = 0): void {
    if (!this.callsEnabled) return;
    this.#calls.push({ start: at.start, end: at.end, line: at.line, column: at.column, caller: this.callerName(), node, skip });
  }

  /** Records a call whose callee text is already known (`name` overrides the last identifier). */
  addCall(callee: string, line: number, column: number, name?: string): void {
    if (!this.callsEnabled) return;
    const fact = callFact(callee, line, column, this.callerName());
    if (!fact) return;
    if (name !== undefined) fact.name = name;
    this.#readyCalls.push(fact);
  }

  /**
   * Records a value's type as written (`call`: the value is what calling `type` returns; `value`:
   * it is the value `type` names), bound in `scope` (a function's or class's qualifiedName;
   * undefined: the module). Bindings serve call resolution only: a pass without calls drops them.
   */
  bind(name: string, type: string, line: number, from: "type" | "call" | "value", scope: string | undefined, argument?: string): void {
    if (!this.callsEnabled || name.length === 0 || type.length === 0 || type.length > LIMITS.intel.facts.calleeChars) return;
    const binding: TypeBinding = { name, type, line };
    if (from === "call") binding.call = true;
    if (argument !== undefined && from === "call" && argument.length <= LIMITS.intel.facts.calleeChars) binding.argument = argument;
    else if (from === "value") binding.value = true;
    if (scope !== undefined) binding.scope = scope;
    this.#bindings.push(binding);
  }

  /** The facts, with queued calls resolved. */
  finish(syntax: CallSyntax | undefined): Omit<FileFacts, "language" | "parseErrors"> {
    const calls = this.#resolveCalls(syntax);
    if (this.#readyCalls.length > 0) {
      calls.push(...this.#readyCalls);
      calls.sort((a, b) => a.line - b.line || a.column - b.column);
    }
    // Symbols recorded ahead of the traversal go back to document order (stable: parents stay first).
    const symbols = this.symbols.sort((a, b) => a.startLine - b.startLine || b.endLine - a.endLine);
    const facts: Omit<FileFacts, "language" | "parseErrors"> = { symbols, imports: this.imports.sort((a, b) => a.line - b.line), calls, exportedNames: this.exportedNames };
    const bindings = usedBindings(this.#bindings, calls);
    if (bindings.length > 0) facts.bindings = bindings;
    return facts;
  }

  /**
   * Calls that start at the same offset nest as callee chains (`a.b(x).c(y)` holds `a.b(x)`), and
   * the traversal hands them out outermost first. Reading each group innermost first lets every
   * outer callee start where the inner call ended, so argument lists are never scanned.
   */
  #resolveCalls(syntax: CallSyntax | undefined): CallFact[] {
    const raw = this.#calls;
    const out: CallFact[] = [];
    const maxChars = LIMITS.intel.facts.calleeChars;
    let groupStart = 0;
    while (groupStart < raw.length) {
      let groupEnd = groupStart;
      while (groupEnd + 1 < raw.length && raw[groupEnd + 1]!.start === raw[groupStart]!.start) groupEnd++;
      let inner: { end: number; display: string } | undefined;
      const resolved: CallFact[] = [];
      for (let index = groupEnd; index >= groupStart; index--) {
        const call = raw[index]!;
        let from = call.start + call.skip;
        let prefix = "";
        if (inner !== undefined && inner.end <= call.end && call.skip === 0) {
          from = inner.end;
          // Arguments are elided; a call without parentheses (Ruby `a.b.c`) shows none.
          prefix = this.text.charCodeAt(inner.end - 1) === 41 /* ) */ ? `${inner.display}(…)` : inner.display;
        }
        let callee = this.#calleeFromText(from, call.end, syntax);
        let calleeStart = from;
        if (callee === undefined || (callee.length === 0 && prefix.length === 0)) {
          prefix = "";
          const node = syntax?.callee(call.node) ?? null;
          if (node === null) {
            inner = undefined;
            continue;
          }
          const range = node.range();
          // Only the end matters (the callee may be a whole function expression).
          calleeStart = Math.max(range.start.index, range.end.index - maxChars * 4);
          callee = this.text.slice(calleeStart, range.end.index);
        }
        const joined = prefix + callee;
        const display = joined.length <= maxChars ? flatten(joined) : collapseTail(joined, maxChars);
        inner = { end: call.end, display: call.skip > 0 ? `${this.text.slice(call.start, call.start + call.skip).trim()} ${display}` : display };
        const fact = callFact(display, call.line, call.column, call.caller);
        if (fact) {
          // A chained call's place is its name's (`x\n  .render()`, `f({\n…\n}).strict()`), where every analyser puts it.
          const nameAt = calleeStart + callee.lastIndexOf(fact.name);
          if (nameAt > call.start && nameAt >= calleeStart) {
            const line = this.lineOf(nameAt);
            if (line !== call.line) {
              fact.line = line;
              fact.column = nameAt - this.#lineStarts![line - 1]! + 1;
            }
          }
          resolved.push(fact);
        }
      }
      for (let index = resolved.length - 1; index >= 0; index--) out.push(resolved[index]!);
      groupStart = groupEnd + 1;
    }
    return out;
  }

  #calleeFromText(from: number, end: number, syntax: CallSyntax | undefined): string | undefined {
    if (syntax === undefined) return undefined;
    const text = this.text;
    const after = scanChain(text, from, end);
    if (after === end && syntax.bareCalls === true && after > from) return text.slice(from, after);
    let cursor = after;
    if (syntax.spaceOpens === true && after > from && (text.charCodeAt(after) === 32 || text.charCodeAt(after) === 9)) return text.slice(from, after);
    while (cursor < end && isSpaceCode(text.charCodeAt(cursor))) cursor++;
    if (text.charCodeAt(cursor) === 63 && text.charCodeAt(cursor + 1) === 46) cursor += 2;
    if (cursor >= end || !syntax.openers.includes(text[cursor]!)) return undefined;
    return text.slice(from, after);
  }
}

/** The first name of a receiver or callee chain: "x" of `x.f(…).g`. */
function headName(chain: string): string {
  return /^[^.([:\-?]*/.exec(chain)![0].trim();
}

/**
 * The bindings a call of the file may read: of module and class values (read from other files
 * too), of names that head a call's receiver, and of the names those bindings name in turn. A
 * Go tree binds three times as many names as its calls read: the rest would only take memory.
 */
function usedBindings(bindings: TypeBinding[], calls: readonly CallFact[]): TypeBinding[] {
  if (bindings.length === 0) return bindings;
  const heads = new Set<string>();
  for (const call of calls) if (call.qualifier !== undefined) heads.add(headName(call.qualifier));
  for (let grown = true; grown;) {
    grown = false;
    for (const binding of bindings) {
      if (binding.type === undefined || !(binding.call || binding.value) || !heads.has(binding.name)) continue;
      for (const named of binding.argument === undefined ? [binding.type] : [binding.type, binding.argument]) {
        const head = headName(named);
        if (!heads.has(head)) {
          heads.add(head);
          grown = true;
        }
      }
    }
  }
  return bindings.filter((binding) => binding.scope === undefined || binding.name.includes(".") || heads.has(binding.name)).sort((a, b) => a.line - b.line);
}

/** Splits a callee into its last name and qualifier; undefined when it ends in no name. */
export function callFact(callee: string, line: number, column: number, caller: string | undefined): CallFact | undefined {
  const flat = flatten(callee);
  let end = flat.length;
  // Explicit type arguments (`collect::<Vec<_>>`, `create<User>`) follow the name.
  if (flat.charCodeAt(end - 1) === 62 /* > */) {
    let depth = 0;
    let index = end - 1;
    for (; index >= 0; index--) {
      const char = flat[index];
      if (char === ">") depth++;
      else if (char === "<" && --depth === 0) break;
    }
    if (index > 0) {
      end = index;
      while (end > 0 && (flat[end - 1] === ":" || flat[end - 1] === " ")) end--;
    }
  }
  let nameEnd = end;
  const last = flat.charCodeAt(end - 1);
  if (last === 33 || last === 63) nameEnd = end - 1;
  let start = nameEnd;
  while (start > 0 && isNameCode(flat.charCodeAt(start - 1))) start--;
  if (start === nameEnd) return undefined;
  // A `!`/`?` suffix is part of the name (Ruby `save!`, `empty?`).
  const name = flat.slice(start, end);
  // The qualifier is what precedes the joiner before the name.
  end = start;
  while (end > 0 && " .:?->\\".includes(flat[end - 1]!)) end--;
  const fact: CallFact = { callee: flat, name, line, column };
  if (end > 0) fact.qualifier = flat.slice(0, end);
  if (caller !== undefined) fact.caller = caller;
  return fact;
}

/** The extractor's rules with call-only kinds dropped (or narrowed to the import-making calls). */
export function rulesWithoutCalls(extractor: LanguageExtractor, rules: Rule[] = extractor.rules): Rule[] {
  const replacements = extractor.callKinds;
  if (replacements === undefined) return rules;
  const result: Rule[] = [];
  for (const rule of rules) {
    const kind = rule.kind as string | undefined;
    if (kind === undefined || !Object.hasOwn(replacements, kind)) result.push(rule);
    else if (replacements[kind] !== null) result.push(replacements[kind]!);
  }
  return result;
}

/** Runs one language's extractor over a tree. */
export function runExtractor(
  root: SgNode,
  text: string,
  language: LanguageId,
  extractor: LanguageExtractor,
  rules: Rule[] = extractor.rules,
  calls = true,
): FactsBuilder & { result: Omit<FileFacts, "language" | "parseErrors"> } {
  const facts = new FactsBuilder(language, text);
  facts.callsEnabled = calls;
  const handlers = extractor.handlers;
  const callKinds = extractor.callKinds ?? {};
  const nodes = root.findAll({ rule: { any: [...rules, { kind: "ERROR" }] } });
  for (const node of nodes) {
    const kind = node.kind() as string;
    const handler = Object.hasOwn(handlers, kind) ? handlers[kind] : undefined;
    if (handler === undefined && kind !== "ERROR") continue;
    const at = facts.at(node, Object.hasOwn(callKinds, kind));
    facts.enter(at.start);
    if (handler === undefined) facts.error(at);
    else handler(node, at, facts);
  }
  extractor.finish?.(facts);
  const result = facts.finish(extractor.calls);
  return Object.assign(facts, { result });
}
