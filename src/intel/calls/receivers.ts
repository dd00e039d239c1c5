/**
 * The type of a call's receiver, read from what the source writes (no type checker): the receiver
 * name of a Go method, `self` in a Python method, a parameter's declared type, a value's binding
 * (`var b bytes.Buffer`, `x := Foo{}`, `x = Foo()`, `self.f = Foo()`; facts/types.ts TypeBinding),
 * another value's type (`b := Form`), a field's declared type (embedded fields too), a composite
 * literal's type, and what a called function or method declares it returns, chained
 * (`n.Lines().Len()`). Type names are resolved where they are written, through the call graph's
 * imports and scopes, so the answer is workspace declarations, a type outside the workspace, or
 * unknown with the reason. Go, Python, TypeScript and JavaScript extract bindings; other languages
 * answer unknown.
 */
import path from "node:path";
import type { SymbolFact, TypeBinding } from "../facts/types.ts";
import type { GraphFile } from "../graph/types.ts";
import { parenEnd, splitTopLevel } from "../facts/lang/common.ts";
import { goParameterTypes } from "../facts/lang/go.ts";
import { tsFieldType, tsParameterTypes, tsResultType, tsTypeParameters } from "../facts/lang/ts-bindings.ts";
import type { CallGraph } from "./call-graph.ts";
import { CALLABLE_KINDS, splitQualifier, TYPE_KINDS } from "./names.ts";
import type { SymbolRef } from "./types.ts";

export type ReceiverType =
  /**
   * Workspace type declarations (several when the written name has several, or for a union).
   * `bound`: the type is a type parameter's constraint (`T extends Foo`), so the value may be of a
   * subtype with more methods: a method not found on it is unknown, not absent.
   */
  | { status: "known"; types: SymbolRef[]; bound?: string }
  /** A type outside the workspace (an external package, a builtin): its methods are not workspace code. */
  | { status: "external"; detail: string }
  | { status: "unknown"; reason: string };

/** TypeScript and JavaScript: one set of rules (JavaScript has no annotations, but `new Foo()` and `this`). */
const SCRIPT = new Set(["typescript", "tsx", "javascript"]);

/** Languages whose extractors record bindings. */
export const TYPED_RECEIVERS: ReadonlySet<string> = new Set(["go", "python", ...SCRIPT]);

/** Links followed from a receiver to its type (bindings of calls of bindings …): a cycle or a long chain stops as unknown. */
const MAX_DEPTH = 6;

const GO_PREDECLARED = new Set([
  "any",
  "bool",
  "byte",
  "comparable",
  "complex64",
  "complex128",
  "error",
  "float32",
  "float64",
  "int",
  "int8",
  "int16",
  "int32",
  "int64",
  "rune",
  "string",
  "uint",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "uintptr",
]);
const PYTHON_BUILTINS = new Set(["str", "bytes", "int", "float", "bool", "dict", "list", "tuple", "set", "frozenset", "object", "bytearray", "complex", "type"]);
/**
 * Types every TS/JS program has without declaring them (primitives, the standard library's): their
 * methods are not workspace code. `any` and `unknown` are not among them: they say the type is not known.
 */
const SCRIPT_GLOBAL_TYPES = new Set([
  "string",
  "number",
  "boolean",
  "bigint",
  "symbol",
  "void",
  "undefined",
  "null",
  "Object",
  "Function",
  "String",
  "Number",
  "Boolean",
  "Array",
  "ReadonlyArray",
  "Map",
  "ReadonlyMap",
  "Set",
  "ReadonlySet",
  "WeakMap",
  "WeakSet",
  "Promise",
  "Date",
  "RegExp",
  "Error",
  "Record",
  "Partial",
  "Required",
  "Readonly",
  "Uint8Array",
  "ArrayBuffer",
  "Buffer",
  "URL",
  "AbortController",
  "AbortSignal",
]);

const unknown = (reason: string): ReceiverType => ({ status: "unknown", reason });

/** Go's `Foo{…}`, `(&Foo{…})`: a receiver that is a composite literal of its type. */
const COMPOSITE_LITERAL = /^\(?&?([\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)*)\s*(?:\[[^\]]*\])?\s*\{[\s\S]*\}\)?$/u;

/** The text inside the parentheses opening at `open`, and the offset after them. */
function group(text: string, open: number): { inside: string; end: number } | undefined {
  const end = text[open] === "(" ? parenEnd(text, open) : -1;
  return end === -1 ? undefined : { inside: text.slice(open + 1, end - 1), end };
}

