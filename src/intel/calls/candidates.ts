/**
 * Unresolved candidates: places where a target's name is written but nothing resolves to the
 * target, listed apart from the resolved calls with the reason, so an answer of "0 callers" or
 * "0 files" is never silent when the tree holds the textual occurrences. A candidate is below every
 * confidence of the call graph (exact, inferred, ambiguous): it is not a call, and never counted as one.
 *
 * Two sources. Call sites of the name whose resolution stopped at an import that did not resolve
 * (or resolved outside the roots while its path names the target's module), or at a name nothing
 * binds: read from the facts, cheap, always. And, when no call resolves to the target (and it is
 * not a type), a word-bounded literal scan of the texts that may name it (`scanScope`, bounded in
 * bytes), for the occurrences that are not calls the extractor saw (a value passed on, an import
 * line); prose (comments, strings, docstrings) and bindings of the name are left out.
 *
 * The same path rule (`mayName`) finds the imports elsewhere that did not resolve though their
 * path names a file's module: what deps, reverse_deps and impact list instead of a silent 0.
 */
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import type { CallFact, ImportFact } from "../facts/types.ts";
import type { ImportGraph } from "../graph/import-graph.ts";
import type { GraphFile, UnresolvedReason } from "../graph/types.ts";
import type { CallGraph } from "./call-graph.ts";
import { FileImports, type ImportState } from "./file-imports.ts";
import { groupOf, KNOWN_GLOBALS, MODULE_SCOPED, RECEIVER_WORDS, splitQualifier, TYPE_KINDS } from "./names.ts";
import type { CallResolution, SymbolRef } from "./types.ts";
import { lineIndexAt, lineStarts } from "../../text/index.ts";

/**
 * Why an occurrence did not resolve: `unresolved_import` — the import binding the name did not
 * resolve (the import graph's reason); `external_import` — it resolved to no file under the roots
 * and was taken as an external module, though its path names the target's module; `unbound` — no
 * import or declaration in scope binds the name; `value` — the name is used without a call the
 * index resolved (called through a value, passed on, assigned), which the index does not follow.
 */
type CandidateReason = "unresolved_import" | "external_import" | "unbound" | "value";

export interface CallCandidate {
  file: string;
  line: number;
  column: number;
  /** The line as written, trimmed. */
  text: string;
  reason: CandidateReason;
  detail: string;
  /** The import the reason names, when it names one. */
  specifier?: string;
}

interface CandidateOptions {
  /** The text of an indexed file; undefined when it cannot be read now. */
  read(file: GraphFile): Promise<string | undefined>;
  /** Bytes of an indexed file, counted against maxScanBytes before it is read. */
  size(file: GraphFile): number;
  /** Whether to scan the texts too (not only the call facts). */
  scanText: boolean;
  /** Bytes of files the scan reads at most: a file that would pass the bound is not read (later, smaller ones still are). */
  maxScanBytes: number;
  /** Candidates returned (with their line's text) at most; `total` counts them all. */
  maxListed: number;
  signal?: AbortSignal | undefined;
}

interface CandidateResult {
  /** The first `maxListed` candidates, in path and line order. */
  candidates: CallCandidate[];
  /** Candidates found, listed or not. */
  total: number;
  /** When the text scan left files out at its byte bound: the files it read of those it would have. */
  scanCut?: { scanned: number; files: number };
}

const IDENTIFIER = /[\p{L}\p{N}_$]/u;

/** Start offsets of `name` in `text` where it stands as a whole word. */
export function wordOccurrences(text: string, name: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(name); at !== -1; at = text.indexOf(name, at + name.length)) {
    const before = at > 0 ? text[at - 1]! : "";
    const after = text[at + name.length] ?? "";
    if (!IDENTIFIER.test(before) && !IDENTIFIER.test(after)) found.push(at);
  }
  return found;
}

