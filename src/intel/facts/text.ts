/**
 * Plain-text helpers of the fact extractors: signatures, doc comments and string literals are read
 * from the source string around positions the syntax tree gave, so no extra tree node has to
 * cross into JavaScript for them.
 */
import { LIMITS } from "../../core/limits.ts";
import { lineStartBefore } from "../../text/index.ts";

/** Collapses whitespace runs to one space and cuts to `max` characters (marking the cut with "…"). */
export function collapse(text: string, max: number = LIMITS.intel.facts.signatureChars): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

/** Like collapse, but keeps the end (where a callee's own name is). */
export function collapseTail(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `…${flat.slice(flat.length - max + 1).trimStart()}`;
}

/**
 * Removes `/* … *\/` and `// …` comments from a declaration head (a `//` that follows `:` is a
 * URL in a string, not a comment).
 */
function withoutComments(text: string): string {
  if (!text.includes("/")) return text;
  return text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[\s,({[;])\/\/[^\n]*/g, "$1");
}

/** The declaration head from `start` to `end`, collapsed, with a trailing body opener removed. */
export function headText(text: string, start: number, end: number): string {
  const max = LIMITS.intel.facts.signatureChars;
  // Only the first part can survive the cut: do not collapse a whole long head.
  let head = withoutComments(text.slice(start, Math.min(Math.max(start, end), start + max * 8))).replace(/\s+/g, " ").trim();
  const last = head.charCodeAt(head.length - 1);
  if (last === 123 /* { */ || last === 58 /* : */ || last === 59 /* ; */ || last === 61 /* = */) head = head.slice(0, -1).trimEnd();
  else if (/[a-z]$/.test(head)) head = head.replace(/\s(?:where|do|then|begin|is|as)$/, "");
  return head.length <= max ? head : `${head.slice(0, max - 1).trimEnd()}…`;
}

/** The value of a quoted string literal (quotes, prefixes and simple escapes removed). */
export function unquote(literal: string): string {
  const trimmed = literal.trim();
  const match = /^[a-zA-Z]{0,2}("""|'''|"|'|`)([\s\S]*)\1$/.exec(trimmed);
  if (!match) return trimmed;
  return match[2]!.replace(/\\(["'`\\])/g, "$1");
}

export interface CommentStyle {
  /** Line comment markers that count as documentation, longest first ("///", "//"; "#"; "--"). */
  line?: readonly string[];
  /** Accept block comments: "doc" only `/**` (and `/*!`), "any" every `/* … *\/`. */
  block?: "doc" | "any";
  /** Lines between the comment and the declaration that are skipped (attributes, annotations). */
  skipLine?: RegExp;
}

/**
 * The raw text of the doc comment that ends right above `index` (the start of a declaration): a
 * block comment or a run of line comments, each alone on its line(s), separated from the
 * declaration by no blank line. Undefined when there is none.
 */
export function commentAbove(text: string, index: number, style: CommentStyle): string | undefined {
  let cursor = lineStartBefore(text, index);
  // Only indentation may precede the declaration on its line.
  if (text.slice(cursor, index).trim().length > 0) return undefined;
  const lines: string[] = [];
  let blockHandled = false;
  while (cursor > 0) {
    const previousStart = lineStartBefore(text, cursor - 1);
    const line = text.slice(previousStart, cursor - 1).replace(/\r$/, "");
    const trimmed = line.trim();
    if (trimmed.length === 0) break;
    if (style.skipLine?.test(trimmed) && lines.length === 0) {
      cursor = previousStart;
      continue;
    }
    const marker = style.line?.find((candidate) => trimmed.startsWith(candidate));
    if (marker !== undefined && !trimmed.startsWith("#!")) {
      lines.unshift(trimmed);
      cursor = previousStart;
      continue;
    }
    if (lines.length === 0 && !blockHandled && style.block !== undefined && trimmed.endsWith("*/")) {
      const close = previousStart + line.lastIndexOf("*/");
      const open = text.lastIndexOf("/*", close);
      if (open === -1) return undefined;
      const before = text.slice(lineStartBefore(text, open), open);
      if (before.trim().length > 0) return undefined;
      const comment = text.slice(open, close + 2);
      if (style.block === "doc" && !/^\/\*[*!](?!\/)/.test(comment)) return undefined;
      return comment;
    }
    break;
  }
  return lines.length > 0 ? lines.join("\n") : undefined;
}

const MARKER = /^\s*(?:\/\/[/!]?|#+'?|--+\s*[|^]?|\*(?!\/)|;+|%+)/;
const TAG_LINE = /^(?:@\w|:\w+[\s:]|(?:Args|Arguments|Returns|Raises|Parameters|Examples?|Yields):\s*$|#\s)/;

/** Strips comment markers (`/**`, `*`, `///`, `#`, `--`, `-- |`) from a raw comment. */
export function stripCommentMarkers(raw: string): string {
  return commentLines(raw).join("\n");
}

function commentLines(raw: string, limit = Number.MAX_SAFE_INTEGER): string[] {
  let body = raw;
  if (body.startsWith("/*")) body = body.replace(/^\/\*[*!]?/, "").replace(/\*\/$/, "");
  const lines: string[] = [];
  let from = 0;
  while (from <= body.length && lines.length < limit) {
    const newline = body.indexOf("\n", from);
    const line = body.slice(from, newline === -1 ? body.length : newline);
    lines.push(line.replace(MARKER, "").trim());
    if (newline === -1) break;
    from = newline + 1;
  }
  return lines;
}

/**
 * The first sentence of a doc text: up to the first ". " (or "!"/"?") or blank line, stopping
 * before tag lines (`@param`, `:param`, `Args:`); undefined when nothing is left.
 */
export function firstSentence(body: string): string | undefined {
  return sentenceOf(body.split("\n").map((line) => line.trim()));
}

function sentenceOf(lines: readonly string[]): string | undefined {
  const kept: string[] = [];
  for (const trimmed of lines) {
    if (trimmed.length === 0) {
      if (kept.length > 0) break;
      continue;
    }
    if (TAG_LINE.test(trimmed)) break;
    kept.push(trimmed);
    // Enough text for a sentence: stop reading.
    if (/[.!?](?=\s|$)/.test(trimmed)) break;
  }
  const paragraph = kept.join(" ").replace(/\s+/g, " ").trim();
  if (paragraph.length === 0) return undefined;
  const end = /[.!?](?=\s|$)/.exec(paragraph);
  const sentence = end ? paragraph.slice(0, end.index + 1) : paragraph;
  const max = LIMITS.intel.facts.docChars;
  return sentence.length <= max ? sentence : `${sentence.slice(0, max - 1).trimEnd()}…`;
}

/** The first doc sentence of the comment above `index`, or undefined. */
export function docAbove(text: string, index: number, style: CommentStyle): string | undefined {
  const raw = commentAbove(text, index, style);
  // The first sentence is near the start: only the first lines are cleaned up.
  return raw === undefined ? undefined : sentenceOf(commentLines(raw, 40));
}

/**
 * A string literal that starts at `index` after optional whitespace and comments (a Python
 * docstring right after a `def …:` head). Undefined when the next token is not a string.
 */
export function stringLiteralAt(text: string, index: number, lineComment = "#"): string | undefined {
  let cursor = index;
  for (;;) {
    while (cursor < text.length && /\s/.test(text[cursor]!)) cursor++;
    if (text.startsWith(lineComment, cursor)) {
      const newline = text.indexOf("\n", cursor);
      if (newline === -1) return undefined;
      cursor = newline + 1;
      continue;
    }
    break;
  }
  const match = /^[rRuUbBfF]{0,2}("""|'''|"|')/.exec(text.slice(cursor, cursor + 6));
  if (!match) return undefined;
  const quote = match[1]!;
  const bodyStart = cursor + match[0].length;
  let scan = bodyStart;
  for (;;) {
    const close = text.indexOf(quote, scan);
    if (close === -1) return undefined;
    if (text[close - 1] === "\\" && text[close - 2] !== "\\") {
      scan = close + 1;
      continue;
    }
    return text.slice(bodyStart, close);
  }
}

/** Removes the common indentation of a multi-line doc string (after its first line). */
export function dedentDoc(body: string): string {
  return body
    .split("\n")
    .map((line) => line.trim())
    .join("\n");
}

/** Parses `"x"`, `'x'` or a backtick string without substitutions at the start of `text`. */
export function leadingStringLiteral(text: string): string | undefined {
  const match = /^\s*(["'`])((?:\\.|(?!\1)[^\\\n$])*)\1/.exec(text);
  return match ? match[2] : undefined;
}
