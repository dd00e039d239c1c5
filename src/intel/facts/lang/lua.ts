/**
 * Lua: functions (`local function`, global, `function M.f`, `function M:m`, `M.f = function`),
 * module-level variables (`local` ones are file-local, globals public); the table a chunk
 * `return`s is its surface, so its fields are exported. `--`/`---` comments above are docs;
 * `require` is the import; calls (string and table call syntax included).
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle, headText, leadingStringLiteral } from "../text.ts";
import type { SymbolKind, Visibility } from "../types.ts";
import { declare, extractorFor } from "./common.ts";

const DOC: CommentStyle = { line: ["--"] };
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** Records a function under an optional table (`M.f`, `M:f`): a method of that table. */
function record(facts: FactsBuilder, name: string, owner: string | undefined, at: At, local: boolean, headEnd: number | undefined, kind?: SymbolKind): void {
  const inFunction = facts.inCallable();
  const visibility: Visibility = inFunction ? "private" : local ? "file" : "public";
  const add = (): void => {
    declare(facts, {
      name,
      kind: kind ?? (owner === undefined ? "function" : "method"),
      visibility,
      exported: !inFunction && !local,
      at,
      signature: headText(facts.text, at.start, headEnd ?? at.end),
      docStyle: DOC,
      role: "callable",
      later: true,
    });
  };
  if (owner === undefined) add();
  else facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: owner, exported: !local }, add);
}

const functionDeclaration: Handler = (node, at, facts) => {
  const body = node.field("body" as never) as SgNode | null;
  const head = facts.text.slice(at.start, body?.range().start.index ?? at.end);
  const match = /^(local\s+)?function\s+([\p{L}\p{N}_.:]+)\s*\(/u.exec(head);
  if (!match) return;
  const path = match[2]!.split(/[.:]/);
  const name = path.pop()!;
  const parameters = node.field("parameters" as never) as SgNode | null;
  record(facts, name, path.length > 0 ? path.join(".") : undefined, at, match[1] !== undefined, parameters?.range().end.index);
};

/** Module-level `local x = …`, globals and `M.f = function … end`. */
function chunk(node: SgNode, facts: FactsBuilder): void {
  for (const statement of node.namedChildren()) {
    const kind = statement.kind() as string;
    if (kind !== "variable_declaration" && kind !== "assignment_statement") continue;
    const at = facts.at(statement);
    const local = kind === "variable_declaration";
    const assignment = local ? statement.namedChildren().find((child) => child.kind() === "assignment_statement") : statement;
    const text = facts.text.slice(at.start, at.end);
    const match = /^(?:local\s+)?([\p{L}\p{N}_.,\s]+?)\s*=\s*([\s\S]*)$/u.exec(text);
    if (!match || assignment === undefined) continue;
    const names = match[1]!.split(",").map((part) => part.trim());
    const value = match[2]!;
    const required = /^require\s*\(?\s*/.exec(value);
    if (required) {
      const specifier = leadingStringLiteral(value.slice(required[0].length));
      if (specifier !== undefined) {
        facts.imports.push({ specifier, kind: "require", names: names.length === 1 && IDENTIFIER.test(names[0]!) ? [{ local: names[0]!, imported: "*" }] : [], line: at.line });
      }
    }
    for (const name of names) {
      const path = name.split(".");
      const last = path.pop()!;
      if (!IDENTIFIER.test(last)) continue;
      if (/^function\b/.test(value)) {
        const close = value.indexOf(")");
        record(facts, last, path.length > 0 ? path.join(".") : undefined, at, local, close === -1 ? undefined : at.start + text.length - value.length + close + 1);
        continue;
      }
      const kind: SymbolKind = /^[A-Z][A-Z0-9_]*$/.test(last) ? "constant" : "variable";
      const firstLine = text.split("\n")[0]!;
      const add = (): void => {
        declare(facts, {
          name: last,
          kind: path.length > 0 ? "field" : kind,
          visibility: local ? "file" : "public",
          exported: !local,
          at,
          signature: collapse(firstLine + (firstLine.length < text.length ? " …" : "")),
          docStyle: DOC,
          role: "value",
          later: true,
        });
      };
      if (path.length > 0) facts.withScope({ start: 0, end: Number.MAX_SAFE_INTEGER, role: "container", qualifiedName: path.join("."), exported: !local }, add);
      else add();
    }
  }
}

const functionCall: Handler = (node, at, facts) => {
  const text = facts.text;
  if (text.startsWith("require", at.start)) {
    const call = /^require\s*\(?\s*/.exec(text.slice(at.start, at.start + 20));
    // `local x = require(…)` at chunk level was recorded with its name already.
    if (call && !facts.imports.some((fact) => fact.line === at.line)) {
      const specifier = leadingStringLiteral(text.slice(at.start + call[0].length, at.start + call[0].length + 300));
      if (specifier !== undefined) facts.imports.push({ specifier, kind: "require", names: [], line: at.line });
    }
  }
  facts.queueCall(node, at);
};

/** `return M` makes M (and its fields) the module's surface; other `local`s stay file-local. */
function finish(facts: FactsBuilder): void {
  const returned = /\breturn\s+([\p{L}_][\p{L}\p{N}_]*)\s*$/u.exec(facts.text.trimEnd())?.[1];
  if (returned === undefined) return;
  for (const symbol of facts.symbols) {
    if (symbol.local) continue;
    if (symbol.qualifiedName === returned && symbol.parent === undefined) symbol.kind = "module";
    if (symbol.qualifiedName === returned || symbol.parent === returned || symbol.parent?.startsWith(`${returned}.`) === true) {
      symbol.exported = symbol.visibility !== "private";
      if (symbol.visibility === "file") symbol.visibility = "public";
    }
  }
  if (!facts.exportedNames.some((entry) => entry.name === "default")) facts.addExportedName("default", facts.lineOf(facts.text.trimEnd().length - 1), undefined, returned);
}

const HANDLERS: Record<string, Handler> = {
  chunk: (node, _at, facts) => chunk(node, facts),
  function_declaration: functionDeclaration,
  function_call: functionCall,
};

const CALLS: CallSyntax = {
  openers: "({\"'[",
  callee: (node) => (node.field("name" as never) as SgNode | null) ?? node.child(0),
};

export const luaExtractor = extractorFor(HANDLERS, { calls: CALLS, finish, callKinds: { function_call: { kind: "function_call", regex: "^require\\b" } } });
