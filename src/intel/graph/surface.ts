/**
 * The public surface of a module: its exported declarations, and the names it re-exports followed
 * through the import graph to where they are declared (TS/JS `export … from` and import-then-export,
 * `export *` and `export * as ns`, Python `__all__` and package imports, Rust `pub use`), with why
 * a re-export could not be followed. The names and where they lead come from the re-export resolver
 * the call graph uses (reexports.ts), so both follow a chain as far and report a cycle alike.
 */
import path from "node:path";
import { isTestFileName } from "../calls/tests.ts";
import type { SymbolFact } from "../facts/types.ts";
import type { IndexedFile } from "../index/index.ts";
import type { ImportGraph } from "./import-graph.ts";
import { type LookupRules, lookupExport, type PublishedName, publishedNames, type ReexportProblem } from "./reexports.ts";
import type { GraphFile } from "./types.ts";

export interface SurfaceMember {
  name: string;
  kind: string;
  signature: string;
  startLine: number;
  endLine: number;
  /** The file that declares it, when not the file of its type (a Go method in another file of the package). */
  path?: string;
}

export interface SurfaceEntry extends SurfaceMember {
  /** The name importers use. */
  name: string;
  /** The file that declares it (display path). */
  path: string;
  /** The file asked about that publishes it (display path): the surface is grouped by it. */
  file: string;
  /** Its qualified name in the declaring file. */
  qualifiedName: string;
  /** Files it is re-exported through, outermost first. */
  via?: string[];
  doc?: string;
  /** Public members of an exported type. */
  members?: SurfaceMember[];
}

export interface SurfaceProblem extends ReexportProblem {
  /** The name that could not be followed ("*" for a star re-export). */
  name: string;
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

/**
 * The files a package directory's surface is made of: its entry file, else every indexed file directly
 * in it (Go and Java packages) but test files (`_test.go`, `*Test.java`, …), which are no public API.
 */
export function packageFiles(index: SurfaceIndex, directoryReal: string): { files: IndexedFile[]; tests: IndexedFile[] } {
  const entryFile = PACKAGE_ENTRY_FILES.map((name) => index.get(path.join(directoryReal, name))).find((file) => file !== undefined);
  if (entryFile) return { files: [entryFile], tests: [] };
  const inDirectory = index.files().filter((file) => path.dirname(file.real) === directoryReal).sort((a, b) => (a.display < b.display ? -1 : a.display > b.display ? 1 : 0));
  return { files: inDirectory.filter((file) => !isTestFileName(file.display)), tests: inDirectory.filter((file) => isTestFileName(file.display)) };
}

/** The public names of these files, in file order (re-exported names after declared ones), and the re-exports that could not be followed. */
export async function publicSurface(files: readonly IndexedFile[], graph: ImportGraph, index: SurfaceIndex): Promise<{ entries: SurfaceEntry[]; problems: SurfaceProblem[] }> {
  const state: SurfaceState = { graph, index, problems: [], cache: new Map() };
  const entries: SurfaceEntry[] = [];
  for (const file of files) for (const entry of surfaceOf(file.real, state)) entries.push({ ...entry, file: file.display });
  attachMethodsApart(files, entries);
  return { entries, problems: state.problems };
}

/**
 * A package's methods declared apart from their type (Go: `func (s *Store) Len()` in another file, or
 * on a named non-struct type such as `type Duration int64`) join the type's entry as members.
 */
function attachMethodsApart(files: readonly IndexedFile[], entries: SurfaceEntry[]): void {
  const types = new Map<string, SurfaceEntry>();
  for (const entry of entries) if (entry.via === undefined && entry.qualifiedName === entry.name && entry.kind !== "function") types.set(entry.name, entry);
  for (const file of files) {
    if (file.language !== "go") continue;
    for (const symbol of file.facts.symbols) {
      if (symbol.kind !== "method" || symbol.parent === undefined || !isPublicMember(symbol)) continue;
      const type = types.get(symbol.parent);
      // Members declared in the type's own file are already there.
      if (!type || (type.path === file.display && CONTAINER_KINDS.has(type.kind))) continue;
      const member: SurfaceMember = { name: symbol.name, kind: symbol.kind, signature: symbol.signature, startLine: symbol.startLine, endLine: symbol.endLine };
      if (file.display !== type.path) member.path = file.display;
      (type.members ??= []).push(member);
    }
  }
}

/** An entry before it is placed in the file asked about. */
type Listed = Omit<SurfaceEntry, "file">;

interface SurfaceState {
  graph: ImportGraph;
  index: SurfaceIndex;
  problems: SurfaceProblem[];
  cache: Map<string, Listed[]>;
}

/** A declaration as the surface reads it: any top-level declaration of the name, exported or file-local (`class A {}; export { A as B }`, `__all__`). */
const DECLARATIONS: LookupRules<Listed> = {
  declared: (file, name) => file.facts.symbols.filter((symbol) => symbol.parent === undefined && symbol.name === name).map((symbol) => entryFor(file, symbol, name)),
  // `export default <expression>`: the value itself is the export.
  expression: (file, exported) => ({
    name: exported.name,
    kind: "value",
    signature: `${exported.name} = ${exported.local}`,
    path: file.display,
    startLine: exported.line,
    endLine: exported.line,
    qualifiedName: exported.name,
  }),
};

function isPublicMember(symbol: SymbolFact): boolean {
  return symbol.local !== true && symbol.visibility !== "private" && symbol.visibility !== "protected" && symbol.visibility !== "file" &&
    (symbol.exported || symbol.visibility === "public");
}

function entryFor(file: GraphFile, symbol: SymbolFact, name: string): Listed {
  const entry: Listed = {
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

function surfaceOf(real: string, state: SurfaceState): Listed[] {
  const cached = state.cache.get(real);
  if (cached) return cached;
  // A namespace re-export of a module being listed lists no members.
  state.cache.set(real, []);
  const problems: ReexportProblem[] = [];
  const entries: Listed[] = [];
  for (const published of publishedNames(state.graph, real, problems)) {
    const entry = entryOf(published, state);
    if (entry) entries.push(entry);
  }
  state.problems.push(...problems.map((problem) => ({ name: "*", ...problem })));
  state.cache.set(real, entries);
  return entries;
}

function entryOf(published: PublishedName, state: SurfaceState): Listed | undefined {
  const { name, file: real } = published;
  const file = state.graph.file(real)!;
  const via = (entry: Listed, more: readonly string[]): Listed => {
    const passed = [...published.via, ...more];
    return passed.length > 0 ? { ...entry, via: passed } : entry;
  };
  const resolved = lookupExport(state.graph, real, name, DECLARATIONS);
  const declaration = resolved.found[0];
  if (declaration) return via({ ...declaration, name }, resolved.via);
  const module = resolved.modules[0] === undefined ? undefined : state.index.get(resolved.modules[0]);
  if (module) {
    // `export * as ns from` (or an exported namespace import): one namespace entry.
    const members = surfaceOf(module.real, state);
    return via({
      name,
      kind: "namespace",
      signature: `namespace ${name} (${members.length} export${members.length === 1 ? "" : "s"} of ${module.display})`,
      path: module.display,
      startLine: 1,
      endLine: module.lines,
      qualifiedName: name,
      members: members.map((entry) => ({ name: entry.name, kind: entry.kind, signature: entry.signature, startLine: entry.startLine, endLine: entry.endLine })),
    }, resolved.via);
  }
  state.problems.push({ name, ...(resolved.problem ?? { file: file.display, reason: "not found" }) });
  return undefined;
}