/** A Go signature's parts: `func (r *T) Name[P any](a, b int) (*R, error)`, or an interface method's `Name(a int) R`. */
function goSignature(signature: string): { receiver?: string; parameters: string; results: string } | undefined {
  // An interface's method is written without `func`: `Name(a int) R`.
  let at = signature.startsWith("func") ? 4 : 0;
  while (signature[at] === " ") at++;
  let receiver: string | undefined;
  if (signature[at] === "(") {
    const found = group(signature, at);
    if (!found) return undefined;
    receiver = found.inside;
    at = found.end;
  }
  // The name and its type parameters, up to the parameter list.
  let depth = 0;
  while (at < signature.length && !(signature[at] === "(" && depth === 0)) {
    if (signature[at] === "[") depth++;
    else if (signature[at] === "]") depth--;
    at++;
  }
  const parameters = group(signature, at);
  if (!parameters) return undefined;
  return { ...(receiver === undefined ? {} : { receiver }), parameters: parameters.inside, results: signature.slice(parameters.end).trim() };
}

/** A Go result list's first type: `*R`, `(*R, error)`, `(r *R, err error)`. */
function goFirstResult(results: string): string | undefined {
  if (results.length === 0) return undefined;
  if (!results.startsWith("(")) return results;
  const first = splitTopLevel(group(results, 0)?.inside ?? "")[0]?.trim();
  if (first === undefined) return undefined;
  const named = /^[\p{L}_][\p{L}\p{N}_]*\s+(.+)$/u.exec(first);
  return named ? named[1]! : first;
}

/** Python parameters with annotations: `self, q: Q, r: "R" = None` → q → Q, r → "R". */
function pythonParameters(signature: string): Map<string, string> {
  const types = new Map<string, string>();
  const open = signature.indexOf("(");
  const inside = open === -1 ? undefined : group(signature, open)?.inside;
  for (const part of splitTopLevel(inside ?? "")) {
    const match = /^\*{0,2}([\p{L}_][\p{L}\p{N}_]*)\s*:\s*([^=]+?)\s*(?:=.*)?$/su.exec(part.trim());
    if (match) types.set(match[1]!, match[2]!);
  }
  return types;
}

function pythonResult(signature: string): string | undefined {
  const open = signature.indexOf("(");
  const parameters = open === -1 ? undefined : group(signature, open);
  const arrow = parameters ? /^\s*->\s*(.+?)\s*:?\s*$/s.exec(signature.slice(parameters.end)) : null;
  return arrow?.[1];
}

