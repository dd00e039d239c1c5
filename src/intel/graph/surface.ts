/**
 * The public surface of a module: its exported declarations, and the names it re-exports followed
 * through the import graph to where they are declared (TS/JS `export … from` and import-then-export,
 * `export *` and `export * as ns`, Python `__all__` and package imports, Rust `pub use`), with why
 * a re-export could not be followed. The hop limit is the call graph's (LIMITS.intel.calls.
 * maxReexportHops), and a module's targets come from ImportGraph.targetsOf, as for calls.
 */
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import type { SymbolFact } from "../facts/types.ts";
import type { IndexedFile } from "../index/index.ts";
import type { ImportGraph } from "./import-graph.ts";

export interface SurfaceMember {
  name: string;
  kind: string;
  signature: string;
  startLine: number;
  endLine: number;
}

export interface SurfaceEntry extends SurfaceMember {
  /** The name importers use. */
  name: string;
  /** The file that declares it (display path). */
  path: string;
  /** Its qualified name in the declaring file. */
  qualifiedName: string;
  /** Files it is re-exported through, outermost first. */
  via?: string[];
  doc?: string;
  /** Public members of an exported type. */
  members?: SurfaceMember[];
}

export interface SurfaceProblem {
  name: string;
  /** The module specifier it was re-exported from. */
  from?: string;
  /** The file with the re-export. */
  file: string;
  reason: string;
}

/** Symbol kinds that hold members. */
export const CONTAINER_KINDS: ReadonlySet<string> = new Set(["class", "interface", "struct", "trait", "enum", "union", "module", "namespace"]);

/** Index files that stand for their directory. */
const PACKAGE_ENTRY_FILES = ["index.ts", "index.tsx", "index.mts", "index.js", "index.jsx", "index.mjs", "__init__.py", "mod.rs", "lib.rs"];

/** What the surface reads of the index. */
export interface SurfaceIndex {
  get(real: string): IndexedFile | undefined;
  files(): IndexedFile[];
}

/** The files a package directory's surface is made of: its entry file, else every indexed file directly in it (Go and Java packages). */
export function packageFiles(index: SurfaceIndex, directoryReal: string): IndexedFile[] {
  const entryFile = PACKAGE_ENTRY_FILES.map((name) => index.get(path.join(directoryReal, name))).find((file) => file !== undefined);
  return entryFile ? [entryFile] : index.files().filter((file) => path.dirname(file.real) === directoryReal);
}

/** The public names of these files, in file order (re-exported names after declared ones), and the re-exports that could not be followed. */
export async function publicSurface(files: readonly IndexedFile[], graph: ImportGraph, index: SurfaceIndex): Promise<{ entries: SurfaceEntry[]; problems: SurfaceProblem[] }> {
  const state: SurfaceState = { graph, index, problems: [], cache: new Map() };
  const entries: SurfaceEntry[] = [];
  for (const file of files) entries.push(...(await surfaceOf(file, state, [file.real])));
  return { entries, problems: state.problems };
}

interface SurfaceState {
  graph: ImportGraph;
  index: SurfaceIndex;
  problems: SurfaceProblem[];
  cache: Map<string, SurfaceEntry[]>;
}

function isPublicMember(symbol: SymbolFact): boolean {
  return symbol.local !== true && symbol.visibility !== "private" && symbol.visibility !== "protected" && symbol.visibility !== "file" &&
    (symbol.exported || symbol.visibility === "public");
}

function declaredSurface(file: IndexedFile): SurfaceEntry[] {
  const entries: SurfaceEntry[] = [];
  for (const symbol of file.facts.symbols) {
    if (symbol.parent !== undefined || symbol.local === true || !symbol.exported) continue;
    entries.push(entryFor(file, symbol, symbol.name));
  }
  return entries;
}

function entryFor(file: IndexedFile, symbol: SymbolFact, name: string): SurfaceEntry {
  const entry: SurfaceEntry = {
    name,
    kind: symbol.kind,
    signature: symbol.signature,
    path: file.display,
    startLine: symbol.startLine,
    endLine: symbol.endLine,
    qualifiedName: symbol.qualifiedName,
  };
  if (symbol.doc !== undefined) entry.doc = symbol.doc;
  if (CONTAINER_KINDS.has(symbol.kind)) {
    const members = file.facts.symbols.filter((member) => member.parent === symbol.qualifiedName && isPublicMember(member));
    if (members.length > 0) {
      entry.members = members.map((member) => ({ name: member.name, kind: member.kind, signature: member.signature, startLine: member.startLine, endLine: member.endLine }));
    }
  }
  return entry;
}

/**
 * Where an exported name comes from: its own `from` and the import statement that brought the name
 * in (languages write the module differently in the two: Rust's `pub use a::b::C` names module
 * `a::b` but imports `a::b::C`), in that order. Empty for a name declared in this file.
 */
