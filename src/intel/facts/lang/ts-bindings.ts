/**
 * TypeScript and JavaScript value types for call resolution, read from the source as written (no
 * compiler): the bindings of `const x: Foo = …`, `let x = new Foo(…)`, `const x = make(…)`,
 * `const x = y`, `const x = y as Foo`, `const { a, b: c } = y` (each name a member of y), and `this.f = new Foo(…)` in a method (bound to the class);
 * and the declared types in a signature (parameters, the result) or a field. Read from each
 * file's text once the traversal is over (bindScriptValues).
 */
import type { FactsBuilder } from "../engine.ts";
import { innermostAt, parenEnd, splitTopLevel } from "./common.ts";

const NAME = "[\\p{L}_$][\\p{L}\\p{N}_$]*";
const CHAIN = `${NAME}(?:\\.${NAME})*`;
const CONSTRUCTED = new RegExp(`^new\\s+(${CHAIN})\\s*(?:<[^()]*>)?\\s*(?:\\(|$)`, "u");
const CALLED = new RegExp(`^(?:await\\s+)?(${CHAIN})\\s*(?:<[^()]*>)?\\s*\\(`, "u");
const VALUE = new RegExp(`^${CHAIN}$`, "u");
const CAST = new RegExp(`\\s+as\\s+(${CHAIN})\\s*$`, "u");

/** `const x: Foo = …`, `let x = …`, `this.f = …` in the text: the name (group 1 or 2) and what follows it, to the line's end (group 3). */
const STATEMENT = new RegExp(
  `(?:\\b(?:const|let|var)\\s+(${NAME})|(?<![\\p{L}\\p{N}_$.])(this\\.#?${NAME}))(\\s*!?\\s*(?::[^=;\\n]+?)?\\s*=(?![=>])[^;\\n]*|\\s*!?\\s*:[^=;\\n]+)`,
  "gu",
);
/** The declared type (group 1) and the value (group 2) after a name. */
const DECLARED = /^\s*!?\s*(?::\s*([^=]+?)\s*)?(?:=\s*([\s\S]*?))?\s*$/u;

/** The value is one call or construction and nothing chained after it: `Foo(x)`, not `Foo(x).bar()` (arguments running on to the next lines count as one). */
function wholeCall(right: string, head: string): boolean {
  const open = right.indexOf("(", head.length);
  if (open === -1) return /^new\s/.test(right);
  const end = parenEnd(right, open);
  return end === -1 || /^\s*[,)]?\s*$/.test(right.slice(end));
}

/** What the text after `name` says the value's type is. */
function bindText(facts: FactsBuilder, name: string, after: string, line: number, scope: string | undefined): void {
  const declared = DECLARED.exec(after);
  if (!declared) return;
  if (declared[1] !== undefined) {
    facts.bind(name, declared[1], line, "type", scope);
    return;
  }
  // `/*@__PURE__*/ new Set(…)`: a bundler's annotation says nothing of the type.
  const right = declared[2]?.trim().replace(/;$/, "").replace(/^\/\*[\s\S]*?\*\/\s*/, "");
  if (right === undefined || right.length === 0) return;
  const cast = CAST.exec(right);
  if (cast) {
    facts.bind(name, cast[1]!, line, "type", scope);
    return;
  }
  if (VALUE.test(right)) {
    facts.bind(name, right, line, "value", scope);
    return;
  }
  const constructed = CONSTRUCTED.exec(right) ?? CALLED.exec(right);
  if (!constructed || !wholeCall(right, constructed[0].slice(0, -1))) return;
  const open = right.indexOf("(", constructed[0].length - 1);
  const end = open === -1 ? -1 : parenEnd(right, open);
  const first = end === -1 ? undefined : splitTopLevel(right.slice(open + 1, end - 1))[0]?.trim();
  facts.bind(name, constructed[1]!, line, "call", scope, first !== undefined && VALUE.test(first) ? first : undefined);
}

/** `const { a, b: c, d = 1 } = value;` (group 1: the names, group 2: the value, a plain chain). */
const DESTRUCTURED = new RegExp(`\\b(?:const|let|var)\\s*\\{([^{}=]*(?:=[^{}]*)?)\\}\\s*=\\s*(this\\.${CHAIN}|${CHAIN})\\s*(?:;|$)`, "gmu");

/** Each name a destructuring declares, bound to the member it reads: `{ gen, b: c } = cxt` → gen is cxt.gen, c is cxt.b. */
function bindDestructured(facts: FactsBuilder, names: string, value: string, line: number, scope: string | undefined): void {
  for (const part of splitTopLevel(names)) {
    const entry = new RegExp(`^(${NAME})\\s*(?::\\s*(${NAME}))?\\s*(?:=[\\s\\S]*)?$`, "u").exec(part.trim());
    if (entry) facts.bind(entry[2] ?? entry[1]!, `${value}.${entry[1]!}`, line, "value", scope);
  }
}

