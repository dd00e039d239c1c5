/**
 * The form a `run` pattern runs in. A fragment such as Go's `fmt.Errorf($$$A)` parses on its own,
 * but as a different node than the same text inside a function body (a type conversion at top
 * level, a call in a body), so it matches nothing real; Java and C calls need a `;`; Dart refuses
 * a bare call. So each pattern is tried in a few code positions of its language: it runs as given
 * when it parses cleanly and matches its own text in the language's usual position (on its own,
 * or in a function body where only declarations stand on their own); otherwise it runs as
 * ast-grep's context-and-selector form built from the first position where it parses (the
 * position's code is the context, the node spanning exactly the pattern the selector), and the
 * answer says so. A pattern whose brackets do not balance, or that ast-grep refuses in every
 * form, cannot run: its problem says where it breaks. One that parses nowhere but is accepted
 * runs as given (ast-grep tolerates some errors), its problem not fatal.
 */
import type { NapiConfig, SgNode } from "@ast-grep/napi";
import { LruMap } from "../helpers/lru-map.ts";
import { lineIndexAt, lineStarts } from "../text/lines.ts";
import { patternExpandoFor } from "./grammars.ts";
import type { LanguageId } from "./language-names.ts";
import { parseSource, parseTree, type SyntaxErrorLocation } from "./parse.ts";

const HOLE = "\u0000";

/**
 * Languages whose code outside declarations lives only in bodies: a pattern standing on its own
 * is read as top-level code there (Go reads `fmt.Errorf(x)` at top level as a type conversion; PHP
 * reads anything before `<?php` as text), so a pattern must match its own text in the first
 * position below to run as given. Elsewhere standing on its own is the usual reading (C#'s
 * `using $N;`, a TypeScript call; a TypeScript call in a class body is a method signature).
 */
const BODY_FIRST: ReadonlySet<LanguageId> = new Set(["go", "php"]);

/** Code positions a pattern may sit in, per language, besides standing on its own (HOLE marks it), most usual first. */
const POSITIONS: Partial<Record<LanguageId, readonly string[]>> = {
  typescript: [`function __ctx() { ${HOLE} }`, `class __Ctx { ${HOLE} }`],
  tsx: [`function __ctx() { ${HOLE} }`, `class __Ctx { ${HOLE} }`],
  javascript: [`function __ctx() { ${HOLE} }`, `class __Ctx { ${HOLE} }`],
  go: [`func _() { ${HOLE} }`],
  rust: [`fn __ctx() { ${HOLE}; }`, `fn __ctx() { ${HOLE} }`],
  java: [`class __Ctx { void __ctx() { ${HOLE}; } }`, `class __Ctx { void __ctx() { ${HOLE} } }`, `class __Ctx { ${HOLE} }`],
  csharp: [`class __Ctx { void __ctx() { ${HOLE}; } }`, `class __Ctx { void __ctx() { ${HOLE} } }`, `class __Ctx { ${HOLE} }`],
  kotlin: [`fun __ctx() { ${HOLE} }`],
  c: [`void __ctx() { ${HOLE}; }`, `void __ctx() { ${HOLE} }`],
  cpp: [`void __ctx() { ${HOLE}; }`, `void __ctx() { ${HOLE} }`],
  php: [`<?php ${HOLE};`, `<?php ${HOLE}`],
  swift: [`func __ctx() { ${HOLE} }`],
  scala: [`object __Ctx { def __ctx() = { ${HOLE} } }`],
  dart: [`void __ctx() { ${HOLE}; }`, `void __ctx() { ${HOLE} }`, `class __Ctx { ${HOLE} }`],
};

export interface StructuralQueryShape {
  pattern: string;
  selector?: string;
}

export interface PatternProblem {
  /** Where and why the pattern does not parse, for a message. */
  message: string;
  /**
   * Whether no form of the pattern can run: its brackets do not balance, or ast-grep refuses it.
   * Otherwise the pattern runs as given (ast-grep tolerates some errors) and the answer says so.
   */
  fatal: boolean;
  /** 1-based line and column inside the pattern. */
  line: number;
  column: number;
}

export interface PatternForm {
  /** The pattern (and selector) as it runs. */
  pattern: string;
  selector?: string;
  /** Set when the pattern runs in the context-and-selector form: what was done and why. */
  note?: string;
  /** Set when the pattern parses in no position of its language. */
  problem?: PatternProblem;
}

interface Probe {
  /** The position's code with the pattern in it, "$" spelled as ast-grep spells it before parsing. */
  source: string;
  /** The position's code with the pattern as written (an ast-grep context). */
  context: string;
  /** UTF-16 offsets of the pattern inside source. */
  start: number;
  end: number;
  clean: boolean;
  root: SgNode | undefined;
}

