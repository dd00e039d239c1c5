/**
 * Dart: the grammar lays a function out as sibling nodes (a signature, then its body), so files,
 * classes, mixins, extensions and enums are read as statement lists that pair them up: classes
 * (superclass, mixins, interfaces as heritage), fields, constructors, methods, getters and
 * setters, top-level functions, constants, variables and typedefs. `_name` is library-private;
 * `///` comments are docs; `import`/`export`/`part` directives; calls are the argument lists
 * (`(…)` after a name), read back to the callee.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle, leadingStringLiteral } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor, spanAt, stripTypeArguments, typeNames } from "./common.ts";

const DOC: CommentStyle = { line: ["///"], block: "doc" };
const SIGNATURES = new Set([
  "function_signature",
  "getter_signature",
  "setter_signature",
  "method_signature",
  "constructor_signature",
  "factory_constructor_signature",
  "operator_signature",
]);

function dartVisibility(name: string): Visibility {
  return name.startsWith("_") ? "private" : "public";
}

function signatureName(node: SgNode): { name: string; kind: SymbolKind } | undefined {
  let signature = node;
  if (node.kind() === "method_signature") signature = node.namedChildren().find((child) => SIGNATURES.has(child.kind() as string)) ?? node;
  const kind = signature.kind() as string;
  const text = signature.text();
  if (kind === "getter_signature" || kind === "setter_signature") {
    const name = /\b[gs]et\s+([\p{L}\p{N}_$]+)/u.exec(text)?.[1];
    return name === undefined ? undefined : { name, kind: "property" };
  }
  if (kind === "constructor_signature" || kind === "factory_constructor_signature") {
    // `Type.named(…)` is the constructor "named"; `Type(…)` the unnamed one.
    const name = /([\p{L}\p{N}_$]+)(?:\.([\p{L}\p{N}_$]+))?\s*\(/u.exec(text);
    return name === null ? undefined : { name: name[2] ?? name[1]!, kind: "constructor" };
  }
  if (kind === "operator_signature") return { name: `operator${/operator\s*([^\s(]+)/.exec(text)?.[1] ?? ""}`, kind: "method" };
  const name = (signature.field("name" as never) as SgNode | null)?.text() ?? /([\p{L}\p{N}_$]+)\s*(?:<[^>]*>)?\s*\(/u.exec(text)?.[1];
  return name === undefined ? undefined : { name, kind: "function" };
}

/** A statement list where a signature and the function_body after it make one symbol. */
function readMembers(list: SgNode, facts: FactsBuilder, inType: boolean, ownerExported: boolean): void {
  const children = list.namedChildren();
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    const kind = child.kind() as string;
    const at = facts.at(child);
    if (SIGNATURES.has(kind)) {
      const found = signatureName(child);
      if (found === undefined) continue;
      const next = children[index + 1];
      let span = at;
      if (next !== undefined && next.kind() === "function_body") {
        span = spanAt(at, facts.at(next));
        index++;
      }
      const kindInType: SymbolKind = found.kind === "function" && inType ? "method" : found.kind;
      record(facts, found.name, kindInType, span, collapse(facts.text.slice(at.start, at.end)), ownerExported, span !== at);
      continue;
    }
    if (kind === "declaration" || kind === "local_variable_declaration" || kind === "static_final_declaration_list" || kind === "initialized_identifier_list") {
      declaration(child, at, facts, inType, ownerExported);
      continue;
    }
    if (kind === "type_alias") {
      const name = /typedef\s+(?:[\p{L}\p{N}_$<>?, ]+\s+)?([\p{L}\p{N}_$]+)\s*(?:<[^>]*>)?\s*[(=]/u.exec(child.text())?.[1];
      if (name !== undefined) record(facts, name, "type", at, collapse(child.text().replace(/;$/, "")), ownerExported, false);
    }
  }
}

function record(facts: FactsBuilder, name: string, kind: SymbolKind, at: At, signature: string, ownerExported: boolean, callable: boolean): void {
  const base = name.includes(".") ? name.split(".").pop()! : name;
  const visibility = dartVisibility(base);
  declare(facts, {
    name,
    kind,
    visibility,
    exported: ownerExported && visibility === "public",
    at,
    signature,
    docStyle: DOC,
    ...(callable ? { role: "callable" as const, later: true } : {}),
  });
}

