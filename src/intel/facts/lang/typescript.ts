/**
 * TypeScript, TSX and JavaScript (JSX included). Function and class declarations are found at any
 * depth (those inside function bodies are `local`); members are read from their class, interface,
 * enum or object body; module-level variables (including `const x = () => …` and wrapped forms
 * such as `memo(() => …)`, `forwardRef(function …)`) from the module's statement list. Also ES
 * imports and exports (`export default defineComponent({…})` included), CommonJS
 * `require`/`module.exports`, dynamic `import()`, calls, `new`, JSX component uses, and the types of
 * values as written (ts-bindings.ts).
 *
 * The tree-wide search matches only plain kinds: relational rules (`inside`, `has`) cost a walk
 * per candidate node, which on call-dense code made the search slower than parsing.
 *
 * Over 600 lines on purpose: one language family's extraction rules (TypeScript, TSX, JavaScript),
 * read as one table of node kinds.
 */
import type { Rule, SgNode } from "@ast-grep/napi";
import { napi } from "../../../syntax/index.ts";
import type { At, CallSyntax, FactsBuilder, Handler, LanguageExtractor, Scope } from "../engine.ts";
import { collapse, type CommentStyle, docAbove, headText, leadingStringLiteral, unquote } from "../text.ts";
import type { ImportFact, SymbolKind, Visibility } from "../types.ts";
import { bodyStart as bodyStartOf, declare, markExportedByName, newExpression, spanAt, splitTopLevel, typeNames } from "./common.ts";
import { bindScriptValues } from "./ts-bindings.ts";

const DOC: CommentStyle = { block: "doc" };
const FUNCTION_VALUES = new Set(["arrow_function", "function_expression", "function", "generator_function"]);
const VARIABLE_STATEMENTS = new Set(["lexical_declaration", "variable_declaration"]);
const MODULE_LEVEL_PARENTS = new Set(["program", "export_statement", "ambient_declaration"]);
/** Bodies that hold module-level declarations (`namespace`, `declare module`, `declare global`). */
const NAMESPACE_KINDS = new Set(["internal_module", "module", "ambient_declaration"]);
const IDENTIFIER = /^[\p{L}\p{N}_$]+$/u;

const MEMBER_KINDS: Readonly<Record<string, SymbolKind>> = {
  method_definition: "method",
  method_signature: "method",
  abstract_method_signature: "method",
  public_field_definition: "field",
  field_definition: "field",
  property_signature: "property",
};

interface ExportData {
  isDefault: boolean;
}

/** Visibility and surface of a declaration at module, namespace or function level. */
function placement(facts: FactsBuilder, exportedHere: boolean, local: boolean): { visibility: Visibility; exported: boolean } {
  if (local) return { visibility: "private", exported: false };
  const owner = facts.owner();
  if (owner === undefined) return { visibility: exportedHere ? "public" : "file", exported: exportedHere };
  return { visibility: exportedHere ? "public" : "private", exported: exportedHere && owner.exported };
}

/**
 * Whether a declaration sits in a function body (or a block) rather than at module or namespace
 * level. Named functions are scopes already; this covers the anonymous ones (callbacks, IIFEs).
 */
function nestedInBody(facts: FactsBuilder, node: SgNode): boolean {
  if (facts.inCallable()) return true;
  const parent = node.parent();
  if (parent === null) return false;
  const kind = parent.kind() as string;
  if (MODULE_LEVEL_PARENTS.has(kind)) {
    if (kind !== "export_statement") return false;
    const grand = parent.parent();
    return grand !== null && grand.kind() === "statement_block" && !NAMESPACE_KINDS.has(grand.parent()?.kind() as string);
  }
  if (kind !== "statement_block") return true;
  return !NAMESPACE_KINDS.has(parent.parent()?.kind() as string);
}

/** The names a binding pattern declares: `{ a, b: c, ...d }` → a, c, d; `[x, , y]` → x, y. */
function patternNames(pattern: string): string[] {
  const inner = pattern.trim().replace(/^[{[]/, "").replace(/[}\]]$/, "");
  const names: string[] = [];
  for (const part of splitTopLevel(inner)) {
    const target = part.includes(":") ? part.slice(part.indexOf(":") + 1) : part;
    const name = target.replace(/^\.\.\./, "").replace(/=[\s\S]*$/, "").trim();
    if (IDENTIFIER.test(name)) names.push(name);
  }
  return names;
}