function probe(template: string, pattern: string, expanded: string, language: LanguageId, expando: string): Probe {
  const at = template.indexOf(HOLE);
  const source = template.replace(HOLE, () => expanded);
  const parsed = parseSource(language, source);
  const trimmed = expanded.trimEnd();
  // ast-grep takes a $$$B where the grammar wants a statement or member (Java's `class $C { $$$B }`):
  // an error made of metavariables alone, or a token missing right after one, does not count.
  const metavariables = new RegExp(`^(?:[\\s,;]*(?:${escapeRegExp(expando)})+[A-Z0-9_]*)+[\\s,;]*$`);
  const starts = lineStarts(source);
  const tolerable = (error: SyntaxErrorLocation) => {
    if (error.kind === "error") return metavariables.test(error.text);
    // A bracket the parser had to assume is the pattern's own mistake (`f($A`), whatever precedes it.
    if (error.expected !== undefined && ")]}".includes(error.expected)) return false;
    const offset = (starts[error.line - 1] ?? 0) + error.column - 1;
    return /(?:^|[^\p{L}\p{N}_$])\$+[A-Z0-9_]*\s*$/u.test(source.slice(0, offset).replaceAll(expando, "$"));
  };
  return {
    source,
    context: template.replace(HOLE, () => pattern),
    start: at + (expanded.length - expanded.trimStart().length),
    end: at + trimmed.length,
    clean: parsed !== undefined && parsed.errors.every(tolerable),
    root: parsed?.root.root(),
  };
}

/** `text` as a regular expression that matches exactly it. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The napi rule of a pattern form. */
export function configOf(form: StructuralQueryShape): NapiConfig {
  return { rule: { pattern: form.selector === undefined ? form.pattern : { context: form.pattern, selector: form.selector } } };
}

function matchesItself(form: StructuralQueryShape, at: Probe, language: LanguageId): boolean {
  const tree = parseTree(language, at.source);
  if (!tree) return false;
  let nodes: SgNode[];
  try {
    nodes = tree.root().findAll(configOf(form));
  } catch {
    return false;
  }
  // A statement match may take the position's trailing ";" with it.
  const tail = tailOf(at);
  return nodes.some((node) => {
    const range = node.range();
    return range.start.index === at.start && range.end.index >= at.end && range.end.index <= at.end + tail;
  });
}

/** The innermost named node spanning exactly the pattern (up to `end` plus `tail` more characters). */
function exactNode(node: SgNode, start: number, end: number, tail = 0): SgNode | undefined {
  for (const child of node.children()) {
    const range = child.range();
    if (range.start.index <= start && range.end.index >= end) {
      const inner = exactNode(child, start, end, tail);
      if (inner) return inner;
      break;
    }
  }
  const range = node.range();
  return node.isNamed() && range.start.index === start && range.end.index >= end && range.end.index <= end + tail ? node : undefined;
}

function tailOf(at: Probe): number {
  return at.source.slice(at.end).match(/^[\s;]*/)?.[0].length ?? 0;
}

/** 1-based line and column of a UTF-16 offset in text. */
function positionAt(text: string, offset: number): { line: number; column: number } {
  const starts = lineStarts(text);
  const line = lineIndexAt(starts, offset);
  return { line: line + 1, column: offset - starts[line]! + 1 };
}

const CLOSERS: Readonly<Record<string, string>> = { ")": "(", "]": "[", "}": "{" };

/**
 * The first unbalanced bracket of a pattern (strings skipped), the usual reason a pattern does not
 * parse. Asked only of a pattern that parses nowhere: a quote is not always one (a Rust lifetime).
 */
export function bracketProblem(pattern: string): PatternProblem | undefined {
  const open: Array<{ char: string; at: number }> = [];
  let quote: string | undefined;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at]!;
    if (quote !== undefined) {
      if (char === "\\") at++;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === "\"" || char === "'" || char === "`") quote = char;
    else if (char === "(" || char === "[" || char === "{") open.push({ char, at });
    else if (char in CLOSERS) {
      const last = open.pop();
      if (last?.char !== CLOSERS[char]) {
        const where = positionAt(pattern, at);
        return { ...where, fatal: true, message: `the ${JSON.stringify(char)} at line ${where.line}, column ${where.column} closes nothing` };
      }
    }
  }
  const unclosed = open[open.length - 1];
  if (unclosed === undefined) return undefined;
  const where = positionAt(pattern, unclosed.at);
  const end = positionAt(pattern, pattern.length);
  return {
    ...where,
    fatal: true,
    message: `the ${JSON.stringify(unclosed.char)} at line ${where.line}, column ${where.column} is not closed by the end of the pattern (line ${end.line}, column ${end.column})`,
  };
}