/** Fields and top-level variables: `final T a = …, b;`, `static const x = …;`; constructors and abstract methods inside declarations. */
function declaration(node: SgNode, at: At, facts: FactsBuilder, inType: boolean, ownerExported: boolean): void {
  const inner = node.namedChildren().find((child) => SIGNATURES.has(child.kind() as string));
  if (inner !== undefined) {
    const found = signatureName(inner);
    if (found !== undefined) {
      record(
        facts,
        found.name,
        found.kind === "function" && inType ? "method" : found.kind,
        at,
        collapse(facts.text.slice(at.start, at.end).replace(/;$/, "")),
        ownerExported,
        false,
      );
    }
    return;
  }
  const text = facts.text.slice(at.start, at.end);
  // A top-level `const`/`final` keyword is a sibling before the list; look back for it.
  const before = facts.text.slice(Math.max(0, at.start - 60), at.start);
  const keywords = /(?:^|[;}\n])\s*((?:(?:static|late|external)\s+)*(?:const|final|var)\s+(?:[\p{L}\p{N}_$<>?,]+\s+)?)$/u.exec(before)?.[1] ?? "";
  const isConstant = /\bconst\b/.test(text.split("=")[0]!) || /\bconst\b/.test(keywords);
  for (const match of text.matchAll(/([\p{L}_$][\p{L}\p{N}_$]*)\s*(?==|,|;|$)/gu)) {
    const name = match[1]!;
    if (/^(?:final|const|static|late|var|covariant|external)$/.test(name)) continue;
    // Skip names on the right of an `=` (values, not declarations).
    const prefix = text.slice(0, match.index);
    if (depthAfterEquals(prefix)) continue;
    record(facts, name, inType ? (isConstant ? "constant" : "field") : isConstant ? "constant" : "variable", at, collapse(keywords + text.replace(/;$/, "")), ownerExported, false);
  }
}

/** Whether the end of `prefix` is inside an initialiser (after an `=` not closed by a top-level comma). */
function depthAfterEquals(prefix: string): boolean {
  let depth = 0;
  let inValue = false;
  for (const char of prefix) {
    if ("([{<".includes(char)) depth++;
    else if (")]}>".includes(char)) depth = Math.max(0, depth - 1);
    else if (char === "=" && depth === 0) inValue = true;
    else if (char === "," && depth === 0) inValue = false;
  }
  return inValue || depth > 0;
}

