/**
 * Kotlin: classes, interfaces, enum classes (entries), objects and companion objects, functions
 * (extension functions included), properties (primary-constructor `val`/`var` too), secondary
 * constructors and type aliases; visibility from modifiers (default public); KDoc; imports; calls
 * (trailing lambdas included). The grammar names no fields, so names are read from the text.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, type CommentStyle, headText } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor, typeNames } from "./common.ts";

const DOC: CommentStyle = { block: "doc" };
const NAME = "`[^`]+`|[\\p{L}_][\\p{L}\\p{N}_]*";
const CLASS_HEAD = new RegExp(`\\b(class|interface|object)\\s+(${NAME})`, "u");
const FUNCTION_HEAD = new RegExp(`\\bfun\\s+(?:<[^>]*>\\s*)?(?:[^(=]*?\\.)?(${NAME})\\s*[(<]`, "u");
const PROPERTY_HEAD = new RegExp(`\\b(val|var)\\s+(?:<[^>]*>\\s*)?(?:[\\p{L}\\p{N}_.<>?]+\\.)?(${NAME})`, "u");
const BODY_KINDS = new Set(["class_body", "enum_class_body", "function_body", "statements"]);

function kotlinVisibility(modifiers: string): Visibility {
  if (/\bprivate\b/.test(modifiers)) return "private";
  if (/\bprotected\b/.test(modifiers)) return "protected";
  if (/\binternal\b/.test(modifiers)) return "internal";
  return "public";
}

function modifiersOf(node: SgNode, facts: FactsBuilder, at: At): string {
  const first = node.child(0);
  if (first === null || first.kind() !== "modifiers") return "";
  return facts.text.slice(at.start, first.range().end.index);
}

function bodyOf(node: SgNode): SgNode | undefined {
  return node.namedChildren().find((child) => BODY_KINDS.has(child.kind() as string));
}

function placement(facts: FactsBuilder, modifiers: string): { visibility: Visibility; exported: boolean } {
  if (facts.inCallable()) return { visibility: "private", exported: false };
  const visibility = kotlinVisibility(modifiers);
  const owner = facts.owner();
  return { visibility, exported: (visibility === "public" || visibility === "protected") && (owner === undefined || owner.exported) };
}

function typeDeclaration(node: SgNode, at: At, facts: FactsBuilder): void {
  const text = facts.text;
  const body = bodyOf(node);
  const head = text.slice(at.start, body?.range().start.index ?? at.end);
  const isCompanion = node.kind() === "companion_object";
  const match = CLASS_HEAD.exec(head);
  const name = match ? match[2]!.replace(/`/g, "") : isCompanion ? "Companion" : undefined;
  if (name === undefined) return;
  let kind: SymbolKind = "class";
  if (match?.[1] === "interface") kind = "interface";
  else if (/\benum\s+class\b/.test(head)) kind = "enum";
  const modifiers = modifiersOf(node, facts, at);
  const heritage = node
    .namedChildren()
    .filter((child) => child.kind() === "delegation_specifier")
    .flatMap((child) => typeNames(child.text().replace(/\bby\b[\s\S]*$/, "")));
  const symbol = declare(facts, {
    name,
    kind,
    ...placement(facts, modifiers),
    at,
    signature: headText(text, at.start, body?.range().start.index ?? at.end),
    docStyle: DOC,
    heritage,
    role: "container",
  });
  const scope = facts.top()!;
  const constructor = node.namedChildren().find((child) => child.kind() === "primary_constructor");
  if (constructor !== undefined) constructorProperties(constructor, facts, symbol.exported);
  if (body !== undefined) members(body, facts, scope);
}

function constructorProperties(constructor: SgNode, facts: FactsBuilder, classExported: boolean): void {
  for (const parameter of constructor.namedChildren()) {
    if (parameter.kind() !== "class_parameter") continue;
    const text = parameter.text();
    const match = new RegExp(`^(.*?)\\b(?:val|var)\\s+(${NAME})`, "su").exec(text);
    if (!match) continue;
    const visibility = kotlinVisibility(match[1]!);
    declare(facts, { name: match[2]!, kind: "property", visibility, exported: classExported && visibility === "public", at: facts.at(parameter), signature: collapse(text) });
  }
}

/** Properties, secondary constructors and enum entries of a class body (classes and functions are found by the search). */
function members(body: SgNode, facts: FactsBuilder, owner: Scope): void {
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    if (kind === "property_declaration") property(member, facts);
    else if (kind === "secondary_constructor") {
      const at = facts.at(member);
      const bodyNode = member.namedChildren().find((child) => child.kind() === "statements");
      const brace = bodyNode === undefined ? undefined : facts.text.lastIndexOf("{", bodyNode.range().start.index);
      declare(facts, {
        name: "constructor",
        kind: "constructor",
        ...placement(facts, modifiersOf(member, facts, at)),
        at,
        headEnd: brace === undefined || brace < at.start ? at.end : brace,
        docStyle: DOC,
        role: "callable",
        later: true,
      });
    } else if (kind === "enum_entry") {
      const at = facts.at(member);
      const name = /^[\p{L}_][\p{L}\p{N}_]*/u.exec(member.text())?.[0];
      if (name !== undefined) {
        declare(facts, {
          name,
          kind: "enum_member",
          visibility: "public",
          exported: owner.exported,
          at,
          signature: collapse(member.text().split("{")[0]!),
          docStyle: DOC,
          role: "value",
          later: true,
        });
      }
    }
  }
}

