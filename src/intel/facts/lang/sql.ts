/**
 * SQL: `CREATE TABLE` (columns as fields), `VIEW`, `MATERIALIZED VIEW`, `FUNCTION`,
 * `INDEX`, `TYPE`, `SCHEMA`, `SEQUENCE` and `TRIGGER` statements are the outline; `--` comments
 * above are docs; function invocations are the calls (attributed to the view or function they
 * appear in).
 */
import type { SgNode } from "@ast-grep/napi";
import type { FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle } from "../text.ts";
import type { SymbolKind } from "../types.ts";
import { declare, extractorFor } from "./common.ts";

const DOC: CommentStyle = { line: ["--"], block: "any" };

const CREATE_KINDS: Readonly<Record<string, SymbolKind>> = {
  create_table: "struct",
  create_view: "type",
  create_materialized_view: "type",
  create_function: "function",
  create_index: "constant",
  create_type: "type",
  create_schema: "namespace",
  create_sequence: "variable",
  create_trigger: "function",
  create_database: "module",
};

/** The created object's name: the first object reference (or identifier) after the keywords. */
function createdName(node: SgNode): string | undefined {
  for (const child of node.namedChildren()) {
    const kind = child.kind() as string;
    if (kind === "object_reference" || kind === "identifier") return child.text().replace(/["`[\]]/g, "");
    if (kind === "column_definitions" || kind === "create_query" || kind === "function_body") break;
  }
  return undefined;
}

function create(kind: SymbolKind): Handler {
  return (node, at, facts) => {
    const name = createdName(node);
    if (name === undefined) return;
    const text = facts.text.slice(at.start, at.end);
    const cut = /\(|\bAS\b|\n/i.exec(text);
    const headEnd = kind === "function" ? /\bAS\b|\bBEGIN\b|\$\$/i.exec(text)?.index : cut?.index;
    const callable = kind === "function" || node.kind() === "create_view" || node.kind() === "create_materialized_view";
    const symbol = declare(facts, {
      name,
      kind,
      visibility: "public",
      exported: true,
      at,
      signature: collapse(headEnd === undefined ? text : text.slice(0, headEnd)),
      docStyle: DOC,
      role: callable ? "callable" : "container",
    });
    if (node.kind() === "create_table") columns(node, facts, symbol.exported);
  };
}

function columns(node: SgNode, facts: FactsBuilder, exported: boolean): void {
  const definitions = node.namedChildren().find((child) => child.kind() === "column_definitions");
  for (const column of definitions?.namedChildren() ?? []) {
    if (column.kind() !== "column_definition") continue;
    const name = column.namedChildren()[0]?.text().replace(/["`[\]]/g, "");
    if (name !== undefined) declare(facts, { name, kind: "field", visibility: "public", exported, at: facts.at(column), signature: collapse(column.text()), docStyle: DOC });
  }
}

const invocation: Handler = (node, at, facts) => {
  const name = node.namedChildren()[0]?.text();
  if (name !== undefined) facts.addCall(name, at.line, at.column);
};

const HANDLERS: Record<string, Handler> = {
  ...Object.fromEntries(Object.entries(CREATE_KINDS).map(([kind, symbolKind]) => [kind, create(symbolKind)])),
  invocation,
};

export const sqlExtractor = extractorFor(HANDLERS, { callKinds: { invocation: null } });
