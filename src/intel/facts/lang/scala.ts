/**
 * Scala (2 and 3): classes (case classes), objects, traits, enums (cases), defs at any depth,
 * `val`/`var`/`type` members of templates and files, constructor `val`s; visibility from
 * modifiers (default public); Scaladoc; imports with selectors and wildcards; calls and `new`.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler, Scope } from "../engine.ts";
import { collapse, type CommentStyle, headText } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor, newExpression, splitTopLevel, stripTypeArguments } from "./common.ts";

const DOC: CommentStyle = { block: "doc" };
const MEMBER_KINDS = new Set(["val_definition", "var_definition", "val_declaration", "var_declaration", "type_definition"]);

function scalaVisibility(head: string): Visibility {
  if (/\bprivate\s*\[/.test(head)) return "package";
  if (/\bprivate\b/.test(head)) return "private";
  if (/\bprotected\b/.test(head)) return "protected";
  return "public";
}

/** The text before the declaration keyword (annotations and modifiers). */
function modifiersOf(facts: FactsBuilder, at: At, keyword: RegExp): string {
  const head = facts.text.slice(at.start, Math.min(at.end, at.start + 300));
  const match = keyword.exec(head);
  return match ? head.slice(0, match.index) : "";
}

function placement(facts: FactsBuilder, modifiers: string): { visibility: Visibility; exported: boolean } {
  if (facts.inCallable()) return { visibility: "private", exported: false };
  const visibility = scalaVisibility(modifiers);
  const owner = facts.owner();
  return { visibility, exported: visibility === "public" && (owner === undefined || owner.exported) };
}

function heritageOf(extendsText: string | undefined): string[] {
  if (extendsText === undefined) return [];
  return extendsText
    .replace(/^extends\s+/, "")
    .split(/\bwith\b|,/)
    .map((part) => stripTypeArguments(part.replace(/\([\s\S]*$/, "")).trim())
    .filter((part) => part.length > 0);
}

function typeDefinition(kind: SymbolKind): Handler {
  return (node, at, facts) => {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    const body = node.field("body" as never) as SgNode | null;
    const bodyStart = body?.range().start.index;
    const modifiers = modifiersOf(facts, at, /\b(?:class|object|trait|enum)\b/);
    const symbol = declare(facts, {
      name,
      kind,
      ...placement(facts, modifiers),
      at,
      signature: headText(facts.text, at.start, bodyStart ?? at.end),
      docStyle: DOC,
      heritage: heritageOf((node.field("extend" as never) as SgNode | null)?.text()),
      role: "container",
    });
    const scope = facts.top()!;
    const parameters = node.field("class_parameters" as never) as SgNode | null;
    if (parameters !== null) classParameters(parameters, facts, symbol.exported, /\bcase\s+class\b/.test(modifiers + facts.text.slice(at.start, at.start + 60)));
    if (body !== null) members(body, facts, scope);
  };
}

/** Constructor parameters declared `val`/`var` (every parameter of a case class) are fields. */
function classParameters(parameters: SgNode, facts: FactsBuilder, exported: boolean, caseClass: boolean): void {
  for (const parameter of parameters.namedChildren()) {
    if (parameter.kind() !== "class_parameter") continue;
    const text = parameter.text();
    if (!caseClass && !/^(?:[\s\S]*\s)?(?:val|var)\s/.test(text)) continue;
    const name = (parameter.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) continue;
    const visibility = scalaVisibility(text.split(/\b(?:val|var)\b/)[0]!);
    declare(facts, { name, kind: "field", visibility, exported: exported && visibility === "public", at: facts.at(parameter), signature: collapse(text) });
  }
}

function members(body: SgNode, facts: FactsBuilder, owner: Scope): void {
  for (const member of body.namedChildren()) {
    const kind = member.kind() as string;
    if (MEMBER_KINDS.has(kind)) valueMember(member, facts);
    else if (kind === "enum_case_definitions") {
      for (const enumCase of member.namedChildren()) {
        const name = (enumCase.field("name" as never) as SgNode | null)?.text();
        if (name !== undefined) {
          declare(facts, {
            name,
            kind: "enum_member",
            visibility: "public",
            exported: owner.exported,
            at: facts.at(enumCase),
            signature: collapse(enumCase.text()),
            docStyle: DOC,
          });
        }
      }
    }
  }
}

function valueMember(node: SgNode, facts: FactsBuilder): void {
  const kind = node.kind() as string;
  const at = facts.at(node);
  const text = facts.text;
  if (kind === "type_definition") {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name !== undefined) {
      declare(facts, { name, kind: "type", ...placement(facts, modifiersOf(facts, at, /\btype\b/)), at, signature: collapse(text.slice(at.start, at.end)), docStyle: DOC });
    }
    return;
  }
  const nameNode = (node.field("pattern" as never) ?? node.field("name" as never)) as SgNode | null;
  if (nameNode === null) return;
  const names = nameNode.text().split(",").map((part) => part.trim()).filter((part) => /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(part));
  const value = node.field("value" as never) as SgNode | null;
  const modifiers = modifiersOf(facts, at, /\b(?:val|var)\b/);
  const newline = text.indexOf("\n", at.start);
  const lineEnd = newline === -1 || newline > at.end ? at.end : newline;
  const signature = collapse(text.slice(at.start, lineEnd) + (lineEnd < at.end ? " …" : ""));
  const symbolKind: SymbolKind = kind.startsWith("val") && (facts.top() === undefined || /^[A-Z]/.test(names[0] ?? "")) ? "constant" : "field";
  for (const name of names) {
    declare(facts, {
      name,
      kind: facts.top() === undefined ? (kind.startsWith("val") ? "constant" : "variable") : symbolKind,
      ...placement(facts, modifiers),
      at,
      signature,
      docStyle: DOC,
      ...(value === null ? {} : { role: "value" as const, later: true }),
    });
  }
}

