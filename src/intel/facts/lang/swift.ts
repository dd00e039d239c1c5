/**
 * Swift: classes, actors, structs, enums (cases) and protocols (requirements), functions at any
 * depth, initialisers, deinitialisers, properties and type aliases; `extension T: P` names its
 * members under T and adds P to T's heritage. Visibility from modifiers (default internal,
 * `fileprivate` is file); `///` docs; imports; calls (trailing closures included).
 */
import type { SgNode } from "@ast-grep/napi";
import type { CallSyntax, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, type CommentStyle, headText } from "../text.ts";
import type { SymbolFact, SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor, stripTypeArguments } from "./common.ts";

const DOC: CommentStyle = { line: ["///"], block: "doc" };
const TYPE_KINDS: Readonly<Record<string, SymbolKind>> = { class: "class", actor: "class", struct: "struct", enum: "enum", extension: "class" };

const extensions = new WeakMap<FactsBuilder, Map<string, string[]>>();

function swiftVisibility(modifiers: string, fallback: Visibility): Visibility {
  if (/\b(?:public|open)\b/.test(modifiers)) return "public";
  if (/\bfileprivate\b/.test(modifiers)) return "file";
  if (/\bprivate\b/.test(modifiers)) return "private";
  if (/\binternal\b/.test(modifiers)) return "internal";
  return fallback;
}

function modifiersOf(node: SgNode): string {
  const first = node.namedChildren().find((child) => child.kind() === "modifiers");
  return first?.text() ?? "";
}

function placement(facts: FactsBuilder, node: SgNode): { visibility: Visibility; exported: boolean } {
  if (facts.inCallable()) return { visibility: "private", exported: false };
  const top = facts.top();
  const inProtocol = (top?.data as { protocol?: boolean } | undefined)?.protocol === true;
  const visibility = inProtocol ? (top?.exported ? "public" : "internal") : swiftVisibility(modifiersOf(node), "internal");
  const owner = facts.owner();
  return { visibility, exported: visibility === "public" && (owner === undefined || owner.exported) };
}

function inheritance(node: SgNode): string[] {
  return node
    .namedChildren()
    .filter((child) => child.kind() === "inheritance_specifier")
    .map((child) => stripTypeArguments(child.text()));
}

const typeDeclaration: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  const declarationKind = (node.field("declaration_kind" as never) as SgNode | null)?.text() ?? "class";
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  const heritage = inheritance(node);
  if (declarationKind === "extension") {
    const typeName = stripTypeArguments(name);
    let byType = extensions.get(facts);
    if (!byType) extensions.set(facts, byType = new Map());
    byType.set(typeName, [...(byType.get(typeName) ?? []), ...heritage]);
    const scope: Scope = { start: at.start, end: at.end, role: "container", qualifiedName: typeName, exported: true };
    facts.pushScope(scope);
    if (body !== null) members(body, facts, scope);
    return;
  }
  declare(facts, {
    name,
    kind: TYPE_KINDS[declarationKind] ?? "class",
    ...placement(facts, node),
    at,
    headEnd: body?.range().start.index,
    docStyle: DOC,
    heritage,
    role: "container",
  });
  const scope = facts.top()!;
  if (body !== null) members(body, facts, scope);
};

const protocolDeclaration: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  declare(facts, {
    name,
    kind: "interface",
    ...placement(facts, node),
    at,
    headEnd: body?.range().start.index,
    docStyle: DOC,
    heritage: inheritance(node),
    role: "container",
    scopeData: { protocol: true },
  });
  const scope = facts.top()!;
  if (body !== null) members(body, facts, scope);
};

/** Properties, type aliases, enum cases and protocol requirements (functions and initialisers are found by the search). */
function members(body: SgNode, facts: FactsBuilder, owner: Scope): void {
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    if (kind === "property_declaration" || kind === "protocol_property_declaration") property(member, facts);
    else if (kind === "typealias_declaration") typeAlias(member, facts);
    else if (kind === "protocol_function_declaration") {
      const name = (member.field("name" as never) as SgNode | null)?.text();
      const at = facts.at(member);
      if (name !== undefined) declare(facts, { name, kind: "method", ...placement(facts, member), at, signature: collapse(facts.text.slice(at.start, at.end)), docStyle: DOC });
    } else if (kind === "enum_entry") {
      const at = facts.at(member);
      for (const nameNode of member.fieldChildren("name" as never)) {
        declare(facts, {
          name: (nameNode as SgNode).text(),
          kind: "enum_member",
          visibility: "public",
          exported: owner.exported,
          at,
          signature: collapse(facts.text.slice(at.start, at.end)),
          docStyle: DOC,
        });
      }
    }
  }
}

