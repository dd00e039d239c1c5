/**
 * Haskell: top-level functions and values (a type signature and the equations that follow it form
 * one symbol), data types (constructors, record fields, `deriving` as heritage), newtypes, type
 * synonyms, type classes (method signatures) and instances (methods named under the instance
 * type, the class added to its heritage). The module's export list decides `exported`;
 * `-- |` Haddock comments are docs; imports (qualified, aliased, with import lists); function
 * applications are the calls (type-level applications are not).
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle, commentAbove, firstSentence } from "../text.ts";
import type { SymbolFact, SymbolKind } from "../types.ts";
import { declare, extractorFor, spanAt, splitTopLevel } from "./common.ts";

const DOC: CommentStyle = { line: ["--"] };
const DECLARATION_KINDS = new Set(["signature", "bind", "function"]);
const TYPE_LEVEL = new Set(["signature", "data_type", "newtype", "type_synomym", "type_family", "class", "type_instance", "deriving_instance", "kind_signature", "foreign_import"]);

interface HaskellNotes {
  instances: Map<string, string[]>;
  /** Names in the export list (`T (..)` exports T's constructors and fields too); undefined without a list. */
  exports: Set<string> | undefined;
  exportAll: Set<string>;
}

const notes = new WeakMap<FactsBuilder, HaskellNotes>();

function notesOf(facts: FactsBuilder): HaskellNotes {
  let found = notes.get(facts);
  if (!found) notes.set(facts, found = { instances: new Map(), exports: undefined, exportAll: new Set() });
  return found;
}

/** Doc from a `-- |` Haddock block right above (plain `--` comments are not docs). */
function haddock(facts: FactsBuilder, start: number): string | undefined {
  const raw = commentAbove(facts.text, start, DOC);
  if (raw === undefined || !/^--\s*\|/.test(raw)) return undefined;
  return firstSentence(raw.split("\n").map((line) => line.replace(/^--\s*\|?\s?/, "")).join("\n"));
}

function exportedName(facts: FactsBuilder, name: string, parent?: string): boolean {
  const { exports, exportAll } = notesOf(facts);
  if (exports === undefined) return true;
  return exports.has(name) || (parent !== undefined && exportAll.has(parent));
}