function property(node: SgNode, facts: FactsBuilder): void {
  const at = facts.at(node);
  const text = facts.text.slice(at.start, at.end);
  const match = PROPERTY_HEAD.exec(text);
  if (!match) return;
  const modifiers = modifiersOf(node, facts, at);
  const kind: SymbolKind = /\bconst\b/.test(modifiers) ? "constant" : "property";
  const firstLine = text.split("\n")[0]!;
  declare(facts, {
    name: match[2]!.replace(/`/g, ""),
    kind,
    ...placement(facts, modifiers),
    at,
    signature: collapse(firstLine + (firstLine.length < text.length ? " …" : "")),
    docStyle: DOC,
    role: "value",
    later: true,
  });
}

const functionDeclaration: Handler = (node, at, facts) => {
  const body = bodyOf(node);
  const head = facts.text.slice(at.start, body?.range().start.index ?? at.end);
  const match = FUNCTION_HEAD.exec(head);
  if (!match) return;
  const top = facts.top();
  const kind: SymbolKind = top?.role === "container" ? "method" : "function";
  declare(facts, {
    name: match[1]!.replace(/`/g, ""),
    kind,
    ...placement(facts, modifiersOf(node, facts, at)),
    at,
    headEnd: body?.range().start.index,
    docStyle: DOC,
    role: "callable",
  });
};

/** Top-level properties and type aliases, from the file's declaration list. */
function sourceFile(node: SgNode, facts: FactsBuilder): void {
  for (const child of node.namedChildren()) {
    const kind = child.kind() as string;
    if (kind === "property_declaration") property(child, facts);
    else if (kind === "type_alias") typeAlias(child, facts);
  }
}

function typeAlias(node: SgNode, facts: FactsBuilder): void {
  const at = facts.at(node);
  const match = new RegExp(`\\btypealias\\s+(${NAME})`, "u").exec(facts.text.slice(at.start, at.end));
  if (match) {
    declare(facts, {
      name: match[1]!,
      kind: "type",
      ...placement(facts, modifiersOf(node, facts, at)),
      at,
      signature: collapse(facts.text.slice(at.start, at.end)),
      docStyle: DOC,
    });
  }
}

const importHeader: Handler = (_node, at, facts) => {
  const match = /^import\s+([\p{L}\p{N}_.`]+?)(\.\*)?(?:\s+as\s+([\p{L}\p{N}_`]+))?\s*(?:;|$)/mu.exec(facts.text.slice(at.start, at.end).trim());
  if (!match) return;
  const path = match[1]!;
  if (match[2] !== undefined) {
    facts.imports.push({ specifier: path, kind: "import", names: [{ local: "*", imported: "*" }], line: at.line });
    return;
  }
  const last = path.split(".").pop()!;
  facts.imports.push({ specifier: path, kind: "import", names: [{ local: match[3] ?? last, imported: last }], line: at.line });
};

const HANDLERS: Record<string, Handler> = {
  source_file: (node, _at, facts) => sourceFile(node, facts),
  class_declaration: typeDeclaration,
  object_declaration: typeDeclaration,
  companion_object: typeDeclaration,
  function_declaration: functionDeclaration,
  import_header: importHeader,
  call_expression: (node, at, facts) => facts.queueCall(node, at),
};

const CALLS: CallSyntax = {
  openers: "(<{",
  callee: (node) => node.child(0),
};

export const kotlinExtractor = extractorFor(HANDLERS, { calls: CALLS, callKinds: { call_expression: null } });
