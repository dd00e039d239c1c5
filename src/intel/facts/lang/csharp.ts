/**
 * C#: namespaces (block and file-scoped), classes, interfaces, structs, records, enums (members)
 * and delegates at any depth, with fields, properties, events, constructors and methods read from
 * their bodies; visibility from modifiers (members default to private, interface members to
 * public, types to internal); XML doc comments; `using` directives; calls and `new`.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, commentAbove, firstSentence, headText, stripCommentMarkers } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor, newExpression, typeNames } from "./common.ts";

const MEMBER_KINDS: Readonly<Record<string, SymbolKind>> = {
  method_declaration: "method",
  constructor_declaration: "constructor",
  destructor_declaration: "method",
  operator_declaration: "method",
  conversion_operator_declaration: "method",
  property_declaration: "property",
  indexer_declaration: "property",
  event_declaration: "field",
};

interface TypeData {
  interface: boolean;
}

/** First sentence of an XML doc comment (`<summary>` text, `<see cref="X"/>` as X). */
function xmlDoc(facts: FactsBuilder, start: number): string | undefined {
  const raw = commentAbove(facts.text, start, { line: ["///"], block: "doc", skipLine: /^\[/ });
  if (raw === undefined) return undefined;
  const body = stripCommentMarkers(raw)
    .replace(/<(?:param|typeparam|returns|exception|remarks|example|seealso)\b[\s\S]*$/, "")
    .replace(/<see\s+(?:cref|langword|href)="([^"]*)"\s*\/?>/g, "$1")
    .replace(/<\/?[a-zA-Z][^>]*>/g, " ");
  return firstSentence(body);
}

function modifierVisibility(modifiers: string, fallback: Visibility): Visibility {
  if (/\bprivate\s+protected\b|\bprotected\s+private\b/.test(modifiers)) return "private";
  if (/\bprotected\b/.test(modifiers)) return "protected";
  if (/\bpublic\b/.test(modifiers)) return "public";
  if (/\binternal\b/.test(modifiers)) return "internal";
  if (/\bprivate\b/.test(modifiers)) return "private";
  return fallback;
}

/** Modifier keywords of a declaration (its `modifier` children). */
function modifiersOf(node: SgNode): string {
  return node
    .children()
    .filter((child) => child.kind() === "modifier")
    .map((child) => child.text())
    .join(" ");
}

/** The head from the first modifier or keyword on (attributes left out). */
function signatureOf(facts: FactsBuilder, node: SgNode, at: At, end: number | undefined): string {
  let start = at.start;
  for (const child of node.children()) {
    if (child.kind() !== "attribute_list") break;
    start = child.range().end.index;
  }
  return headText(facts.text, start, end ?? at.end).replace(/;$/, "");
}

function typeDeclaration(kind: SymbolKind): Handler {
  return (node, at, facts) => {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    const top = facts.top();
    const insideType = top?.role === "container" && top.data !== undefined;
    const local = facts.inCallable();
    const fallback: Visibility = insideType ? ((top.data as TypeData).interface ? "public" : "private") : "internal";
    const visibility = local ? "private" : modifierVisibility(modifiersOf(node), fallback);
    const body = node.field("body" as never) as SgNode | null;
    const base = node.children().find((child) => child.kind() === "base_list");
    const symbol = declare(facts, {
      name,
      kind,
      visibility,
      exported: !local && (visibility === "public" || (insideType && visibility === "protected")) && (top === undefined || top.exported),
      at,
      signature: signatureOf(facts, node, at, body?.range().start.index),
      doc: xmlDoc(facts, at.start),
      heritage: base === undefined ? [] : typeNames(base.text().replace(/^:/, "").replace(/\([^)]*\)/g, "")),
      role: kind === "function" ? "value" : "container",
      scopeData: { interface: kind === "interface" } satisfies TypeData,
    });
    if (body === null) return;
    const scope = facts.top()!;
    if (kind === "enum") enumMembers(body, facts, symbol.exported);
    else members(body, facts, scope);
  };
}

function enumMembers(body: SgNode, facts: FactsBuilder, exported: boolean): void {
  for (const member of body.namedChildren()) {
    if (member.kind() !== "enum_member_declaration") continue;
    const name = (member.field("name" as never) as SgNode | null)?.text();
    const at = facts.at(member);
    if (name !== undefined) declare(facts, { name, kind: "enum_member", visibility: "public", exported, at, signature: collapse(member.text()), doc: xmlDoc(facts, at.start) });
  }
}

