/**
 * Go: every declaration is at file level, so the file's declaration list is read once (functions,
 * methods under their receiver type, structs with fields, interfaces with methods, type aliases,
 * constants, variables); capitalised names are exported, the rest package-private. Imports and
 * calls complete it.
 */
import type { SgNode } from "@ast-grep/napi";
import { LIMITS } from "../../../core/limits.ts";
import type { FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { bodyStart, declare, extractorFor, FUNCTION_FIELD_CALLS, innermostAt, parenEnd, splitTopLevel, stripTypeArguments } from "./common.ts";

const DOC: CommentStyle = { line: ["//"], block: "any" };

function isExported(name: string): boolean {
  const first = name.codePointAt(0) ?? 0;
  return String.fromCodePoint(first) !== String.fromCodePoint(first).toLowerCase();
}

function goVisibility(name: string): Visibility {
  return isExported(name) ? "public" : "package";
}

/** `(r *Repository[T])` → "Repository". */
function receiverType(receiver: string): string | undefined {
  const inner = receiver.replace(/^\(/, "").replace(/\)$/, "").trim();
  const type = inner.split(/\s+/).pop() ?? "";
  const name = stripTypeArguments(type.replace(/^\*+/, ""));
  return name.length > 0 ? name : undefined;
}

/** `const X = 1` / `type T struct`: a spec on its keyword's line is documented above the keyword. */
function docStart(facts: FactsBuilder, start: number): number {
  const lineStart = facts.text.lastIndexOf("\n", start - 1) + 1;
  return /^\s*(?:const|var|type)\s+$/.test(facts.text.slice(lineStart, start)) ? lineStart : start;
}

function sourceFile(node: SgNode, facts: FactsBuilder): void {
  for (const declaration of node.namedChildren()) {
    const kind = declaration.kind() as string;
    if (kind === "function_declaration") functionDeclaration(declaration, facts);
    else if (kind === "method_declaration") methodDeclaration(declaration, facts);
    else if (kind === "type_declaration") { for (const spec of declaration.namedChildren()) typeSpec(spec, facts); }
    else if (kind === "const_declaration" || kind === "var_declaration") {
      for (const spec of declaration.namedChildren()) valueSpec(spec, facts, kind === "const_declaration" ? "const" : "var");
    }
  }
}

function functionDeclaration(node: SgNode, facts: FactsBuilder): void {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const at = facts.at(node);
  declare(facts, {
    name,
    kind: "function",
    visibility: goVisibility(name),
    exported: isExported(name),
    at,
    headEnd: bodyStart(node),
    docStyle: DOC,
    role: "callable",
    later: true,
  });
}

function methodDeclaration(node: SgNode, facts: FactsBuilder): void {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  const receiver = (node.field("receiver" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const type = receiver === undefined ? undefined : receiverType(receiver);
  const at = facts.at(node);
  const record = (): void => {
    declare(facts, {
      name,
      kind: "method",
      visibility: goVisibility(name),
      exported: isExported(name) && (type === undefined || isExported(type)),
      at,
      headEnd: bodyStart(node),
      docStyle: DOC,
      role: "callable",
      later: true,
    });
  };
  if (type === undefined) record();
  else facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: type, exported: isExported(type) }, record);
}

function typeSpec(spec: SgNode, facts: FactsBuilder): void {
  const specKind = spec.kind() as string;
  if (specKind !== "type_spec" && specKind !== "type_alias") return;
  const name = (spec.field("name" as never) as SgNode | null)?.text();
  const typeNode = spec.field("type" as never) as SgNode | null;
  if (name === undefined || typeNode === null) return;
  const typeKind = typeNode.kind() as string;
  const at = facts.at(spec);
  let kind: SymbolKind = "type";
  if (specKind === "type_spec" && typeKind === "struct_type") kind = "struct";
  else if (specKind === "type_spec" && typeKind === "interface_type") kind = "interface";
  const text = facts.text;
  let signature: string;
  if (kind === "type") signature = collapse(`type ${text.slice(at.start, at.end)}`);
  else {
    const brace = text.indexOf("{", typeNode.range().start.index);
    signature = collapse(`type ${text.slice(at.start, brace === -1 ? at.end : brace)}`);
  }
  const heritage: string[] = [];
  const symbol = declare(facts, {
    name,
    kind,
    visibility: goVisibility(name),
    exported: isExported(name),
    at,
    signature,
    docStyle: DOC,
    docAt: docStart(facts, at.start),
    role: "container",
    later: true,
  });
  if (kind === "struct" || kind === "interface") {
    facts.withScope(facts.scopeOf(symbol), () => members(typeNode, kind, facts, heritage));
    if (heritage.length > 0) symbol.heritage = heritage;
  }
}

function members(typeNode: SgNode, kind: SymbolKind, facts: FactsBuilder, heritage: string[]): void {
  const list = kind === "struct" ? typeNode.namedChildren().find((child) => child.kind() === "field_declaration_list") : typeNode;
  if (list === undefined) return;
  for (const member of list.namedChildren()) {
    const memberKind = member.kind() as string;
    const at = facts.at(member);
    if (memberKind === "field_declaration" || memberKind === "method_elem") {
      const field = memberKind === "field_declaration";
      const names = member.fieldChildren("name" as never).map((child) => (child as SgNode).text());
      if (field && names.length === 0) {
        // An embedded type: composition, listed as heritage.
        heritage.push(stripTypeArguments((member.field("type" as never) as SgNode | null)?.text().replace(/^\*/, "") ?? ""));
        continue;
      }
      for (const name of names) {
        declare(facts, {
          name,
          kind: field ? "field" : "method",
          visibility: goVisibility(name),
          exported: isExported(name),
          at,
          signature: collapse(facts.text.slice(at.start, at.end)),
          docStyle: DOC,
        });
      }
    } else if (memberKind === "type_elem") heritage.push(stripTypeArguments(member.text()));
  }
}

function valueSpec(spec: SgNode, facts: FactsBuilder, keyword: "const" | "var"): void {
  const specKind = spec.kind() as string;
  if (specKind !== "const_spec" && specKind !== "var_spec") return;
  const at = facts.at(spec);
  for (const nameNode of spec.fieldChildren("name" as never)) {
    const name = (nameNode as SgNode).text();
    if (name === "," || name === "_") continue;
    declare(facts, {
      name,
      kind: keyword === "const" ? "constant" : "variable",
      visibility: goVisibility(name),
      exported: isExported(name),
      at,
      signature: collapse(`${keyword} ${facts.text.slice(at.start, at.end)}`),
      docStyle: DOC,
      docAt: docStart(facts, at.start),
      role: "value",
      later: true,
    });
  }
}

const importDeclaration: Handler = (_node, at, facts) => {
  const text = facts.text.slice(at.start, at.end).replace(/\/\/[^\n]*/g, "").replace(/\/\*[\s\S]*?\*\//g, "");
  const spec = /(?:^import|[\n(;])\s*(?:([\p{L}\p{N}_.]+)\s+)?("[^"\n]*"|`[^`]*`)/gu;
  let offset = 0;
  for (let match = spec.exec(text); match !== null; match = spec.exec(text)) {
    const path = match[2]!.slice(1, -1);
    const local = match[1] ?? path.split("/").pop() ?? path;
    offset = match.index;
    const line = facts.lineOf(at.start + offset + match[0].indexOf(match[2]!));
    facts.imports.push({ specifier: path, kind: "import", names: [{ local, imported: "*" }], line });
  }
};

// ---------------------------------------------------------------- value types (call resolution)
// Found in the text once the traversal is over, not as nodes of it: Go binds a name every few
// lines, and each node the traversal hands over crosses into napi.

const NAME = "[\\p{L}_][\\p{L}\\p{N}_]*";
const CHAIN = `${NAME}(?:\\.${NAME})*`;
/**
 * `a, b := …`, `var x = …` and `x = …` starting a statement (also after `if`, `for`, `switch`); the
 * value follows the match. A plain `=` in a function changes a value, not its static type: it binds
 * only at package level (inside `var ( … )`).
 */
const ASSIGNED = new RegExp(`(?:^|[;{])[ \\t]*(?:(?:if|for|switch|var)[ \\t]+)?((?:${NAME}[ \\t]*,[ \\t]*)*${NAME})[ \\t]*(:?)=(?!=)[ \\t]*`, "gmu");
/** `var x T`, `var a, b T`, `var x T = v` (the declared type). */
const DECLARED = new RegExp(`(?:^|[;{])[ \\t]*var[ \\t]+((?:${NAME}[ \\t]*,[ \\t]*)*${NAME})[ \\t]+([^=\\n;{}]*[^=\\s;{}])[ \\t]*(?=$|;|\\}|=)`, "gmu");
/** A function literal's parameter list: `func(` after something else on its line (a method declaration's receiver starts its line). */
const LITERAL = /(?<=[^\s][ \t]*)\bfunc[ \t]*\(/gu;
const COMPOSITE = new RegExp(`^&?\\s*(${CHAIN}(?:\\[[^\\]{}]*\\])?)\\s*\\{`, "u");
const NEW = /^new\(\s*([^()]+?)\s*\)/u;
const ASSERTED = new RegExp(`^${CHAIN}\\.\\(\\s*([^()]+?)\\s*\\)`, "u");
const CALLED = new RegExp(`^(${CHAIN})\\s*\\(`, "u");
const VALUE = new RegExp(`^${CHAIN}(?=[ \\t]*(?:$|[\\r\\n;,}]|//))`, "u");

/** Whether nothing but the end of the statement follows `at` on its line. */
function endsStatement(text: string, at: number): boolean {
  let index = at;
  while (text[index] === " " || text[index] === "\t") index++;
  const char = text[index];
  return char === undefined || char === "\n" || char === "\r" || char === ";" || char === "," || char === "}" || text.startsWith("//", index);
}

/**
 * What the value starting at `at` says of its type: `Foo{…}`, `&Foo{…}` and `v.(Foo)` are a Foo,
 * `new(Foo)` a *Foo, `f(…)` what f returns (or, for a type, the conversion), `x` or `a.b` what
 * that value is. The first value only: `a, err := f()` binds `a` to f's first result.
 */
function valueType(text: string, at: number): { type: string; from: "type" | "call" | "value" } | undefined {
  const value = text.slice(at, at + LIMITS.intel.facts.calleeChars * 2);
  const composite = COMPOSITE.exec(value);
  if (composite) return { type: composite[1]!, from: "type" };
  const made = NEW.exec(value) ?? ASSERTED.exec(value);
  if (made) return endsStatement(text, at + made[0].length) ? { type: made[1]!, from: "type" } : undefined;
  const called = CALLED.exec(value);
  if (called) {
    const end = parenEnd(text, at + called[0].length - 1);
    return end !== -1 && endsStatement(text, end) ? { type: called[1]!, from: "call" } : undefined;
  }
  const named = VALUE.exec(value);
  return named ? { type: named[0], from: "value" } : undefined;
}

/** Parameters as name → type: `a, b int, c *Foo` (a grouped name takes the type after it). */
export function goParameterTypes(list: string): Map<string, string> {
  const types = new Map<string, string>();
  let pending: string[] = [];
  for (const part of splitTopLevel(list)) {
    const match = /^([\p{L}_][\p{L}\p{N}_]*)\s+(.+)$/su.exec(part.trim());
    if (!match) {
      pending.push(part.trim());
      continue;
    }
    for (const name of [...pending, match[1]!]) types.set(name, match[2]!.trim());
    pending = [];
  }
  return types;
}

const GO_CALLABLES = new Set(["function", "method"]);

/** The bindings of the file's text, each in the function or method around it (none: the package). */
function bindValues(facts: FactsBuilder): void {
  if (!facts.callsEnabled) return;
  const text = facts.text;
  const scopeAt = innermostAt(facts, GO_CALLABLES);
  for (const match of text.matchAll(ASSIGNED)) {
    const first = match[1]!.split(",")[0]!.trim();
    if (first === "_") continue;
    const line = facts.lineOf(match.index + match[0].length);
    const scope = scopeAt(line);
    const declares = match[2] === ":" || /^[;{]?[ \t]*var\b/.test(match[0]);
    if (scope !== undefined && !declares) continue;
    const value = valueType(text, match.index + match[0].length);
    if (value) facts.bind(first, value.type, line, value.from, scope);
  }
  for (const match of text.matchAll(DECLARED)) {
    const line = facts.lineOf(match.index + match[0].length);
    const scope = scopeAt(line);
    for (const name of match[1]!.split(",")) if (name.trim() !== "_") facts.bind(name.trim(), match[2]!, line, "type", scope);
  }
  for (const match of text.matchAll(LITERAL)) {
    const open = match.index + match[0].length - 1;
    const end = parenEnd(text, open);
    if (end === -1) continue;
    const line = facts.lineOf(open);
    const scope = scopeAt(line);
    for (const [name, type] of goParameterTypes(text.slice(open + 1, end - 1))) if (name !== "_") facts.bind(name, type, line, "type", scope);
  }
}

const HANDLERS: Record<string, Handler> = {
  source_file: (node, _at, facts) => sourceFile(node, facts),
  import_declaration: importDeclaration,
  call_expression: (node, at, facts) => facts.queueCall(node, at),
};

export const goExtractor = extractorFor(HANDLERS, { calls: FUNCTION_FIELD_CALLS, callKinds: { call_expression: null }, finish: bindValues });
