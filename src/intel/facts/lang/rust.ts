/**
 * Rust: functions, structs (fields), enums (variants), unions, traits (methods, supertraits),
 * `impl` blocks (methods named under their type; `impl Trait for Type` and `#[derive]` add to the
 * type's heritage), modules (`mod x;` is also an import), constants, statics, type aliases and
 * `macro_rules!`. Visibility follows `pub` / `pub(crate)`; `use` trees are expanded (`pub use`
 * re-exports); calls and macro invocations.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, type CommentStyle } from "../text.ts";
import type { SymbolFact, SymbolKind, Visibility } from "../types.ts";
import { bodyStart, declare, extractorFor, FUNCTION_FIELD_CALLS, splitTopLevel, stripTypeArguments } from "./common.ts";

const DOC: CommentStyle = { line: ["///"], block: "doc", skipLine: /^#!?\[/ };

interface ImplData {
  /** Methods in a trait impl (or a trait) are as visible as the trait; no `pub` needed. */
  traitMembersPublic: boolean;
}

interface RustNotes {
  /** Type name → traits it implements (from impl blocks and derives), applied in finish. */
  implemented: Map<string, string[]>;
}

const notes = new WeakMap<FactsBuilder, RustNotes>();

function notesOf(facts: FactsBuilder): RustNotes {
  let found = notes.get(facts);
  if (!found) notes.set(facts, found = { implemented: new Map() });
  return found;
}