const CALLABLE_KINDS = new Set(["function", "method", "constructor", "property"]);

/**
 * The bindings of the file's text, once the traversal is over, each in the innermost function or
 * method around it (none: the module). Read as nodes of the traversal they took extraction about
 * a quarter longer (a napi crossing per declarator); found in the text, they cost a scan.
 */
export function bindScriptValues(facts: FactsBuilder): void {
  if (!facts.callsEnabled) return;
  const scopeAt = innermostAt(facts, CALLABLE_KINDS);
  for (const match of facts.text.matchAll(STATEMENT)) {
    const line = facts.lineOf(match.index);
    let scope = scopeAt(line);
    const name = match[1] ?? match[2]!;
    if (name.startsWith("this.")) {
      // A field is typed where it is declared, never as `this.f: T`: a type-only match is a ternary's `this.a : b`.
      if (!match[3]!.includes("=")) continue;
      // Bound to the class, read from every method: only a method's `this` is the instance.
      if (scope === undefined || !scope.includes(".")) continue;
      scope = scope.slice(0, scope.lastIndexOf("."));
    }
    bindText(facts, name, match[3]!, line, scope);
  }
  for (const match of facts.text.matchAll(DESTRUCTURED)) {
    const line = facts.lineOf(match.index);
    bindDestructured(facts, match[1]!, match[2]!, line, scopeAt(line));
  }
}

const MODIFIERS = /^(?:(?:public|private|protected|readonly|override|declare|static|abstract|accessor)\s+)*/;

/** A declared type without a default value: `Foo = new Foo()` → `Foo` (an arrow `=>` is part of the type). */
function withoutDefault(type: string): string {
  return type.replace(/\s*=(?![=>])[\s\S]*$/, "").trim();
}

/** The parameters of a TS/JS signature with a declared type: `(a: Foo, private b?: Bar = x)` → a → Foo, b → Bar. */
export function tsParameterTypes(signature: string): Map<string, string> {
  const types = new Map<string, string>();
  const open = signature.indexOf("(");
  const end = open === -1 ? -1 : parenEnd(signature, open);
  if (end === -1) return types;
  for (const part of splitTopLevel(signature.slice(open + 1, end - 1))) {
    const match = new RegExp(`^(?:\\.\\.\\.)?(${NAME})\\s*\\??\\s*:\\s*([\\s\\S]+)$`, "u").exec(part.trim().replace(MODIFIERS, ""));
    if (match) types.set(match[1]!, withoutDefault(match[2]!));
  }
  return types;
}

/**
 * The type parameters a TS signature declares, each with its constraint: `function f<T extends Foo, U>(…)`
 * → T → Foo, U → undefined; `class Box<in out T extends Foo = Bar>` → T → Foo.
 */
export function tsTypeParameters(signature: string): Map<string, string | undefined> {
  const parameters = new Map<string, string | undefined>();
  const open = signature.indexOf("<");
  const call = signature.indexOf("(");
  if (open === -1 || (call !== -1 && call < open)) return parameters;
  let depth = 0;
  let end = -1;
  for (let at = open; at < signature.length && end === -1; at++) {
    if (signature[at] === "<") depth++;
    else if (signature[at] === ">" && signature[at - 1] !== "=" && --depth === 0) end = at;
  }
  if (end === -1) return parameters;
  for (const part of splitTopLevel(signature.slice(open + 1, end))) {
    const match = new RegExp(`^(?:(?:in|out|const)\\s+)*(${NAME})(?:\\s+extends\\s+([\\s\\S]+?))?\\s*(?:=(?!>)[\\s\\S]*)?$`, "u").exec(part.trim());
    if (match) parameters.set(match[1]!, match[2]);
  }
  return parameters;
}

/** The declared result of a TS signature: `f(a): Foo {` → `Foo`; `async g(): Promise<Foo>` → `Promise<Foo>`. */
export function tsResultType(signature: string): string | undefined {
  const open = signature.indexOf("(");
  const end = open === -1 ? -1 : parenEnd(signature, open);
  if (end === -1) return undefined;
  const result = /^\s*:\s*([\s\S]+?)\s*(?:\{|=>)?\s*$/.exec(signature.slice(end));
  return result?.[1];
}

/** A field's declared type (`private repo: Repo;`, a parameter property), or what its initialiser constructs (`repo = new Repo()`). */
export function tsFieldType(signature: string): { type: string; call?: boolean } | undefined {
  const field = new RegExp(`^#?${NAME}\\s*[?!]?\\s*(?::\\s*([^;]+?))?\\s*(?:=(?![=>])\\s*([\\s\\S]*?))?;?\\s*$`, "u").exec(signature.trim().replace(MODIFIERS, ""));
  if (!field) return undefined;
  if (field[1] !== undefined) return { type: withoutDefault(field[1]) };
  const constructed = CONSTRUCTED.exec(field[2]?.trim() ?? "");
  return constructed ? { type: constructed[1]!, call: true } : undefined;
}
