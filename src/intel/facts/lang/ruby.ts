/**
 * Ruby: modules, classes (superclass, `include`/`extend` as heritage), `class << self`, methods and
 * singleton methods, constants and `attr_*` accessors; `private`/`protected` sections and
 * `private :name` decide visibility; `#` comments above are docs; `require`/`require_relative`
 * are imports; calls with and without parentheses.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle, headText, leadingStringLiteral } from "../text.ts";
import type { Visibility } from "../types.ts";
import { bodyStart, declare, extractorFor } from "./common.ts";

const DOC: CommentStyle = { line: ["#"] };

interface BodyData {
  /** Visibility of each method by its start offset (from `private`/`protected` sections). */
  byStart: Map<number, Visibility>;
  /** Visibility set by name (`private :log`). */
  byName: Map<string, Visibility>;
  /** Methods in `class << self` and `module_function` are singleton methods. */
  singleton?: boolean;
}

/**
 * Reads a class or module body in order: visibility sections, `private :name`, constants,
 * `attr_*` accessors and `include`/`extend` (returned as heritage).
 */
function readBody(body: SgNode | null, facts: FactsBuilder, exported: boolean): { data: BodyData; heritage: string[] } {
  const data: BodyData = { byStart: new Map(), byName: new Map() };
  const heritage: string[] = [];
  if (body === null) return { data, heritage };
  let section: Visibility = "public";
  for (const statement of body.namedChildren()) {
    const kind = statement.kind() as string;
    if (kind === "identifier") {
      const word = statement.text();
      if (word === "private" || word === "protected" || word === "public") section = word;
      continue;
    }
    if (kind === "method") {
      data.byStart.set(statement.range().start.index, section);
      continue;
    }
    if (kind === "assignment") {
      const left = (statement.field("left" as never) as SgNode | null)?.text();
      if (left !== undefined && /^[A-Z][A-Za-z0-9_]*$/.test(left)) {
        const at = facts.at(statement);
        declare(facts, {
          name: left,
          kind: "constant",
          visibility: "public",
          exported,
          at,
          signature: collapse(facts.text.slice(at.start, at.end).split("\n")[0]!),
          docStyle: DOC,
          role: "value",
          later: true,
        });
      }
      continue;
    }
    if (kind !== "call") continue;
    const text = statement.text();
    const command = /^(private|protected|public|attr_reader|attr_writer|attr_accessor|include|extend|prepend|module_function)\b\s*\(?\s*([\s\S]*?)\)?\s*$/.exec(text);
    if (!command) continue;
    const [, word, rest] = command as unknown as [string, string, string];
    if (word === "private" || word === "protected" || word === "public") {
      if (rest.startsWith("def ")) continue;
      for (const symbol of rest.matchAll(/:([\p{L}\p{N}_]+[!?=]?)/gu)) data.byName.set(symbol[1]!, word);
    } else if (word.startsWith("attr_")) {
      const at = facts.at(statement);
      for (const symbol of rest.matchAll(/:([\p{L}\p{N}_]+)/gu)) {
        const name = symbol[1]!;
        declare(facts, { name, kind: "property", visibility: section, exported: exported && section === "public", at, signature: `${word} :${name}`, docStyle: DOC });
      }
    } else if (word === "module_function") data.singleton = true;
    else heritage.push(...rest.split(",").map((part) => part.trim()).filter((part) => /^[A-Z]/.test(part)));
  }
  return { data, heritage };
}

function container(kind: "module" | "class"): Handler {
  return (node, at, facts) => {
    const name = (node.field("name" as never) as SgNode | null)?.text();
    if (name === undefined) return;
    const superclass = node.namedChildren().find((child) => child.kind() === "superclass")?.text().replace(/^<\s*/, "");
    const body = node.field("body" as never) as SgNode | null;
    const owner = facts.owner();
    const exported = owner === undefined || owner.exported;
    const symbol = declare(facts, {
      name: name.replace(/::/g, "."),
      kind,
      visibility: "public",
      exported,
      at,
      headEnd: lineEnd(facts, at),
      docStyle: DOC,
      role: "container",
    });
    const scope = facts.top()!;
    const { data, heritage } = readBody(body, facts, exported);
    scope.data = data;
    const all = [...(superclass === undefined ? [] : [superclass.trim()]), ...heritage];
    if (all.length > 0) symbol.heritage = all;
  };
}