/** The `pub…` prefix of an item (it precedes the keyword). */
function visibilityOf(facts: FactsBuilder, at: At): Visibility {
  const head = facts.text.slice(at.start, at.start + 40);
  if (/^pub\s*\(\s*(?:crate|super|in\b|self)/.test(head)) return head.startsWith("pub(self") || head.startsWith("pub (self") ? "private" : "internal";
  return /^pub\b/.test(head) ? "public" : "private";
}

function placement(facts: FactsBuilder, at: At): { visibility: Visibility; exported: boolean } {
  const top = facts.top();
  const implData = top?.data as ImplData | undefined;
  let visibility = visibilityOf(facts, at);
  if (implData?.traitMembersPublic === true && visibility === "private") visibility = "public";
  if (facts.inCallable()) return { visibility: "private", exported: false };
  const ownerExported = facts.owner()?.exported ?? true;
  return { visibility, exported: visibility === "public" && ownerExported };
}

/** `#[derive(Debug, Clone)]` lines right above an item. */
function derivesAbove(text: string, start: number): string[] {
  const names: string[] = [];
  let cursor = text.lastIndexOf("\n", start - 1);
  while (cursor > 0) {
    const previous = text.lastIndexOf("\n", cursor - 1);
    const line = text.slice(previous + 1, cursor).trim();
    if (!line.startsWith("#[")) break;
    const derive = /^#\[derive\(([^)]*)\)\]/.exec(line);
    if (derive) names.push(...splitTopLevel(derive[1]!).map((name) => name.split("::").pop()!.trim()));
    cursor = previous;
  }
  return names;
}

function item(kind: SymbolKind, role: "callable" | "container" | "value"): Handler {
  return (node, at, facts) => {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    let symbolKind = kind;
    if (kind === "function" && facts.top()?.role === "container" && facts.top()?.data !== undefined) symbolKind = "method";
    let body = kind === "constant" || kind === "type" || kind === "macro" ? undefined : bodyStart(node);
    if (kind === "macro") {
      const brace = facts.text.slice(at.start, at.end).search(/[{([]/);
      if (brace !== -1) body = at.start + brace;
    }
    const heritage: string[] = [];
    if (kind === "struct" || kind === "enum" || kind === "union") heritage.push(...derivesAbove(facts.text, at.start));
    if (kind === "trait") {
      const bounds = (node.field("bounds" as never) as SgNode | null)?.text();
      if (bounds !== undefined) {
        heritage.push(...bounds.replace(/^:/, "").split("+").map((bound) => stripTypeArguments(bound.trim())).filter((bound) => bound.length > 0 && !bound.startsWith("'")));
      }
    }
    const symbol = declare(facts, {
      name,
      kind: symbolKind,
      ...placement(facts, at),
      at,
      headEnd: body,
      ...(body === undefined ? { signature: collapse(facts.text.slice(at.start, at.end).replace(/;\s*$/, "")) } : {}),
      docStyle: DOC,
      heritage,
      role,
      ...(kind === "trait" ? { scopeData: { traitMembersPublic: visibilityOf(facts, at) === "public" } satisfies ImplData } : {}),
    });
    if (kind === "struct" || kind === "union") members(node, facts, symbol, "field");
    else if (kind === "enum") members(node, facts, symbol, "enum_member");
  };
}

/** A struct's named fields (a braced field list) or an enum's variants, under their type. */
function members(node: SgNode, facts: FactsBuilder, owner: SymbolFact, kind: "field" | "enum_member"): void {
  const body = node.field("body" as never) as SgNode | null;
  if (body === null || (kind === "field" && body.kind() !== "field_declaration_list")) return;
  const memberKind = kind === "field" ? "field_declaration" : "enum_variant";
  facts.withScope(facts.scopeOf(owner), () => {
    for (const member of body.namedChildren()) {
      if (member.kind() !== memberKind) continue;
      const name = (member.field("name" as never) as SgNode | null)?.text();
      if (name === undefined) continue;
      const at = facts.at(member);
      const visibility = kind === "field" ? visibilityOf(facts, at) : "public";
      declare(facts, { name, kind, visibility, exported: owner.exported && visibility === "public", at, signature: collapse(member.text()), docStyle: DOC });
    }
  });
}

/** `impl [Trait for] Type { … }`: a scope naming methods `Type.method`. */
const implItem: Handler = (node, at, facts) => {
  const type = (node.field("type" as never) as SgNode | null)?.text();
  if (type === undefined) return;
  const typeName = stripTypeArguments(type).split("::").pop()!.replace(/^&\s*(?:mut\s+)?/, "").trim();
  const traitText = (node.field("trait" as never) as SgNode | null)?.text();
  if (traitText !== undefined) {
    const trait = stripTypeArguments(traitText);
    const implemented = notesOf(facts).implemented;
    implemented.set(typeName, [...(implemented.get(typeName) ?? []), trait]);
  }
  const scope: Scope = {
    start: at.start,
    end: at.end,
    role: "container",
    qualifiedName: typeName,
    exported: true,
    data: { traitMembersPublic: traitText !== undefined } satisfies ImplData,
  };
  facts.pushScope(scope);
};

/** `mod x;` names a file (an import); `mod x { … }` is a module of its own. */
const modItem: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = bodyStart(node);
  if (body === undefined) facts.imports.push({ specifier: name, kind: "mod", names: [], line: at.line });
  declare(facts, {
    name,
    kind: "module",
    ...placement(facts, at),
    at,
    headEnd: body,
    ...(body === undefined ? { signature: collapse(facts.text.slice(at.start, at.end).replace(/;\s*$/, "")) } : {}),
    docStyle: DOC,
    role: "container",
  });
};

/** `use a::{b, c::d as e, self}` → one import per path; `pub use` also re-exports. */
const useDeclaration: Handler = (node, at, facts) => {
  const argument = node.field("argument" as never) as SgNode | null;
  if (argument === null) return;
  const isPublic = visibilityOf(facts, at) === "public" && !facts.inCallable();
  const tree = argument.text().replace(/\s+/g, " ").replace(/\s*(::|\{|\}|,)\s*/g, "$1").trim();
  for (const { path, local } of expandUse(tree)) {
    const glob = path.endsWith("::*") || path === "*";
    const specifier = glob ? path.slice(0, -3) : path;
    const segments = specifier.split("::");
    const imported = glob ? "*" : segments[segments.length - 1]!;
    facts.imports.push({ specifier, kind: "use", names: [{ local: glob ? "*" : local, imported }], line: at.line });
    // A re-exported item comes from the module its path names before it.
    if (isPublic) facts.addExportedName(glob ? "*" : local, at.line, glob ? specifier : segments.slice(0, -1).join("::") || specifier, imported);
  }
};

/** Expands a use tree into paths with the local name each binds. */
function expandUse(tree: string, prefix = ""): Array<{ path: string; local: string }> {
  const join = (a: string, b: string) => (a.length === 0 ? b : `${a}::${b}`);
  const open = tree.indexOf("{");
  if (open === -1) {
    const aliased = /^(.*?) as ([\p{L}\p{N}_]+)$/u.exec(tree.trim());
    const path = (aliased ? aliased[1]! : tree).replace(/::$/, "");
    if (path === "self") return [{ path: prefix, local: prefix.split("::").pop() ?? prefix }];
    const full = join(prefix, path);
    return [{ path: full, local: aliased ? aliased[2]! : (full.split("::").pop() ?? full) }];
  }
  const head = tree.slice(0, open).replace(/::$/, "");
  const inner = tree.slice(open + 1, tree.lastIndexOf("}"));
  return splitTopLevel(inner).flatMap((part) => expandUse(part, join(prefix, head)));
}

const macroInvocation: Handler = (node, at, facts) => {
  const name = (node.field("macro" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  facts.addCall(`${name}!`, at.line, at.column, name.split("::").pop());
};

const HANDLERS: Record<string, Handler> = {
  function_item: item("function", "callable"),
  function_signature_item: item("function", "value"),
  struct_item: item("struct", "container"),
  enum_item: item("enum", "container"),
  union_item: item("union", "container"),
  trait_item: item("trait", "container"),
  const_item: item("constant", "value"),
  static_item: item("variable", "value"),
  type_item: item("type", "value"),
  macro_definition: item("macro", "value"),
  impl_item: implItem,
  mod_item: modItem,
  use_declaration: useDeclaration,
  call_expression: (node, at, facts) => facts.queueCall(node, at),
  macro_invocation: macroInvocation,
};

/** Trait impls and derives become heritage of the types declared here; methods of private types leave the surface. */
function finish(facts: FactsBuilder): void {
  const byName = new Map<string, SymbolFact>();
  for (const symbol of facts.symbols) if (!byName.has(symbol.qualifiedName)) byName.set(symbol.qualifiedName, symbol);
  for (const [type, traits] of notesOf(facts).implemented) {
    const symbol = byName.get(type);
    if (symbol === undefined) continue;
    symbol.heritage = [...new Set([...(symbol.heritage ?? []), ...traits])];
  }
  for (const symbol of facts.symbols) {
    if (symbol.parent === undefined || !symbol.exported) continue;
    const parent = byName.get(symbol.parent);
    if (parent !== undefined && !parent.exported) symbol.exported = false;
  }
}

export const rustExtractor = extractorFor(HANDLERS, { calls: FUNCTION_FIELD_CALLS, finish, callKinds: { call_expression: null, macro_invocation: null } });