function typeDeclaration(kind: SymbolKind): Handler {
  return (node, at, facts) => {
    const children = node.namedChildren();
    const nameNode = (node.field("name" as never) as SgNode | null) ?? children.find((child) => child.kind() === "identifier") ?? null;
    const name = nameNode?.text();
    if (name === undefined) return;
    const body = children.find((child) => /_body$/.test(child.kind() as string));
    const head = facts.text.slice(at.start, body?.range().start.index ?? at.end);
    const heritage: string[] = [];
    for (const clause of head.matchAll(/\b(?:extends|with|implements|on)\s+([\s\S]*?)(?=\s+(?:extends|with|implements|on)\b|\s*$)/g)) heritage.push(...typeNames(clause[1]!));
    const visibility = dartVisibility(name);
    const symbol = declare(facts, {
      name,
      kind,
      visibility,
      exported: visibility === "public",
      at,
      headEnd: body?.range().start.index,
      docStyle: DOC,
      heritage: heritage.map(stripTypeArguments),
      role: "container",
    });
    if (body === undefined) return;
    if (kind === "enum") {
      for (const constant of body.namedChildren()) {
        if (constant.kind() !== "enum_constant") continue;
        declare(facts, {
          name: constant.text().split(/[\s(]/)[0]!,
          kind: "enum_member",
          visibility: "public",
          exported: symbol.exported,
          at: facts.at(constant),
          signature: collapse(constant.text()),
          docStyle: DOC,
        });
      }
      return;
    }
    readMembers(body, facts, true, symbol.exported);
  };
}

/** `import 'uri' as p show A hide B;`, `export 'uri';`, `part 'uri';` */
function directive(node: SgNode, facts: FactsBuilder): void {
  const at = facts.at(node);
  const text = facts.text.slice(at.start, at.end);
  const keyword = /^(import|export|part)\b/.exec(text.trimStart())?.[1];
  if (keyword === undefined) return;
  const uri = leadingStringLiteral(text.trimStart().slice(keyword.length));
  if (uri === undefined) return;
  if (keyword === "part") {
    facts.imports.push({ specifier: uri, kind: "include", names: [], line: at.line });
    return;
  }
  const prefix = /\bas\s+([\p{L}\p{N}_$]+)/u.exec(text)?.[1];
  const shown = /\bshow\s+([^;]+?)(?:\s+hide\b|;|$)/.exec(text)?.[1];
  const names = shown !== undefined ? shown.split(",").map((name) => ({ local: name.trim(), imported: name.trim() })) : [{ local: prefix ?? "*", imported: "*" }];
  if (keyword === "export") {
    facts.imports.push({ specifier: uri, kind: "reexport", names, line: at.line });
    for (const name of names) facts.addExportedName(name.local, at.line, uri, name.imported);
  } else facts.imports.push({ specifier: uri, kind: "import", names, line: at.line });
}

function program(node: SgNode, facts: FactsBuilder): void {
  for (const child of node.namedChildren()) {
    const kind = child.kind() as string;
    if (kind === "import_or_export" || kind === "part_directive") directive(child, facts);
  }
  readMembers(node, facts, false, true);
}

/**
 * An argument list: the callee is the name right before it (after type arguments), with the
 * chain of `.`/`?.` selectors before that as qualifier (`db.query(id).then(…)` → `db.query(…).then`).
 */
const argumentPart: Handler = (_node, at, facts) => {
  const text = facts.text;
  let cursor = at.start;
  while (cursor > 0 && /\s/.test(text[cursor - 1]!)) cursor--;
  if (text[cursor - 1] === ">") cursor = skipBack(text, cursor - 1, "<", ">");
  const nameEnd = cursor;
  while (cursor > 0 && /[\p{L}\p{N}_$]/u.test(text[cursor - 1]!)) cursor--;
  if (cursor === nameEnd) return;
  let chainStart = cursor;
  const parts: string[] = [text.slice(cursor, nameEnd)];
  for (;;) {
    let probe = chainStart;
    while (probe > 0 && /\s/.test(text[probe - 1]!)) probe--;
    let joiner = "";
    if (text[probe - 1] === "." && text[probe - 2] === "?") joiner = "?.";
    else if (text[probe - 1] === "." && text[probe - 2] !== ".") joiner = ".";
    if (joiner === "") break;
    probe -= joiner.length;
    while (probe > 0 && /\s/.test(text[probe - 1]!)) probe--;
    let segment = "";
    if (text[probe - 1] === ")") {
      const open = skipBack(text, probe - 1, "(", ")");
      if (open < 0) break;
      segment = "(…)";
      probe = open;
    }
    const end = probe;
    while (probe > 0 && /[\p{L}\p{N}_$]/u.test(text[probe - 1]!)) probe--;
    if (probe === end) break;
    parts.unshift(`${text.slice(probe, end)}${segment}${joiner}`);
    chainStart = probe;
    if (parts.length > 8) break;
  }
  const name = parts.pop()!;
  const callee = `${parts.join("")}${name}`;
  // Declarations are signatures, not calls: `Future<void> main(…)` has its own node.
  facts.addCall(callee, facts.lineOf(chainStart), chainStart - (text.lastIndexOf("\n", chainStart - 1) + 1) + 1);
};

/** Index of the bracket opening the one closing at `close`, or -1. */
function skipBack(text: string, close: number, open: string, closing: string): number {
  let depth = 0;
  for (let index = close; index >= 0 && close - index < 2000; index--) {
    const char = text[index];
    if (char === closing) depth++;
    else if (char === open && --depth === 0) return index;
  }
  return -1;
}

const HANDLERS: Record<string, Handler> = {
  program: (node, _at, facts) => program(node, facts),
  class_definition: typeDeclaration("class"),
  mixin_declaration: typeDeclaration("trait"),
  extension_declaration: typeDeclaration("class"),
  enum_declaration: typeDeclaration("enum"),
  argument_part: argumentPart,
};

export const dartExtractor = extractorFor(HANDLERS, { callKinds: { argument_part: null } });
