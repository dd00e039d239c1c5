/**
 * The form a `run` pattern runs in. A fragment such as Go's `fmt.Errorf($$$A)` parses on its own,
 * but as a different node than the same text inside a function body (a type conversion at top
 * level, a call in a body), so it matches nothing real; Java and C calls need a `;`; Dart refuses
 * a bare call. So each pattern is tried in a few code positions of its language: it runs as given
 * when it parses cleanly on its own and matches its own text there and in the first other position
 * where it parses; otherwise it runs as ast-grep's context-and-selector form built from the
 * first other position where it parses (the position's code is the context, the node spanning
 * exactly the pattern the selector), and the answer says so. A pattern that parses in no position is refused with where it breaks.
 */
import type { NapiConfig, SgNode } from "@ast-grep/napi";
import { patternExpandoFor } from "./grammars.ts";
import type { LanguageId } from "./language-names.ts";
import { parseSource, parseTree } from "./parse.ts";

const HOLE = "\u0000";

/** Code positions a pattern may sit in, per language, besides standing on its own (HOLE marks it). */
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

function probe(template: string, pattern: string, expanded: string, language: LanguageId): Probe {
  const at = template.indexOf(HOLE);
  const source = template.replace(HOLE, () => expanded);
  const parsed = parseSource(language, source);
  const trimmed = expanded.trimEnd();
  return {
    source,
    context: template.replace(HOLE, () => pattern),
    start: at + (expanded.length - expanded.trimStart().length),
    end: at + trimmed.length,
    clean: parsed !== undefined && parsed.errorCount === 0,
    root: parsed?.root.root(),
  };
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

/** The node the pattern is at a position: spanning it exactly, else (a Dart call is no one node) its statement with the ";". */
function selectedNode(at: Probe): SgNode | undefined {
  if (at.root === undefined) return undefined;
  return exactNode(at.root, at.start, at.end) ?? exactNode(at.root, at.start, at.end, tailOf(at));
}

function tailOf(at: Probe): number {
  return at.source.slice(at.end).match(/^[\s;]*/)?.[0].length ?? 0;
}

/** 1-based line and column of a UTF-16 offset in text. */
function positionAt(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf("\n") + 1;
  return { line: before.split("\n").length, column: offset - lineStart + 1 };
}

const CLOSERS: Readonly<Record<string, string>> = { ")": "(", "]": "[", "}": "{" };

/** The first unbalanced bracket of a pattern (strings skipped), the usual reason a pattern does not parse. */
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
        return { ...where, message: `the ${JSON.stringify(char)} at line ${where.line}, column ${where.column} closes nothing` };
      }
    }
  }
  const unclosed = open[open.length - 1];
  if (unclosed === undefined) return undefined;
  const where = positionAt(pattern, unclosed.at);
  const end = positionAt(pattern, pattern.length);
  return {
    ...where,
    message: `the ${JSON.stringify(unclosed.char)} at line ${where.line}, column ${where.column} is not closed by the end of the pattern (line ${end.line}, column ${end.column})`,
  };
}

/** Where the pattern, parsed on its own, breaks first. */
function parseProblem(pattern: string, expanded: string, language: LanguageId): PatternProblem {
  const brackets = bracketProblem(pattern);
  if (brackets) return brackets;
  const first = parseSource(language, expanded)?.errors[0];
  if (!first) return { line: 1, column: 1, message: "it parses in no code position tried" };
  const message = first.kind === "missing" ?
    `a ${JSON.stringify(first.expected)} is missing at line ${first.line}, column ${first.column}` :
    `a syntax error at line ${first.line}, column ${first.column} (${JSON.stringify(first.text.split("\n")[0])})`;
  return { line: first.line, column: first.column, message };
}

/**
 * The form `pattern` runs in as `language` (with no selector given: a given selector is the
 * caller's choice and runs as given).
 */
export function patternForm(query: StructuralQueryShape, language: LanguageId): PatternForm {
  if (query.selector !== undefined) return { pattern: query.pattern, selector: query.selector };
  const expando = patternExpandoFor(language) ?? "$";
  const expanded = query.pattern.replaceAll("$", expando);
  const alone = probe(HOLE, query.pattern, expanded, language);
  const probes = [alone, ...(POSITIONS[language] ?? []).map((template) => probe(template, query.pattern, expanded, language))];
  const clean = probes.filter((at) => at.clean);
  if (clean.length === 0) return { pattern: query.pattern, problem: parseProblem(query.pattern, expanded, language) };
  const plain = { pattern: query.pattern };
  // The positions are in order of how usual they are: the plain pattern must match its own text
  // on its own and in the first position where it parses (a TypeScript call in a class body is a
  // method signature: that it does not match there is no reason to change its form).
  const placed = clean.filter((at) => at !== alone);
  if (alone.clean && matchesItself(plain, alone, language) && (placed.length === 0 || matchesItself(plain, placed[0]!, language))) return plain;
  for (const at of placed) {
    const node = selectedNode(at);
    if (!node) continue;
    const form = { pattern: at.context, selector: String(node.kind()) };
    if (!matchesItself(form, at, language)) continue;
    const why = !alone.clean ? "does not parse on its own" : `parses as a ${kindSpanning(alone)} on its own`;
    return {
      ...form,
      note: `${language}: the pattern ${why}, so it ran as the ${form.selector} in ${JSON.stringify(at.context)} (pass that as pattern with selector ${
        JSON.stringify(form.selector)
      } to choose another form)`,
    };
  }
  if (alone.clean) return plain;
  return { pattern: query.pattern, problem: parseProblem(query.pattern, expanded, language) };
}

function kindSpanning(at: Probe): string {
  const node = selectedNode(at);
  return node ? String(node.kind()) : "different node";
}
