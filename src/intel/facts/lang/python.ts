/**
 * Python: classes, functions and methods at any depth (nested ones are `local`), class attributes,
 * module-level assignments (UPPER_CASE names are constants; `x = lambda …` is a function) and
 * `type X = …` aliases; docstrings; `_name` is private by convention and `__all__`, when present,
 * is the module's surface; `import` / `from … import` (relative dots kept) anywhere; calls.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, FactsBuilder, Handler, ScopeRole } from "../engine.ts";
import { collapse, dedentDoc, docAbove, firstSentence, stringLiteralAt, unquote } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { bodyStart as bodyStartOf, declare, extractorFor, FUNCTION_FIELD_CALLS, spanAt, splitTopLevel, stripTypeArguments } from "./common.ts";

const LINE_DOC = { line: ["#"] } as const;

function pythonVisibility(name: string): Visibility {
  if (name.startsWith("__") && name.endsWith("__")) return "public";
  return name.startsWith("_") ? "private" : "public";
}

function docstring(facts: FactsBuilder, bodyStart: number | undefined): string | undefined {
  if (bodyStart === undefined) return undefined;
  const literal = stringLiteralAt(facts.text, bodyStart);
  return literal === undefined ? undefined : firstSentence(dedentDoc(literal));
}

/** The decorated_definition around a definition, which starts at its first decorator. */
function withDecorators(facts: FactsBuilder, at: At): At {
  const wrapper = facts.wrapperOf(at, "decorated");
  return wrapper === undefined ? at : spanAt({ ...at, start: wrapper.start, line: facts.lineOf(wrapper.start) }, at);
}

/** A def or class: its lines start at its first decorator, its doc is the docstring (else the comments above). */
function definition(facts: FactsBuilder, name: string, kind: SymbolKind, at: At, symbolAt: At, bodyStart: number | undefined, role: ScopeRole, heritage?: string[]): void {
  const local = facts.inCallable();
  const top = facts.top();
  const visibility: Visibility = local ? "private" : pythonVisibility(name);
  declare(facts, {
    name,
    kind,
    visibility,
    exported: !local && visibility === "public" && (top?.role === "container" ? top.exported : true),
    at: symbolAt,
    headStart: at.start,
    headEnd: bodyStart,
    doc: docstring(facts, bodyStart) ?? docAbove(facts.text, symbolAt.start, LINE_DOC),
    heritage,
    role,
  });
}

const functionDefinition: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const symbolAt = withDecorators(facts, at);
  const inClass = facts.top()?.role === "container";
  let kind: SymbolKind = inClass ? "method" : "function";
  if (inClass && name === "__init__") kind = "constructor";
  else if (inClass && /^@(?:property|[\w.]+\.(?:setter|getter|deleter)|(?:functools\.)?cached_property)\b/m.test(facts.text.slice(symbolAt.start, at.start))) kind = "property";
  definition(facts, name, kind, at, symbolAt, bodyStartOf(node), "callable");
};

const classDefinition: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  const superclasses = (node.field("superclasses" as never) as SgNode | null)?.text();
  const heritage = superclasses === undefined ?
    [] :
    splitTopLevel(superclasses.replace(/^\(/, "").replace(/\)$/, "")).filter((item) => !/^\*|=/.test(item)).map(stripTypeArguments);
  definition(facts, name, "class", at, withDecorators(facts, at), body?.range().start.index, "container", heritage);
  if (body !== null) statements(facts, body, "class");
};

