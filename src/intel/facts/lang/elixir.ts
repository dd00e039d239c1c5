/**
 * Elixir: everything is a call, so one handler reads the macro in front. `defmodule` /
 * `defprotocol` / `defimpl` are modules, `def`/`defmacro`/`defguard`/`defdelegate` public
 * functions and their `p` variants private ones; `defstruct` fields, `@type`s and plain module
 * attributes (constants) are read from the module body. `@moduledoc`/`@doc` are the docs;
 * `alias`/`import`/`use`/`require` the imports (alias groups expanded); other calls are calls,
 * except special forms and the contents of attributes such as `@spec`.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, CallSyntax, FactsBuilder, Handler } from "../engine.ts";
import { collapse, dedentDoc, firstSentence } from "../text.ts";
import type { SymbolKind } from "../types.ts";
import { declare, extractorFor, splitTopLevel } from "./common.ts";

const DEFINITIONS = /^(defmodule|defprotocol|defimpl|defmacrop|defmacro|defguardp|defguard|defdelegate|defp|def|defstruct|defexception|alias|import|use|require)\b/;
/** Special forms and definition macros: not calls worth a call-graph edge. */
const NOT_CALLS = new Set([
  "if",
  "unless",
  "case",
  "cond",
  "with",
  "for",
  "quote",
  "unquote",
  "unquote_splicing",
  "try",
  "receive",
  "raise",
  "reraise",
  "fn",
  "super",
  "__MODULE__",
  "__block__",
]);
const ATTRIBUTE_KINDS: Readonly<Record<string, SymbolKind>> = { type: "type", typep: "type", opaque: "type", callback: "method", macrocallback: "macro" };
const RESERVED_ATTRIBUTES = new Set([
  "doc",
  "moduledoc",
  "typedoc",
  "spec",
  "impl",
  "behaviour",
  "derive",
  "deprecated",
  "since",
  "dialyzer",
  "compile",
  "on_load",
  "external_resource",
  "before_compile",
  "after_compile",
  "enforce_keys",
  "optional_callbacks",
  "vsn",
  "file",
  "tag",
  "describetag",
  "moduletag",
]);

/** The first sentence of a `@doc`/`@moduledoc` string ending right above `index` (skipping `@spec`/`@impl` lines). */
function docAbove(text: string, index: number): string | undefined {
  let cursor = text.lastIndexOf("\n", index - 1);
  while (cursor > 0) {
    const start = text.lastIndexOf("\n", cursor - 1) + 1;
    const line = text.slice(start, cursor).trim();
    if (/^@(?:spec|impl|decorate|deprecated|since)\b/.test(line)) {
      cursor = start - 1;
      continue;
    }
    if (line === "\"\"\"" || line.endsWith("\"\"\"")) {
      const open = text.lastIndexOf("@doc \"\"\"", start);
      if (open === -1) return undefined;
      return firstSentence(dedentDoc(text.slice(open + 8, start)));
    }
    const single = /^@doc\s+"((?:\\.|[^"\\])*)"/.exec(line);
    return single ? firstSentence(single[1]!) : undefined;
  }
  return undefined;
}

function moduleDoc(body: string): string | undefined {
  const heredoc = /@moduledoc\s+"""([\s\S]*?)"""/.exec(body);
  if (heredoc) return firstSentence(dedentDoc(heredoc[1]!));
  const single = /@moduledoc\s+"((?:\\.|[^"\\])*)"/.exec(body);
  return single ? firstSentence(single[1]!) : undefined;
}

function headBefore(text: string, at: At): string {
  const source = text.slice(at.start, at.end);
  const doBlock = /\s+do\s*(?:\n|$)|,\s*do:/.exec(source);
  return collapse(doBlock ? source.slice(0, doBlock.index) : source.split("\n")[0]!);
}

/** `def f(a, do: b) do … end` / `def f(a), do: …`: the head stops at the block or a top-level `, do:`. */
function definitionHead(node: SgNode, text: string, at: At): string {
  const block = node.namedChildren().find((child) => child.kind() === "do_block");
  if (block !== undefined) return collapse(text.slice(at.start, block.range().start.index));
  const source = text.slice(at.start, at.end);
  let depth = 0;
  for (let index = 0; index < source.length; index++) {
    const char = source[index]!;
    if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) depth--;
    else if (depth === 0 && char === "," && /^,\s*do:/.test(source.slice(index))) return collapse(source.slice(0, index));
  }
  return collapse(source.split("\n")[0]!);
}

function moduleLike(node: SgNode, at: At, facts: FactsBuilder, keyword: string): void {
  const text = facts.text;
  const source = text.slice(at.start, Math.min(at.end, at.start + 400));
  let name = /^def(?:module|protocol)\s+([\p{L}\p{N}_.]+)/u.exec(source)?.[1];
  const heritage: string[] = [];
  if (keyword === "defimpl") {
    const impl = /^defimpl\s+([\p{L}\p{N}_.]+)\s*,\s*for:\s*([\p{L}\p{N}_.]+)/u.exec(source);
    if (!impl) return;
    // defimpl P, for: T compiles to the module P.T.
    name = `${impl[1]}.${impl[2]}`;
    heritage.push(impl[1]!);
  }
  if (name === undefined) return;
  const owner = facts.owner();
  declare(facts, {
    name,
    kind: keyword === "defprotocol" ? "interface" : "module",
    visibility: "public",
    exported: owner === undefined || owner.exported,
    at,
    signature: headBefore(text, at),
    doc: moduleDoc(text.slice(at.start, at.end)),
    heritage,
    role: "container",
  });
  const body = node.namedChildren().find((child) => child.kind() === "do_block");
  if (body !== undefined) moduleBody(body, facts);
}

