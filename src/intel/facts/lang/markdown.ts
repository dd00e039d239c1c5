/**
 * Markdown: headings (ATX and setext) as `heading` symbols nested by level; each spans its
 * section (the heading through the text before the next heading of the same or a higher level),
 * so `show` returns a whole section. The signature is the heading line.
 */
import { LIMITS } from "../../../core/limits.ts";
import type { At, Handler, LanguageExtractor } from "../engine.ts";
import { collapse } from "../text.ts";

interface OpenHeading {
  level: number;
  qualifiedName: string;
  symbolIndex: number;
}

function headingText(raw: string, setext: boolean): string {
  const firstLine = setext ? raw.split("\n")[0]! : raw.replace(/^\s*#{1,6}\s*/, "").replace(/\s+#+\s*$/, "");
  return collapse(firstLine, 160);
}

/** Headings in document order; a heading closes the open ones of the same or a deeper level. */
const documentHandler: Handler = (node, _at, facts) => {
  const headings = node.findAll({ rule: { any: [{ kind: "atx_heading" }, { kind: "setext_heading" }] } });
  const open: OpenHeading[] = [];
  const lines = facts.text.split("\n");
  const close = (level: number, beforeLine: number): void => {
    // A section ends at its last line with text before the next heading.
    let end = beforeLine;
    while (end > 1 && (lines[end - 1] ?? "").trim().length === 0) end--;
    while (open.length > 0 && open[open.length - 1]!.level >= level) {
      const heading = open.pop()!;
      const symbol = facts.symbols[heading.symbolIndex]!;
      symbol.endLine = Math.max(symbol.startLine, end);
    }
  };
  for (const heading of headings.slice(0, LIMITS.intel.facts.markupMaxSymbols)) {
    const at: At = facts.at(heading);
    const raw = facts.text.slice(at.start, at.end);
    const setext = heading.kind() === "setext_heading";
    const level = setext ? (/\n\s*=+\s*$/.test(raw.trimEnd()) ? 1 : 2) : (/^\s*(#{1,6})/.exec(raw)?.[1]?.length ?? 1);
    close(level, at.line - 1);
    const name = headingText(raw, setext);
    if (name.length === 0) continue;
    const parent = open[open.length - 1];
    facts.symbols.push({
      name,
      qualifiedName: parent === undefined ? name : `${parent.qualifiedName}.${name}`,
      kind: "heading",
      visibility: "public",
      exported: true,
      startLine: at.line,
      endLine: at.endLine,
      signature: collapse(setext ? `${"#".repeat(level)} ${name}` : raw.trim().split("\n")[0]!, 160),
      ...(parent === undefined ? {} : { parent: parent.qualifiedName }),
    });
    open.push({ level, qualifiedName: parent === undefined ? name : `${parent.qualifiedName}.${name}`, symbolIndex: facts.symbols.length - 1 });
  }
  close(0, lines.length);
};

export const markdownExtractor: LanguageExtractor = { rules: [{ kind: "document" }], handlers: { document: documentHandler } };
