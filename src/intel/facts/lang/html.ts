/**
 * HTML: a minimal outline of headings (`<h1>`–`<h6>`, by their text, nested by level), elements
 * with an `id` (`#id`), and custom elements (`<user-list>`, which name a component); `<script
 * src>`, `<link href>` (stylesheets, modules, imports) are the imports. Inline scripts are not
 * parsed as JavaScript here.
 */
import { LIMITS } from "../../../core/limits.ts";
import type { Handler, LanguageExtractor } from "../engine.ts";
import { collapse } from "../text.ts";
import type { SymbolFact } from "../types.ts";

const IMPORT_TAGS: Readonly<Record<string, string>> = { script: "src", link: "href" };

function attribute(startTag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(startTag);
  return match === null ? undefined : (match[1] ?? match[2] ?? match[3]);
}

const documentHandler: Handler = (node, _at, facts) => {
  const startTags = node.findAll({ rule: { kind: "start_tag" } });
  const openHeadings: Array<{ level: number; symbol: SymbolFact }> = [];
  let count = 0;
  for (const startTag of startTags) {
    if (count >= LIMITS.intel.facts.markupMaxSymbols) break;
    const at = facts.at(startTag);
    const tag = facts.text.slice(at.start, at.end);
    const name = /^<\s*([\w-]+)/.exec(tag)?.[1]?.toLowerCase();
    if (name === undefined) continue;
    const importAttribute = Object.hasOwn(IMPORT_TAGS, name) ? IMPORT_TAGS[name] : undefined;
    if (importAttribute !== undefined) {
      const target = attribute(tag, importAttribute);
      if (target !== undefined && target.length > 0) facts.imports.push({ specifier: target, kind: "include", names: [], line: at.line });
    }
    const element = startTag.parent();
    const elementAt = element === null ? at : facts.at(element);
    const heading = /^h([1-6])$/.exec(name);
    if (heading) {
      const level = Number(heading[1]);
      const text = collapse(facts.text.slice(at.end, elementAt.end).replace(/<\/h[1-6]\s*>\s*$/i, "").replace(/<[^>]*>/g, " "), 160);
      while (openHeadings.length > 0 && openHeadings[openHeadings.length - 1]!.level >= level) openHeadings.pop();
      const parent = openHeadings[openHeadings.length - 1]?.symbol;
      const symbol: SymbolFact = {
        name: text,
        qualifiedName: parent === undefined ? text : `${parent.qualifiedName}.${text}`,
        kind: "heading",
        visibility: "public",
        exported: true,
        startLine: elementAt.line,
        endLine: elementAt.endLine,
        signature: collapse(`<${name}> ${text}`, 160),
      };
      if (parent !== undefined) symbol.parent = parent.qualifiedName;
      facts.symbols.push(symbol);
      openHeadings.push({ level, symbol });
      count++;
    }
    const id = attribute(tag, "id");
    const custom = name.includes("-");
    if (id !== undefined || custom) {
      const symbolName = id !== undefined ? `#${id}` : name;
      facts.symbols.push({
        name: symbolName,
        qualifiedName: symbolName,
        kind: custom ? "class" : "key",
        visibility: "public",
        exported: true,
        startLine: elementAt.line,
        endLine: elementAt.endLine,
        signature: collapse(tag, 160),
      });
      count++;
    }
  }
};

export const htmlExtractor: LanguageExtractor = { rules: [{ kind: "document" }], handlers: { document: documentHandler } };