function members(body: SgNode, facts: FactsBuilder, owner: Scope): void {
  const interfaceMembers = (owner.data as TypeData | undefined)?.interface === true;
  const fallback: Visibility = interfaceMembers ? "public" : "private";
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    const at = facts.at(member);
    if (kind === "field_declaration" || kind === "event_field_declaration") {
      const modifiers = modifiersOf(member);
      const visibility = modifierVisibility(modifiers, fallback);
      const declaration = member.namedChildren().find((child) => child.kind() === "variable_declaration");
      for (const declarator of declaration?.namedChildren() ?? []) {
        if (declarator.kind() !== "variable_declarator") continue;
        const name = (declarator.field("name" as never) as SgNode | null)?.text() ?? declarator.namedChildren()[0]?.text();
        if (name === undefined) continue;
        declare(facts, {
          name,
          kind: /\bconst\b/.test(modifiers) ? "constant" : "field",
          visibility,
          exported: owner.exported && (visibility === "public" || visibility === "protected"),
          at,
          signature: signatureOf(facts, member, at, undefined),
          doc: xmlDoc(facts, at.start),
          role: "value",
          later: true,
        });
      }
      continue;
    }
    if (!Object.hasOwn(MEMBER_KINDS, kind)) continue;
    const nameNode = member.field("name" as never) as SgNode | null;
    const name = kind === "indexer_declaration" ? "this[]" : kind === "destructor_declaration" ? `~${nameNode?.text() ?? ""}` : nameNode?.text();
    if (name === undefined) continue;
    // An explicit interface implementation (`void IDisposable.Dispose()`) is public through the interface.
    const explicit = member.children().some((child) => child.kind() === "explicit_interface_specifier");
    const visibility = explicit ? "public" : modifierVisibility(modifiersOf(member), fallback);
    const body = (member.field("body" as never) ?? member.field("accessors" as never)) as SgNode | null;
    declare(facts, {
      name,
      kind: MEMBER_KINDS[kind]!,
      visibility,
      exported: owner.exported && (visibility === "public" || visibility === "protected"),
      at,
      signature: signatureOf(facts, member, at, kind === "property_declaration" ? undefined : body?.range().start.index).replace(/\s*=>[\s\S]*$/, ""),
      doc: xmlDoc(facts, at.start),
      role: body === null ? "value" : "callable",
      later: true,
    });
  }
}

const namespaceDeclaration: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  // A file-scoped namespace covers the rest of the file.
  const end = body === null ? facts.text.length : at.end;
  declare(facts, {
    name,
    kind: "namespace",
    visibility: "public",
    exported: true,
    at,
    headEnd: body?.range().start.index,
    signature: `namespace ${name}`,
    role: "container",
    scopeEnd: end,
  });
};

/** `using A.B;`, `using static A.B;`, `using Alias = A.B;` */
const usingDirective: Handler = (_node, at, facts) => {
  const match = /^(?:global\s+)?using\s+(static\s+)?(?:([\p{L}\p{N}_]+)\s*=\s*)?([\p{L}\p{N}_.<>,\s]+?)\s*;/u.exec(facts.text.slice(at.start, at.end));
  if (!match) return;
  facts.imports.push({ specifier: match[3]!.replace(/\s+/g, ""), kind: "import", names: [{ local: match[2] ?? "*", imported: "*" }], line: at.line });
};

const HANDLERS: Record<string, Handler> = {
  namespace_declaration: namespaceDeclaration,
  file_scoped_namespace_declaration: namespaceDeclaration,
  class_declaration: typeDeclaration("class"),
  interface_declaration: typeDeclaration("interface"),
  struct_declaration: typeDeclaration("struct"),
  record_declaration: typeDeclaration("class"),
  enum_declaration: typeDeclaration("enum"),
  delegate_declaration: typeDeclaration("type"),
  using_directive: usingDirective,
  invocation_expression: (node, at, facts) => facts.queueCall(node, at),
  object_creation_expression: newExpression,
};

const CALLS: CallSyntax = {
  openers: "(<{",
  callee: (node) => (node.field("function" as never) ?? node.field("type" as never)) as SgNode | null,
};

export const csharpExtractor = extractorFor(HANDLERS, { calls: CALLS, callKinds: { invocation_expression: null, object_creation_expression: null } });
