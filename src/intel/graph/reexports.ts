/**
 * The one re-export resolver: what a name a module file exports stands for, followed through its
 * export facts (declarations, `export { a as b } from`, an import exported again, `__all__`, Rust
 * `pub use`, `export * as ns`, `export *`) over the import graph's targets to where it is declared.
 * `surface` lists a module with publishedNames and lookupExport; the call graph's exportOf is
 * lookupExport. One walk rule for both: a question walks each (file, name) once, one met again on
 * its path is a cycle, and a chain of LIMITS.intel.calls.maxReexportHops re-exports is followed but
 * one more is cut; a cut is returned as the problem, so a caller can say why a name is missing.
 */
import { LIMITS } from "../../core/limits.ts";
import type { ExportedName, ImportFact } from "../facts/types.ts";
import type { ImportGraph } from "./import-graph.ts";
import type { GraphFile } from "./types.ts";

/** Why a re-export could not be followed, at the file (display path) whose export broke. */
export interface ReexportProblem {
  /** The file with the re-export. */
  file: string;
  /** The module specifier it was re-exported from. */
  from?: string;
  reason: string;
}

/** The walk of one question: the (file, name) pairs it has seen and the path it is on. */
export class ReexportWalk {
  readonly #seen = new Set<string>();
  readonly #path: string[] = [];

