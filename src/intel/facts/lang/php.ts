/**
 * PHP: namespaces, classes (extends, implements, used traits as heritage), interfaces, traits and
 * enums (cases) with constants, properties (promoted constructor parameters too) and methods;
 * functions; file-level constants; visibility from modifiers (default public); PHPDoc; `use`
 * imports (groups expanded) and `require`/`include`; function, method, static and `new` calls.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, type CommentStyle, leadingStringLiteral } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor, newExpression, splitTopLevel } from "./common.ts";

const DOC: CommentStyle = { block: "doc" };

function phpVisibility(head: string): Visibility {
  if (/\bprivate\b/.test(head)) return "private";
  if (/\bprotected\b/.test(head)) return "protected";
  return "public";
}

/** The head text before `name` (modifiers). */
function modifiersBefore(facts: FactsBuilder, at: At, node: SgNode, field = "name"): string {
  const name = node.field(field as never) as SgNode | null;
  return name === null ? "" : facts.text.slice(at.start, name.range().start.index);
}

function typeDeclaration(kind: SymbolKind): Handler {
  return (node, at, facts) => {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    const body = node.field("body" as never) as SgNode | null;
    const heritage: string[] = [];
    for (const child of node.namedChildren()) {
      const childKind = child.kind() as string;
      if (childKind === "base_clause" || childKind === "class_interface_clause") heritage.push(...splitTopLevel(child.text().replace(/^(?:extends|implements)\s+/, "")));
    }
    const local = facts.inCallable();
    const owner = facts.owner();
    declare(facts, {
      name,
      kind,
      visibility: local ? "private" : "public",
      exported: !local && (owner === undefined || owner.exported),
      at,
      headEnd: body?.range().start.index,
      docStyle: DOC,
      heritage,
      role: "container",
    });
    const scope = facts.top()!;
    if (body !== null) members(body, facts, scope, heritage);
    const symbol = scope.symbol!;
    if (heritage.length > 0) symbol.heritage = heritage;
  };
}

function members(body: SgNode, facts: FactsBuilder, owner: Scope, heritage: string[]): void {
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    const at = facts.at(member);
    if (kind === "use_declaration") {
      heritage.push(...splitTopLevel(member.text().replace(/^use\s+/, "").replace(/[;{][\s\S]*$/, "")));
      continue;
    }
    if (kind === "enum_case") {
      const name = (member.field("name" as never) as SgNode | null)?.text();
      if (name !== undefined) {
        declare(facts, { name, kind: "enum_member", visibility: "public", exported: owner.exported, at, signature: collapse(member.text().replace(/;$/, "")), docStyle: DOC });
      }
      continue;
    }
    if (kind === "method_declaration") {
      const name = (member.field("name" as never) as SgNode | null)?.text();
      if (name === undefined) continue;
      const visibility = phpVisibility(modifiersBefore(facts, at, member));
      const body = member.field("body" as never) as SgNode | null;
      declare(facts, {
        name,
        kind: name === "__construct" ? "constructor" : "method",
        visibility,
        exported: owner.exported && visibility !== "private",
        at,
        headEnd: body?.range().start.index,
        ...(body === null ? { signature: collapse(member.text().replace(/;$/, "")) } : {}),
        docStyle: DOC,
        role: body === null ? "value" : "callable",
        later: true,
      });
      if (name === "__construct") promotedProperties(member, facts, owner.exported);
      continue;
    }
    if (kind === "property_declaration" || kind === "const_declaration") {
      const head = facts.text.slice(at.start, at.end);
      const visibility = phpVisibility(head.split(/[$=]/)[0]!);
      for (const element of member.namedChildren()) {
        const elementKind = element.kind() as string;
        if (elementKind !== "property_element" && elementKind !== "const_element") continue;
        const name = /^\$?([\p{L}\p{N}_]+)/u.exec(element.text())?.[1];
        if (name === undefined) continue;
        declare(facts, {
          name,
          kind: kind === "const_declaration" ? "constant" : "property",
          visibility,
          exported: owner.exported && visibility !== "private",
          at,
          signature: collapse(head.replace(/;$/, "")),
          docStyle: DOC,
          role: "value",
          later: true,
        });
      }
    }
  }
}

function promotedProperties(constructor: SgNode, facts: FactsBuilder, exported: boolean): void {
  const parameters = constructor.field("parameters" as never) as SgNode | null;
  for (const parameter of parameters?.namedChildren() ?? []) {
    if (parameter.kind() !== "property_promotion_parameter") continue;
    const text = parameter.text();
    const name = /\$([\p{L}\p{N}_]+)/u.exec(text)?.[1];
    if (name === undefined) continue;
    const visibility = phpVisibility(text);
    declare(facts, { name, kind: "property", visibility, exported: exported && visibility !== "private", at: facts.at(parameter), signature: collapse(text) });
  }
}