function sourcesOf(file: IndexedFile, exported: { name: string; from?: string; local?: string; line: number }): Array<{ specifier: string; imported: string }> {
  const local = exported.local ?? exported.name;
  const sources: Array<{ specifier: string; imported: string }> = [];
  if (exported.from !== undefined) sources.push({ specifier: exported.from, imported: local });
  const imports = [...file.facts.imports].sort((a, b) => Number(b.line === exported.line) - Number(a.line === exported.line));
  for (const fact of imports) {
    const binding = fact.names.find((candidate) => candidate.local === (exported.from !== undefined ? exported.name : local));
    if (binding && (exported.from === undefined || fact.line === exported.line)) {
      sources.push({ specifier: fact.specifier, imported: exported.from !== undefined ? local : binding.imported });
      break;
    }
  }
  return sources;
}

const IDENTIFIER_TEXT = /^[\p{L}_$][\p{L}\p{N}_$]*$/u;

async function surfaceOf(file: IndexedFile, state: SurfaceState, stack: string[]): Promise<SurfaceEntry[]> {
  const cached = state.cache.get(file.real);
  if (cached) return cached;
  const entries = new Map<string, SurfaceEntry>();
  for (const entry of declaredSurface(file)) if (!entries.has(entry.name)) entries.set(entry.name, entry);
  const stars: SurfaceEntry[][] = [];
  for (const exported of file.facts.exportedNames) {
    const sources = sourcesOf(file, exported);
    if (sources.length === 0) {
      // Exported under another name, or listed (`__all__`) without an import: a declaration of this file.
      const local = exported.local ?? exported.name;
      const symbol = file.facts.symbols.find((candidate) => candidate.parent === undefined && candidate.name === local);
      if (entries.has(exported.name)) continue;
      if (symbol) {
        entries.set(exported.name, entryFor(file, symbol, exported.name));
      } else if (!IDENTIFIER_TEXT.test(local)) {
        // `export default <expression>`: the value itself is the export.
        entries.set(exported.name, {
          name: exported.name,
          kind: "value",
          signature: `${exported.name} = ${local}`,
          path: file.display,
          startLine: exported.line,
          endLine: exported.line,
          qualifiedName: exported.name,
        });
      } else {
        state.problems.push({ name: exported.name, file: file.display, reason: `no declaration or import named ${JSON.stringify(local)} in this file` });
      }
      continue;
    }
    const source = sources.find((candidate) => state.graph.targetsOf(file.real, candidate.specifier).length > 0) ?? sources[0]!;
    const problem = (reason: string) => state.problems.push({ name: exported.name, from: source.specifier, file: file.display, reason });
    const targets = state.graph.targetsOf(file.real, source.specifier);
    if (targets.length === 0) {
      const unresolved = state.graph.unresolvedOf(file.real).find((entry) => entry.specifier === source.specifier);
      const external = state.graph.externalsOf(file.real).some((use) => source.specifier === use.package || source.specifier.startsWith(`${use.package}/`));
      problem(unresolved ? `unresolved module (${unresolved.reason}: ${unresolved.detail})` : external ? "an external package (not followed)" : "module not resolved");
      continue;
    }
    const target = state.index.get(targets[0]!);
    if (!target) {
      problem("the module's file is not indexed");
      continue;
    }
    if (stack.includes(target.real)) {
      problem(`re-export cycle through ${target.display}`);
      continue;
    }
    if (stack.length >= LIMITS.intel.calls.maxReexportHops) {
      problem(`more than ${LIMITS.intel.calls.maxReexportHops} re-export hops`);
      continue;
    }
    const targetSurface = await surfaceOf(target, state, [...stack, target.real]);
    const via = (entry: SurfaceEntry): SurfaceEntry => ({ ...entry, via: [target.display, ...(entry.via ?? [])] });
    if (exported.name === "*" && (exported.local === undefined || exported.local === "*")) {
      // `export * from`: every name but default; explicit exports of this file win.
      stars.push(targetSurface.filter((entry) => entry.name !== "default").map(via));
      continue;
    }
    if (source.imported === "*") {
      // `export * as ns from` (or an exported namespace import): one namespace entry.
      if (!entries.has(exported.name)) {
        entries.set(exported.name, {
          name: exported.name,
          kind: "namespace",
          signature: `namespace ${exported.name} (${targetSurface.length} export${targetSurface.length === 1 ? "" : "s"} of ${target.display})`,
          path: target.display,
          startLine: 1,
          endLine: target.lines,
          qualifiedName: exported.name,
          via: [target.display],
          members: targetSurface.map((entry) => ({ name: entry.name, kind: entry.kind, signature: entry.signature, startLine: entry.startLine, endLine: entry.endLine })),
        });
      }
      continue;
    }
    const found = targetSurface.find((entry) => entry.name === source.imported);
    if (!found) {
      problem(`${target.display} exports no ${JSON.stringify(source.imported)}`);
      continue;
    }
    if (!entries.has(exported.name)) entries.set(exported.name, { ...via(found), name: exported.name });
  }
  for (const list of stars) for (const entry of list) if (!entries.has(entry.name)) entries.set(entry.name, entry);
  const result = [...entries.values()];
  state.cache.set(file.real, result);
  return result;
}
