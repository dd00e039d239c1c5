/**
 * What the import-graph tools share (deps, reverse_deps, graph, cycles, one file each; the call-graph
 * tools, surface, search and the rename rewrite open the same session): the fresh index and import
 * graph, path scopes, the deps walk and its rendering. Every answer comes from the code index
 * (refreshed before answering) and the import graph built on it, states whether it is complete, and
 * names the limit that cut it when it is not.
 */
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { externalsInTree, type ImportCandidate, importCandidates } from "../intel/calls/candidates.ts";
import { type GraphOptions, ImportGraph, walkGraph } from "../intel/graph/import-graph.ts";
import type { FileImports, GraphFile, ImportEdge, UnresolvedImport } from "../intel/graph/types.ts";
import { CodeIndex, type Coverage, type IndexedFile } from "../intel/index/index.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { PathInput, plural } from "./common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import type { ToolContext } from "./contract.ts";
import { phasedProgress, progressOf } from "./progress.ts";

export interface IntelSession {
  index: CodeIndex;
  coverage: Coverage;
  graph: ImportGraph;
  display(real: string): string;
}

export function graphOptions(index: CodeIndex, context: ToolContext): GraphOptions {
  return { readHead: (file) => index.text(file as IndexedFile).catch(() => undefined), signal: context.signal };
}

/** What a call is about: a declaration's name ("Name", "Class.method", "path#Name") and the file or folder it names, if any. */
export interface About {
  name: string;
  path?: string | undefined;
}