/** `defstruct` fields and module attributes (`@type`, constants). */
function moduleBody(body: SgNode, facts: FactsBuilder): void {
  const owner = facts.top();
  for (const statement of body.namedChildren()) {
    const at = facts.at(statement);
    const source = facts.text.slice(at.start, at.end);
    if (statement.kind() === "unary_operator") {
      const attribute = /^@([\p{L}\p{N}_]+)\s+([\s\S]*)$/u.exec(source);
      if (!attribute || RESERVED_ATTRIBUTES.has(attribute[1]!)) continue;
      const kind = ATTRIBUTE_KINDS[attribute[1]!];
      const name = kind === undefined ? attribute[1]! : /^([\p{L}\p{N}_?!]+)/u.exec(attribute[2]!)?.[1];
      if (name === undefined) continue;
      declare(facts, {
        name,
        kind: kind ?? "constant",
        visibility: attribute[1] === "typep" ? "private" : "public",
        exported: owner?.exported === true && attribute[1] !== "typep" && kind !== undefined,
        at,
        signature: collapse(source.split("\n")[0]!),
      });
    } else if (/^def(?:struct|exception)\b/.test(source)) {
      const fields = /^def(?:struct|exception)\s*\(?\s*\[?([\s\S]*?)\]?\s*\)?\s*$/.exec(source)?.[1] ?? "";
      for (const part of splitTopLevel(fields)) {
        const name = /^:?([\p{L}\p{N}_?!]+):?/u.exec(part.trim())?.[1];
        if (name !== undefined) declare(facts, { name, kind: "field", visibility: "public", exported: owner?.exported === true, at, signature: collapse(part) });
      }
    }
  }
}

function definition(node: SgNode, at: At, facts: FactsBuilder, keyword: string): void {
  const text = facts.text;
  const source = text.slice(at.start, Math.min(at.end, at.start + 400));
  const match = new RegExp(`^${keyword}\\s+\\(?\\s*([\\p{L}\\p{N}_?!]+)`, "u").exec(source);
  if (!match) return;
  const name = match[1]!;
  facts.marks.add(at.start + match[0].length - name.length);
  const isPrivate = keyword.endsWith("p") && keyword !== "defexception";
  let kind: SymbolKind = facts.top()?.role === "container" ? "method" : "function";
  if (keyword.startsWith("defmacro")) kind = "macro";
  const owner = facts.owner();
  declare(facts, {
    name,
    kind,
    visibility: isPrivate ? "private" : "public",
    exported: !isPrivate && (owner === undefined || owner.exported),
    at,
    signature: definitionHead(node, text, at),
    doc: docAbove(text, at.start),
    role: "callable",
  });
}

/** `alias A.B`, `alias A.{B, C}`, `alias A.B, as: C`, `import A`, `use A`, `require A`. */
function directive(at: At, facts: FactsBuilder, keyword: string): void {
  const source = collapse(facts.text.slice(at.start, at.end), 2000);
  const match = new RegExp(`^${keyword}\\s*\\(?\\s*(:?[\\p{L}\\p{N}_]+(?:\\.[\\p{L}\\p{N}_]+)*)(?:\\.\\{([^}]*)\\})?(?:\\s*,\\s*as:\\s*([\\p{L}\\p{N}_]+))?`, "u").exec(source);
  if (!match) return;
  const base = match[1]!;
  const modules = match[2] !== undefined ? splitTopLevel(match[2]).map((part) => `${base}.${part.trim()}`) : [base];
  for (const module of modules) {
    const last = module.split(".").pop()!;
    facts.imports.push({
      specifier: module,
      kind: "import",
      names: keyword === "alias" ? [{ local: match[3] ?? last, imported: last }] : [{ local: "*", imported: "*" }],
      line: at.line,
    });
  }
}

const call: Handler = (node, at, facts) => {
  const text = facts.text;
  if ((facts.top()?.data as { attribute?: boolean } | undefined)?.attribute === true) return;
  const keyword = DEFINITIONS.exec(text.slice(at.start, at.start + 16))?.[1];
  if (keyword !== undefined) {
    if (keyword === "defmodule" || keyword === "defprotocol" || keyword === "defimpl") moduleLike(node, at, facts, keyword);
    else if (keyword === "alias" || keyword === "import" || keyword === "use" || keyword === "require") directive(at, facts, keyword);
    else if (keyword !== "defstruct" && keyword !== "defexception") definition(node, at, facts, keyword);
    return;
  }
  const head = /^[\p{L}_][\p{L}\p{N}_?!]*/u.exec(text.slice(at.start, at.start + 40))?.[0];
  // The head of a definition (`def find(id)`) is a call node too.
  if ((head !== undefined && NOT_CALLS.has(head)) || facts.marks.has(at.start)) return;
  facts.queueCall(node, at);
};

/** `@attr …`: calls inside attributes (`@spec`, `@type`) are types, not calls. */
const unaryOperator: Handler = (_node, at, facts) => {
  if (facts.text.charCodeAt(at.start) === 64 /* @ */) facts.pushScope({ start: at.start, end: at.end, role: "value", exported: false, data: { attribute: true } });
};

const HANDLERS: Record<string, Handler> = {
  call,
  unary_operator: unaryOperator,
};

const CALLS: CallSyntax = {
  openers: "(",
  spaceOpens: true,
  callee: (node) => node.child(0),
};

export const elixirExtractor = extractorFor(HANDLERS, { calls: CALLS });
