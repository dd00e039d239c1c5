/**
 * Java: classes, interfaces, enums (constants), records (components) and annotation types at any
 * depth (those in method bodies are `local`), with fields, constructors and methods read from
 * their bodies; visibility from modifiers (no modifier: package, interface members public);
 * Javadoc; imports (static and wildcard); method calls, `new` and `super(…)`/`this(…)`.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, type CommentStyle, headText } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { bodyStart, declare, extractorFor, newExpression, typeNames } from "./common.ts";

const DOC: CommentStyle = { block: "doc", line: ["///"] };
const ANNOTATIONS = /^(?:@(?!interface\b)[\p{L}\p{N}_.]+(?:\s*\((?:[^()]|\([^()]*\))*\))?\s+)+/u;

interface TypeData {
  /** Members without a modifier are public (interfaces, annotation types). */
  membersPublic: boolean;
}

function modifierVisibility(head: string, fallback: Visibility): Visibility {
  if (/(?:^|\s)private\s/.test(head)) return "private";
  if (/(?:^|\s)protected\s/.test(head)) return "protected";
  if (/(?:^|\s)public\s/.test(head)) return "public";
  return fallback;
}

/** The modifiers (and annotations) before a member's name or type. */
function modifiersOf(node: SgNode, facts: FactsBuilder, at: At): string {
  const modifiers = node.namedChildren().find((child) => child.kind() === "modifiers");
  return modifiers === undefined ? "" : ` ${facts.text.slice(at.start, modifiers.range().end.index)} `;
}

/** A signature without leading annotations. */
function signatureOf(facts: FactsBuilder, at: At, end: number | undefined): string {
  return headText(facts.text, at.start, end ?? at.end).replace(ANNOTATIONS, "").replace(/;$/, "");
}

function typeDeclaration(kind: SymbolKind, membersPublic: boolean): Handler {
  return (node, at, facts) => {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    const top = facts.top();
    const local = facts.inCallable();
    const ownerData = top?.role === "container" ? (top.data as TypeData | undefined) : undefined;
    const visibility = local ? "private" : modifierVisibility(modifiersOf(node, facts, at), ownerData?.membersPublic ? "public" : "package");
    const body = bodyStart(node);
    const head = facts.text.slice(at.start, body ?? at.end);
    const heritage: string[] = [];
    for (const clause of head.matchAll(/\b(?:extends|implements)\s+([\s\S]*?)(?=\s+(?:extends|implements|permits)\b|$)/g)) heritage.push(...typeNames(clause[1]!));
    const symbol = declare(facts, {
      name,
      kind,
      visibility,
      exported: !local && visibility === "public" && (top === undefined || top.exported),
      at,
      signature: signatureOf(facts, at, body),
      docStyle: DOC,
      heritage,
      role: "container",
      scopeData: { membersPublic } satisfies TypeData,
    });
    const scope = facts.top()!;
    if (node.kind() === "record_declaration") recordComponents(node, facts, symbol.exported);
    const bodyNode = node.field("body" as never) as SgNode | null;
    if (bodyNode !== null) members(bodyNode, facts, scope);
  };
}

function recordComponents(node: SgNode, facts: FactsBuilder, exported: boolean): void {
  const parameters = node.field("parameters" as never) as SgNode | null;
  for (const parameter of parameters?.namedChildren() ?? []) {
    const name = (parameter.field("name" as never) as SgNode | null)?.text();
    if (name !== undefined) declare(facts, { name, kind: "field", visibility: "public", exported, at: facts.at(parameter), signature: collapse(parameter.text()) });
  }
}