/** Assignments directly in a module or class body (read from the statement list, not searched for). */
function statements(facts: FactsBuilder, body: SgNode, level: "module" | "class"): void {
  const owner = facts.top();
  for (const statement of body.namedChildren()) {
    const kind = statement.kind() as string;
    if (kind === "type_alias_statement") {
      const at = facts.at(statement);
      const left = (statement.field("left" as never) as SgNode | null)?.text() ?? "";
      const name = /^[\p{L}\p{N}_]+/u.exec(left)?.[0];
      if (name !== undefined) {
        declare(facts, {
          name,
          kind: "type",
          visibility: pythonVisibility(name),
          exported: pythonVisibility(name) === "public",
          at,
          signature: collapse(statement.text()),
          docStyle: LINE_DOC,
        });
      }
      continue;
    }
    if (kind !== "expression_statement") continue;
    const assignment = statement.namedChildren()[0];
    if (assignment === undefined || assignment.kind() !== "assignment") continue;
    const at = facts.at(statement);
    const left = (assignment.field("left" as never) as SgNode | null)?.text() ?? "";
    const right = assignment.field("right" as never) as SgNode | null;
    if (level === "module" && left === "__all__") {
      if (right !== null) {
        for (const item of splitTopLevel(right.text().replace(/^[[(]/, "").replace(/[\])]$/, ""))) if (/^["']/.test(item)) facts.addExportedName(unquote(item), at.line);
      }
      continue;
    }
    const names = left.split(",").map((part) => part.trim()).filter((part) => /^[\p{L}_][\p{L}\p{N}_]*$/u.test(part));
    const rightKind = right?.kind() as string | undefined;
    const typeAnnotation = (assignment.field("type" as never) as SgNode | null)?.text();
    for (const name of names) {
      const visibility = pythonVisibility(name);
      let symbolKind: SymbolKind;
      if (rightKind === "lambda") symbolKind = level === "class" ? "method" : "function";
      else if (typeAnnotation === "TypeAlias") symbolKind = "type";
      else if (level === "class") symbolKind = "field";
      else symbolKind = /^[A-Z][A-Z0-9_]*$/.test(name) ? "constant" : "variable";
      const newline = facts.text.indexOf("\n", at.start);
      const lineEnd = newline === -1 || newline > at.end ? at.end : newline;
      const signature = rightKind === "lambda" ?
        facts.text.slice(at.start, (right!.field("body" as never) as SgNode | null)?.range().start.index ?? lineEnd) :
        facts.text.slice(at.start, lineEnd) + (lineEnd < at.end ? " …" : "");
      declare(facts, {
        name,
        kind: symbolKind,
        visibility,
        exported: visibility === "public" && (level === "class" ? owner?.exported === true : true),
        at,
        signature: collapse(signature),
        docStyle: LINE_DOC,
        role: rightKind === "lambda" ? "callable" : "value",
        later: true,
      });
    }
  }
}

/** `import a.b as c, d` */
const importStatement: Handler = (_node, at, facts) => {
  const body = facts.text.slice(at.start, at.end).replace(/#[^\n]*/g, "").replace(/^import\s+/, "");
  for (const part of splitTopLevel(body.replace(/[()\\]/g, " "))) {
    const match = /^([\w.]+)(?:\s+as\s+(\w+))?$/u.exec(part.trim());
    if (!match) continue;
    const module = match[1]!;
    facts.imports.push({ specifier: module, kind: "import", names: [{ local: match[2] ?? module.split(".")[0]!, imported: module }], line: at.line });
  }
};

/** `from .mod import a as b, c` / `from x import *` (relative dots stay in the specifier). */
const importFromStatement: Handler = (_node, at, facts) => {
  const statement = facts.text.slice(at.start, at.end).replace(/#[^\n]*/g, "");
  const match = /^from\s+([.\w]+(?:\s*\.\s*\w+)*)\s+import\s+([\s\S]*)$/u.exec(statement.trim());
  if (!match) return;
  const specifier = match[1]!.replace(/\s+/g, "");
  const names: Array<{ local: string; imported: string }> = [];
  for (const part of splitTopLevel(match[2]!.replace(/[()\\]/g, " "))) {
    const item = /^(\*|\w+)(?:\s+as\s+(\w+))?$/u.exec(part.trim());
    if (item) names.push({ local: item[2] ?? item[1]!, imported: item[1]! });
  }
  facts.imports.push({ specifier, kind: "import", names, line: at.line });
};

// ---------------------------------------------------------------- value types (call resolution)

// Read from the statement's text, not its nodes: assignments are frequent, and each node read crosses into napi.
const NAME = "[\\p{L}_][\\p{L}\\p{N}_]*";
const CHAIN = `${NAME}(?:\\.${NAME})*`;
/** `x = `, `x: Foo = `, `self.f = `, `x: Foo` (the annotation in group 2). */
const ASSIGNED = new RegExp(`^(self\\.${NAME}|${NAME})\\s*(?::\\s*([^=]+?)\\s*)?(?:=(?!=)\\s*|$)`, "u");
const CALLED = new RegExp(`^(${CHAIN})\\s*\\(`, "u");
const VALUE = new RegExp(`^${CHAIN}$`, "u");

/**
 * `x: Foo = …`, `x = Foo(…)` and `x = y` in a body or at module level, `self.f = Foo(…)` in a
 * method (bound to the class): what the value's type is, when the statement says it.
 */
const assignment: Handler = (_node, at, facts) => {
  const text = facts.text.slice(at.start, at.end);
  const assigned = ASSIGNED.exec(text);
  if (!assigned) return;
  const name = assigned[1]!;
  const caller = facts.inCallable() ? facts.callerName() : undefined;
  let scope = caller;
  if (name.startsWith("self.")) {
    if (caller === undefined || !caller.includes(".")) return;
    scope = caller.slice(0, caller.lastIndexOf("."));
  } else {
    // Class bodies are read by `statements`; only functions and the module bind values here.
    const top = facts.top();
    if (caller === undefined && (top?.role === "container" || top?.symbol?.parent !== undefined)) return;
  }
  if (assigned[2] !== undefined) {
    facts.bind(name, assigned[2], at.line, "type", scope);
    return;
  }
  const right = text.slice(assigned[0].length).trim();
  if (VALUE.test(right)) {
    facts.bind(name, right, at.line, "value", scope);
    return;
  }
  const called = CALLED.exec(right);
  // The call must be the whole value: `Foo(x)`, not `Foo(x).bar()`.
  if (called && right.endsWith(")") && !/\)\s*[.([]/.test(right.slice(called[0].length))) facts.bind(name, called[1]!, at.line, "call", scope);
};

const HANDLERS: Record<string, Handler> = {
  assignment,
  module: (node, _at, facts) => statements(facts, node, "module"),
  decorated_definition: (_node, at, facts) => facts.wrap(at, "decorated"),
  function_definition: functionDefinition,
  class_definition: classDefinition,
  import_statement: importStatement,
  import_from_statement: importFromStatement,
  call: (node, at, facts) => facts.queueCall(node, at),
};

/** `__all__` decides the surface when present: listed names are exported, all others are not. */
function applyAll(facts: FactsBuilder): void {
  if (facts.exportedNames.length === 0) return;
  const listed = new Set(facts.exportedNames.map((entry) => entry.name));
  const exportedParents = new Set<string>();
  for (const symbol of facts.symbols) {
    if (symbol.parent === undefined) {
      symbol.exported = !symbol.local && listed.has(symbol.name);
      if (symbol.exported) {
        symbol.visibility = "public";
        exportedParents.add(symbol.qualifiedName);
      }
    } else {
      symbol.exported = exportedParents.has(symbol.parent) && symbol.visibility === "public" && !symbol.local;
      if (symbol.exported) exportedParents.add(symbol.qualifiedName);
    }
  }
}

// Bindings serve calls: a pass without calls skips their nodes.
export const pythonExtractor = extractorFor(HANDLERS, { calls: FUNCTION_FIELD_CALLS, finish: applyAll, callKinds: { call: null, assignment: null } });
