/**
 * Bash (and sh/zsh): functions (`name() {…}` and `function name {…}`), file-level variables
 * (`readonly` ones are constants, `export`ed ones public), `#` comments above as docs,
 * `source`/`.` as imports, and every command as a call to its command name.
 */
import type { SgNode } from "@ast-grep/napi";
import type { At, FactsBuilder, Handler } from "../engine.ts";
import { collapse, type CommentStyle, headText, unquote } from "../text.ts";
import { declare, extractorFor } from "./common.ts";

const DOC: CommentStyle = { line: ["#"] };

const functionDefinition: Handler = (node, at, facts) => {
  const name = (node.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const body = node.field("body" as never) as SgNode | null;
  const local = facts.inCallable();
  declare(facts, {
    name,
    kind: "function",
    visibility: local ? "private" : "public",
    exported: !local,
    at,
    signature: headText(facts.text, at.start, body?.range().start.index ?? at.end),
    docStyle: DOC,
    role: "callable",
  });
};

function assignment(statement: SgNode, at: At, facts: FactsBuilder, keyword: string | undefined): void {
  const name = (statement.field("name" as never) as SgNode | null)?.text();
  if (name === undefined) return;
  const text = facts.text.slice(at.start, at.end);
  const exported = keyword === "export" || keyword === "declare -x";
  declare(facts, {
    name,
    kind: keyword === "readonly" || keyword?.startsWith("declare -r") === true ? "constant" : "variable",
    visibility: exported ? "public" : "file",
    exported,
    at,
    signature: collapse(text.split("\n")[0]!),
    docStyle: DOC,
  });
}

/** File-level variables (assignments inside functions are local and left out). */
function program(node: SgNode, facts: FactsBuilder): void {
  for (const statement of node.namedChildren()) {
    const kind = statement.kind() as string;
    if (kind === "variable_assignment") assignment(statement, facts.at(statement), facts, undefined);
    else if (kind === "declaration_command") {
      const at = facts.at(statement);
      const keyword = /^(readonly|export|declare(?:\s+-\w+)?|typeset(?:\s+-\w+)?|local)\b/.exec(facts.text.slice(at.start, at.start + 20))?.[1];
      for (const child of statement.namedChildren()) if (child.kind() === "variable_assignment") assignment(child, at, facts, keyword);
    }
  }
}

/** Every command calls its command name; `source f` / `. f` also import f. */
const command: Handler = (node, at, facts) => {
  const nameNode = node.field("name" as never) as SgNode | null;
  if (nameNode === null) return;
  const name = nameNode.text();
  if (name === "source" || name === ".") {
    const argument = node.fieldChildren("argument" as never)[0] as SgNode | undefined;
    if (argument !== undefined) facts.imports.push({ specifier: unquote(argument.text()), kind: "include", names: [], line: at.line });
  }
  if (/^[\p{L}\p{N}_.:/-]+$/u.test(name)) facts.addCall(name, at.line, at.column);
};

const HANDLERS: Record<string, Handler> = {
  program: (node, _at, facts) => program(node, facts),
  function_definition: functionDefinition,
  command,
};

export const bashExtractor = extractorFor(HANDLERS, { callKinds: { command: { kind: "command", regex: "^(?:source|\\.)\\s" } } });