type ValueShape = "function" | "class" | "object" | "other";

interface Classified {
  shape: ValueShape;
  /** The function, class or object node (unwrapped from calls like memo(…)). */
  node?: SgNode;
}

/** What a value is, looking through wrapper calls (`memo(forwardRef(() => …))`) and `as`/`satisfies`. */
function classify(value: SgNode | null, depth = 0): Classified {
  if (value === null || depth > 3) return { shape: "other" };
  const kind = value.kind() as string;
  if (FUNCTION_VALUES.has(kind)) return { shape: "function", node: value };
  if (kind === "class") return { shape: "class", node: value };
  if (kind === "object") return { shape: "object", node: value };
  if (kind === "as_expression" || kind === "satisfies_expression") return classify(value.child(0), depth + 1);
  if (kind === "parenthesized_expression") return classify(value.namedChildren()[0] ?? null, depth + 1);
  if (kind === "call_expression") {
    const args = value.field("arguments" as never) as SgNode | null;
    if (args === null || args.kind() !== "arguments") return { shape: "other" };
    for (const argument of args.namedChildren()) {
      const inner = classify(argument, depth + 1);
      if (inner.shape !== "other") return inner;
    }
  }
  return { shape: "other" };
}

/** The text with what angle brackets hold blanked out (an arrow's `=>` is no bracket): type parameters' own `extends` are not heritage. */
function outsideTypeArguments(text: string): string {
  let depth = 0;
  let kept = "";
  for (let at = 0; at < text.length; at++) {
    const char = text[at]!;
    if (char === "<") depth++;
    else if (char === ">" && text[at - 1] !== "=" && depth > 0) depth--;
    else if (depth > 0) continue;
    if (depth === 0 || (char === "<" && depth === 1)) kept += char;
  }
  return kept;
}

/** `extends A<T> implements B, C` → ["A", "B", "C"]; `interface I<T extends X = Y> extends J<T>` → ["J"]. */
function heritageOf(written: string): string[] {
  const head = outsideTypeArguments(written);
  const names: string[] = [];
  const match = /\bextends\s+([\s\S]*?)(?:\s+implements\s+([\s\S]*))?$/.exec(head);
  if (match) {
    names.push(...typeNames(match[1]!));
    if (match[2] !== undefined) names.push(...typeNames(match[2]));
  } else {
    const implementsOnly = /\bimplements\s+([\s\S]*)$/.exec(head);
    if (implementsOnly) names.push(...typeNames(implementsOnly[1]!));
  }
  return names;
}

function memberVisibility(head: string, name: string): Visibility {
  if (name.startsWith("#") || /(?:^|\s)private\s/.test(head)) return "private";
  if (/(?:^|\s)protected\s/.test(head)) return "protected";
  return "public";
}

/** The function members of an object literal (`{ m() {}, f: () => … }`), recorded under `owner` ahead of the traversal. */
function objectMembers(facts: FactsBuilder, object: SgNode, owner: Scope): void {
  facts.withScope(owner, () => {
    for (const child of object.namedChildren()) {
      const kind = child.kind() as string;
      if (kind === "pair") objectPair(facts, child, owner.exported);
      else if (kind === "method_definition") member(facts, child, facts.at(child), "method", owner.exported, true);
    }
  });
}

/** Class, interface and object-type members, met by the traversal directly inside their container. */
function memberHandler(kind: SymbolKind): Handler {
  return (node, at, facts) => {
    const top = facts.top();
    if (top?.role === "container") member(facts, node, at, kind, top.exported, false);
  };
}

/**
 * A member's modifiers and name read from its text (`private static readonly x`, `async *m<T>(`,
 * `get size(`, `#secret`, `"quoted"`, `[Symbol.iterator]`); undefined when the text does not
 * start that way (decorators, unusual forms), so the tree is asked instead.
 */
