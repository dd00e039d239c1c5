/**
 * CSS: rule sets by selector (`key` symbols, nested under `@media`/`@supports`/`@layer` blocks,
 * which are `namespace` symbols), custom properties (`--name`, variables of their rule),
 * `@keyframes` names, `/* … *\/` comments above as docs, `@import` as imports, and function
 * values (`var()`, `calc()`, `url()`) as calls.
 */
import { LIMITS } from "../../../core/limits.ts";
import type { Handler } from "../engine.ts";
import { collapse, type CommentStyle } from "../text.ts";
import { declare, extractorFor } from "./common.ts";

const DOC: CommentStyle = { block: "any" };

function limited(count: number): boolean {
  return count >= LIMITS.intel.facts.markupMaxSymbols;
}

const ruleSet: Handler = (node, at, facts) => {
  if (limited(facts.symbols.length)) return;
  const block = node.namedChildren().find((child) => child.kind() === "block");
  const selector = collapse(facts.text.slice(at.start, block?.range().start.index ?? at.end), 160);
  declare(facts, { name: selector, kind: "key", visibility: "public", exported: true, at, signature: selector, docStyle: DOC, role: "container" });
};

/** `--name: value` inside a rule: a variable of that rule. */
const declaration: Handler = (_node, at, facts) => {
  if (facts.text.charCodeAt(at.start) !== 45 || facts.text.charCodeAt(at.start + 1) !== 45 || limited(facts.symbols.length)) return;
  const text = facts.text.slice(at.start, at.end);
  const name = /^--[\w-]+/.exec(text)?.[0];
  if (name !== undefined) declare(facts, { name, kind: "variable", visibility: "public", exported: true, at, signature: collapse(text.replace(/;\s*$/, ""), 160), docStyle: DOC });
};

function atBlock(kind: "namespace" | "key"): Handler {
  return (node, at, facts) => {
    if (limited(facts.symbols.length)) return;
    const block = node.namedChildren().find((child) => child.kind() === "block" || child.kind() === "keyframe_block_list");
    const head = collapse(facts.text.slice(at.start, block?.range().start.index ?? at.end), 160);
    const name = kind === "key" ? (/^@[\w-]*keyframes\s+([^\s{]+)/.exec(head)?.[1] ?? head) : head;
    declare(facts, { name, kind, visibility: "public", exported: true, at, signature: head, docStyle: DOC, role: "container" });
  };
}

/** `@import url("x.css")` / `@import "x.css" screen;` */
const importStatement: Handler = (_node, at, facts) => {
  const match = /^@import\s+(?:url\(\s*)?["']?([^"')\s;]+)/.exec(facts.text.slice(at.start, at.end));
  if (match) facts.imports.push({ specifier: match[1]!, kind: "import", names: [], line: at.line });
};

const callExpression: Handler = (_node, at, facts) => {
  const name = /^[\w-]+/.exec(facts.text.slice(at.start, at.start + 64))?.[0];
  if (name !== undefined) facts.addCall(name, at.line, at.column);
};

const HANDLERS: Record<string, Handler> = {
  rule_set: ruleSet,
  declaration,
  media_statement: atBlock("namespace"),
  supports_statement: atBlock("namespace"),
  at_rule: atBlock("namespace"),
  keyframes_statement: atBlock("key"),
  import_statement: importStatement,
  call_expression: callExpression,
};

export const cssExtractor = extractorFor(HANDLERS, { callKinds: { call_expression: null } });
