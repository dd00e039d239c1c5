/**
 * The import graph over the code index: every import fact of every indexed file resolved to files
 * (edges), external packages (counted per package) or an unresolved entry with its reason.
 * Built on first use and refreshed per index generation. A refresh resolves again only what can
 * have changed: files whose content changed, importers of removed files, imports that mention an
 * added file's name, and whole languages whose layout a change reshapes (package __init__, Rust
 * module roots, Java/Kotlin packages); everything when a file that steers resolution changed.
 */
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import type { Workspace } from "../../policy/workspace.ts";
import { ConfigFiles } from "./config-files.ts";
import type { LanguageResolver, ResolveContext } from "./context.ts";
import { FileTable } from "./file-table.ts";
import { GoResolver } from "./go.ts";
import { IncludeResolver } from "./include.ts";
import { type HeadReader, type JvmPackageCache, JvmResolver } from "./jvm.ts";
import { PythonResolver } from "./python.ts";
import { RustResolver } from "./rust.ts";
import { ScriptResolver } from "./script.ts";
import { shortestCycle, stronglyConnected } from "./scc.ts";
import type { TsConfigProblem } from "./tsconfig.ts";
import type { ImportKind } from "../facts/types.ts";
import type { ExternalUse, FileImports, GraphFile, GraphIndex, ImportEdge, Resolution, ResolutionVia, UnresolvedImport } from "./types.ts";

type Family = "script" | "python" | "go" | "rust" | "jvm" | "include";

const FAMILY: Readonly<Record<string, Family>> = {
  typescript: "script",
  tsx: "script",
  javascript: "script",
  python: "python",
  go: "go",
  rust: "rust",
  java: "jvm",
  kotlin: "jvm",
  c: "include",
  cpp: "include",
};

/** Files whose change can change how other files resolve. */
const STEERING_FILES = new Set(["tsconfig.json", "jsconfig.json", "package.json", "pnpm-workspace.yaml", "go.mod", "go.work", "Cargo.toml"]);

function isSteering(real: string): boolean {
  const name = path.basename(real);
  return STEERING_FILES.has(name) || /^(ts|js)config\..+\.json$/.test(name);
}

/**
 * Names a specifier must contain to be able to name one of the added files: its stem, and its
 * folder's name for index-like files ("lib" for lib/index.ts, "pkg" for pkg/__init__.py, the Go or
 * Java package folder). Only imports mentioning one are resolved again when files appear.
 */
function addedNeedles(added: readonly string[]): string[] {
  const needles = new Set<string>();
  for (const real of added) {
    const base = path.basename(real);
    const stem = base.split(".")[0] ?? base;
    if (stem.length > 0) needles.add(stem);
    const folder = path.basename(path.dirname(real));
    if (folder.length > 0) needles.add(folder);
  }
  return [...needles];
}

function mentionsAny(file: GraphFile, needles: readonly string[]): boolean {
  for (const fact of file.facts.imports) {
    for (const needle of needles) {
      if (fact.specifier.includes(needle) || fact.names.some((name) => name.imported.includes(needle))) return true;
    }
  }
  return false;
}

/**
 * One import statement that resolved to files. Its edges (one per target) are made from it when
 * asked for: a Go import names every file of a package, so a tree holds far more edges than
 * statements.
 */
interface ResolvedStatement {
  from: string;
  specifier: string;
  kind: ImportKind;
  line: number;
  via: ResolutionVia;
  /** Never the importing file itself; may be shared with other statements, so never changed. */
  targets: readonly string[];
}

/** A file's imports as the graph keeps them: FileImports with its edges still grouped by statement. */
interface KeptImports {
  sha256: string;
  statements: ResolvedStatement[];
  unresolved: UnresolvedImport[];
  externals: FileImports["externals"];
}

const NO_IMPORTS: readonly ResolvedStatement[] = [];

function edgeOf(statement: ResolvedStatement, to: string): ImportEdge {
  return { from: statement.from, to, specifier: statement.specifier, kind: statement.kind, line: statement.line, via: statement.via };
}

function edgesOf(statements: readonly ResolvedStatement[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const statement of statements) for (const to of statement.targets) edges.push(edgeOf(statement, to));
  return edges;
}