/** Where the pattern, parsed on its own, breaks first. */
function parseProblem(pattern: string, expanded: string, language: LanguageId, refused: boolean): PatternProblem {
  const brackets = bracketProblem(pattern);
  if (brackets) return brackets;
  const first = parseSource(language, expanded)?.errors[0];
  if (!first) return { line: 1, column: 1, fatal: refused, message: "it parses in no code position tried" };
  const message = first.kind === "missing" ?
    `a ${JSON.stringify(first.expected)} is missing at line ${first.line}, column ${first.column}` :
    `a syntax error at line ${first.line}, column ${first.column} (${JSON.stringify(first.text.split("\n")[0])})`;
  return { line: first.line, column: first.column, fatal: refused, message };
}

function refusedByAstGrep(form: StructuralQueryShape, language: LanguageId): boolean {
  const empty = parseTree(language, "");
  if (!empty) return true;
  try {
    empty.root().findAll(configOf(form));
    return false;
  } catch {
    return true;
  }
}

/**
 * Forms worked out, by language and pattern (a pure function of the two): finding one parses the
 * pattern in up to four code positions, which a warm `run` (a preview, then its write; the same
 * pattern asked again) would otherwise repeat for every language in scope.
 */
const PATTERN_FORMS_KEPT = 64;
const forms = new LruMap<string, Readonly<PatternForm>>(PATTERN_FORMS_KEPT);

/**
 * The form `pattern` runs in as `language` (with no selector given: a given selector is the
 * caller's choice and runs as given). Kept for the patterns asked last.
 */
export function patternForm(query: StructuralQueryShape, language: LanguageId): Readonly<PatternForm> {
  if (query.selector !== undefined) return { pattern: query.pattern, selector: query.selector };
  const key = `${language}\0${query.pattern}`;
  let form = forms.get(key);
  if (form === undefined) {
    form = Object.freeze(formOf(query.pattern, language));
    forms.set(key, form);
  }
  return form;
}

function formOf(pattern: string, language: LanguageId): PatternForm {
  const query = { pattern };
  const expando = patternExpandoFor(language) ?? "$";
  const expanded = query.pattern.replaceAll("$", expando);
  const plain = { pattern: query.pattern };
  const alone = probe(HOLE, query.pattern, expanded, language, expando);
  // PHP reads everything before `<?php` as text, which parses and matches only text.
  if (language === "php" && !query.pattern.trimStart().startsWith("<?")) alone.clean = false;
  const placed = (POSITIONS[language] ?? []).map((template) => probe(template, query.pattern, expanded, language, expando)).filter((at) => at.clean);
  const usual = BODY_FIRST.has(language) && placed.length > 0 ? placed[0]! : alone;
  if (usual.clean && matchesItself(plain, usual, language)) return plain;
  const why = !alone.clean ? "does not parse on its own" : `parses as a ${kindSpanning(alone)} on its own`;
  const selected = (at: Probe, node: SgNode | undefined): PatternForm | undefined => {
    if (!node) return undefined;
    const form = { pattern: at.context, selector: String(node.kind()) };
    if (!matchesItself(form, at, language)) return undefined;
    return {
      ...form,
      note: `${language}: the pattern ${why}, so it ran as the ${form.selector} in ${JSON.stringify(at.context)} (that code as pattern, selector ${
        JSON.stringify(form.selector)
      }; pass your own pattern and selector to match another node)`,
    };
  };
  // A node spanning exactly the pattern keeps its meaning; one that needs the position's ";" (a
  // Dart call, C's `if ($C) $S`) does not, so it is the last resort, after the pattern as given.
  for (const at of placed) {
    const form = selected(at, at.root && exactNode(at.root, at.start, at.end));
    if (form) return form;
  }
  if (placed.some((at) => matchesItself(plain, at, language))) return plain;
  for (const at of placed) {
    const form = selected(at, at.root && exactNode(at.root, at.start, at.end, tailOf(at)));
    if (form) return form;
  }
  if (alone.clean) return plain;
  return { ...plain, problem: parseProblem(query.pattern, expanded, language, refusedByAstGrep(plain, language)) };
}

function kindSpanning(at: Probe): string {
  const node = at.root && exactNode(at.root, at.start, at.end);
  return node ? String(node.kind()) : "different node";
}