function header(node: SgNode, facts: FactsBuilder): void {
  const exportsNode = node.field("exports" as never) as SgNode | null;
  if (exportsNode === null) return;
  const state = notesOf(facts);
  state.exports = new Set();
  for (const item of splitTopLevel(exportsNode.text().replace(/^\(/, "").replace(/\)$/, ""))) {
    const match = /^(?:module\s+|type\s+|pattern\s+)?([\p{L}\p{N}_'.]+|\([^)]*\))\s*(\((.*)\))?$/su.exec(item.trim());
    if (!match) continue;
    const name = match[1]!;
    state.exports.add(name);
    if (match[3] !== undefined) {
      if (match[3].trim() === "..") state.exportAll.add(name);
      else for (const member of splitTopLevel(match[3])) state.exports.add(member.trim());
    }
    facts.addExportedName(name, facts.lineOf(exportsNode.range().start.index + exportsNode.text().indexOf(item)));
  }
}

function importDeclaration(node: SgNode, facts: FactsBuilder): void {
  const at = facts.at(node);
  const module = (node.field("module" as never) as SgNode | null)?.text();
  if (module === undefined) return;
  const alias = (node.field("alias" as never) as SgNode | null)?.text();
  const list = node.field("names" as never) as SgNode | null;
  const hiding = /\bhiding\b/.test(facts.text.slice(at.start, at.end));
  const names: Array<{ local: string; imported: string }> = [];
  if (list !== null && !hiding) {
    for (const item of splitTopLevel(list.text().replace(/^\(/, "").replace(/\)$/, ""))) {
      const name = item.replace(/\(.*\)$/s, "").trim();
      if (name.length > 0) names.push({ local: alias === undefined ? name : `${alias}.${name}`, imported: name });
    }
  } else names.push({ local: alias ?? "*", imported: "*" });
  facts.imports.push({ specifier: module, kind: "import", names, line: at.line });
}

/** Marks a type-level node so applications inside it are not taken for calls. */
function typeLevel(facts: FactsBuilder, at: At): void {
  facts.schedule({ start: at.start, end: at.end, role: "value", exported: false, data: { types: true } });
}

function declarations(node: SgNode, facts: FactsBuilder): void {
  const children = node.namedChildren();
  for (let index = 0; index < children.length; index++) {
    const child = children[index]!;
    const kind = child.kind() as string;
    const at = facts.at(child);
    if (TYPE_LEVEL.has(kind)) typeLevel(facts, at);
    if (DECLARATION_KINDS.has(kind)) {
      const name = (child.field("name" as never) as SgNode | null)?.text();
      if (name === undefined) continue;
      // The signature and every following equation of the same name are one symbol.
      let last = at;
      let signature = kind === "signature" ? collapse(facts.text.slice(at.start, at.end)) : undefined;
      let hasArguments = kind === "function" || (signature?.includes("->") ?? false);
      while (index + 1 < children.length) {
        const next = children[index + 1]!;
        const nextKind = next.kind() as string;
        if (!DECLARATION_KINDS.has(nextKind) || nextKind === "signature" || (next.field("name" as never) as SgNode | null)?.text() !== name) break;
        last = facts.at(next);
        if (nextKind === "function") hasArguments = true;
        index++;
      }
      signature ??= collapse(facts.text.slice(at.start, at.end).split("=")[0]!);
      const exported = exportedName(facts, name);
      declare(facts, {
        name,
        kind: hasArguments ? "function" : "constant",
        visibility: exported ? "public" : "private",
        exported,
        at: spanAt(at, last),
        signature,
        doc: haddock(facts, at.start),
        role: "callable",
        scopeStart: kind === "signature" ? last.start : at.start,
        later: true,
      });
      continue;
    }
    if (kind === "data_type" || kind === "newtype") dataType(child, at, facts, kind);
    else if (kind === "type_synomym") {
      const name = (child.field("name" as never) as SgNode | null)?.text();
      if (name !== undefined) symbolFor(facts, name, "type", at, collapse(facts.text.slice(at.start, at.end)));
    } else if (kind === "class") typeClass(child, at, facts);
    else if (kind === "instance") instance(child, facts);
  }
}

function symbolFor(facts: FactsBuilder, name: string, kind: SymbolKind, at: At, signature: string, parent?: string, heritage?: string[]): SymbolFact {
  const exported = exportedName(facts, name, parent);
  return declare(facts, { name, kind, visibility: exported ? "public" : "private", exported, at, signature, doc: haddock(facts, at.start), heritage });
}

function dataType(node: SgNode, at: At, facts: FactsBuilder, kind: string): void {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const deriving = (node.field("deriving" as never) as SgNode | null)?.text();
  const heritage = deriving === undefined ?
    [] :
    splitTopLevel(deriving.replace(/^deriving\s*(?:stock|anyclass|newtype)?\s*/, "").replace(/^\(/, "").replace(/\)$/, "")).map((item) => item.trim());
  const constructorsNode = (node.field(kind === "newtype" ? "constructor" : "constructors") as unknown as SgNode | null) ?? null;
  const constructors = constructorsNode === null ? [] : kind === "newtype" ? [constructorsNode] : constructorsNode.namedChildren();
  const records = constructors.filter((constructor) => /\{/.test(constructor.text()));
  const symbolKind: SymbolKind = records.length > 0 ?
    "struct" :
    kind === "data_type" && constructors.length > 0 && constructors.every((constructor) => !/\s/.test(constructor.text().trim())) ?
    "enum" :
    "type";
  const head = facts.text.slice(at.start, constructorsNode?.range().start.index ?? at.end).replace(/=\s*$/, "");
  const symbol = symbolFor(facts, name, symbolKind, at, collapse(head), undefined, heritage);
  facts.withScope(facts.scopeOf(symbol), () => {
    for (const constructor of constructors) {
      const text = constructor.text().trim();
      const constructorName = /^[\p{Lu}][\p{L}\p{N}_']*/u.exec(text)?.[0];
      if (constructorName === undefined) continue;
      const constructorAt = facts.at(constructor);
      if (constructorName !== name || symbolKind === "enum") symbolFor(facts, constructorName, "enum_member", constructorAt, collapse(text.split("{")[0]!), name);
      const fields = /\{([\s\S]*)\}/.exec(text)?.[1];
      if (fields === undefined) continue;
      for (const field of splitTopLevel(fields)) {
        const fieldName = /^([\p{Ll}_][\p{L}\p{N}_']*)\s*::/u.exec(field.trim())?.[1];
        if (fieldName !== undefined) symbolFor(facts, fieldName, "field", constructorAt, collapse(field), name);
      }
    }
  });
}

function typeClass(node: SgNode, at: At, facts: FactsBuilder): void {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("declarations" as never) as SgNode | null;
  const symbol = symbolFor(facts, name, "trait", at, collapse(facts.text.slice(at.start, body?.range().start.index ?? at.end).replace(/\bwhere\s*$/, "")));
  facts.withScope(facts.scopeOf(symbol), () => {
    for (const member of body?.namedChildren() ?? []) {
      if (member.kind() !== "signature") continue;
      const memberName = (member.field("name" as never) as SgNode | null)?.text();
      const memberAt = facts.at(member);
      if (memberName !== undefined) symbolFor(facts, memberName, "method", memberAt, collapse(member.text()), name);
    }
  });
}

/** `instance C T where …`: methods named `T.method`; C joins T's heritage. */
function instance(node: SgNode, facts: FactsBuilder): void {
  const className = (node.field("name" as never) as SgNode | null)?.text();
  const type = (node.field("patterns" as never) as SgNode | null)?.text().replace(/^\(|\)$/g, "").split(/\s+/)[0];
  if (className === undefined || type === undefined) return;
  const instances = notesOf(facts).instances;
  instances.set(type, [...(instances.get(type) ?? []), className]);
  const body = node.field("declarations" as never) as SgNode | null;
  facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: type, exported: true }, () => {
    const seen = new Set<string>();
    for (const member of body?.namedChildren() ?? []) {
      const memberName = (member.field("name" as never) as SgNode | null)?.text();
      if (memberName === undefined || seen.has(memberName) || !DECLARATION_KINDS.has(member.kind() as string)) continue;
      seen.add(memberName);
      const memberAt = facts.at(member);
      declare(facts, {
        name: memberName,
        kind: "method",
        visibility: "public",
        exported: exportedName(facts, type) || exportedName(facts, className),
        at: memberAt,
        signature: collapse(member.text().split("=")[0]!),
        role: "callable",
        later: true,
      });
    }
  });
}

function root(node: SgNode, facts: FactsBuilder): void {
  for (const child of node.namedChildren()) {
    const kind = child.kind() as string;
    if (kind === "header") header(child, facts);
    else if (kind === "imports") {
      for (const item of child.namedChildren()) if (item.kind() === "import") importDeclaration(item, facts);
    } else if (kind === "declarations") declarations(child, facts);
  }
}

/** `f x y` nests as apply(apply(f, x), y): the outermost application at a position is the call. */
const apply: Handler = (_node, at, facts) => {
  if (facts.marks.has(at.start) || (facts.top()?.data as { types?: boolean } | undefined)?.types === true) return;
  facts.marks.add(at.start);
  const callee = /^[\p{L}_][\p{L}\p{N}_'.]*/u.exec(facts.text.slice(at.start, at.start + 120))?.[0];
  if (callee !== undefined) facts.addCall(callee.replace(/\.$/, ""), at.line, at.column);
};

function finish(facts: FactsBuilder): void {
  const instances = notesOf(facts).instances;
  for (const symbol of facts.symbols) {
    const classes = symbol.parent === undefined ? instances.get(symbol.name) : undefined;
    if (classes !== undefined) symbol.heritage = [...new Set([...(symbol.heritage ?? []), ...classes])];
  }
}

const HANDLERS: Record<string, Handler> = {
  haskell: (node, _at, facts) => root(node, facts),
  apply,
};

export const haskellExtractor = extractorFor(HANDLERS, { finish, callKinds: { apply: null } });