function touchesRemoved(imports: KeptImports, removed: ReadonlySet<string>): boolean {
  return imports.statements.some((statement) => statement.targets.some((target) => removed.has(target))) ||
    imports.unresolved.some((entry) => entry.candidates?.some((candidate) => removed.has(candidate)) === true);
}

export function familyOf(language: string): Family | undefined {
  return FAMILY[language];
}

export interface CycleReport {
  /** Members of one strongly connected component, sorted. */
  members: string[];
  /** One shortest cycle through the first member, in import order. */
  path: string[];
}

export interface GraphOptions {
  /** Reads a file's text (CodeIndex.text); Java/Kotlin package declarations come from it. */
  readHead?: HeadReader;
  signal?: AbortSignal;
}

class Resolvers {
  readonly context: ResolveContext;
  readonly script: ScriptResolver;
  readonly #byFamily: Record<Family, LanguageResolver>;

  constructor(context: ResolveContext, readHead: HeadReader | undefined, jvmPackages: JvmPackageCache) {
    this.context = context;
    this.script = new ScriptResolver(context);
    this.#byFamily = {
      script: this.script,
      python: new PythonResolver(context),
      go: new GoResolver(context),
      rust: new RustResolver(context),
      jvm: new JvmResolver(context, readHead, jvmPackages),
      include: new IncludeResolver(context),
    };
  }

  for(family: Family): LanguageResolver {
    return this.#byFamily[family];
  }
}

export class ImportGraph {
  static readonly #graphs = new WeakMap<GraphIndex, ImportGraph>();

  readonly #index: GraphIndex;
  readonly #configs: ConfigFiles;
  #readHead: HeadReader | undefined;
  /** Java/Kotlin packages by file and content, kept across refreshes for as long as this graph (its index) lives. */
  readonly #jvmPackages: JvmPackageCache = new Map();
  #generation = -1;
  #table = new FileTable([]);
  #perFile = new Map<string, KeptImports>();
  /** File → the statements that import it, once per time they name it. */
  #reverse = new Map<string, ResolvedStatement[]>();
  #problems: TsConfigProblem[] = [];
  /** Refreshes run one after another, so concurrent callers never rebuild twice. */
  #queue: Promise<void> = Promise.resolve();

  private constructor(index: GraphIndex, workspace: Workspace) {
    this.#index = index;
    this.#configs = new ConfigFiles(workspace);
  }

  /** The graph of this index, fresh for its current generation. */
  static async for(index: GraphIndex, workspace: Workspace, options: GraphOptions = {}): Promise<ImportGraph> {
    let graph = ImportGraph.#graphs.get(index);
    if (!graph) {
      graph = new ImportGraph(index, workspace);
      ImportGraph.#graphs.set(index, graph);
    } else {
      graph.#configs.useWorkspace(workspace);
    }
    if (options.readHead) graph.#readHead = options.readHead;
    await graph.refresh(options.signal);
    return graph;
  }

  get generation(): number {
    return this.#generation;
  }