const MEMBER_HEAD =
  /^((?:(?:public|private|protected|static|readonly|declare|abstract|override|accessor|async|get|set)\s+)*\*?\s*)(#?[\p{L}\p{N}_$]+|"[^"\n]*"|'[^'\n]*'|\[[^\]\n]*\])\s*[?!]?\s*[(<:=;,\n}]/u;

function member(facts: FactsBuilder, node: SgNode, at: At, kind: SymbolKind, ownerExported: boolean, later: boolean): void {
  const text = facts.text;
  let head: string;
  let name: string;
  const parsed = MEMBER_HEAD.exec(text.slice(at.start, Math.min(at.end, at.start + 300)) + "\n");
  if (parsed) {
    head = parsed[1]!;
    name = parsed[2]!;
  } else {
    // JavaScript's field_definition names its name "property".
    const nameNode = (node.field("name" as never) ?? (kind === "field" ? node.field("property" as never) : null)) as SgNode | null;
    if (nameNode === null) return;
    name = nameNode.text();
    head = text.slice(at.start, nameNode.replace("").startPos);
  }
  let symbolKind = kind;
  if (kind === "method" && name === "constructor") symbolKind = "constructor";
  else if (kind === "method" && /(?:^|\s)[gs]et\s+$/.test(head)) symbolKind = "property";
  // Only method definitions have a body; signatures and fields end where their text ends.
  let headEnd = node.kind() === "method_definition" ? bodyStartOf(node) : undefined;
  let role: "callable" | "value" = headEnd === undefined ? "value" : "callable";
  if (kind === "field") {
    const value = /=/.test(text.slice(at.start, Math.min(at.end, at.start + 400))) ? classify(node.field("value" as never) as SgNode | null) : { shape: "other" as const };
    if (value.shape === "function") {
      symbolKind = "method";
      role = "callable";
      headEnd = bodyStartOf(value.node);
    } else {
      const newline = text.indexOf("\n", at.start);
      headEnd = newline === -1 || newline > at.end ? at.end : newline;
    }
  }
  const visibility = memberVisibility(head, name);
  // Parameter properties are fields of the class: recorded before the constructor's scope opens.
  if (symbolKind === "constructor") parameterProperties(facts, node, ownerExported);
  declare(facts, { name, kind: symbolKind, visibility, exported: ownerExported && visibility !== "private", at, headEnd, docStyle: DOC, role, later });
}

/** `name: () => …` / `name: function () {…}` in an object literal: a method. */
function objectPair(facts: FactsBuilder, pair: SgNode, ownerExported: boolean): void {
  const value = classify(pair.field("value" as never) as SgNode | null);
  if (value.shape !== "function") return;
  const key = (pair.field("key" as never) as SgNode | null)?.text();
  if (key === undefined) return;
  const at = facts.at(pair);
  declare(facts, {
    name: unquote(key),
    kind: "method",
    visibility: "public",
    exported: ownerExported,
    at,
    headEnd: bodyStartOf(value.node),
    docStyle: DOC,
    role: "callable",
    later: true,
  });
}

/** `constructor(private readonly repo: Repo)` declares a field of the class. */
function parameterProperties(facts: FactsBuilder, constructor: SgNode, classExported: boolean): void {
  const parameters = constructor.field("parameters" as never) as SgNode | null;
  if (parameters === null || !/\b(?:public|private|protected|readonly|override)\s/.test(parameters.text())) return;
  for (const parameter of parameters.namedChildren()) {
    const text = parameter.text();
    const match = /^((?:(?:public|private|protected|readonly|override)\s+)+)([\p{L}\p{N}_$]+)/u.exec(text);
    if (!match) continue;
    const visibility = memberVisibility(match[1]!, match[2]!);
    declare(facts, { name: match[2]!, kind: "field", visibility, exported: classExported && visibility !== "private", at: facts.at(parameter), signature: collapse(text) });
  }
}

interface VariableContext {
  keyword: string;
  exported: boolean;
  /** The span the symbol covers (the whole statement when it declares one name). */
  symbolAt: At;
}

/** A module- or namespace-level declarator, recorded ahead of the traversal (its scopes open later). */
function variableDeclarator(node: SgNode, at: At, facts: FactsBuilder, context: VariableContext): void {
  const text = facts.text;
  const { keyword, symbolAt } = context;
  const nameNode = node.field("name" as never) as SgNode | null;
  if (nameNode === null) return;
  const nameText = nameNode.text();
  const valueNode = node.field("value" as never) as SgNode | null;
  const value = classify(valueNode);
  const names = IDENTIFIER.test(nameText) ? [nameText] : patternNames(nameText);
  if (valueNode !== null && /=\s*require\s*\(/.test(text.slice(at.start, at.start + nameText.length + 200))) recordRequire(facts, at, valueNode, nameText);
  const place = placement(facts, context.exported, false);
  const doc = docAbove(text, symbolAt.start, DOC);
  const scope = { scopeStart: at.start, scopeEnd: at.end, later: true } as const;
  for (const name of names) {
    if (value.shape === "function" || value.shape === "class") {
      const headEnd = bodyStartOf(value.node);
      declare(facts, {
        name,
        kind: value.shape,
        ...place,
        at: symbolAt,
        signature: `${keyword} ${headText(text, at.start, headEnd ?? at.end)}`,
        doc,
        heritage: value.shape === "class" ? heritageOf(text.slice(value.node!.range().start.index, headEnd ?? at.end)) : undefined,
        role: value.shape === "function" ? "callable" : "container",
        ...scope,
      });
      continue;
    }
    let signature: string;
    if (value.shape === "object" && names.length === 1) {
      const objectStart = value.node!.range().start.index;
      const wrapped = objectStart > (valueNode?.range().start.index ?? objectStart);
      signature = `${keyword} ${text.slice(at.start, objectStart)}{…}${wrapped ? ")" : ""}`;
    } else {
      const newline = text.indexOf("\n", at.start);
      const lineEnd = newline === -1 || newline > at.end ? at.end : newline;
      signature = `${keyword} ${text.slice(at.start, lineEnd)}${lineEnd < at.end ? " …" : ""}`;
    }
    // A destructuring declares several names: calls in its initialiser belong to none of them.
    const symbol = declare(facts, {
      name,
      kind: keyword === "const" ? "constant" : "variable",
      ...place,
      at: symbolAt,
      signature: collapse(signature),
      doc,
      ...(names.length === 1 ? { role: "value" as const, ...scope } : {}),
    });
    if (value.shape === "object" && names.length === 1) objectMembers(facts, value.node!, facts.scopeOf(symbol));
  }
}

/** A `const`/`let`/`var` statement at module or namespace level. */
function variableStatement(statement: SgNode, facts: FactsBuilder, outer: At | undefined, exported: boolean): void {
  const statementAt = facts.at(statement);
  const keyword = /^(?:declare\s+)?(const|let|var|using|await\s+using)\b/.exec(facts.text.slice(statementAt.start, statementAt.start + 40))?.[1] ?? "const";
  const declarators = statement.namedChildren().filter((child) => child.kind() === "variable_declarator");
  for (const declarator of declarators) {
    const at = facts.at(declarator);
    variableDeclarator(declarator, at, facts, { keyword, exported, symbolAt: declarators.length === 1 ? (outer ?? statementAt) : at });
  }
}

/** Module-level (or namespace-level) variables and CommonJS exports, read from the statement list. */
function moduleStatements(body: SgNode, facts: FactsBuilder): void {
  for (const statement of body.namedChildren()) {
    const kind = statement.kind() as string;
    if (VARIABLE_STATEMENTS.has(kind)) variableStatement(statement, facts, undefined, false);
    else if (kind === "export_statement" || kind === "ambient_declaration") {
      let inner = kind === "export_statement" ? (statement.field("declaration" as never) as SgNode | null) : (statement.namedChildren()[0] ?? null);
      if (inner !== null && inner.kind() === "ambient_declaration") inner = inner.namedChildren()[0] ?? null;
      if (inner !== null && VARIABLE_STATEMENTS.has(inner.kind() as string)) variableStatement(inner, facts, facts.at(statement), kind === "export_statement");
    } else if (kind === "expression_statement") {
      const start = statement.range().start.index;
      if (/^(?:module\.exports|exports)\b/.test(facts.text.slice(start, start + 16))) {
        const assignment = statement.namedChildren()[0];
        if (assignment !== undefined && assignment.kind() === "assignment_expression") commonJsAssignment(assignment, facts.at(assignment), facts);
      }
    }
  }
}

/** `const x = require("m")` / `const { a, b: c } = require("m")`: an import with names. */
function recordRequire(facts: FactsBuilder, at: At, value: SgNode, pattern: string): void {
  const valueStart = value.range().start.index;
  const match = /^require\s*\(\s*(["'`])([^"'`]*)\1\s*\)/.exec(facts.text.slice(valueStart, valueStart + 300));
  if (!match) return;
  const names: ImportFact["names"] = [];
  if (IDENTIFIER.test(pattern)) names.push({ local: pattern, imported: "*" });
  else {
    const inner = pattern.trim().replace(/^\{/, "").replace(/\}$/, "");
    for (const part of splitTopLevel(inner)) {
      const colon = part.indexOf(":");
      const imported = (colon === -1 ? part : part.slice(0, colon)).replace(/^\.\.\./, "").trim();
      const local = (colon === -1 ? part : part.slice(colon + 1)).replace(/=[\s\S]*$/, "").replace(/^\.\.\./, "").trim();
      if (IDENTIFIER.test(local)) names.push({ local, imported: part.trim().startsWith("...") ? "*" : imported });
    }
  }
  facts.imports.push({ specifier: match[2]!, kind: "require", names, line: at.line });
  // The call handler meets the same require(…) later and must not add it again.
  facts.marks.add(valueStart);
}

/**
 * Comments blanked out, strings kept: a doc comment inside `export { … }` may hold braces
 * (`{@link X}`, examples), so the clause is only read once its comments are gone.
 */
function stripComments(clause: string): string {
  return clause.replace(/("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\/\*[\s\S]*?(?:\*\/|$)|\/\/[^\n]*/g, (match, quoted: string | undefined) => quoted ?? " ");
}

/** `a as b, type c, default as d` → pairs of the names left and right of `as`. */
function specifierList(list: string): Array<{ left: string; right: string }> {
  const result: Array<{ left: string; right: string }> = [];
  for (const raw of splitTopLevel(list)) {
    const part = raw.replace(/^type\s+/, "").trim();
    const match = /^([\s\S]+?)\s+as\s+([\s\S]+)$/.exec(part);
    const left = unquote(match ? match[1]! : part);
    const right = unquote(match ? match[2]! : part);
    if (left.length > 0) result.push({ left, right });
  }
  return result;
}

const importStatement: Handler = (_node, at, facts) => {
  const statement = stripComments(facts.text.slice(at.start, at.end));
  const requireForm = /^import\s+(type\s+)?([\p{L}\p{N}_$]+)\s*=\s*require\s*\(\s*(["'])(.*?)\3/u.exec(statement);
  if (requireForm) {
    facts.imports.push({ specifier: requireForm[4]!, kind: requireForm[1] ? "import_type" : "require", names: [{ local: requireForm[2]!, imported: "*" }], line: at.line });
    return;
  }
  const sideEffect = /^import\s*(["'])(.*?)\1/.exec(statement);
  if (sideEffect) {
    facts.imports.push({ specifier: sideEffect[2]!, kind: "import", names: [], line: at.line });
    return;
  }
  const match = /^import\s+([\s\S]*?)\s*\bfrom\s*(["'])(.*?)\2/.exec(statement);
  if (!match) return;
  let clause = match[1]!.trim();
  let typeOnly = false;
  if (/^type\s+(?!,)/.test(clause) && !/^type\s*(?:,|$)/.test(clause)) {
    typeOnly = true;
    clause = clause.replace(/^type\s+/, "");
  }
  const names: ImportFact["names"] = [];
  const braces = /\{([\s\S]*)\}/.exec(clause);
  if (braces) { for (const { left, right } of specifierList(braces[1]!)) names.push({ local: right, imported: left }); }
  for (const raw of clause.replace(/\{[\s\S]*\}/, "").split(",")) {
    const part = raw.trim();
    const namespaceImport = /^\*\s*as\s+([\p{L}\p{N}_$]+)$/u.exec(part);
    if (namespaceImport) names.push({ local: namespaceImport[1]!, imported: "*" });
    else if (IDENTIFIER.test(part)) names.push({ local: part, imported: "default" });
  }
  facts.imports.push({ specifier: match[3]!, kind: typeOnly ? "import_type" : "import", names, line: at.line });
};

const exportStatement: Handler = (node, at, facts) => {
  const text = facts.text;
  let statement = text.slice(at.start, Math.min(at.end, at.start + 4000));
  // A name list has no bodies: read it whole and without comments, however long its docs are.
  if (/^export\s+(?:type\s+)?[{*]/.test(statement)) statement = stripComments(text.slice(at.start, at.end));
  const isDefault = /^export\s+default\b/.test(statement);
  facts.wrap(at, "export", { isDefault } satisfies ExportData);
  const source = /\bfrom\s*(["'])(.*?)\1\s*(?:(?:with|assert)\s*\{[^}]*\}\s*)?;?\s*$/.exec(statement);
  const star = /^export\s+(type\s+)?\*\s*(?:as\s+([\p{L}\p{N}_$]+|"[^"]*"|'[^']*')\s*)?from\b/u.exec(statement);
  if (star && source) {
    const alias = star[2] === undefined ? undefined : unquote(star[2]);
    facts.imports.push({ specifier: source[2]!, kind: "reexport", names: [{ local: alias ?? "*", imported: "*" }], line: at.line });
    facts.addExportedName(alias ?? "*", at.line, source[2]!, "*");
    return;
  }
  const clause = /^export\s+(type\s+)?\{([\s\S]*?)\}/.exec(statement);
  if (clause) {
    const pairs = specifierList(clause[2]!);
    if (source) facts.imports.push({ specifier: source[2]!, kind: "reexport", names: pairs.map(({ left, right }) => ({ local: right, imported: left })), line: at.line });
    for (const { left, right } of pairs) facts.addExportedName(right, at.line, source?.[2], left);
    return;
  }
  const assignment = /^export\s*=\s*([\p{L}\p{N}_$.]+)\s*;?\s*$/u.exec(statement);
  if (assignment) {
    facts.addExportedName("default", at.line, undefined, assignment[1]!);
    return;
  }
  if (!isDefault) return;
  const value = node.field("value" as never) as SgNode | null;
  if (value === null) return;
  if (value.kind() === "identifier") {
    facts.addExportedName("default", at.line, undefined, value.text());
    return;
  }
  facts.addExportedName("default", at.line);
  defaultExport(facts, at, value, statement);
};

/** `export default <expression>`: a symbol named "default" (members for objects and classes). */
function defaultExport(facts: FactsBuilder, at: At, value: SgNode, statement: string): void {
  const text = facts.text;
  const shape = classify(value);
  const valueStart = value.range().start.index;
  const common = { name: "default", visibility: "public", exported: true, at, docStyle: DOC } as const;
  if (shape.shape === "function" || shape.shape === "class") {
    const headEnd = bodyStartOf(shape.node);
    declare(facts, {
      ...common,
      kind: shape.shape,
      headStart: valueStart,
      headEnd,
      heritage: shape.shape === "class" ? heritageOf(text.slice(valueStart, headEnd ?? at.end)) : undefined,
      role: shape.shape === "function" ? "callable" : "container",
    });
  } else if (shape.shape === "object") {
    const objectStart = shape.node!.range().start.index;
    const symbol = declare(facts, {
      ...common,
      kind: "constant",
      signature: `export default ${collapse(text.slice(valueStart, objectStart))}{…}${objectStart > valueStart ? ")" : ""}`,
      role: "value",
    });
    objectMembers(facts, shape.node!, facts.scopeOf(symbol));
  } else {
    declare(facts, { ...common, kind: "constant", signature: collapse(statement.split("\n")[0]!), role: "value" });
  }
}

/** A named declaration found by the tree-wide search (function, class, interface, …). */
/** The name after the declaration keyword, read from the text (decorated or unusual heads ask the tree). */
const DECLARATION_HEAD =
  /^(?:(?:declare|abstract|async|const|default|export)\s+)*(?:function\s*\*?|class|interface|type|enum|namespace|module)\s+([\p{L}\p{N}_$.]+|"[^"\n]*"|'[^'\n]*')/u;

function declaration(kind: SymbolKind, role: "callable" | "container" | "value", heritage = false): Handler {
  return (node, at, facts) => {
    let name = DECLARATION_HEAD.exec(facts.text.slice(at.start, at.start + 200))?.[1];
    if (name === undefined) {
      const nameNode = node.field("name" as never) as SgNode | null;
      if (nameNode === null) return;
      name = nameNode.text();
    }
    name = unquote(name);
    const wrapper = facts.wrapperOf(at, "export");
    // An export or a namespace body is module level for sure; otherwise the parents tell.
    const top = facts.top();
    const inNamespace = top?.role === "container" && (top.symbol?.kind === "namespace" || top.symbol?.kind === "module");
    const local = wrapper === undefined && !inNamespace && nestedInBody(facts, node);
    const place = placement(facts, wrapper !== undefined, local);
    if (wrapper !== undefined && (wrapper.data as ExportData | undefined)?.isDefault === true) facts.addExportedName("default", at.line, undefined, name);
    const symbolAt = wrapper === undefined ? at : spanAt({ ...at, start: wrapper.start, line: facts.lineOf(wrapper.start) }, at);
    const headEnd = kind === "type" ? undefined : bodyStartOf(node);
    const head = facts.text.slice(at.start, headEnd ?? at.end);
    const symbol = declare(facts, {
      name,
      kind,
      ...place,
      at: symbolAt,
      headStart: at.start,
      headEnd,
      ...(kind === "type" ? { signature: headText(head.replace(/;\s*$/, ""), 0, head.length) } : {}),
      docStyle: DOC,
      heritage: heritage ? heritageOf(head) : undefined,
      role,
      local,
    });
    if (kind === "enum") enumMembers(facts, node, symbol.exported);
    else if (kind === "namespace" || kind === "module") {
      const body = node.field("body" as never) as SgNode | null;
      if (body !== null) moduleStatements(body, facts);
    }
  };
}

function enumMembers(facts: FactsBuilder, node: SgNode, exported: boolean): void {
  const body = node.field("body" as never) as SgNode | null;
  if (body === null) return;
  for (const child of body.namedChildren()) {
    const kind = child.kind() as string;
    let name: string | undefined;
    if (kind === "enum_assignment") name = (child.field("name" as never) as SgNode | null)?.text();
    else if (kind === "property_identifier" || kind === "string" || kind === "identifier") name = child.text();
    if (name === undefined) continue;
    declare(facts, { name: unquote(name), kind: "enum_member", visibility: "public", exported, at: facts.at(child), signature: collapse(child.text()), docStyle: DOC });
  }
}

/** `module.exports = …` / `exports.name = …` at module level. */
function commonJsAssignment(node: SgNode, at: At, facts: FactsBuilder): void {
  const text = facts.text;
  const match = /^(module\.exports|exports)(?:\.([\p{L}\p{N}_$]+))?\s*=(?!=)\s*/u.exec(text.slice(at.start, at.start + 200));
  if (!match) return;
  const right = node.field("right" as never) as SgNode | null;
  if (right === null) return;
  const common = { visibility: "public", exported: true, at, docStyle: DOC, later: true } as const;
  if (match[2] !== undefined) {
    const name = match[2];
    facts.addExportedName(name, at.line);
    const value = classify(right);
    if (value.shape === "function" || value.shape === "class") {
      declare(facts, { ...common, name, kind: value.shape, headEnd: bodyStartOf(value.node), role: value.shape === "function" ? "callable" : "container" });
    } else {
      declare(facts, { ...common, name, kind: "variable", signature: collapse(text.slice(at.start, at.end).split("\n")[0]!), role: "value" });
    }
    return;
  }
  const rightKind = right.kind() as string;
  if (rightKind === "identifier") {
    facts.addExportedName("default", at.line, undefined, right.text());
    return;
  }
  if (rightKind === "object") {
    for (const part of splitTopLevel(right.text().replace(/^\{/, "").replace(/\}$/, ""))) {
      const entry = /^([\p{L}\p{N}_$]+)\s*(?::\s*([\p{L}\p{N}_$.]+)\s*)?$/u.exec(part.trim());
      if (entry) facts.addExportedName(entry[1]!, at.line, undefined, entry[2] ?? entry[1]!);
      else {
        const method = /^(?:async\s+)?([\p{L}\p{N}_$]+)\s*\(/u.exec(part.trim());
        if (method) facts.addExportedName(method[1]!, at.line);
      }
    }
    return;
  }
  facts.addExportedName("default", at.line);
  const value = classify(right);
  if (value.shape === "function" || value.shape === "class") {
    const ownName = (value.node!.field("name" as never) as SgNode | null)?.text();
    declare(facts, { ...common, name: ownName ?? "default", kind: value.shape, headEnd: bodyStartOf(value.node), role: value.shape === "function" ? "callable" : "container" });
  }
}

const callExpression: Handler = (node, at, facts) => {
  const text = facts.text;
  const code = text.charCodeAt(at.start);
  // import("x") and require("x") are imports; only their literal form names a module.
  if (code === 105 /* i */ && text.startsWith("import", at.start)) {
    const dynamic = /^import\s*\(/.exec(text.slice(at.start, at.start + 16));
    if (dynamic) {
      const specifier = leadingStringLiteral(text.slice(at.start + dynamic[0].length, at.start + dynamic[0].length + 300));
      if (specifier !== undefined) facts.imports.push({ specifier, kind: "dynamic", names: [], line: at.line });
      return;
    }
  }
  if (code === 114 /* r */ && text.startsWith("require", at.start) && !facts.marks.has(at.start)) {
    const call = /^require\s*\(/.exec(text.slice(at.start, at.start + 16));
    if (call) {
      const specifier = leadingStringLiteral(text.slice(at.start + call[0].length, at.start + call[0].length + 300));
      if (specifier !== undefined) facts.imports.push({ specifier, kind: "require", names: [], line: at.line });
    }
  }
  facts.queueCall(node, at);
};

/** `<Button …>` and `<Form.Field …/>` render components: calls for the call graph (intrinsic `<div>` is not). */
const jsxElement: Handler = (_node, at, facts) => {
  const match = /^<\s*([\p{L}\p{N}_$.]+)/u.exec(facts.text.slice(at.start, at.start + 200));
  if (!match) return;
  const name = match[1]!;
  const first = name.charCodeAt(0);
  if (!name.includes(".") && !(first >= 65 && first <= 90)) return;
  facts.addCall(name, at.line, at.column);
};

const HANDLERS: Record<string, Handler> = {
  program: (node, _at, facts) => moduleStatements(node, facts),
  function_declaration: declaration("function", "callable"),
  generator_function_declaration: declaration("function", "callable"),
  function_signature: declaration("function", "value"),
  class_declaration: declaration("class", "container", true),
  abstract_class_declaration: declaration("class", "container", true),
  interface_declaration: declaration("interface", "container", true),
  type_alias_declaration: declaration("type", "container"),
  enum_declaration: declaration("enum", "container"),
  internal_module: declaration("namespace", "container"),
  module: declaration("module", "container"),
  ...Object.fromEntries(Object.entries(MEMBER_KINDS).map(([kind, symbolKind]) => [kind, memberHandler(symbolKind)])),
  import_statement: importStatement,
  export_statement: exportStatement,
  call_expression: callExpression,
  new_expression: newExpression,
  jsx_opening_element: jsxElement,
  jsx_self_closing_element: jsxElement,
};

const CALLS: CallSyntax = {
  openers: "(<`",
  callee(node: SgNode): SgNode | null {
    return (node.field((node.kind() === "new_expression" ? "constructor" : "function") as never) as SgNode | null) ?? null;
  },
};

/** Without calls, only `require(…)`/`import(…)` calls are still visited (they are imports). */
const CALL_KINDS: Readonly<Record<string, Rule | null>> = {
  call_expression: { kind: "call_expression", regex: "^(?:require|import)\\s*\\(" },
  new_expression: null,
  jsx_opening_element: null,
  jsx_self_closing_element: null,
};

const cache = new Map<string, LanguageExtractor>();

/** The extractor for napi language "TypeScript", "Tsx" or "JavaScript" (kinds a grammar lacks are left out). */
export function typescriptExtractor(napiLanguage: string): LanguageExtractor {
  const cached = cache.get(napiLanguage);
  if (cached) return cached;
  const rules: Rule[] = Object.keys(HANDLERS)
    .filter((kind) => napi().kind(napiLanguage as never, kind as never) !== 0)
    .map((kind) => ({ kind }));
  const extractor: LanguageExtractor = {
    rules,
    handlers: HANDLERS,
    calls: CALLS,
    finish: (facts) => {
      markExportedByName(facts);
      bindScriptValues(facts);
    },
    callKinds: CALL_KINDS,
  };
  cache.set(napiLanguage, extractor);
  return extractor;
}