const functionDefinition: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const local = facts.inCallable();
  const owner = facts.owner();
  declare(facts, {
    name,
    kind: "function",
    visibility: local ? "private" : "public",
    exported: !local && (owner === undefined || owner.exported),
    at,
    headEnd: (node.field("body" as never) as SgNode | null)?.range().start.index,
    docStyle: DOC,
    role: "callable",
  });
};

/** File-level `const NAME = …;` (class constants are read with their class). */
const constDeclaration: Handler = (node, at, facts) => {
  const owner = facts.owner();
  if (facts.inCallable() || (owner !== undefined && owner.symbol?.kind !== "namespace")) return;
  for (const element of node.namedChildren()) {
    if (element.kind() !== "const_element") continue;
    const name = /^([\p{L}\p{N}_]+)/u.exec(element.text())?.[1];
    if (name !== undefined) {
      declare(facts, {
        name,
        kind: "constant",
        visibility: "public",
        exported: true,
        at,
        signature: collapse(facts.text.slice(at.start, at.end).replace(/;$/, "")),
        docStyle: DOC,
      });
    }
  }
};

/** `namespace A\B;` covers the rest of the file; `namespace A\B { … }` its block. */
const namespaceDefinition: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  const qualifiedName = name.replace(/\\/g, ".");
  declare(facts, {
    name: qualifiedName,
    kind: "namespace",
    visibility: "public",
    exported: true,
    at,
    signature: `namespace ${name}`,
    role: "container",
    scopeEnd: body === null ? facts.text.length : at.end,
  });
};

/** `use A\B;`, `use A\{B, C as D};`, `use function A\f;` */
const useDeclaration: Handler = (_node, at, facts) => {
  const body = facts.text
    .slice(at.start, at.end)
    .replace(/^use\s+(?:function\s+|const\s+)?/, "")
    .replace(/;\s*$/, "")
    .replace(/\s+/g, " ");
  const group = /^([^{]*?)\\?\s*\{([\s\S]*)\}$/.exec(body);
  const items = group ? splitTopLevel(group[2]!).map((item) => `${group[1]!.replace(/\\$/, "")}\\${item.trim()}`) : splitTopLevel(body);
  for (const item of items) {
    const match = /^\\?([\p{L}\p{N}_\\]+?)(?:\s+as\s+([\p{L}\p{N}_]+))?$/u.exec(item.trim());
    if (!match) continue;
    const path = match[1]!;
    const last = path.split("\\").pop()!;
    facts.imports.push({ specifier: path, kind: "use", names: [{ local: match[2] ?? last, imported: last }], line: at.line });
  }
};

/** `require_once __DIR__ . '/x.php'` (relative to the file: "./x.php"), `include 'x.php'`. */
const requireExpression: Handler = (_node, at, facts) => {
  const text = facts.text.slice(at.start, at.end);
  const match = /^(require|include)(?:_once)?\s*\(?\s*(__DIR__\s*\.\s*)?/.exec(text);
  if (!match) return;
  const literal = leadingStringLiteral(text.slice(match[0].length));
  if (literal === undefined) return;
  const specifier = match[2] !== undefined ? `.${literal.startsWith("/") ? "" : "/"}${literal}` : literal;
  facts.imports.push({ specifier, kind: match[1] === "require" ? "require" : "include", names: [], line: at.line });
};

const call: Handler = (node, at, facts) => facts.queueCall(node, at);

const HANDLERS: Record<string, Handler> = {
  namespace_definition: namespaceDefinition,
  class_declaration: typeDeclaration("class"),
  interface_declaration: typeDeclaration("interface"),
  trait_declaration: typeDeclaration("trait"),
  enum_declaration: typeDeclaration("enum"),
  function_definition: functionDefinition,
  const_declaration: constDeclaration,
  namespace_use_declaration: useDeclaration,
  require_expression: requireExpression,
  require_once_expression: requireExpression,
  include_expression: requireExpression,
  include_once_expression: requireExpression,
  function_call_expression: call,
  member_call_expression: call,
  nullsafe_member_call_expression: call,
  scoped_call_expression: call,
  object_creation_expression: newExpression,
};

const CALLS: CallSyntax = {
  openers: "(",
  callee: (node) => (node.field("function" as never) ?? node.field("name" as never)) as SgNode | null,
};

export const phpExtractor = extractorFor(HANDLERS, {
  calls: CALLS,
  callKinds: {
    function_call_expression: null,
    member_call_expression: null,
    nullsafe_member_call_expression: null,
    scoped_call_expression: null,
    object_creation_expression: null,
  },
});