  /** Brings the graph up to the index's generation (and to the steering files on disk). */
  refresh(signal?: AbortSignal): Promise<void> {
    const run = this.#queue.then(async () => {
      if (this.#generation === this.#index.generation && (await this.#configs.unchanged())) return;
      await this.#rebuild(signal);
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #rebuild(signal: AbortSignal | undefined): Promise<void> {
    const generation = this.#index.generation;
    const files = this.#index.files();
    const table = new FileTable(files);
    const previous = this.#perFile;
    const changed: GraphFile[] = [];
    const added: string[] = [];
    for (const file of files) {
      const before = this.#table.get(file.real);
      if (!before) added.push(file.real);
      else if (before.sha256 !== file.sha256) changed.push(file);
    }
    const removed = new Set<string>();
    for (const real of this.#table.byReal.keys()) if (!table.has(real)) removed.add(real);
    const configsStale = !(await this.#configs.unchanged());
    const steeringChanged = changed.some((file) => isSteering(file.real)) || added.some(isSteering) || [...removed].some(isSteering);
    const everything = configsStale || steeringChanged || this.#generation === -1;
    // Missing steering files stay missing unless one appeared in the index (or the roots changed).
    if (configsStale || steeringChanged) this.#configs.invalidate();

    const resolvers = new Resolvers({ table, configs: this.#configs }, this.#readHead, this.#jvmPackages);
    // Some files shape how a whole language resolves: any JVM file (package declarations), a
    // package __init__ (package roots), a Rust crate root or mod.rs (module trees).
    const shaping = [...changed.map((file) => file.real), ...added, ...removed];
    const jvmChanged = shaping.some((real) => /\.(java|kts?)$/.test(real));
    const structure = [...added, ...removed];
    const pythonShaped = structure.some((real) => /(^|[\\/])__init__\.pyi?$/.test(real));
    const rustShaped = structure.some((real) => /(^|[\\/])(mod|lib|main)\.rs$/.test(real));
    const needles = addedNeedles(added);
    const perFile = new Map<string, KeptImports>();
    const todo: GraphFile[] = [];
    for (const file of files) {
      if (file.facts.imports.length === 0) continue;
      const kept = previous.get(file.real);
      const redo = everything ||
        !kept ||
        kept.sha256 !== file.sha256 ||
        (jvmChanged && familyOf(file.language) === "jvm") ||
        (pythonShaped && file.language === "python") ||
        (rustShaped && file.language === "rust") ||
        (removed.size > 0 && touchesRemoved(kept, removed)) ||
        (needles.length > 0 && mentionsAny(file, needles));
      if (redo) todo.push(file);
      else perFile.set(file.real, kept);
    }
    const families = new Map<Family, GraphFile[]>();
    for (const file of todo) {
      const family = familyOf(file.language);
      if (!family) continue;
      const list = families.get(family) ?? [];
      list.push(file);
      families.set(family, list);
    }
    for (const [family, list] of families) await resolvers.for(family).prepare?.(list);
    for (const [position, file] of todo.entries()) {
      if (position % 256 === 0) signal?.throwIfAborted();
      perFile.set(file.real, await this.#resolveFile(file, resolvers));
    }

    const reverse = new Map<string, ResolvedStatement[]>();
    for (const imports of perFile.values()) {
      for (const statement of imports.statements) {
        for (const target of statement.targets) {
          let list = reverse.get(target);
          if (!list) reverse.set(target, list = []);
          list.push(statement);
        }
      }
    }
    this.#table = table;
    this.#perFile = perFile;
    this.#reverse = reverse;
    if (everything || resolvers.script.problems.size > 0) {
      const merged = new Map<string, TsConfigProblem>();
      if (!everything) { for (const problem of this.#problems) merged.set(`${problem.config}\0${problem.message}`, problem); }
      for (const [key, problem] of resolvers.script.problems) merged.set(key, problem);
      this.#problems = [...merged.values()];
    }
    this.#generation = generation;
  }

  async #resolveFile(file: GraphFile, resolvers: Resolvers): Promise<KeptImports> {
    const result: KeptImports = { sha256: file.sha256, statements: [], unresolved: [], externals: new Map() };
    const family = familyOf(file.language);
    for (const fact of file.facts.imports) {
      const resolution: Resolution = family ?
        await resolvers.for(family).resolve(file, fact) :
        { kind: "unresolved", reason: "unsupported", detail: `imports of ${file.language} files are not resolved` };
      if (resolution.kind === "file") {
        const targets = resolution.targets.includes(file.real) ? resolution.targets.filter((target) => target !== file.real) : resolution.targets;
        if (targets.length > 0) result.statements.push({ from: file.real, specifier: fact.specifier, kind: fact.kind, line: fact.line, via: resolution.via, targets });
      } else if (resolution.kind === "external") {
        const entry = result.externals.get(resolution.package) ?? { builtin: resolution.builtin, imports: 0 };
        entry.imports += 1;
        result.externals.set(resolution.package, entry);
      } else {
        const entry: UnresolvedImport = { from: file.real, specifier: fact.specifier, kind: fact.kind, line: fact.line, reason: resolution.reason, detail: resolution.detail };
        if (resolution.candidates) entry.candidates = resolution.candidates;
        result.unresolved.push(entry);
      }
    }
    return result;
  }

  /** Imports of one file as the graph resolves them now, even a file the index has not walked (an ignored file named directly). */
  async importsOf(file: GraphFile): Promise<FileImports> {
    let imports = this.#perFile.get(file.real);
    if (!imports || imports.sha256 !== file.sha256) {
      if (file.facts.imports.length === 0) return { sha256: file.sha256, edges: [], unresolved: [], externals: new Map() };
      const resolvers = new Resolvers({ table: this.#table, configs: this.#configs }, this.#readHead, this.#jvmPackages);
      const family = familyOf(file.language);
      if (family) await resolvers.for(family).prepare?.([file]);
      imports = await this.#resolveFile(file, resolvers);
    }
    return { sha256: imports.sha256, edges: edgesOf(imports.statements), unresolved: imports.unresolved, externals: imports.externals };
  }

  /**
   * Import edges to a file the index does not hold (it sits in an ignored folder, or is over a
   * limit): the specifiers that did not resolve are tried again as if the file were indexed.
   */
  async edgesToUnindexed(extra: GraphFile): Promise<ImportEdge[]> {
    if (this.#table.has(extra.real)) return [...this.dependentsOf(extra.real)];
    const table = new FileTable([...this.#table.byReal.values(), extra]);
    const resolvers = new Resolvers({ table, configs: this.#configs }, this.#readHead, this.#jvmPackages);
    const edges: ImportEdge[] = [];
    for (const [real, imports] of this.#perFile) {
      const file = this.#table.get(real);
      const family = file ? familyOf(file.language) : undefined;
      if (!file || !family) continue;
      for (const entry of imports.unresolved) {
        if (entry.reason !== "not_found" && entry.reason !== "ambiguous") continue;
        const fact = file.facts.imports.find((candidate) => candidate.line === entry.line && candidate.specifier === entry.specifier);
        if (!fact) continue;
        const resolution = await resolvers.for(family).resolve(file, fact);
        if (resolution.kind === "file" && resolution.targets.includes(extra.real)) {
          edges.push({ from: real, to: extra.real, specifier: fact.specifier, kind: fact.kind, line: fact.line, via: resolution.via });
        }
      }
    }
    return edges;
  }

  /**
   * Whether an edge names a whole package (a Go import, a Java/Kotlin wildcard) rather than this one
   * file, and its statement reaches other files of that package too.
   */
  sharesPackage(edge: ImportEdge): boolean {
    if (edge.via !== "go_module" && edge.via !== "jvm_package") return false;
    if (edge.via === "jvm_package" && !edge.specifier.trim().endsWith("*")) {
      const fact = this.file(edge.from)?.facts.imports.find((candidate) => candidate.line === edge.line && candidate.specifier === edge.specifier);
      if (fact?.names.some((name) => name.imported === "*") !== true) return false;
    }
    return this.#statementsOf(edge.from).some((other) => other.line === edge.line && other.specifier === edge.specifier && other.targets.some((to) => to !== edge.to));
  }

  // ---------------------------------------------------------------- queries

  /** Indexed files, by real path. */
  file(real: string): GraphFile | undefined {
    return this.#table.get(real);
  }

  files(): GraphFile[] {
    return [...this.#table.byReal.values()];
  }

  /** Indexed files directly in a folder (real path). */
  filesIn(directory: string): readonly GraphFile[] {
    return this.#table.filesIn(directory);
  }

  #statementsOf(real: string): readonly ResolvedStatement[] {
    return this.#perFile.get(real)?.statements ?? NO_IMPORTS;
  }

  /** A file's import edges in statement order (new objects on each call). */
  dependenciesOf(real: string): readonly ImportEdge[] {
    return edgesOf(this.#statementsOf(real));
  }

  /** The files a specifier of this file resolved to (one statement's, with its line), in edge order. */
  targetsOf(real: string, specifier: string, line?: number): string[] {
    const targets = new Set<string>();
    for (const statement of this.#statementsOf(real)) {
      if (statement.specifier === specifier && (line === undefined || statement.line === line)) { for (const to of statement.targets) targets.add(to); }
    }
    return [...targets];
  }

  /** The edges that import a file (new objects on each call). */
  dependentsOf(real: string): readonly ImportEdge[] {
    return (this.#reverse.get(real) ?? NO_IMPORTS).map((statement) => edgeOf(statement, real));
  }

  unresolvedOf(real: string): readonly UnresolvedImport[] {
    return this.#perFile.get(real)?.unresolved ?? [];
  }

  externalsOf(real: string): ExternalUse[] {
    const imports = this.#perFile.get(real);
    if (!imports) return [];
    return [...imports.externals].map(([name, entry]) => ({ package: name, builtin: entry.builtin, files: 1, imports: entry.imports }));
  }

  /** External packages over a set of files (every file when omitted), most used first. */
  externals(scope?: ReadonlySet<string>): ExternalUse[] {
    const totals = new Map<string, ExternalUse>();
    for (const [real, imports] of this.#perFile) {
      if (scope && !scope.has(real)) continue;
      for (const [name, entry] of imports.externals) {
        const total = totals.get(name) ?? { package: name, builtin: entry.builtin, files: 0, imports: 0 };
        total.files += 1;
        total.imports += entry.imports;
        totals.set(name, total);
      }
    }
    return [...totals.values()].sort((a, b) => b.files - a.files || b.imports - a.imports || (a.package < b.package ? -1 : 1));
  }

  unresolved(scope?: ReadonlySet<string>): UnresolvedImport[] {
    const all: UnresolvedImport[] = [];
    for (const [real, imports] of this.#perFile) if (!scope || scope.has(real)) all.push(...imports.unresolved);
    return all;
  }

  /** Problems met while reading tsconfig extends chains (outside the roots, missing, cycles). */
  configProblems(): readonly TsConfigProblem[] {
    return this.#problems;
  }

  /** Distinct successors of a file, optionally without type-only imports. */
  successors(real: string, runtimeOnly = false): string[] {
    const seen = new Set<string>();
    for (const statement of this.#statementsOf(real)) if (!(runtimeOnly && statement.kind === "import_type")) { for (const to of statement.targets) seen.add(to); }
    return [...seen];
  }

  predecessors(real: string, runtimeOnly = false): string[] {
    const seen = new Set<string>();
    for (const statement of this.#reverse.get(real) ?? NO_IMPORTS) if (!(runtimeOnly && statement.kind === "import_type")) seen.add(statement.from);
    return [...seen];
  }

  /**
   * Import cycles (strongly connected components with more than one file), largest first. With a
   * scope, only edges between files of the scope count.
   */
  cycles(options: { scope?: ReadonlySet<string>; runtimeOnly?: boolean } = {}): CycleReport[] {
    const { scope, runtimeOnly = false } = options;
    const nodes = [...this.#perFile.keys()].filter((real) => !scope || scope.has(real)).sort();
    const next = (real: string) => this.successors(real, runtimeOnly).filter((target) => !scope || scope.has(target));
    const components = stronglyConnected(nodes, next).filter((component) => component.length > 1);
    return components
      .map((component) => {
        const members = component.sort();
        return { members, path: shortestCycle(members[0]!, new Set(members), next) };
      })
      .sort((a, b) => b.members.length - a.members.length || (a.members[0]! < b.members[0]! ? -1 : 1));
  }
}

/** Breadth-first walk over dependencies, dependents or both from one or more files, up to `depth` levels; each file once, with its level (the starts are not listed). */
export function walkGraph(
  graph: Pick<ImportGraph, "successors" | "predecessors">,
  start: string | readonly string[],
  direction: "dependencies" | "dependents" | "both",
  depth: number,
  maxNodes: number = LIMITS.intel.graph.maxWalkNodes,
): { levels: Map<string, number>; truncated: boolean } {
  const starts = typeof start === "string" ? [start] : [...start];
  const levels = new Map<string, number>(starts.map((real) => [real, 0]));
  let frontier = starts;
  let truncated = false;
  for (let level = 1; level <= depth && frontier.length > 0; level++) {
    const nextFrontier: string[] = [];
    for (const node of frontier) {
      const neighbours = [...(direction === "dependents" ? [] : graph.successors(node)), ...(direction === "dependencies" ? [] : graph.predecessors(node))];
      for (const neighbour of neighbours.sort()) {
        if (levels.has(neighbour)) continue;
        if (levels.size - starts.length >= maxNodes) {
          truncated = true;
          break;
        }
        levels.set(neighbour, level);
        nextFrontier.push(neighbour);
      }
    }
    frontier = nextFrontier;
  }
  for (const real of starts) levels.delete(real);
  return { levels, truncated };
}