function functionDefinition(node: SgNode, at: At, facts: FactsBuilder): void {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  let headEnd = body?.range().start.index;
  if (headEnd !== undefined) {
    // `def f(x: Int): Int = x + 1` — the head ends at the `=` before the body.
    const equals = facts.text.lastIndexOf("=", headEnd);
    if (equals > at.start) headEnd = equals;
  }
  const top = facts.top();
  declare(facts, {
    name,
    kind: top?.role === "container" ? (name === "this" ? "constructor" : "method") : "function",
    ...placement(facts, modifiersOf(facts, at, /\bdef\b/)),
    at,
    headEnd,
    docStyle: DOC,
    role: body === null ? "value" : "callable",
  });
}

/** `import a.b.C`, `import a.b.{C, D => E}`, `import a.b._` / `a.b.*` (Scala 3). */
const importDeclaration: Handler = (_node, at, facts) => {
  const body = facts.text.slice(at.start, at.end).replace(/^import\s+/, "").replace(/\s+/g, " ");
  for (const clause of splitTopLevel(body.replace(/\{/g, "(").replace(/\}/g, ")"))) {
    const match = /^([\p{L}\p{N}_$.` ]+?)\s*\.\s*(?:\((.*)\)|(_|\*)|([\p{L}\p{N}_$`]+)(?:\s+as\s+([\p{L}\p{N}_$`]+))?)$/u.exec(clause.trim());
    if (!match) continue;
    const prefix = match[1]!.replace(/\s+/g, "");
    if (match[3] !== undefined) {
      facts.imports.push({ specifier: prefix, kind: "import", names: [{ local: "*", imported: "*" }], line: at.line });
      continue;
    }
    const selectors = match[2] !== undefined ? splitTopLevel(match[2]) : [match[5] === undefined ? match[4]! : `${match[4]!} => ${match[5]}`];
    for (const selector of selectors) {
      const renamed = /^([\p{L}\p{N}_$`]+|_|\*)\s*(?:=>|\bas\b)\s*([\p{L}\p{N}_$`]+|_)$/u.exec(selector.trim());
      const imported = renamed ? renamed[1]! : selector.trim();
      if (imported === "_" || imported === "*") {
        facts.imports.push({ specifier: prefix, kind: "import", names: [{ local: "*", imported: "*" }], line: at.line });
        continue;
      }
      if (renamed?.[2] === "_") continue;
      facts.imports.push({ specifier: `${prefix}.${imported}`, kind: "import", names: [{ local: renamed ? renamed[2]! : imported, imported }], line: at.line });
    }
  }
};

function topLevel(node: SgNode, facts: FactsBuilder): void {
  for (const child of node.namedChildren()) if (MEMBER_KINDS.has(child.kind() as string)) valueMember(child, facts);
}

const HANDLERS: Record<string, Handler> = {
  compilation_unit: (node, _at, facts) => topLevel(node, facts),
  class_definition: typeDefinition("class"),
  object_definition: typeDefinition("class"),
  trait_definition: typeDefinition("trait"),
  enum_definition: typeDefinition("enum"),
  function_definition: (node, at, facts) => functionDefinition(node, at, facts),
  function_declaration: (node, at, facts) => functionDefinition(node, at, facts),
  import_declaration: importDeclaration,
  call_expression: (node, at, facts) => facts.queueCall(node, at),
  instance_expression: newExpression,
};

const CALLS: CallSyntax = {
  openers: "([{",
  callee: (node) => (node.field("function" as never) as SgNode | null) ?? node.namedChildren()[0] ?? null,
};

export const scalaExtractor = extractorFor(HANDLERS, { calls: CALLS, callKinds: { call_expression: null, instance_expression: null } });
