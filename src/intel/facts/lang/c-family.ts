/**
 * C and C++: file-level declarations are read from the translation unit (descending into
 * namespaces, `extern "C"` blocks, templates and preprocessor conditionals): functions and
 * prototypes, structs/unions/classes with their members (C++ access sections), enums with
 * enumerators, typedefs and `using` aliases, variables, `#define` constants and macros.
 * Out-of-class definitions (`Type::method`) are named under their type. `static` at file level is
 * file visibility. `#include` is the import; calls and `new` complete it.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, LanguageExtractor } from "../engine.ts";
import { collapse, type CommentStyle, headText } from "../text.ts";
import type { SymbolFact, SymbolKind, Visibility } from "../types.ts";
import { declare, kinds, splitTopLevel, stripTypeArguments } from "./common.ts";

const DOC: CommentStyle = { block: "any", line: ["///", "//!", "//"] };
const TRANSPARENT = new Set([
  "linkage_specification",
  "preproc_if",
  "preproc_ifdef",
  "preproc_else",
  "preproc_elif",
  "preproc_elifdef",
  "declaration_list",
  "template_declaration",
]);
const TYPE_SPECIFIERS: Readonly<Record<string, SymbolKind>> = { struct_specifier: "struct", union_specifier: "union", class_specifier: "class", enum_specifier: "enum" };

interface Context {
  /** Visibility of members without an access section (class: private, struct: public), or of file-level names. */
  visibility: Visibility;
  exported: boolean;
}

/** The declared name in a declarator: `*name[4]`, `(*fn)(int)`, `Type::method(…)`, `operator==(…)`. */
function declaratorName(text: string): string | undefined {
  const paren = topLevelParen(text);
  const head = paren === -1 ? text : text.slice(0, paren);
  const operator = /(?:[\p{L}\p{N}_]+::)*operator\s*(?:\(\)|[^\s(]+)\s*$/u.exec(head);
  if (operator) return operator[0].replace(/\s+/g, "");
  const pointerToFunction = /^\(\s*[*&^]+\s*([\p{L}_][\p{L}\p{N}_]*)\s*\)/u.exec(text.trim());
  if (pointerToFunction) return pointerToFunction[1];
  const match = /((?:[\p{L}_][\p{L}\p{N}_]*(?:<[^<>]*>)?::)*~?[\p{L}_][\p{L}\p{N}_]*)\s*(?:\[[^\]]*\]\s*)*(?::\s*\d+\s*)?(?:=[\s\S]*)?$/u.exec(head.trim());
  return match ? match[1] : undefined;
}

/** Index of the first `(` outside template brackets, or -1. */
function topLevelParen(text: string): number {
  let angle = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "<") angle++;
    else if (char === ">") angle = Math.max(0, angle - 1);
    else if (char === "(" && angle === 0) {
      // `(*name)` is a declarator in parentheses, not a parameter list.
      if (/^\(\s*[*&^]/.test(text.slice(index))) continue;
      return index;
    }
  }
  return -1;
}

function hasStatic(head: string): boolean {
  return /(?:^|\s)static\s/.test(` ${head} `);
}

function walk(container: SgNode, facts: FactsBuilder, context: Context): void {
  for (const child of container.namedChildren()) declaration(child, facts, context);
}

function declaration(node: SgNode, facts: FactsBuilder, context: Context): void {
  const kind = node.kind() as string;
  if (TRANSPARENT.has(kind)) {
    walk(kind === "linkage_specification" ? ((node.field("body" as never) as SgNode | null) ?? node) : node, facts, context);
    return;
  }
  switch (kind) {
    case "preproc_include": {
      const path = (node.field("path" as never) as SgNode | null)?.text();
      if (path !== undefined) facts.imports.push({ specifier: path.replace(/^["<]|[">]$/g, ""), kind: "include", names: [], line: facts.at(node).line });
      return;
    }
    case "preproc_def":
    case "preproc_function_def": {
      const name = (node.field("name" as never) as SgNode | null)?.text();
      if (name === undefined) return;
      const at = facts.at(node);
      declare(facts, {
        name,
        kind: kind === "preproc_def" ? "constant" : "macro",
        visibility: "public",
        exported: context.exported,
        at,
        signature: collapse(facts.text.slice(at.start, at.end).split("\n")[0]!),
        docStyle: DOC,
      });
      return;
    }
    case "namespace_definition": {
      const name = (node.field("name" as never) as SgNode | null)?.text();
      const at = facts.at(node);
      const body = node.field("body" as never) as SgNode | null;
      if (name === undefined) {
        // An anonymous namespace: its names are file-local.
        if (body !== null) walk(body, facts, { visibility: "file", exported: false });
        return;
      }
      const symbol = declare(facts, {
        name: name.replace(/::/g, "."),
        kind: "namespace",
        visibility: context.visibility,
        exported: context.exported,
        at,
        headEnd: body?.range().start.index,
        docStyle: DOC,
      });
      if (body !== null) facts.withScope(facts.scopeOf(symbol), () => walk(body, facts, context));
      return;
    }
    case "function_definition":
      functionDefinition(node, facts, context);
      return;
    case "declaration":
    case "field_declaration":
      variableOrPrototype(node, facts, context);
      return;
    case "type_definition":
      typeDefinition(node, facts, context);
      return;
    case "alias_declaration": {
      const name = (node.field("name" as never) as SgNode | null)?.text();
      const at = facts.at(node);
      if (name !== undefined) {
        declare(facts, {
          name,
          kind: "type",
          visibility: context.visibility,
          exported: context.exported,
          at,
          signature: collapse(facts.text.slice(at.start, at.end).replace(/;$/, "")),
          docStyle: DOC,
        });
      }
      return;
    }
    default:
      if (Object.hasOwn(TYPE_SPECIFIERS, kind)) typeSpecifier(node, facts, context, undefined);
  }
}