  /** Runs `step` one hop deeper at (real, name); instead, why not when that closes a cycle or passes the limit, undefined when this walk was already there. */
  enter<R extends object>(real: string, name: string, step: () => R): R | "cycle" | "hops" | undefined {
    const key = `${real}\0${name}`;
    if (this.#path.includes(key)) return "cycle";
    if (this.#seen.has(key)) return undefined;
    if (this.#path.length > LIMITS.intel.calls.maxReexportHops) return "hops";
    this.#seen.add(key);
    this.#path.push(key);
    try {
      return step();
    } finally {
      this.#path.pop();
    }
  }
}

function cutReason(cut: "cycle" | "hops", display: string): string {
  return cut === "cycle" ? `re-export cycle through ${display}` : `more than ${LIMITS.intel.calls.maxReexportHops} re-export hops`;
}

/** What a name stands for: declarations (as the caller's rules read them), or module files (a namespace). */
export interface Resolved<T> {
  found: T[];
  modules: string[];
  external?: string;
  /** Files passed on the way to the first thing found, outermost first. */
  via: string[];
  /** Why nothing was found, when a re-export broke. */
  problem?: ReexportProblem;
}

export interface LookupRules<T> {
  /** Top-level declarations of `name` in `file`. */
  declared(file: GraphFile, name: string): T[];
  /** Names the file's imports bind without exporting them (the call graph follows `mod.name` to them); undefined when none. */
  imported?(file: GraphFile, name: string, walk: ReexportWalk): Resolved<T> | undefined;
  /** Names its wildcard imports bring in (`from x import *`), tried with its star re-exports. */
  wildcard?(file: GraphFile, name: string, walk: ReexportWalk): Resolved<T>;
  /** An export of an expression (`export default <expression>`); without it such a name has no declaration. */
  expression?(file: GraphFile, exported: ExportedName): T;
}

const IDENTIFIER_TEXT = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

const NONE: Resolved<never> = { found: [], modules: [], via: [] };

function isEmpty(resolved: Resolved<unknown>): boolean {
  return resolved.found.length === 0 && resolved.modules.length === 0;
}

/** One answer from several paths: every declaration and module once, the first path's trace, an external or problem only when nothing was found. */
function mergeResolved<T>(list: readonly Resolved<T>[]): Resolved<T> {
  const found = new Set(list.flatMap((resolved) => resolved.found));
  const modules = new Set(list.flatMap((resolved) => resolved.modules));
  const merged: Resolved<T> = { found: [...found], modules: [...modules], via: list.find((resolved) => !isEmpty(resolved))?.via ?? [] };
  if (!isEmpty(merged)) return merged;
  const external = list.find((resolved) => resolved.external !== undefined)?.external;
  const problem = list.find((resolved) => resolved.problem)?.problem;
  return { ...merged, ...(external === undefined ? {} : { external }), ...(problem ? { problem } : {}) };
}

function isStarExport(exported: ExportedName): boolean {
  return exported.name === "*" && (exported.local === undefined || exported.local === "*");
}
/**
 * Where an exported name comes from: its own `from` and the import statement that brought the name
 * in (languages write the module differently in the two: Rust's `pub use a::b::C` names module
 * `a::b` but imports `a::b::C`), in that order. Empty for a name declared in this file.
 */
function sourcesOf(file: GraphFile, exported: ExportedName): Array<{ specifier: string; imported: string }> {
  const local = exported.local ?? exported.name;
  const sources: Array<{ specifier: string; imported: string }> = [];
  if (exported.from !== undefined) sources.push({ specifier: exported.from, imported: local });
  const wanted = exported.from !== undefined ? exported.name : local;
  const binds = (fact: ImportFact) => fact.names.some((binding) => binding.local === wanted);
  // The statement on the export's own line first; only that one for an export with its own `from`.
  const fact = file.facts.imports.find((candidate) => candidate.line === exported.line && binds(candidate)) ??
    (exported.from === undefined ? file.facts.imports.find(binds) : undefined);
  const binding = fact?.names.find((candidate) => candidate.local === wanted);
  if (fact && binding) sources.push({ specifier: fact.specifier, imported: exported.from !== undefined ? local : binding.imported });
  return sources;
}

/** The module an export takes its name from, with the files it resolved to; a problem when it resolved to none. */
function linkOf(
  graph: ImportGraph,
  file: GraphFile,
  exported: ExportedName,
): { specifier: string; imported: string; targets: string[] } | { problem: ReexportProblem } | undefined {
  const sources = sourcesOf(file, exported);
  if (sources.length === 0) return undefined;
  const source = sources.find((candidate) => graph.targetsOf(file.real, candidate.specifier).length > 0) ?? sources[0]!;
  const targets = graph.targetsOf(file.real, source.specifier);
  const problem = (reason: string) => ({ problem: { file: file.display, from: source.specifier, reason } });
  if (targets.length === 0) {
    const unresolved = graph.unresolvedOf(file.real).find((entry) => entry.specifier === source.specifier);
    const external = graph.externalsOf(file.real).some((use) => source.specifier === use.package || source.specifier.startsWith(`${use.package}/`));
    return problem(unresolved ? `unresolved module (${unresolved.reason}: ${unresolved.detail})` : external ? "an external package (not followed)" : "module not resolved");
  }
  if (targets.some((target) => !graph.file(target))) return problem("the module's file is not indexed");
  return { ...source, targets };
}

/**
 * What `name` stands for at the top level of the module file `real`. Reached through a link of
 * another file (`hop`), the file is on the trace and a cut or a missing name is that link's problem.
 */
export function lookupExport<T>(
  graph: ImportGraph,
  real: string,
  name: string,
  rules: LookupRules<T>,
  walk = new ReexportWalk(),
  hop?: { file: GraphFile; specifier: string },
): Resolved<T> {
  const file = graph.file(real);
  if (!file) return NONE;
  const found = walk.enter(real, name, () => lookupIn(graph, file, name, rules, walk));
  const at = hop ? { file: hop.file.display, from: hop.specifier } : { file: file.display };
  if (typeof found === "string") return { ...NONE, problem: { ...at, reason: cutReason(found, file.display) } };
  if (found === undefined || !hop) return found ?? NONE;
  if (!isEmpty(found)) return { ...found, via: [file.display, ...found.via] };
  return found.problem || found.external !== undefined ? found : { ...NONE, problem: { ...at, reason: `${file.display} exports no ${JSON.stringify(name)}` } };
}

function lookupIn<T>(graph: ImportGraph, file: GraphFile, name: string, rules: LookupRules<T>, walk: ReexportWalk): Resolved<T> {
  const declared = rules.declared(file, name);
  if (declared.length > 0) return { found: declared, modules: [], via: [] };
  const named: Resolved<T>[] = [];
  for (const exported of file.facts.exportedNames) {
    if (exported.name !== name || isStarExport(exported)) continue;
    const link = linkOf(graph, file, exported);
    const local = exported.local ?? name;
    if (link === undefined && !IDENTIFIER_TEXT.test(local) && rules.expression) {
      named.push({ found: [rules.expression(file, exported)], modules: [], via: [] });
    } else if (link === undefined) {
      // Exported under another name, or listed (`__all__`) without an import: a declaration of this file.
      const alias = local === name ? NONE : lookupExport(graph, file.real, local, rules, walk);
      named.push(isEmpty(alias) ? { ...NONE, problem: { file: file.display, reason: `no declaration or import named ${JSON.stringify(local)} in this file` } } : alias);
    } else if ("problem" in link) {
      named.push({ ...NONE, problem: link.problem });
    } else if (link.imported === "*") {
      // `export * as ns from` (or an exported namespace import): the name is the module itself.
      named.push({ found: [], modules: link.targets, via: [graph.file(link.targets[0]!)!.display] });
    } else {
      for (const target of link.targets) named.push(lookupExport(graph, target, link.imported, rules, walk, { file, specifier: link.specifier }));
    }
  }
  const imported = rules.imported?.(file, name, walk);
  if (imported) named.push(imported);
  const merged = mergeResolved(named);
  if (!isEmpty(merged) || name === "default") return merged;
  const stars: Resolved<T>[] = rules.wildcard ? [rules.wildcard(file, name, walk)] : [];
  for (const star of file.facts.exportedNames) {
    if (!isStarExport(star) || star.from === undefined) continue;
    for (const target of graph.targetsOf(file.real, star.from)) stars.push(lookupExport(graph, target, name, rules, walk, { file, specifier: star.from }));
  }
  const starred = mergeResolved(stars);
  return isEmpty(starred) ? merged : starred;
}

/** A name a module publishes, with the file it is exported from directly and the files passed to reach it. */
export interface PublishedName {
  name: string;
  file: string;
  via: string[];
}

/**
 * The names a module file publishes, in order: its exported declarations, its named exports, then
 * the names its star re-exports publish (never `default`; a name of the file wins). A star
 * re-export that could not be followed is added to `problems`.
 */
export function publishedNames(graph: ImportGraph, real: string, problems: ReexportProblem[], walk = new ReexportWalk()): PublishedName[] {
  const file = graph.file(real);
  const names = file ? walk.enter(real, "*", () => namesOf(graph, file, problems, walk)) : undefined;
  return Array.isArray(names) ? names : [];
}

function namesOf(graph: ImportGraph, file: GraphFile, problems: ReexportProblem[], walk: ReexportWalk): PublishedName[] {
  const names = new Map<string, PublishedName>();
  const add = (entry: PublishedName) => {
    if (!names.has(entry.name)) names.set(entry.name, entry);
  };
  for (const symbol of file.facts.symbols) if (symbol.parent === undefined && symbol.local !== true && symbol.exported) add({ name: symbol.name, file: file.real, via: [] });
  for (const exported of file.facts.exportedNames) if (!isStarExport(exported)) add({ name: exported.name, file: file.real, via: [] });
  for (const star of file.facts.exportedNames) {
    const link = isStarExport(star) ? linkOf(graph, file, star) : undefined;
    if (!link) continue;
    if ("problem" in link) {
      problems.push(link.problem);
      continue;
    }
    const target = graph.file(link.targets[0]!)!;
    const inner = walk.enter(target.real, "*", () => namesOf(graph, target, problems, walk));
    if (typeof inner === "string") problems.push({ file: file.display, from: link.specifier, reason: cutReason(inner, target.display) });
    else for (const entry of inner ?? []) if (entry.name !== "default") add({ ...entry, via: [target.display, ...entry.via] });
  }
  return [...names.values()];
}