function lineEnd(facts: FactsBuilder, at: At): number {
  const newline = facts.text.indexOf("\n", at.start);
  return newline === -1 || newline > at.end ? at.end : newline;
}

/** `class << self`: its methods are singleton methods of the enclosing class or module. */
const singletonClass: Handler = (node, at, facts) => {
  const owner = facts.owner();
  const body = node.field("body" as never) as SgNode | null;
  const { data } = readBody(body, facts, owner?.exported ?? true);
  data.singleton = true;
  const scope = { start: at.start, end: at.end, role: "container" as const, exported: owner?.exported ?? true, data };
  const qualifiedName = owner?.qualifiedName ?? owner?.symbol?.qualifiedName;
  facts.pushScope(qualifiedName === undefined ? scope : { ...scope, qualifiedName });
};

/** `def name` / `def self.name` (named under the class either way). */
const method: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const top = facts.top();
  const data = top?.role === "container" ? (top.data as BodyData | undefined) : undefined;
  const local = facts.inCallable();
  let visibility: Visibility = data?.byName.get(name) ?? data?.byStart.get(at.start) ?? "public";
  if (/^private\s+def\b/.test(facts.text.slice(Math.max(0, at.start - 8), at.start + 4))) visibility = "private";
  const inType = top?.role === "container";
  const body = bodyStart(node);
  let headEnd = body;
  const head = facts.text.slice(at.start, body ?? at.end);
  // `def name(args) = expression`: the head ends at the `=`.
  const endless = /^def\s+[^\n]*?\)\s*=(?!=)/.exec(head);
  if (endless) headEnd = at.start + endless[0].length - 1;
  else if (body === undefined || !head.includes("\n")) headEnd = Math.min(body ?? lineEnd(facts, at), lineEnd(facts, at));
  declare(facts, {
    name,
    kind: inType ? (name === "initialize" ? "constructor" : "method") : "function",
    visibility: local ? "private" : visibility,
    exported: !local && visibility === "public" && (top === undefined || top.exported),
    at,
    signature: headText(facts.text, at.start, headEnd ?? at.end),
    docStyle: DOC,
    role: "callable",
  });
};

const call: Handler = (node, at, facts) => {
  const text = facts.text;
  const head = /^(require|require_relative|load|autoload)\b\s*\(?\s*(?::\w+\s*,\s*)?/.exec(text.slice(at.start, at.start + 40));
  if (head) {
    const specifier = leadingStringLiteral(text.slice(at.start + head[0].length, at.start + head[0].length + 300));
    // require_relative resolves against the requiring file: written as "./x" like other relative specifiers.
    const relative = head[1] === "require_relative" && specifier !== undefined && !specifier.startsWith(".") && !specifier.startsWith("/");
    if (specifier !== undefined) facts.imports.push({ specifier: relative ? `./${specifier}` : specifier, kind: "require", names: [], line: at.line });
  }
  facts.queueCall(node, at);
};

const HANDLERS: Record<string, Handler> = {
  module: container("module"),
  class: container("class"),
  singleton_class: singletonClass,
  method,
  singleton_method: method,
  call,
};

const CALLS: CallSyntax = {
  openers: "({",
  bareCalls: true,
  spaceOpens: true,
  callee: (node) => (node.field("method" as never) as SgNode | null) ?? null,
};

export const rubyExtractor = extractorFor(HANDLERS, { calls: CALLS, callKinds: { call: { kind: "call", regex: "^(?:require|require_relative|load|autoload)\\b" } } });