/** A line that is only a comment says nothing about calls. */
function commentOnly(line: string, language: string): boolean {
  const trimmed = line.trimStart();
  if (trimmed.startsWith("//") || trimmed.startsWith("/*") || trimmed.startsWith("*")) return true;
  return (language === "python" || language === "ruby" || language === "bash") && trimmed.startsWith("#");
}

// ---------------------------------------------------------------- module paths

const SOURCE_EXTENSION = /\.(?:[cm]?[jt]sx?|py|pyi|go|rs|java|kt|kts|scala|rb|php|cs|swift|dart|c|h|cc|cpp|hpp)$/;

/** The path segments an import specifier names (Go: `net/http`; Python: `a.b.c`; others: a path). */
export function specifierSegments(specifier: string, language: string): string[] {
  const bare = specifier.replace(/^["'<]|["'>]$/g, "");
  const parts = language === "python" ? bare.replace(/^\.+/, "").split(".") : bare.replace(SOURCE_EXTENSION, "").split(/\/|::/);
  return parts.filter((part) => part.length > 0 && part !== "." && part !== ".." && part !== "crate" && part !== "super");
}

/**
 * The module paths an import statement may name: Python's `from a.b import c` may import the
 * submodule a/b/c as well as a name of a/b; every other import names its specifier's path.
 */
function importPaths(file: GraphFile, fact: ImportFact): string[][] {
  const segments = specifierSegments(fact.specifier, file.language);
  if (file.language !== "python" || fact.names.length === 0) return [segments];
  const submodules = fact.names.filter((name) => name.imported !== "*").map((name) => [...segments, name.imported]);
  return [...submodules, segments];
}

/** The path segments of the module a file is, below its root (Go: its package folder; index files: their folder). */
export function moduleSegments(file: Pick<GraphFile, "real" | "rootReal" | "language">): string[] {
  const relative = path.relative(file.rootReal, file.real).split(path.sep);
  if (file.language === "go") return relative.slice(0, -1);
  const last = (relative.pop() ?? "").replace(SOURCE_EXTENSION, "");
  if (!/^(?:__init__|index|mod|lib)$/.test(last)) relative.push(last);
  return relative;
}

/**
 * Whether an import path may name a module: their trailing segments agree on one of the two
 * wholly (`net/http` and `src/net/http`; `django.utils.crypto` and `utils/crypto` under a root
 * that is the package itself) or on two segments at least.
 */
export function mayName(specifier: readonly string[], module: readonly string[]): boolean {
  let common = 0;
  while (common < specifier.length && common < module.length && specifier[specifier.length - 1 - common] === module[module.length - 1 - common]) common++;
  // A one-segment path ("fmt", "logging") names a top-level module (`fmt/`, `src/fmt/`), not a project's own module of that name deeper down.
  if (specifier.length === 1 && common === 1) return module.length === 1 || (module.length === 2 && module[0] === "src");
  return common > 0 && (common === specifier.length || common === module.length || common >= 2);
}

// ---------------------------------------------------------------- imports

/** The reason an import gives for a candidate; undefined when the import says it is not the target (resolved, or external under another name). */
function importReason(
  calls: CallGraph,
  imports: FileImports,
  fact: ImportFact,
  target: SymbolRef,
  targetFile: GraphFile,
): Omit<CallCandidate, "file" | "line" | "column" | "text"> | undefined {
  const { file } = imports;
  const state = imports.state(fact);
  const specifier = fact.specifier.replace(/^["'<]|["'>]$/g, "");
  if (state.unresolved) {
    return {
      reason: "unresolved_import",
      detail: `imports \`${specifier}\` (line ${fact.line}), which did not resolve: ${state.unresolved.reason} — ${state.unresolved.detail}`,
      specifier,
    };
  }
  if (state.targets.length > 0) return undefined;
  const module = moduleSegments(targetFile);
  if (!importPaths(file, fact).some((segments) => mayName(segments, module))) return undefined;
  const builtin = calls.imports.externalsOf(file.real).some((use) =>
    use.builtin && (specifier === use.package || specifier.startsWith(`${use.package}/`) || specifier.startsWith(`${use.package}.`))
  );
  return {
    reason: "external_import",
    detail: `imports \`${specifier}\` (line ${fact.line}), which resolved to no file under the roots and was taken as an external module${
      builtin ? " (standard library)" : ""
    }, though its path names ${moduleWhere(targetFile)}, where ${target.qualifiedName} is declared: ${layoutHint(file.language)}`,
    specifier,
  };
}

/** What steers module resolution in a language, for the reason an import went external. */
function layoutHint(language: string): string {
  switch (groupOf(language)) {
    case "go":
      return "the module path in go.mod (or go.work) may not match this tree";
    case "python":
      return "the package roots may not be configured (a root that is itself a package, packages declared in pyproject.toml or setup.cfg)";
    case "script":
      return "tsconfig paths, package.json exports or workspace packages may not map it";
    default:
      return "the module layout may not be configured";
  }
}

// ---------------------------------------------------------------- call sites

/** Why a call site of the target's name did not resolve to it; undefined when it is not a candidate (a call of something else). */
function siteReason(calls: CallGraph, imports: FileImports, fact: CallFact, resolution: CallResolution, target: SymbolRef, targetFile: GraphFile) {
  if (resolution.status === "resolved") return undefined;
  const { file } = imports;
  const qualifier = fact.qualifier?.trim();
  const parts = qualifier ? splitQualifier(qualifier) : [];
  const head = parts[0] ?? fact.name;
  if (RECEIVER_WORDS.has(head)) {
    return target.parent === undefined ? undefined : { reason: "value" as const, detail: `called on ${head}, whose type the index could not follow to ${target.qualifiedName}` };
  }
  const imported = imports.binding(head, qualifier);
  if (imported) {
    // `log.status.Print()` calls a member of `log.status`, not the module function `log.Print`.
    const moduleQualifier = parts.length <= 1 || (file.language === "python" && qualifier === imported.specifier);
    if (target.parent === undefined && !moduleQualifier) return undefined;
    return importReason(calls, imports, imported, target, targetFile);
  }
  if (resolution.status === "external") return undefined;
  if (qualifier === undefined || qualifier.length === 0) {
    if (!MODULE_SCOPED.has(file.language)) {
      return { reason: "unbound" as const, detail: `${fact.name} is called here but no import or declaration in scope binds it (${resolution.detail})` };
    }
    // Where names come only through imports, an unbound bare call is a local or a parameter unless an import that did not resolve may have bound it.
    const open = calls.imports.unresolvedOf(file.real)[0];
    if (!open) return undefined;
    return {
      reason: "unbound" as const,
      detail:
        `${fact.name} is called here but no import or declaration in scope binds it; the import \`${open.specifier}\` (line ${open.line}) did not resolve (${open.reason} — ${open.detail}) and may bind it`,
      specifier: open.specifier,
    };
  }
  // `value.name()`: a function named like the target is not called through a value; a method may be.
  if (target.parent === undefined || KNOWN_GLOBALS.has(head)) return undefined;
  return { reason: "value" as const, detail: `called on \`${qualifier}\`, a value the index cannot follow (${resolution.detail})` };
}

/**
 * Unresolved candidates for `target`: occurrences of its name that resolve to nothing, outside
 * `resolvedLines` (file NUL line of the calls already reported) and its own declaration.
 */
export async function callCandidates(calls: CallGraph, target: SymbolRef, resolvedLines: ReadonlySet<string>, options: CandidateOptions): Promise<CandidateResult> {
  const targetFile = calls.imports.file(target.file);
  if (!targetFile) return { candidates: [], total: 0 };
  const group = groupOf(targetFile.language);
  const name = target.name;
  const taken = new Set(resolvedLines);
  // A candidate gets its line's text from the read that found it, or from the scan's read of its file.
  const found: Array<Omit<CallCandidate, "text"> & { text?: string }> = [];
  const indexed = new Map<string, FileImports>();
  const importsOf = (file: GraphFile): FileImports => {
    let imports = indexed.get(file.real);
    if (imports === undefined) {
      imports = new FileImports(calls.imports, file);
      indexed.set(file.real, imports);
    }
    return imports;
  };
  const offer = (candidate: Omit<CallCandidate, "text"> & { text?: string }) => {
    const key = `${candidate.file}\0${candidate.line}`;
    if (taken.has(key)) return;
    taken.add(key);
    found.push(candidate);
  };
  // Declarations of the name (the target's own, and its namesakes') are not uses.
  for (const symbol of calls.symbolsNamed(name)) taken.add(`${symbol.file}\0${symbol.startLine}`);
  taken.add(`${target.file}\0${target.startLine}`);

  for (const site of calls.callSitesNamed(name)) {
    const file = calls.imports.file(site.file);
    if (!file || groupOf(file.language) !== group) continue;
    const resolution = calls.resolveCall(site);
    const key = `${site.file}\0${site.fact.line}`;
    if (resolution.status === "resolved") {
      // A call of another declaration is not a candidate, and its line is no occurrence left to explain.
      taken.add(key);
      continue;
    }
    const why = siteReason(calls, importsOf(file), site.fact, resolution, target, targetFile);
    if (why) offer({ file: site.file, line: site.fact.line, column: site.fact.column, ...why });
    else taken.add(key);
  }

  let scanCut: CandidateResult["scanCut"];
  // A type's name is mostly written as a type (annotations, heritage), which calls nothing: only its constructions, which are call facts, count.
  if (options.scanText && !TYPE_KINDS.has(target.kind)) {
    const files = await scanScope(calls, targetFile);
    // Call-site candidates found so far, by file: the scan's read of the file gives their lines' text.
    const untexted = new Map<string, typeof found>();
    for (const candidate of found) untexted.set(candidate.file, [...(untexted.get(candidate.file) ?? []), candidate]);
    let bytes = 0;
    let scanned = 0;
    let left = 0;
    for (const file of files) {
      if (options.signal?.aborted) break;
      // Checked before the read: one large file cannot take the scan past its bound.
      const size = options.size(file);
      if (bytes + size > options.maxScanBytes) {
        left++;
        continue;
      }
      bytes += size;
      const text = await options.read(file);
      scanned++;
      if (text === undefined) continue;
      const lineOf = lineLocator(text);
      for (const candidate of untexted.get(file.real) ?? []) candidate.text = lineOf.line(candidate.line);
      const at = wordOccurrences(text, name);
      if (at.length === 0) continue;
      const docs = file.language === "python" ? tripleQuoted(text) : [];
      const imports = importsOf(file);
      const exportLines = new Set(file.facts.exportedNames.filter((entry) => entry.name === name || entry.local === name).map((entry) => entry.line));
      for (const offset of at) {
        const { line, column, content } = lineOf.at(offset);
        const known = { text: content.trim() };
        if (taken.has(`${file.real}\0${line}`) || commentOnly(content, file.language) || exportLines.has(line)) continue;
        // The target's own body (its docstring, its doctests) is the definition, not a use of it.
        if (file.real === target.file && line >= target.startLine && line <= target.endLine) continue;
        if (quotedWhole(text, offset, name.length) || docs.some(([start, end]) => offset > start && offset < end)) continue;
        if (inProse(content, column - 1, file.language) || rebinds(content, column - 1, name.length)) continue;
        // `copy.deepcopy(x)` after `import copy`: the module of that name, not the target.
        if (/^\s*\./.test(content.slice(column - 1 + name.length)) && imports.binding(name, undefined) !== undefined) continue;
        const onLine = imports.onLine(line);
        if (onLine.length > 0) {
          // An import line: a candidate only when that import did not resolve to a file.
          const why = onLine.map((fact) => importReason(calls, imports, fact, target, targetFile)).find((reason) => reason !== undefined);
          if (why) offer({ file: file.real, line, column, ...why, ...known });
          else taken.add(`${file.real}\0${line}`);
          continue;
        }
        // `pkg.Name` as a value: the import binding `pkg` says why it did not resolve (or that it is another module's name).
        const qualified = /([\p{L}\p{N}_$]+)\s*\.\s*$/u.exec(content.slice(0, column - 1));
        const through = qualified ? imports.binding(qualified[1]!, undefined) : undefined;
        const state = through && imports.state(through);
        if (through && state && state.targets.length === 0) {
          const why = importReason(calls, imports, through, target, targetFile);
          if (why) offer({ file: file.real, line, column, ...why, ...known });
          else taken.add(`${file.real}\0${line}`);
          continue;
        }
        // `value.Name` for a top-level function: a member of something else, unless `value` is an import of the target's own module.
        if (qualified && target.parent === undefined && !(state && state.targets.includes(target.file))) continue;
        offer({
          file: file.real,
          line,
          column,
          reason: "value",
          detail: `${name} is named here without a call the index resolved (passed or assigned as a value, or in a string): calls through a value are not followed`,
          ...known,
        });
      }
    }
    if (left > 0) scanCut = { scanned, files: files.length };
  }

  found.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const texts = new Map<string, string[] | undefined>();
  const candidates: CallCandidate[] = [];
  for (const candidate of found.slice(0, options.maxListed)) {
    // Only a file the scan did not read is read for its lines (once).
    if (candidate.text === undefined && !texts.has(candidate.file)) {
      const file = calls.imports.file(candidate.file);
      texts.set(candidate.file, file ? (await options.read(file))?.split(/\r?\n|\r/) : undefined);
    }
    const text = candidate.text ?? texts.get(candidate.file)?.[candidate.line - 1]?.trim() ?? "";
    candidates.push({ ...candidate, text });
  }
  return scanCut ? { candidates, total: found.length, scanCut } : { candidates, total: found.length };
}

/**
 * The files whose text may name the target. Where a name from another module is only in scope
 * through an import (MODULE_SCOPED), those are its own file (Go, JVM: its package), the files importing it
 * (through re-exporting files too) and the files whose unresolved imports name its module: a
 * mention elsewhere is another declaration's name, or unbound, which the call facts already show.
 * Elsewhere, every file of the language group.
 */
async function scanScope(calls: CallGraph, targetFile: GraphFile): Promise<GraphFile[]> {
  const group = groupOf(targetFile.language);
  if (!MODULE_SCOPED.has(targetFile.language)) return calls.imports.files().filter((file) => groupOf(file.language) === group);
  const wanted = new Set<string>([targetFile.real]);
  // Go, Java, Kotlin: a package is its folder, and its files see each other's names without an import.
  if (targetFile.language === "go" || group === "jvm") { for (const file of calls.imports.filesIn(path.dirname(targetFile.real))) wanted.add(file.real); }
  const queue = [targetFile.real];
  for (let hop = 0; hop < LIMITS.intel.calls.maxReexportHops && queue.length > 0; hop++) {
    const next: string[] = [];
    for (const real of queue) {
      for (const edge of calls.imports.dependentsOf(real)) {
        if (wanted.has(edge.from) && edge.kind !== "reexport") continue;
        const fresh = !wanted.has(edge.from);
        wanted.add(edge.from);
        if (fresh && edge.kind === "reexport") next.push(edge.from);
      }
    }
    queue.splice(0, queue.length, ...next);
  }
  // Every declaration of a file shares its importers: found once per file and generation.
  const importers = await calls.derived(`importers\0${targetFile.real}`, async () => importCandidates(calls.imports, [targetFile]));
  for (const candidate of importers ?? []) wanted.add(candidate.from);
  const files: GraphFile[] = [];
  for (const real of [...wanted].sort()) {
    const file = calls.imports.file(real);
    if (file && groupOf(file.language) === group) files.push(file);
  }
  return files;
}

/** Python's triple-quoted strings (docstrings, doctests) as [start, end) offsets: prose about the name, not uses of it. */
function tripleQuoted(text: string): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const match of text.matchAll(/("""|''')[\s\S]*?(?:\1|$)/g)) ranges.push([match.index, match.index + match[0].length]);
  return ranges;
}

/** `"name"` or `'name'` alone in its quotes: an export list (`__all__`) or a key, not a use. */
function quotedWhole(text: string, offset: number, length: number): boolean {
  const before = text[offset - 1];
  return (before === "\"" || before === "'" || before === "`") && text[offset + length] === before;
}

/** Whether the line's text at `at` sits in a string literal or a trailing comment (quotes and escapes followed on the line only). */
export function inProse(line: string, at: number, language: string): boolean {
  let quote: string | undefined;
  const hash = language === "python" || language === "ruby" || language === "bash";
  for (let index = 0; index < at; index++) {
    const char = line[index]!;
    if (quote !== undefined) {
      if (char === "\\") index++;
      else if (char === quote) quote = undefined;
      continue;
    }
    // Rust's `'a` is a lifetime, not a quote.
    if (char === "\"" || (char === "'" && language !== "rust") || char === "`") quote = char;
    else if ((char === "/" && line[index + 1] === "/") || (hash && char === "#")) return true;
  }
  // A JavaScript template's `${…}` is code: inside backquotes, the name still counts.
  return quote !== undefined && !(quote === "`" && line.lastIndexOf("${", at) > line.lastIndexOf("`", at));
}

/** `name = …`, `name=True`, `def name`, `let name`: the name is bound here (a parameter, a local, another declaration), not used. */
export function rebinds(line: string, at: number, length: number): boolean {
  if (/^\s*=(?![=>])/.test(line.slice(at + length))) return true;
  return /\b(?:def|func|function|fn|class|let|const|var)\s+$/.test(line.slice(0, at));
}

/** 1-based line and column of an offset, and the trimmed text of a 1-based line. */
function lineLocator(text: string): { at(offset: number): { line: number; column: number; content: string }; line(line: number): string } {
  // Lines as every tool counts them (CR, LF and CRLF each end one); computed when first asked.
  let starts: number[] | undefined;
  const content = (index: number) => {
    const start = starts![index]!;
    const end = index + 1 < starts!.length ? starts![index + 1]! : text.length;
    return text.slice(start, end).replace(/\r?\n$|\r$/, "");
  };
  return {
    at(offset) {
      starts ??= lineStarts(text);
      const line = lineIndexAt(starts, offset);
      return { line: line + 1, column: offset - starts[line]! + 1, content: content(line) };
    },
    line(line) {
      starts ??= lineStarts(text);
      return line >= 1 && line <= starts.length ? content(line - 1).trim() : "";
    },
  };
}

// ---------------------------------------------------------------- imports of a file

export interface ImportCandidate {
  /** The importing file. */
  from: string;
  line: number;
  specifier: string;
  /** `external`: taken as an external module; otherwise the import graph's reason. */
  reason: "external" | UnresolvedReason;
  detail: string;
}

/** Modules by every trailing part of their path, per language group: `src/net/http` is found as `http`, `net/http` and `src/net/http`. */
class ModuleTails {
  readonly #byTail = new Map<string, GraphFile[]>();

  constructor(files: Iterable<GraphFile>) {
    const seen = new Set<string>();
    for (const file of files) {
      const segments = moduleSegments(file);
      const group = groupOf(file.language);
      // One file stands for its module (a Go package is its folder).
      const whole = `${group}\0${segments.join("/")}`;
      if (segments.length === 0 || seen.has(whole)) continue;
      seen.add(whole);
      for (let from = 0; from < segments.length; from++) {
        const key = `${group}\0${segments.slice(from).join("/")}`;
        const list = this.#byTail.get(key);
        if (list) list.push(file);
        else this.#byTail.set(key, [file]);
      }
    }
  }

  /** A module an import statement may name (`mayName`), each of its paths in turn, the longest matching tail first. */
  find(file: GraphFile, fact: ImportFact, except: (module: GraphFile) => boolean): GraphFile | undefined {
    const group = groupOf(file.language);
    for (const segments of importPaths(file, fact)) {
      for (let from = 0; from < segments.length; from++) {
        const found = this.#byTail.get(`${group}\0${segments.slice(from).join("/")}`)?.find((module) => !except(module) && mayName(segments, moduleSegments(module)));
        if (found) return found;
      }
    }
    return undefined;
  }
}

function moduleWhere(module: GraphFile): string {
  return path.relative(module.rootReal, module.language === "go" ? path.dirname(module.real) : module.real) || ".";
}

function importCandidate(file: GraphFile, fact: ImportFact, state: ImportState, module: GraphFile): ImportCandidate {
  const where = moduleWhere(module);
  return {
    from: file.real,
    line: fact.line,
    specifier: fact.specifier.replace(/^["'<]|["'>]$/g, ""),
    reason: (state.unresolved?.reason as UnresolvedReason | undefined) ?? "external",
    detail: state.unresolved ?
      `${state.unresolved.detail}; its path names ${where} under the roots` :
      `resolved to no file under the roots and was taken as an external module, though its path names ${where} under the roots: ${layoutHint(file.language)}`,
  };
}

/**
 * Imports elsewhere in the tree that did not resolve to a file (unresolved, or taken as external)
 * while their path names the module of one of `targets`: the importers reverse_deps and impact
 * would otherwise silently leave out (a Go tree whose go.mod says `module std`, a root that is a
 * Python package itself).
 */
export function importCandidates(imports: ImportGraph, targets: readonly GraphFile[]): ImportCandidate[] {
  const tails = new ModuleTails(targets);
  const targetSet = new Set(targets.map((file) => file.real));
  // A path that names a module ends with the module's last segment: a substring test skips almost every import of the tree.
  const lasts = [...new Set(targets.map((file) => moduleSegments(file).at(-1)).filter((last): last is string => last !== undefined))];
  const found: ImportCandidate[] = [];
  for (const file of imports.files()) {
    if (targetSet.has(file.real)) continue;
    let indexed: FileImports | undefined;
    for (const fact of file.facts.imports) {
      if (!lasts.some((last) => fact.specifier.includes(last) || fact.names.some((name) => name.imported === last))) continue;
      // The path next (string work), the graph's verdict only for the few that name a target.
      const module = tails.find(file, fact, () => false);
      if (!module) continue;
      indexed ??= new FileImports(imports, file);
      const state = indexed.state(fact);
      if (state.targets.length === 0) found.push(importCandidate(file, fact, state, module));
    }
  }
  return found.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.line - b.line));
}

/**
 * The external imports of `files` whose path names a module indexed under the roots: what deps
 * counts as external (so 0 files) while the tree holds the module.
 */
export function externalsInTree(imports: ImportGraph, files: readonly GraphFile[]): ImportCandidate[] {
  const withImports = files.filter((file) => file.facts.imports.length > 0);
  if (withImports.length === 0) return [];
  const tails = new ModuleTails(imports.files());
  const found: ImportCandidate[] = [];
  for (const file of withImports) {
    const indexed = new FileImports(imports, file);
    for (const fact of file.facts.imports) {
      const state = indexed.state(fact);
      if (state.unresolved || state.targets.length > 0) continue;
      const module = tails.find(file, fact, (candidate) => candidate.real === file.real);
      if (module) found.push(importCandidate(file, fact, state, module));
    }
  }
  return found;
}