function members(body: SgNode, facts: FactsBuilder, owner: Scope): void {
  const membersPublic = (owner.data as TypeData | undefined)?.membersPublic === true;
  const fallback: Visibility = membersPublic ? "public" : "package";
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    if (kind === "enum_body_declarations") {
      members(member, facts, owner);
      continue;
    }
    const at = facts.at(member);
    if (kind === "enum_constant") {
      const name = (member.field("name" as never) as SgNode | null)?.text();
      if (name !== undefined) {
        declare(facts, {
          name,
          kind: "enum_member",
          visibility: "public",
          exported: owner.exported,
          at,
          signature: signatureOf(facts, at, bodyStart(member)),
          docStyle: DOC,
          role: "value",
          later: true,
        });
      }
      continue;
    }
    if (kind === "field_declaration" || kind === "constant_declaration") {
      const visibility = kind === "constant_declaration" ? "public" : modifierVisibility(modifiersOf(member, facts, at), fallback);
      const isConstant = kind === "constant_declaration" || /\bstatic\b[\s\S]*\bfinal\b|\bfinal\b[\s\S]*\bstatic\b/.test(modifiersOf(member, facts, at));
      for (const declarator of member.fieldChildren("declarator" as never)) {
        const name = ((declarator as SgNode).field("name" as never) as SgNode | null)?.text();
        if (name === undefined) continue;
        declare(facts, {
          name,
          kind: isConstant ? "constant" : "field",
          visibility,
          exported: owner.exported && (visibility === "public" || visibility === "protected"),
          at,
          signature: signatureOf(facts, at, undefined),
          docStyle: DOC,
          role: "value",
          later: true,
        });
      }
      continue;
    }
    let symbolKind: SymbolKind | undefined;
    if (kind === "method_declaration" || kind === "annotation_type_element_declaration") symbolKind = "method";
    else if (kind === "constructor_declaration" || kind === "compact_constructor_declaration") symbolKind = "constructor";
    if (symbolKind === undefined) continue;
    const name = (member.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) continue;
    const visibility = modifierVisibility(modifiersOf(member, facts, at), fallback);
    const body = bodyStart(member);
    declare(facts, {
      name,
      kind: symbolKind,
      visibility,
      exported: owner.exported && (visibility === "public" || visibility === "protected"),
      at,
      signature: signatureOf(facts, at, body),
      docStyle: DOC,
      role: body === undefined ? "value" : "callable",
      later: true,
    });
  }
}

/** `import a.b.C;` / `import a.b.*;` / `import static a.b.C.member;` */
const importDeclaration: Handler = (_node, at, facts) => {
  const match = /^import\s+(static\s+)?([\p{L}\p{N}_.$\s]+?)(\.\s*\*)?\s*;/u.exec(facts.text.slice(at.start, at.end));
  if (!match) return;
  const path = match[2]!.replace(/\s+/g, "");
  if (match[3] !== undefined) {
    facts.imports.push({ specifier: path, kind: "import", names: [{ local: "*", imported: "*" }], line: at.line });
    return;
  }
  const last = path.split(".").pop()!;
  // A static import names a member: the module is its class.
  const specifier = match[1] ? path.slice(0, path.lastIndexOf(".")) : path;
  facts.imports.push({ specifier, kind: "import", names: [{ local: last, imported: last }], line: at.line });
};

const HANDLERS: Record<string, Handler> = {
  class_declaration: typeDeclaration("class", false),
  interface_declaration: typeDeclaration("interface", true),
  enum_declaration: typeDeclaration("enum", false),
  record_declaration: typeDeclaration("class", false),
  annotation_type_declaration: typeDeclaration("interface", true),
  import_declaration: importDeclaration,
  method_invocation: (node, at, facts) => facts.queueCall(node, at),
  explicit_constructor_invocation: (node, at, facts) => facts.queueCall(node, at),
  object_creation_expression: newExpression,
};

const CALLS: CallSyntax = {
  openers: "(<",
  callee: (node) => (node.field("name" as never) ?? node.field("type" as never) ?? node.field("constructor" as never)) as SgNode | null,
};

export const javaExtractor = extractorFor(HANDLERS, {
  calls: CALLS,
  callKinds: { method_invocation: null, explicit_constructor_invocation: null, object_creation_expression: null },
});