function functionDefinition(node: SgNode, facts: FactsBuilder, context: Context): void {
  const at = facts.at(node);
  const body = node.field("body" as never) as SgNode | null;
  const bodyStart = body?.range().start.index;
  const declarator = node.field("declarator" as never) as SgNode | null;
  const qualified = declarator === null ? undefined : declaratorName(declarator.text());
  if (qualified === undefined) return;
  const head = facts.text.slice(at.start, bodyStart ?? at.end);
  const parts = qualified.split("::");
  const name = parts.pop()!;
  const owner = parts.map((part) => stripTypeArguments(part)).join(".");
  const inClass = facts.top()?.role === "container" && (facts.top()?.data as { isType?: boolean } | undefined)?.isType === true;
  const visibility: Visibility = inClass || owner.length > 0 ? context.visibility : hasStatic(head) ? "file" : context.visibility;
  const kind: SymbolKind = inClass || owner.length > 0 ? (name === parts[parts.length - 1] || name.startsWith("~") ? "constructor" : "method") : "function";
  const record = (): SymbolFact =>
    declare(facts, { name, kind, visibility, exported: context.exported && visibility === "public", at, headEnd: bodyStart, docStyle: DOC, role: "callable", later: true });
  if (owner.length > 0) {
    facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: qualifiedOwner(facts, owner), exported: context.exported }, record);
  } else record();
}

/** `Type::method` inside namespace `ns` belongs to `ns.Type`. */
function qualifiedOwner(facts: FactsBuilder, owner: string): string {
  const enclosing = facts.owner();
  const prefix = enclosing?.qualifiedName ?? enclosing?.symbol?.qualifiedName;
  return prefix === undefined ? owner : `${prefix}.${owner}`;
}