function property(node: SgNode, facts: FactsBuilder): void {
  const at = facts.at(node);
  const text = facts.text.slice(at.start, at.end);
  const name = /(?:^|\s)(?:let|var)\s+([\p{L}_][\p{L}\p{N}_]*)/u.exec(text)?.[1];
  if (name === undefined) return;
  const inType = facts.top()?.role === "container";
  const isLet = /(?:^|\s)let\s/.test(text.split(name)[0] ?? "");
  const brace = text.indexOf("{");
  const newline = text.indexOf("\n");
  const cut = [brace, newline].filter((index) => index !== -1).sort((a, b) => a - b)[0];
  declare(facts, {
    name,
    kind: inType ? "property" : isLet ? "constant" : "variable",
    ...placement(facts, node),
    at,
    signature: collapse(cut === undefined ? text : text.slice(0, cut)),
    docStyle: DOC,
    role: "value",
    later: true,
  });
}

function typeAlias(node: SgNode, facts: FactsBuilder): void {
  const at = facts.at(node);
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name !== undefined) declare(facts, { name, kind: "type", ...placement(facts, node), at, signature: collapse(facts.text.slice(at.start, at.end)), docStyle: DOC });
}

function callable(kind: "function" | "constructor" | "deinit"): Handler {
  return (node, at, facts) => {
    const name = kind === "constructor" ? "init" : kind === "deinit" ? "deinit" : (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    const inType = facts.top()?.role === "container";
    const body = node.field("body" as never) as SgNode | null;
    declare(facts, {
      name,
      kind: kind === "function" ? (inType ? "method" : "function") : kind === "constructor" ? "constructor" : "method",
      ...placement(facts, node),
      at,
      signature: headText(facts.text, at.start, body?.range().start.index ?? at.end),
      docStyle: DOC,
      role: "callable",
    });
  };
}

function sourceFile(node: SgNode, facts: FactsBuilder): void {
  for (const child of node.namedChildren()) {
    const kind = child.kind() as string;
    if (kind === "property_declaration") property(child, facts);
    else if (kind === "typealias_declaration") typeAlias(child, facts);
  }
}

const importDeclaration: Handler = (_node, at, facts) => {
  const match = /^(?:@[\w]+\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([\p{L}\p{N}_.]+)/u.exec(facts.text.slice(at.start, at.end));
  if (!match) return;
  const path = match[1]!;
  facts.imports.push({
    specifier: path,
    kind: "import",
    names: [{ local: path.includes(".") ? path.split(".").pop()! : "*", imported: path.includes(".") ? path.split(".").pop()! : "*" }],
    line: at.line,
  });
};

const HANDLERS: Record<string, Handler> = {
  source_file: (node, _at, facts) => sourceFile(node, facts),
  class_declaration: typeDeclaration,
  protocol_declaration: protocolDeclaration,
  function_declaration: callable("function"),
  init_declaration: callable("constructor"),
  deinit_declaration: callable("deinit"),
  import_declaration: importDeclaration,
  call_expression: (node, at, facts) => facts.queueCall(node, at),
};

const CALLS: CallSyntax = {
  openers: "({",
  // A subscript (`cache[id]`) parses as a call too; it calls nothing.
  callee: (node) => (node.child(1)?.text().startsWith("[") === true ? null : node.child(0)),
};

/** Extensions add their conformances to the extended type when it is declared here. */
function finish(facts: FactsBuilder): void {
  const byType = extensions.get(facts);
  if (byType === undefined) return;
  const symbols = new Map<string, SymbolFact>();
  for (const symbol of facts.symbols) if (!symbols.has(symbol.qualifiedName)) symbols.set(symbol.qualifiedName, symbol);
  for (const [type, conformances] of byType) {
    const symbol = symbols.get(type);
    if (symbol !== undefined && conformances.length > 0) symbol.heritage = [...new Set([...(symbol.heritage ?? []), ...conformances])];
  }
}

export const swiftExtractor = extractorFor(HANDLERS, { calls: CALLS, finish, callKinds: { call_expression: null } });