/** A symbol argument split into the name and the file before "#" ("src/x.ts#Name"); private names ("A.#m") stay names. */
export function splitSymbolSpec(spec: string): { name: string; path?: string } {
  const query = spec.trim();
  const split = /^(.+?\.[A-Za-z0-9]+|[^#]*\/[^#]*)#(.+)$/.exec(query);
  return split ? { name: split[2]!, path: split[1]! } : { name: query };
}

/**
 * The fresh index and import graph for this call's workspace, and whatever `extend` builds on them.
 * With `about`, during the first build the files that mention that name are indexed first (the file
 * the call names before them, so a deadline never leaves the declaration out) and the call answers
 * from them (saying so) instead of waiting for the whole tree; the build waits until `extend` is done
 * too, so the whole answer goes ahead of it.
 */
export async function openImportGraph(context: ToolContext, about?: About): Promise<IntelSession>;
export async function openImportGraph<T>(context: ToolContext, about: About | undefined, extend: (session: IntelSession) => Promise<T>): Promise<T>;
export async function openImportGraph<T>(
  context: ToolContext,
  about?: About,
  extend?: (session: IntelSession) => Promise<T>,
): Promise<IntelSession | T> {
  const index = context.services.indexes.forContext(context);
  const wait = { ...progressOf(context), deadlineMs: LIMITS.intel.index.answerWithinMs };
  const word = about === undefined ? undefined : lastIdentifier(about.name);
  const open = async (coverage: Coverage): Promise<IntelSession | T> => {
    const graph = await ImportGraph.for(index, context.workspace, graphOptions(index, context));
    const session: IntelSession = { index, coverage, graph, display: (real) => graph.file(real)?.display ?? context.workspace.display(real) };
    return extend ? extend(session) : session;
  };
  if (word === undefined || !(await index.worthFocusing(context.signal))) return open(await index.ensureFresh(wait));
  return index.ahead(async () => {
    // Two phases, each counted: the literal scan of the tree, then the files it found.
    const phases = phasedProgress(context.progress);
    const { files, unseen } = await index.filesMentioning([word], context.signal, phases.phase());
    const named = await namedFile(context, about);
    const scopeProgress = phases.phase();
    let coverage = await index.ensureScope(
      { files, first: named === undefined ? [] : [named] },
      { signal: context.signal, deadlineMs: wait.deadlineMs, ...(scopeProgress ? { onProgress: scopeProgress } : {}) },
    );
    if (!index.built && coverage.complete) {
      const madeOf = `looked in the ${plural(files.length, "file")} that mention "${word}" (a literal scan${
        unseen === undefined ? "" : `; ${unseen}`
      }); a call through a renamed or \`export *\` re-export in a file not indexed yet may be missing`;
      coverage = { ...coverage, complete: false, limits: [...coverage.limits, index.stillBuilding(madeOf)] };
    }
    return open(coverage);
  });
}

/** The real path of the file a call names (its `path`, or the part before "#"); undefined for a folder or a path that does not resolve (the answer reports that). */
async function namedFile(context: ToolContext, about: About | undefined): Promise<string | undefined> {
  const input = about?.path ?? (about === undefined ? undefined : splitSymbolSpec(about.name).path);
  if (input === undefined) return undefined;
  try {
    const resolved = await context.workspace.resolve(input, "read");
    return resolved.exists && resolved.kind === "file" ? resolved.real : undefined;
  } catch {
    return undefined;
  }
}

/** The name a symbol argument ends with ("path#Name", "Class.method", "net/http.Serve" → Name, method, Serve). */
function lastIdentifier(spec: string): string | undefined {
  return spec.split("#").pop()!.split(/[^A-Za-z0-9_$]+/).filter((part) => part.length > 0).pop();
}

export interface Scope {
  resolved: ResolvedPath;
  directory: boolean;
  /** The files the path names (one, or every indexed file under the folder). */
  files: GraphFile[];
}

/** A path argument: resolved by the policy, then the indexed file (read fresh if the walk skipped it) or the indexed files under a folder. */
export async function resolveScope(session: IntelSession, context: ToolContext, input: string): Promise<Scope> {
  const resolved = await context.workspace.resolve(input, "read");
  if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
  if (resolved.kind === "directory") {
    const files = session.graph.files().filter((file) => relativeInside(resolved.real, file.real, path.sep) !== undefined);
    return { resolved, directory: true, files };
  }
  if (resolved.kind !== "file") throw new ToolError("not_a_file", `${resolved.display} is not a regular file.`);
  const known = session.graph.file(resolved.real);
  return { resolved, directory: false, files: [known ?? ((await session.index.load(resolved)).file)] };
}

const ImportRef = z.object({
  from: z.string().describe("The importing file."),
  specifier: z.string().describe("The module specifier as written."),
  line: z.number().int().describe("1-based line of the import."),
  kind: z.string().describe("import, import_type, reexport, require, dynamic, use, mod or include."),
  via: z.string().describe(
    "The rule that resolved it: relative, tsconfig_paths, base_url, package_exports, package_imports, workspace_package, python_relative, python_absolute, go_module, rust_mod, rust_path, jvm_package, include.",
  ),
});

const FileNode = z.object({
  path: z.string().describe("The file, as a path usable as input."),
  depth: z.number().int().describe("Import hops from the start (1 = direct)."),
  imports: z.array(ImportRef).optional().describe("For direct (depth 1) entries: the import statements linking it to the start."),
});

const Unresolved = z.object({
  from: z.string().describe("The importing file."),
  specifier: z.string().describe("The specifier as written."),
  line: z.number().int().describe("1-based line."),
  reason: z.enum(["not_found", "outside_roots", "denied", "not_indexed", "unsupported", "ambiguous", "external"]).describe(
    "Why it did not resolve; outside_roots targets were not probed; external: taken as an external module though its path names a module under the roots.",
  ),
  detail: z.string().describe("What was tried."),
  candidates: z.array(z.string()).optional().describe("For ambiguous: the files that match equally well."),
});

export const External = z.object({
  package: z.string().describe("The package (or module) name."),
  builtin: z.boolean().describe("Part of the language runtime or standard library."),
  files: z.number().int().describe("Files importing it."),
  imports: z.number().int().describe("Import statements naming it."),
});

type UnresolvedOut = z.infer<typeof Unresolved>;

function unresolvedOut(entry: UnresolvedImport | ImportCandidate, display: (real: string) => string): UnresolvedOut {
  const out: UnresolvedOut = { from: display(entry.from), specifier: entry.specifier, line: entry.line, reason: entry.reason, detail: entry.detail };
  if ("candidates" in entry && entry.candidates) out.candidates = entry.candidates.map(display);
  return out;
}

function importRef(edge: ImportEdge, display: (real: string) => string): z.infer<typeof ImportRef> {
  return { from: display(edge.from), specifier: edge.specifier, line: edge.line, kind: edge.kind, via: edge.via };
}

function externalTotals(imports: FileImports[]): Array<z.infer<typeof External>> {
  const totals = new Map<string, z.infer<typeof External>>();
  for (const entry of imports) {
    for (const [name, use] of entry.externals) {
      const total = totals.get(name) ?? { package: name, builtin: use.builtin, files: 0, imports: 0 };
      total.files += 1;
      total.imports += use.imports;
      totals.set(name, total);
    }
  }
  return [...totals.values()].sort((a, b) => b.files - a.files || b.imports - a.imports || (a.package < b.package ? -1 : 1));
}

export function renderExternal(external: Array<z.infer<typeof External>>, total: number): string | undefined {
  if (total === 0) return undefined;
  const shown = external.map((entry) => `${entry.package}${entry.builtin ? " [builtin]" : ""}${entry.imports > 1 ? ` ×${entry.imports}` : ""}`);
  return `external (${total}): ${shown.join(", ")}${total > external.length ? ", …" : ""}`;
}

function renderUnresolved(unresolved: UnresolvedOut[], total: number, lines: string[]): void {
  if (total === 0) return;
  lines.push(`unresolved (${total}):`);
  for (const entry of unresolved) {
    lines.push(`  ${entry.from}:${entry.line} ${JSON.stringify(entry.specifier)} ${entry.reason} — ${entry.detail}${entry.candidates ? ` (${entry.candidates.join(", ")})` : ""}`);
  }
  if (total > unresolved.length) lines.push(`  … ${total - unresolved.length} more`);
}

const DepthInput = z
  .number()
  .int()
  .min(1)
  .max(LIMITS.intel.graph.maxDepth)
  .optional()
  .describe(`Import hops to follow (default ${LIMITS.intel.graph.defaultDepth}, at most ${LIMITS.intel.graph.maxDepth}).`);

export const DepsOutput = z.object({
  path: z.string().describe("The file or folder asked about."),
  directory: z.boolean().describe("Whether the path is a folder (its files are the start; links inside it are not listed)."),
  depth: z.number().int().describe("Hops followed."),
  files: z.array(FileNode).describe("Files reached, nearest first."),
  totalFiles: z.number().int().describe("Files reached before any cut."),
  unresolved: z
    .array(Unresolved)
    .describe(
      "deps: specifiers of the start files that did not resolve (or were taken as external though the tree holds their module), with the reason; reverse_deps: imports elsewhere whose path names a start file but did not resolve to it.",
    ),
  totalUnresolved: z.number().int().describe("Unresolved specifiers before the list was cut."),
  external: z.array(External).describe("Packages outside the workspace imported by the start files, counted per package."),
  totalExternal: z.number().int().describe("Distinct external packages."),
  ...Completeness,
});
export type DepsOutput = z.infer<typeof DepsOutput>;

export const DepsInput = z.strictObject({
  path: PathInput.describe("A file, or a folder (everything its files import from outside it)."),
  depth: DepthInput,
});

export async function walkImports(args: z.infer<typeof DepsInput>, context: ToolContext, direction: "dependencies" | "dependents"): Promise<DepsOutput> {
  const session = await openImportGraph(context);
  const scope = await resolveScope(session, context, args.path);
  const { graph, display } = session;
  const depth = args.depth ?? LIMITS.intel.graph.defaultDepth;
  const starts = scope.files.map((file) => file.real);
  const startSet = new Set(starts);
  const imports = await Promise.all(scope.files.map((file) => graph.importsOf(file)));
  const cuts: string[] = [];

  // Direct links with their import statements; a file named directly may lie outside what the index walked.
  const direct = new Map<string, ImportEdge[]>();
  const directEdges = direction === "dependencies" ? imports.flatMap((entry) => entry.edges) : starts.flatMap((real) => [...graph.dependentsOf(real)]);
  for (const edge of directEdges) {
    const other = direction === "dependencies" ? edge.to : edge.from;
    if (startSet.has(other)) continue;
    const list = direct.get(other) ?? [];
    list.push(edge);
    direct.set(other, list);
  }
  // Walk on from the direct links (the start itself may be a file the index did not walk).
  const levels = new Map<string, number>([...direct.keys()].map((real) => [real, 1]));
  const walk = walkGraph(graph, [...direct.keys()], direction, depth - 1);
  for (const [real, level] of walk.levels) if (!startSet.has(real) && !levels.has(real)) levels.set(real, level + 1);
  if (walk.truncated) cuts.push(`intel.graph.maxWalkNodes = ${LIMITS.intel.graph.maxWalkNodes}: lower depth or narrow path`);
  const ordered = [...levels].sort((a, b) => a[1] - b[1] || (display(a[0]) < display(b[0]) ? -1 : 1));
  const shown = ordered.slice(0, LIMITS.intel.graph.defaultMaxEdges);
  if (ordered.length > shown.length) cuts.push(`intel.graph.defaultMaxEdges = ${LIMITS.intel.graph.defaultMaxEdges} files listed: lower depth or narrow path`);
  const files = shown.map(([real, level]) => {
    const node: z.infer<typeof FileNode> = { path: display(real), depth: level };
    const links = direct.get(real);
    if (level === 1 && links) node.imports = links.map((edge) => importRef(edge, display));
    return node;
  });

  // An import that did not resolve may be a link the answer misses: listed with the reason, and the answer says incomplete.
  const unresolved: Array<UnresolvedImport | ImportCandidate> = direction === "dependencies" ?
    [...imports.flatMap((entry) => entry.unresolved), ...externalsInTree(graph, scope.files)].sort((a, b) => a.from < b.from ? -1 : a.from > b.from ? 1 : a.line - b.line) :
    importCandidates(graph, scope.files);
  if (unresolved.length > 0) {
    cuts.push(
      `unresolved = ${unresolved.length}: ${
        direction === "dependencies" ? "imports of the start files" : "imports naming the start files"
      } did not resolve to a file (listed in unresolved with the reason); configure the module layout they name (go.mod module path, tsconfig paths, package roots), or check them with file_read at their line`,
    );
  }
  const external = direction === "dependencies" ? externalTotals(imports) : [];
  const listedUnresolved = unresolved.slice(0, LIMITS.intel.graph.maxUnresolvedListed).map((entry) => unresolvedOut(entry, display));
  const listedExternal = external.slice(0, LIMITS.intel.graph.maxExternalsListed);
  return {
    path: scope.resolved.display,
    directory: scope.directory,
    depth,
    files,
    totalFiles: ordered.length,
    unresolved: listedUnresolved,
    totalUnresolved: unresolved.length,
    external: listedExternal,
    totalExternal: external.length,
    ...completeness(session.coverage, cuts),
  };
}

export function renderDeps(result: DepsOutput, noun: "imports" | "imported by"): string {
  const lines: string[] = [];
  const what = result.directory ? `${result.path}/ (files inside)` : result.path;
  lines.push(`${what} ${noun} ${plural(result.totalFiles, "file")} (depth ${result.depth})`);
  for (const file of result.files) {
    const links = file.imports?.map((
      ref,
    ) => (noun === "imports" ?
      `${JSON.stringify(ref.specifier)} L${ref.line}${ref.via === "relative" ? "" : ` via ${ref.via}`}` :
      `${ref.from === file.path ? "" : `${ref.from} `}L${ref.line} ${JSON.stringify(ref.specifier)}`)
    );
    lines.push(`  ${file.depth > 1 ? `[${file.depth}] ` : ""}${file.path}${links && links.length > 0 ? `  ← ${links.join(", ")}` : ""}`);
  }
  if (result.totalFiles > result.files.length) lines.push(`  … ${result.totalFiles - result.files.length} more`);
  const external = renderExternal(result.external, result.totalExternal);
  if (external) lines.push(external);
  renderUnresolved(result.unresolved, result.totalUnresolved, lines);
  return renderIncomplete(result, lines);
}

export const PathsInput = z
  .array(PathInput)
  .min(1)
  .max(LIMITS.batchPaths)
  .optional()
  .describe("Files or folders to limit the answer to (default: every indexed file).");

export async function scopeFiles(session: IntelSession, context: ToolContext, paths: string[] | undefined): Promise<Set<string> | undefined> {
  if (!paths) return undefined;
  const scope = new Set<string>();
  for (const input of paths) for (const file of (await resolveScope(session, context, input)).files) scope.add(file.real);
  return scope;
}