/** A declaration: variables, or function prototypes (members included), plus any type it defines inline. */
function variableOrPrototype(node: SgNode, facts: FactsBuilder, context: Context): void {
  const typeNode = node.field("type" as never) as SgNode | null;
  if (typeNode !== null && Object.hasOwn(TYPE_SPECIFIERS, typeNode.kind() as string) && typeNode.field("body" as never) !== null) {
    typeSpecifier(typeNode, facts, context, undefined);
  }
  const at = facts.at(node);
  const head = facts.text.slice(at.start, at.end);
  const inClass = (facts.top()?.data as { isType?: boolean } | undefined)?.isType === true;
  for (const declarator of node.fieldChildren("declarator" as never)) {
    const text = (declarator as SgNode).text();
    const qualified = declaratorName(text);
    if (qualified === undefined) continue;
    const name = qualified.split("::").pop()!;
    const isFunction = topLevelParen(text.replace(/=[\s\S]*$/, "")) !== -1 && !/^\(\s*[*&^]/.test(text.trim());
    let kind: SymbolKind;
    if (isFunction) kind = inClass ? (name === facts.top()?.symbol?.name || name.startsWith("~") ? "constructor" : "method") : "function";
    else kind = inClass ? "field" : /\b(?:const|constexpr)\b/.test(head.slice(0, head.indexOf(text))) ? "constant" : "variable";
    const visibility: Visibility = !inClass && hasStatic(head) ? "file" : context.visibility;
    declare(facts, {
      name,
      kind,
      visibility,
      exported: context.exported && visibility === "public",
      at,
      signature: collapse(head.replace(/;\s*$/, "")),
      docStyle: DOC,
      ...(isFunction ? {} : { role: "value" as const, later: true }),
    });
  }
}

function typeDefinition(node: SgNode, facts: FactsBuilder, context: Context): void {
  const at = facts.at(node);
  const typeNode = node.field("type" as never) as SgNode | null;
  const names = node.fieldChildren("declarator" as never).map((declarator) => declaratorName((declarator as SgNode).text())).filter((name): name is string => name !== undefined);
  // `typedef struct { … } Name;` names the struct itself.
  if (typeNode !== null && Object.hasOwn(TYPE_SPECIFIERS, typeNode.kind() as string) && typeNode.field("body" as never) !== null) {
    const anonymous = typeNode.field("name" as never) === null;
    typeSpecifier(typeNode, facts, context, anonymous ? names[0] : undefined, anonymous ? at : undefined);
    if (anonymous) names.shift();
  }
  for (const name of names) {
    declare(facts, {
      name,
      kind: "type",
      visibility: context.visibility,
      exported: context.exported,
      at,
      signature: collapse(facts.text.slice(at.start, at.end).replace(/;\s*$/, "").replace(/\{[\s\S]*\}/, "{…}")),
      docStyle: DOC,
    });
  }
}

function typeSpecifier(node: SgNode, facts: FactsBuilder, context: Context, typedefName: string | undefined, typedefAt?: At): void {
  const kind = TYPE_SPECIFIERS[node.kind() as string]!;
  const name = typedefName ?? (node.field("name" as never) as SgNode | null)?.text();
  const body = node.field("body" as never) as SgNode | null;
  if (name === undefined || body === null) return;
  const at = typedefAt ?? facts.at(node);
  const nodeStart = node.range().start.index;
  const heritage: string[] = [];
  const base = node.namedChildren().find((child) => child.kind() === "base_class_clause");
  if (base !== undefined) {
    heritage.push(...splitTopLevel(base.text().replace(/^:/, "")).map((item) => stripTypeArguments(item.replace(/\b(?:public|private|protected|virtual)\b/g, "")).trim()));
  }
  const symbol = declare(facts, {
    name: stripTypeArguments(name),
    kind,
    visibility: context.visibility,
    exported: context.exported,
    at,
    signature: headText(facts.text, typedefAt === undefined ? nodeStart : at.start, body.range().start.index),
    docStyle: DOC,
    heritage,
  });
  facts.withScope({ ...facts.scopeOf(symbol), data: { isType: true } }, () => {
    if (kind === "enum") {
      for (const enumerator of body.namedChildren()) {
        if (enumerator.kind() !== "enumerator") continue;
        const memberName = (enumerator.field("name" as never) as SgNode | null)?.text();
        if (memberName !== undefined) {
          declare(facts, {
            name: memberName,
            kind: "enum_member",
            visibility: "public",
            exported: symbol.exported,
            at: facts.at(enumerator),
            signature: collapse(enumerator.text()),
            docStyle: DOC,
          });
        }
      }
      return;
    }
    members(body, facts, { visibility: kind === "class" ? "private" : "public", exported: symbol.exported });
  });
}

/** A class or struct body: access sections switch the visibility of what follows. */
function members(body: SgNode, facts: FactsBuilder, defaults: Context): void {
  let visibility = defaults.visibility;
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    if (kind === "access_specifier") {
      const label = member.text().trim();
      visibility = label === "public" ? "public" : label === "protected" ? "protected" : "private";
      continue;
    }
    declaration(member, facts, { visibility, exported: defaults.exported && visibility !== "private" });
  }
}

const HANDLERS: Record<string, Handler> = {
  translation_unit: (node, _at, facts) => walk(node, facts, { visibility: "public", exported: true }),
  call_expression: (node, at, facts) => facts.queueCall(node, at),
  new_expression: (node, at, facts) => {
    const skip = /^(?:::\s*)?new\s+/.exec(facts.text.slice(at.start, at.start + 12))?.[0].length;
    if (skip !== undefined) facts.queueCall(node, at, skip);
  },
};

const CALLS: CallSyntax = {
  openers: "(<{",
  callee: (node) => (node.field("function" as never) ?? node.field("type" as never)) as SgNode | null,
};

const extractors = new Map<string, LanguageExtractor>();

/** C has no `new`; C++ does. */
export function cFamilyExtractor(napiLanguage: string): LanguageExtractor {
  let extractor = extractors.get(napiLanguage);
  if (!extractor) {
    const handlerKinds = Object.keys(HANDLERS).filter((kind) => napiLanguage === "cpp" || kind !== "new_expression");
    extractor = { rules: kinds(...handlerKinds), handlers: HANDLERS, calls: CALLS, callKinds: { call_expression: null, new_expression: null } };
    extractors.set(napiLanguage, extractor);
  }
  return extractor;
}