/** A written type reduced to the name to resolve; undefined for what has no methods of its own to find (slices, maps, functions). */
function typeName(written: string, language: string): string | undefined {
  let name = written.trim();
  if (language === "go") {
    name = name.replace(/^\*+/, "");
    if (/^(?:\[|map\[|chan\b|<-|func\b|struct\b|interface\b|\.\.\.)/.test(name)) return undefined;
    name = name.replace(/\[.*$/s, "");
  } else if (SCRIPT.has(language)) {
    name = name.replace(/^readonly\s+/, "");
    // `Foo | undefined`, `null | Foo`: the one part that is not nothing (a union of several: scriptUnion).
    const parts = scriptUnion(name);
    if (parts.length !== 1) return undefined;
    name = parts[0]!;
    // What `await` gives: a Promise's value (a method called on the Promise itself is not a workspace one either way).
    const promised = /^Promise\s*<([\s\S]+)>$/.exec(name);
    if (promised) return typeName(promised[1]!, language);
    if (/(?:\[\]|\))$|^(?:typeof|keyof)\s|=>|^\{/.test(name)) return undefined;
    name = name.replace(/<[\s\S]*$/, "");
  } else {
    name = name.replace(/^["']|["']$/g, "");
    const optional = /^(?:typing\.)?Optional\[(.+)\]$/s.exec(name);
    if (optional) name = optional[1]!;
    name = name.split("|").map((part) => part.trim()).find((part) => part !== "None") ?? name;
    name = name.replace(/\[.*$/s, "");
  }
  // `$` is a letter of TS/JS names (`core.$ZodType`); Go and Python names have none.
  return /^[\p{L}_$][\p{L}\p{N}_$]*(?:\.[\p{L}_$][\p{L}\p{N}_$]*)*$/u.test(name) ? name : undefined;
}

/** A TS type's union members, nothing (`null`, `undefined`, `void`) left out: `A | B | undefined` → A, B. */
function scriptUnion(written: string): string[] {
  return splitTopLevel(written.trim().replace(/^\|/, ""), "|").map((part) => part.trim()).filter((part) => !/^(?:null|undefined|void)$/.test(part));
}

/** Where a type alias's value starts: its `=` outside the type parameters (`type H<T = X> = (…) => R`); -1 without one. */
function aliasEquals(signature: string): number {
  let depth = 0;
  for (let at = 0; at < signature.length; at++) {
    const char = signature[at]!;
    if (char === "<") depth++;
    else if (char === ">" && signature[at - 1] !== "=") depth--;
    else if (char === "=" && depth === 0 && signature[at + 1] !== ">") return at;
  }
  return -1;
}

/**
 * An overloaded function's declarations stand for its first signature (the one a call without
 * explicit type arguments usually matches); other callables are kept as they are.
 */
function firstOverloads(callables: readonly SymbolRef[]): SymbolRef[] {
  const seen = new Set<string>();
  const kept: SymbolRef[] = [];
  for (const callable of [...callables].sort((a, b) => (a.file === b.file ? a.startLine - b.startLine : a.file < b.file ? -1 : 1))) {
    const key = `${callable.file}\0${callable.qualifiedName}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(callable);
  }
  return kept;
}

export class ReceiverTypes {
  readonly #graph: CallGraph;

  constructor(graph: CallGraph) {
    this.#graph = graph;
  }

  /** The type of `qualifier` (`x`, `self.f`, `n.Lines(…)`) at `line` of `file`, in the function `caller`. */
  of(file: GraphFile, caller: string | undefined, qualifier: string, line: number): ReceiverType {
    // Go's `v.(renderer.Option)`: the asserted type.
    const asserted = /^[\p{L}\p{N}_.]+\.\((\*?[\p{L}_][\p{L}\p{N}_.]*)\)$/u.exec(qualifier);
    if (asserted && file.language === "go") return this.#written(file.real, file.language, asserted[1]!);
    // `(Reader{ Body: strings.NewReader(s) })`: a whole composite literal, read before its fields' dots split it.
    const literal = file.language === "go" ? COMPOSITE_LITERAL.exec(qualifier) : null;
    if (literal) return this.#written(file.real, file.language, literal[1]!);
    return this.#chain(file, caller, splitQualifier(qualifier), line, 0);
  }

  /** Whether `head` names a parameter or a local of `caller` at `line`: it shadows an import or a declaration of that name. */
  isLocal(file: GraphFile, caller: string | undefined, head: string, line: number): boolean {
    if (caller === undefined) return false;
    if (this.#binding(file, caller, head, line)?.scope === caller) return true;
    const callerSymbol = this.#graph.symbolsOf(file.real).find((symbol) => symbol.qualifiedName === caller);
    return callerSymbol !== undefined && this.#parameterType(file.language, callerSymbol.signature, head) !== undefined;
  }

  #chain(file: GraphFile, caller: string | undefined, parts: readonly string[], line: number, depth: number): ReceiverType {
    const head = parts[0];
    if (head === undefined || depth > MAX_DEPTH) return unknown("the receiver's type is too far to follow");
    const literal = COMPOSITE_LITERAL.exec(head);
    let type: ReceiverType;
    let consumed = 1;
    const qualified = literal || parts.length === 1 ? undefined : this.#throughModule(file, caller, parts, line, depth);
    if (literal) type = this.#written(file.real, file.language, literal[1]!, depth + 1);
    else if (qualified) ({ type, consumed } = qualified);
    else if (head.endsWith("(…)")) type = this.#callResult(file, caller, [head.slice(0, -3)], line, depth + 1);
    else type = this.#head(file, caller, head, line, depth);
    for (const part of parts.slice(consumed)) {
      if (type.status !== "known") return type;
      const name = part.endsWith("(…)") ? part.slice(0, -3) : part;
      // A member the constraint lacks may be the subtype's.
      if (type.bound !== undefined && !type.types.some((candidate) => this.#graph.membersOf(candidate, name).symbols.length > 0)) {
        return unknown(`\`${name}\` is not declared on the constraint of type parameter ${type.bound}`);
      }
      type = part.endsWith("(…)") ? this.#results(type.types, name, depth + 1) : this.#field(type.types, name, depth + 1);
    }
    return type;
  }

  /**
   * A receiver that starts with an imported module (`z.string(…).min(…)`, `ns.sub.registry`): the
   * parts are looked up through the module's exports until a call (its declared result) or a
   * module variable (its binding where declared) gives a type. Undefined when the head is a local
   * or names no module: the receiver is read from its head as usual.
   */
  #throughModule(file: GraphFile, caller: string | undefined, parts: readonly string[], line: number, depth: number): { type: ReceiverType; consumed: number } | undefined {
    const head = parts[0]!;
    if (head.endsWith("(…)") || this.isLocal(file, caller, head, line) || this.#binding(file, caller, head, line)) return undefined;
    const path = [head];
    if (this.#graph.meaningOfPath(file.real, path).modules.length === 0) return undefined;
    for (let at = 1; at < parts.length; at++) {
      const part = parts[at]!;
      if (part.endsWith("(…)")) return { type: this.#callResult(file, caller, [...path, part.slice(0, -3)], line, depth + 1), consumed: at + 1 };
      path.push(part);
      const meaning = this.#graph.meaningOfPath(file.real, path);
      if (meaning.external !== undefined) {
        return { type: { status: "external", detail: `${path.join(".")} comes from ${meaning.external}, outside the workspace` }, consumed: at + 1 };
      }
      if (meaning.symbols.length > 0) return { type: this.#moduleVariable(meaning.symbols, depth), consumed: at + 1 };
      if (meaning.modules.length === 0) return { type: unknown(`\`${path.join(".")}\` resolves to no declaration`), consumed: at + 1 };
    }
    return undefined;
  }

  /** A module-level variable's type, from its binding where it is declared (a type or function named as a value has none). */
  #moduleVariable(symbols: readonly SymbolRef[], depth: number): ReceiverType {
    for (const variable of symbols) {
      if (variable.kind !== "variable" && variable.kind !== "constant") continue;
      const where = this.#graph.imports.file(variable.file);
      const declared = where?.facts.bindings?.find((candidate) => candidate.name === variable.name && candidate.scope === undefined);
      if (where && declared) return this.#bound(where, declared, depth + 1);
    }
    return unknown(`\`${symbols[0]!.qualifiedName}\` has no known type`);
  }

  /** The type of a name standing first in a receiver. */
  #head(file: GraphFile, caller: string | undefined, head: string, line: number, depth: number): ReceiverType {
    // The caller first, then the functions it is nested in: a closure reads their parameters and locals.
    for (const callerSymbol of this.#enclosingCallables(file, caller)) {
      if ((file.language === "python" ? head === "self" || head === "cls" : SCRIPT.has(file.language) && head === "this") && callerSymbol.parent !== undefined) {
        const owner = this.#graph.symbolsOf(file.real).find((symbol) => symbol.qualifiedName === callerSymbol.parent && TYPE_KINDS.has(symbol.kind));
        if (owner) return { status: "known", types: [owner] };
      }
      const declared = this.#parameterType(file.language, callerSymbol.signature, head);
      if (declared !== undefined) return this.#declaredIn(callerSymbol, file.real, file.language, declared, depth);
      const contextual = SCRIPT.has(file.language) ? this.#contextualParameter(file, callerSymbol, head, depth) : undefined;
      if (contextual) return contextual;
      const callback = SCRIPT.has(file.language) ? this.#callbackParameter(file, callerSymbol, head, depth) ?? this.#memberParameter(file, callerSymbol, head, depth) : undefined;
      if (callback) return callback;
      const local = this.#binding(file, callerSymbol.qualifiedName, head, line);
      if (local?.scope !== undefined) return this.#bound(file, local, depth);
    }
    const binding = this.#binding(file, caller, head, line);
    if (binding) return this.#bound(file, binding, depth);
    // A Go package variable: bound at file level in any file of the package (its folder).
    if (file.language === "go") {
      for (const other of this.#graph.imports.filesIn(path.dirname(file.real))) {
        const declared = other.language === "go" ? other.facts.bindings?.find((candidate) => candidate.name === head && candidate.scope === undefined) : undefined;
        if (declared) return this.#bound(other, declared, depth + 1);
      }
    }
    // A module variable imported from elsewhere: its binding where it is declared.
    const imported = this.#graph.meaningOfPath(file.real, [head]).symbols;
    const variable = imported.length > 0 ? this.#moduleVariable(imported, depth) : undefined;
    if (variable && variable.status !== "unknown") return variable;
    return unknown(`receiver \`${head}\` has no known type`);
  }

  /**
   * An untyped parameter of an arrow assigned to a value of a declared function type:
   * `const f: Handler<X> = (event, context) =>` with `type Handler<T> = (event: T, context: Ctx) => void`
   * gives `context` the type Ctx (the parameter at the same place).
   */
  #contextualParameter(file: GraphFile, arrow: SymbolRef, name: string, depth: number): ReceiverType | undefined {
    const match = /^(?:export\s+)?(?:const|let|var)\s+[\p{L}_$][\p{L}\p{N}_$]*\s*:\s*([\p{L}_$][\p{L}\p{N}_$.]*)\s*(?:<[^=]*>)?\s*=\s*(?:async\s+)?\(([^()]*)\)\s*=>/u.exec(
      arrow.signature,
    );
    if (!match) return undefined;
    const at = splitTopLevel(match[2]!).map((part) => part.trim()).indexOf(name);
    if (at === -1) return undefined;
    const alias = this.#graph.meaningOfPath(file.real, splitQualifier(match[1]!)).symbols.find((symbol) => symbol.kind === "type");
    const equals = alias ? aliasEquals(alias.signature) : -1;
    if (!alias || equals === -1) return undefined;
    const declared = [...tsParameterTypes(alias.signature.slice(equals + 1)).values()][at];
    if (declared === undefined) return undefined;
    const language = this.#graph.imports.file(alias.file)?.language ?? file.language;
    return this.#declaredIn(alias, alias.file, language, declared, depth + 1);
  }

  /**
   * An untyped parameter of an arrow passed to a function, in a value declared with it
   * (`const Foo: Made<Foo> = make("Foo", (inst, def) => …)`): the type the function's own
   * parameter gives it (`make<T>(name: string, init: (inst: T, def: D) => void): Made<T, D>`); a
   * type parameter is read off the value's declared type where the result names it (T = Foo),
   * else its constraint.
   */
  #callbackParameter(file: GraphFile, arrow: SymbolRef, name: string, depth: number): ReceiverType | undefined {
    const match =
      /^(?:export\s+)?(?:const|let|var)\s+[\p{L}_$][\p{L}\p{N}_$]*\s*(?::\s*([^=]+?))?\s*=\s*([\p{L}_$][\p{L}\p{N}_$.]*)\s*(?:<([^()]*)>)?\s*\(([\s\S]*?)\(([^()]*)\)\s*=>$/u.exec(
        arrow.signature,
      );
    if (!match) return undefined;
    const at = splitTopLevel(match[5]!).map((part) => part.trim()).indexOf(name);
    const before = match[4]!.trim();
    if (at === -1 || (before.length > 0 && !before.endsWith(","))) return undefined;
    const position = before.length === 0 ? 0 : splitTopLevel(before.slice(0, -1)).length;
    const callee = this.#graph.meaningOfPath(file.real, splitQualifier(match[2]!)).symbols.find((symbol) => symbol.kind === "function");
    const parameter = callee ? [...tsParameterTypes(callee.signature).values()][position] : undefined;
    if (!callee || parameter === undefined || !/=>/.test(parameter)) return undefined;
    const declared = [...tsParameterTypes(parameter).values()][at];
    if (declared === undefined) return undefined;
    const language = this.#graph.imports.file(callee.file)?.language ?? file.language;
    const parameters = [...tsTypeParameters(callee.signature).keys()];
    const result = tsResultType(callee.signature);
    const annotation = match[1]?.trim();
    // Explicit type arguments (`make<Foo>(…)`) name it first.
    const explicit = match[3] === undefined ? undefined : splitTopLevel(match[3])[parameters.indexOf(declared.trim())]?.trim();
    if (explicit !== undefined && explicit.length > 0) return this.#written(file.real, file.language, explicit, depth + 1);
    if (parameters.includes(declared.trim()) && result !== undefined && annotation !== undefined) {
      // Made<T, D> against Made<Foo>: T is Foo.
      const ours = /^([\p{L}_$][\p{L}\p{N}_$.]*)\s*<([\s\S]*)>$/u.exec(result.trim());
      const theirs = /^([\p{L}_$][\p{L}\p{N}_$.]*)\s*<([\s\S]*)>$/u.exec(annotation);
      if (ours && theirs && ours[1]!.split(".").at(-1) === theirs[1]!.split(".").at(-1)) {
        const given = splitTopLevel(theirs[2]!)[splitTopLevel(ours[2]!).map((part) => part.trim()).indexOf(declared.trim())]?.trim();
        if (given !== undefined) return this.#written(file.real, file.language, given, depth + 1);
      }
    }
    return this.#declaredIn(callee, callee.file, language, declared, depth + 1);
  }

  /**
   * An untyped parameter of a method of an object literal whose value has a declared type
   * (`const def: KeywordDefinition = { code(cxt) { … } }`): the type that type's member of the
   * name gives the parameter at its place (`code: (cxt: KeywordCxt) => void`), each part of an
   * intersection tried.
   */
  #memberParameter(file: GraphFile, method: SymbolRef, name: string, depth: number): ReceiverType | undefined {
    if (method.kind !== "method" || method.parent === undefined || method.parent.includes(".")) return undefined;
    const at = [...splitTopLevel(/\(([^()]*)\)/.exec(method.signature)?.[1] ?? "").map((part) => part.trim())].indexOf(name);
    const owner = this.#graph.symbolsOf(file.real).find((symbol) => symbol.qualifiedName === method.parent && (symbol.kind === "constant" || symbol.kind === "variable"));
    const declared = owner ? /^(?:export\s+)?(?:const|let|var)\s+[\p{L}_$][\p{L}\p{N}_$]*\s*:\s*([^=]+?)\s*=/u.exec(owner.signature)?.[1] : undefined;
    if (at === -1 || declared === undefined) return undefined;
    for (const part of splitTopLevel(declared, "&")) {
      const type = this.#written(file.real, file.language, part.trim(), depth + 1);
      if (type.status !== "known") continue;
      for (const member of type.types.flatMap((candidate) => this.#graph.membersOf(candidate, method.name).symbols)) {
        const memberFile = this.#graph.imports.file(member.file);
        if (!memberFile) continue;
        // `code: (cxt: K) => void` (a property of a function type) or `code(cxt: K): void` (a method signature).
        const written = member.kind === "method" ? member.signature : (tsFieldType(member.signature)?.type ?? "");
        const parameter = [...tsParameterTypes(written).values()][at];
        if (parameter !== undefined) return this.#declaredIn(member, member.file, memberFile.language, parameter, depth + 1);
      }
    }
    return undefined;
  }

  /** The caller's declaration, then each function or method it is nested in, innermost first (a class or the module ends the walk). */
  #enclosingCallables(file: GraphFile, caller: string | undefined): SymbolRef[] {
    const found: SymbolRef[] = [];
    const parts = caller?.split(".") ?? [];
    const symbols = this.#graph.symbolsOf(file.real);
    for (let length = parts.length; length >= 1; length--) {
      const name = parts.slice(0, length).join(".");
      // A TS value may share its name with an interface (`interface Foo`, `const Foo = make(…)`): the callable is the caller.
      const named = symbols.filter((candidate) => candidate.qualifiedName === name);
      const symbol = named.find((candidate) => CALLABLE_KINDS.has(candidate.kind) && !TYPE_KINDS.has(candidate.kind)) ?? named[0];
      if (!symbol || !CALLABLE_KINDS.has(symbol.kind) || TYPE_KINDS.has(symbol.kind)) break;
      found.push(symbol);
    }
    return found;
  }

  /** A parameter's (or Go receiver's) declared type in the caller's signature. */
  #parameterType(language: string, signature: string, name: string): string | undefined {
    if (language === "python") return pythonParameters(signature).get(name);
    if (SCRIPT.has(language)) return tsParameterTypes(signature).get(name);
    const parts = goSignature(signature);
    if (!parts) return undefined;
    return goParameterTypes(parts.receiver ?? "").get(name) ?? goParameterTypes(parts.parameters).get(name);
  }

  /** The binding of `name` in force at `line`: the caller's last one above it, else the module's. */
  #binding(file: GraphFile, caller: string | undefined, name: string, line: number): TypeBinding | undefined {
    let found: TypeBinding | undefined;
    let module: TypeBinding | undefined;
    for (const binding of file.facts.bindings ?? []) {
      if (binding.name !== name) continue;
      if (binding.scope === undefined) module ??= binding;
      else if (binding.scope === caller && binding.line <= line && (found === undefined || binding.line >= found.line)) found = binding;
    }
    return found ?? module;
  }

  #bound(file: GraphFile, binding: TypeBinding, depth: number): ReceiverType {
    if (binding.value) return this.#chain(file, binding.scope, splitQualifier(binding.type), binding.line, depth + 1);
    if (!binding.call) return this.#written(file.real, file.language, binding.type);
    const argument = binding.argument;
    const argumentType = argument === undefined ? undefined : () => this.#chain(file, binding.scope, splitQualifier(argument), binding.line, depth + 1);
    return this.#callResult(file, binding.scope, splitQualifier(binding.type), binding.line, depth + 1, argumentType);
  }

  /** The type a call returns: a constructor or conversion makes its type; a function or method, its declared result. */
  #callResult(file: GraphFile, caller: string | undefined, callee: readonly string[], line: number, depth: number, argumentType?: () => ReceiverType): ReceiverType {
    if (depth > MAX_DEPTH) return unknown("the receiver's type is too far to follow");
    const meaning = this.#graph.meaningOfPath(file.real, callee);
    if (meaning.external !== undefined) return { status: "external", detail: `${callee.join(".")} comes from ${meaning.external}, outside the workspace` };
    if (meaning.symbols.length > 0) return this.#resultOf(meaning.symbols, depth, argumentType);
    if (callee.length > 1) {
      const receiver = this.#chain(file, caller, callee.slice(0, -1), line, depth + 1);
      return receiver.status === "known" ? this.#results(receiver.types, callee.at(-1)!, depth + 1) : receiver;
    }
    if (file.language === "python" && PYTHON_BUILTINS.has(callee[0]!)) return { status: "external", detail: `${callee[0]} is a builtin type` };
    if (SCRIPT.has(file.language) && SCRIPT_GLOBAL_TYPES.has(callee[0]!)) return { status: "external", detail: `${callee[0]} is a standard type` };
    return unknown(`\`${callee.join(".")}\` resolves to no declaration`);
  }

  /** What calling one of `callables` gives: the type itself, or the declared result's type. */
  #resultOf(callables: readonly SymbolRef[], depth: number, argumentType?: () => ReceiverType): ReceiverType {
    const types: SymbolRef[] = [];
    const distinct = firstOverloads(callables);
    for (const callable of distinct) {
      if (TYPE_KINDS.has(callable.kind)) {
        types.push(callable);
        continue;
      }
      const language = this.#graph.imports.file(callable.file)?.language ?? "";
      const result = language === "go" ?
        goFirstResult(goSignature(callable.signature)?.results ?? "") :
        SCRIPT.has(language) ?
        tsResultType(callable.signature) :
        pythonResult(callable.signature);
      if (result === undefined) return unknown(`${callable.qualifiedName} declares no result type`);
      // `<T>(value: T, …): T` returns what it is given: the first argument's type, when the call's binding names it.
      if (argumentType !== undefined && SCRIPT.has(language) && tsTypeParameters(callable.signature).has(result.trim())) {
        const first = [...tsParameterTypes(callable.signature).values()][0];
        const given = first?.trim() === result.trim() ? argumentType() : undefined;
        if (given?.status === "known" && distinct.length === 1) return given;
      }
      const type = this.#declaredIn(callable, callable.file, language, result, depth + 1);
      if (type.status !== "known" || distinct.length === 1) return type;
      types.push(...type.types);
    }
    return types.length > 0 ? { status: "known", types } : unknown("no declaration to read a result from");
  }

  /**
   * A type written in the signature of `declaration`: a TS type parameter of it or of its class
   * stands for its constraint (`<T extends Foo>` → Foo, `bound`), one without a constraint for an
   * unknown type; a union for each of its members.
   */
  #declaredIn(declaration: SymbolRef, fileReal: string, language: string, written: string, depth: number): ReceiverType {
    // A constraint naming itself (`<T extends T>`, `<A extends B, B extends A>`, mid-edit) must not recurse for ever.
    if (depth > MAX_DEPTH) return unknown("the receiver's type is too far to follow");
    if (!SCRIPT.has(language)) return this.#written(fileReal, language, written, depth);
    const members = scriptUnion(written);
    if (members.length > 1) {
      const types: SymbolRef[] = [];
      for (const member of members) {
        const type = this.#declaredIn(declaration, fileReal, language, member, depth + 1);
        if (type.status === "unknown") return type;
        if (type.status === "known") types.push(...type.types);
      }
      return types.length > 0 ? { status: "known", types } : { status: "external", detail: `every member of \`${written}\` is outside the workspace` };
    }
    const name = typeName(written, language);
    if (name !== undefined && !name.includes(".")) {
      const owner = declaration.parent === undefined ?
        undefined :
        this.#graph.symbolsOf(declaration.file).find((symbol) => symbol.qualifiedName === declaration.parent && TYPE_KINDS.has(symbol.kind));
      for (const scope of owner ? [declaration, owner] : [declaration]) {
        const parameters = tsTypeParameters(scope.signature);
        if (!parameters.has(name)) continue;
        const constraint = parameters.get(name);
        if (constraint === undefined) return unknown(`\`${name}\` is a type parameter without a constraint`);
        const type = this.#declaredIn(scope, fileReal, language, constraint, depth + 1);
        return type.status === "known" ? { ...type, bound: name } : type;
      }
    }
    return this.#written(fileReal, language, written, depth);
  }

  /** Calling method `name` on one of `types`. */
  #results(types: readonly SymbolRef[], name: string, depth: number): ReceiverType {
    const methods = types.flatMap((type) => this.#graph.membersOf(type, name).symbols.filter((member) => CALLABLE_KINDS.has(member.kind)));
    // A known type without the method in the workspace has it from outside (an embedded or inherited external type).
    if (methods.length === 0) return { status: "external", detail: `${name} is not a workspace method of ${types.map((type) => type.qualifiedName).join(" or ")}` };
    // A TS method declared to return `this` (a fluent API) gives the receiver's own type, a subclass's too.
    const fluent = methods.every((method) => SCRIPT.has(this.#graph.imports.file(method.file)?.language ?? "") && tsResultType(method.signature)?.trim() === "this");
    if (fluent) return { status: "known", types: [...types] };
    return this.#resultOf(methods, depth);
  }

  /** Reading field `name` of one of `types`: its declared type (Go fields, Python annotations) or its binding through `self`. */
  #field(types: readonly SymbolRef[], name: string, depth: number): ReceiverType {
    for (const type of types) {
      const file = this.#graph.imports.file(type.file);
      if (!file) continue;
      // Go's embedded field is named by its type: `struct { html.Config }` has a field Config.
      const embedded = file.language === "go" ? type.heritage?.find((written) => written.replace(/\[.*$/s, "").split(".").at(-1) === name) : undefined;
      if (embedded !== undefined) return this.#written(type.file, file.language, embedded, depth + 1);
      for (const member of this.#graph.membersOf(type, name).symbols) {
        if (member.kind !== "field" && member.kind !== "property") continue;
        const declared = this.#fieldType(file.language, member);
        // A field typed by its type's type parameter (`_zod: Internals`) has the parameter's constraint.
        if (declared !== undefined) return this.#declaredIn(type, member.file, file.language, declared, depth + 1);
      }
      // No declared type: what a method assigned to it through self/this (a declared type wins: the binding may read a constructor's parameter).
      if (file.language === "python" || SCRIPT.has(file.language)) {
        const self = file.language === "python" ? "self" : "this";
        const binding = (file.facts.bindings ?? []).find((candidate) => candidate.name === `${self}.${name}` && candidate.scope === type.qualifiedName);
        if (binding) return this.#bound(file, binding, depth);
      }
    }
    return unknown(`field ${name} has no known type`);
  }

  #fieldType(language: string, field: Pick<SymbolFact, "name" | "signature">): string | undefined {
    if (language === "go") return goParameterTypes(field.signature.replace(/\s*`[^`]*`\s*$/, "")).get(field.name);
    // A getter reads as a field of its declared result (`get _root(): Root`).
    if (SCRIPT.has(language)) {
      return /^(?:(?:public|private|protected|static|override)\s+)*get\s/.test(field.signature) ?
        tsResultType(field.signature) :
        tsFieldType(field.signature)?.type;
    }
    return /^[\p{L}_][\p{L}\p{N}_]*\s*:\s*([^=]+?)\s*(?:=.*)?$/u.exec(field.signature)?.[1];
  }

  /** A type as written in `fileReal`, resolved there. */
  #written(fileReal: string, language: string, written: string, depth = 0): ReceiverType {
    if (depth > MAX_DEPTH) return unknown("the receiver's type is too far to follow");
    const name = typeName(written, language);
    if (name === undefined) return unknown(`\`${written}\` has no methods to resolve`);
    if (language === "go" && GO_PREDECLARED.has(name)) return { status: "external", detail: `${name} is a predeclared type` };
    if (language === "python" && PYTHON_BUILTINS.has(name)) return { status: "external", detail: `${name} is a builtin type` };
    const meaning = this.#graph.meaningOfPath(fileReal, splitQualifier(name));
    if (meaning.external !== undefined) return { status: "external", detail: `${name} comes from ${meaning.external}, outside the workspace` };
    const types = meaning.symbols.filter((symbol) => TYPE_KINDS.has(symbol.kind));
    if (types.length > 0) return { status: "known", types };
    if (SCRIPT.has(language) && SCRIPT_GLOBAL_TYPES.has(name)) return { status: "external", detail: `${name} is a standard type` };
    return unknown(`type ${name} resolves to no declaration`);
  }
}
