/**
 * A syntactic call graph over the code index and the import graph. A call is resolved when it is
 * asked about (and memoized per index generation): through an import binding of its file (following
 * re-exports, star exports, aliases and module namespaces — `exact`), a declaration in scope (same
 * file, enclosing class, same Go package — `exact`), or, failing those, every workspace declaration
 * of that name in a compatible language (one — `inferred`; several — `ambiguous`, all listed).
 * Finding the callers of a symbol looks only at calls of its name and of the names it is imported
 * or re-exported under, so a query never resolves the whole workspace. Names through a module's
 * exports come from the re-export resolver (graph/reexports.ts) that `surface` uses too.
 */
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import { LruMap } from "../../helpers/lru-map.ts";
import { PairsByKey } from "../../helpers/pairs-by-key.ts";
import type { Workspace } from "../../policy/workspace.ts";
import type { CallFact, SymbolFact } from "../facts/types.ts";
import { type GraphOptions, ImportGraph, walkGraph } from "../graph/import-graph.ts";
import { type LookupRules, lookupExport, type Resolved, ReexportWalk } from "../graph/reexports.ts";
import type { GraphFile, GraphIndex } from "../graph/types.ts";
import {
  CALLABLE_KINDS,
  CONSTRUCTOR_NAMES,
  TYPE_KINDS,
  IMPLICIT_RECEIVER,
  MODULE_SCOPED,
  RECEIVER_WORDS,
  KNOWN_GLOBALS,
  groupOf,
  type Meaning,
  NOTHING,
  merge,
  splitQualifier,
  bindings,
  sortEdges,
} from "./names.ts";
import { ReceiverTypes, TYPED_RECEIVERS } from "./receivers.ts";
import { type CallEdge, type CallResolution, type CallSite, type Confidence, type SymbolRef, symbolKey } from "./types.ts";

/** A file with calls, as the call graph keeps it. */
interface CallFile {
  real: string;
  facts: { calls: readonly CallFact[] };
}

/**
 * A file with declarations, as the call graph keeps it: each SymbolRef is made when first asked for
 * and then kept, so a declaration has one identity for the generation, and a query that touches a
 * few files does not copy the declarations of every other.
 */
interface SymbolFile {
  real: string;
  facts: { symbols: readonly SymbolFact[] };
  refs?: Array<SymbolRef | undefined>;
  /** Every ref of the file is made (symbolsOf's answer is refs itself). */
  complete?: boolean;
}

function refOf(real: string, fact: SymbolFact): SymbolRef {
  const ref: SymbolRef = {
    file: real,
    name: fact.name,
    qualifiedName: fact.qualifiedName,
    kind: fact.kind,
    startLine: fact.startLine,
    endLine: fact.endLine,
    signature: fact.signature,
    exported: fact.exported,
  };
  if (fact.parent !== undefined) ref.parent = fact.parent;
  if (fact.local) ref.local = true;
  if (fact.heritage && fact.heritage.length > 0) ref.heritage = fact.heritage;
  return ref;
}

const NO_SYMBOLS: readonly SymbolRef[] = [];

function resolvedOf(meaning: Meaning): Resolved<SymbolRef> {
  return { found: meaning.symbols, modules: meaning.modules, via: [], ...(meaning.external === undefined ? {} : { external: meaning.external }) };
}

export class CallGraph {
  static readonly #graphs = new WeakMap<GraphIndex, CallGraph>();

  readonly imports: ImportGraph;
  #generation = -1;
  #symbolFiles: SymbolFile[] = [];
  #symbolFileOf = new Map<string, SymbolFile>();
  /** Declarations (callable or types, not locals) by name, as (file number, ordinal) pairs into #symbolFiles. */
  #byName = PairsByKey.empty<string>();
  /** Call sites by callee name, as (file number, ordinal) pairs into #callFiles: a Go tree has hundreds of thousands. */
  #callsByName = PairsByKey.empty<string>();
  #callFiles: CallFile[] = [];
  /** Name → names it is also known by (import aliases, re-export aliases). */
  #aliases = new Map<string, Set<string>>();
  #memo = new Map<string, CallResolution>();
  #reach = new Map<string, ReadonlySet<string>>();
  /** Answers derived from this generation (unresolved candidates, which read texts), by key, least recently used first. */
  #derived = new LruMap<string, unknown>(LIMITS.intel.calls.maxDerived);
  /** dispatchedFrom's answers, by symbol key, for the generation. */
  #dispatchedFrom = new Map<string, SymbolRef[]>();
  #goInterfaces = new Map<string, Array<{ method: SymbolRef; requires: string[] }>>();
  readonly #receivers = new ReceiverTypes(this);

  private constructor(imports: ImportGraph) {
    this.imports = imports;
  }

  static async for(index: GraphIndex, workspace: Workspace, options: GraphOptions = {}): Promise<CallGraph> {
    const imports = await ImportGraph.for(index, workspace, options);
    let graph = CallGraph.#graphs.get(index);
    if (!graph) {
      graph = new CallGraph(imports);
      CallGraph.#graphs.set(index, graph);
    }
    graph.#refresh();
    return graph;
  }

  #refresh(): void {
    if (this.#generation === this.imports.generation) return;
    const symbolFiles: SymbolFile[] = [];
    const symbolFileOf = new Map<string, SymbolFile>();
    const callFiles: CallFile[] = [];
    const aliases = new Map<string, Set<string>>();
    const alias = (from: string, to: string) => {
      if (from === to || from === "*" || to === "*") return;
      let set = aliases.get(from);
      if (!set) aliases.set(from, set = new Set());
      set.add(to);
    };
    for (const file of this.imports.files()) {
      const symbols = file.facts.symbols;
      if (symbols.length > 0) {
        const entry: SymbolFile = { real: file.real, facts: file.facts };
        symbolFiles.push(entry);
        symbolFileOf.set(file.real, entry);
      }
      if (file.facts.calls.length > 0) callFiles.push(file);
      for (const fact of file.facts.imports) for (const name of fact.names) alias(name.imported, name.local);
      for (const exported of file.facts.exportedNames) if (exported.local !== undefined) alias(exported.local, exported.name);
    }
    this.#byName = PairsByKey.build((add) => {
      for (const [fileNumber, file] of symbolFiles.entries()) {
        const symbols = file.facts.symbols;
        for (let ordinal = 0; ordinal < symbols.length; ordinal++) {
          const symbol = symbols[ordinal] as SymbolFact;
          if (!symbol.local && (CALLABLE_KINDS.has(symbol.kind) || TYPE_KINDS.has(symbol.kind))) add(symbol.name, fileNumber, ordinal);
        }
      }
    });
    this.#callsByName = PairsByKey.build((add) => {
      for (const [fileNumber, file] of callFiles.entries()) {
        const calls = file.facts.calls;
        for (let ordinal = 0; ordinal < calls.length; ordinal++) add((calls[ordinal] as CallFact).name, fileNumber, ordinal);
      }
    });
    this.#symbolFiles = symbolFiles;
    this.#symbolFileOf = symbolFileOf;
    this.#callFiles = callFiles;
    this.#aliases = aliases;
    this.#memo = new Map();
    this.#reach = new Map();
    this.#dispatchedFrom = new Map();
    this.#goInterfaces = new Map();
    this.#derived = new LruMap(LIMITS.intel.calls.maxDerived);
    this.#generation = this.imports.generation;
  }

  /**
   * `compute()` once per key and generation (the answer must depend only on the indexed files);
   * kept for the generation, at most `LIMITS.intel.calls.maxDerived` answers, the least recently used dropped first.
   */
  async derived<T>(key: string, compute: () => Promise<T | undefined>): Promise<T | undefined> {
    // Least recently used goes first: a rotation over more keys than kept must not evict every one before its turn.
    if (this.#derived.has(key)) return this.#derived.get(key) as T;
    const generation = this.#generation;
    const value = await compute();
    // undefined: not to be kept (a cancelled scan); a refresh meanwhile makes it stale.
    if (value === undefined || generation !== this.#generation) return value;
    this.#derived.set(key, value);
    return value;
  }

  // ---------------------------------------------------------------- symbols

  /** The declaration at `ordinal` of a file, made once per generation. */
  #ref(file: SymbolFile, ordinal: number): SymbolRef {
    const refs = file.refs ??= new Array<SymbolRef | undefined>(file.facts.symbols.length);
    return refs[ordinal] ??= refOf(file.real, file.facts.symbols[ordinal] as SymbolFact);
  }

  symbolsOf(real: string): readonly SymbolRef[] {
    const file = this.#symbolFileOf.get(real);
    if (!file) return NO_SYMBOLS;
    if (!file.complete) {
      for (let ordinal = 0; ordinal < file.facts.symbols.length; ordinal++) this.#ref(file, ordinal);
      file.complete = true;
    }
    return file.refs as SymbolRef[];
  }

  /** Workspace declarations (callable or types, not locals) named `name`, in index order. */
  #named(name: string): SymbolRef[] {
    const found: SymbolRef[] = [];
    this.#byName.forEach(name, (fileNumber, ordinal) => found.push(this.#ref(this.#symbolFiles[fileNumber] as SymbolFile, ordinal)));
    return found;
  }

  /** Declarations that name what they extend or implement, in index order. */
  symbolsWithHeritage(): SymbolRef[] {
    const found: SymbolRef[] = [];
    for (const file of this.#symbolFiles) {
      const symbols = file.facts.symbols;
      for (let ordinal = 0; ordinal < symbols.length; ordinal++) if (((symbols[ordinal] as SymbolFact).heritage?.length ?? 0) > 0) found.push(this.#ref(file, ordinal));
    }
    return found;
  }

  /**
   * Declarations matching `query`: the qualified name itself or a dotted suffix of it
   * ("create", "UserService.create"), optionally within a file or folder (real path).
   */
  findSymbols(query: string, within?: { real: string; directory: boolean }): SymbolRef[] {
    const normalized = query.replace(/::/g, ".").trim();
    const matches: SymbolRef[] = [];
    // Facts are matched before refs are made: a query over every file makes refs of its matches only.
    const consider = (file: SymbolFile | undefined) => {
      const symbols = file?.facts.symbols ?? [];
      for (let ordinal = 0; ordinal < symbols.length; ordinal++) {
        const symbol = symbols[ordinal] as SymbolFact;
        if (symbol.qualifiedName === normalized || symbol.qualifiedName.endsWith(`.${normalized}`) || symbol.name === normalized) matches.push(this.#ref(file!, ordinal));
      }
    };
    if (within && !within.directory) consider(this.#symbolFileOf.get(within.real));
    else {
      for (const file of this.#symbolFiles) {
        if (within && !file.real.startsWith(within.real + path.sep)) continue;
        consider(file);
      }
    }
    // Exact qualified names first, then public, non-local declarations.
    const rank = (symbol: SymbolRef) => (symbol.qualifiedName === normalized ? 0 : 2) + (symbol.local ? 4 : 0) + (symbol.exported ? 0 : 1);
    return matches.sort((a, b) => rank(a) - rank(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.startLine - b.startLine));
  }

  /** The declaration a call is written in (by the extractor's caller name, disambiguated by line). */
  callerOf(site: CallSite): SymbolRef | undefined {
    const name = site.fact.caller;
    if (name === undefined) return undefined;
    const candidates = this.symbolsOf(site.file).filter((symbol) => symbol.qualifiedName === name);
    return candidates.find((symbol) => symbol.startLine <= site.fact.line && site.fact.line <= symbol.endLine) ?? candidates[0];
  }

  /** Members named `name` of a type, then of the types it extends (resolved like calls). */
  membersOf(type: SymbolRef, name: string, depth = 0, seen = new Set<string>()): { symbols: SymbolRef[]; exact: boolean } {
    const key = symbolKey(type);
    if (seen.has(key) || depth > LIMITS.intel.calls.maxHeritageDepth) return { symbols: [], exact: true };
    seen.add(key);
    const own = this.symbolsOf(type.file).filter((symbol) => symbol.name === name && symbol.parent === type.qualifiedName);
    if (own.length > 0) return { symbols: own, exact: true };
    // Rust impl blocks and Swift/Kotlin extensions may sit in another file: same type name, same language group.
    const file = this.imports.file(type.file);
    const elsewhere = this.#named(name).filter(
      (symbol) => symbol.parent === type.name && symbol.file !== type.file && file && groupOf(this.imports.file(symbol.file)?.language ?? "") === groupOf(file.language),
    );
    // A Go type's methods are declared anywhere in its package (its folder), and only there.
    if (file?.language === "go") {
      const samePackage = elsewhere.filter((symbol) => path.dirname(symbol.file) === path.dirname(type.file));
      if (samePackage.length > 0) return { symbols: samePackage, exact: true };
    } else if (elsewhere.length > 0) return { symbols: elsewhere, exact: false };
    for (const heritage of type.heritage ?? []) {
      const parents = this.resolveTypeName(type.file, heritage);
      for (const parent of parents.symbols) {
        const inherited = this.membersOf(parent, name, depth + 1, seen);
        if (inherited.symbols.length > 0) return { symbols: inherited.symbols, exact: inherited.exact && parents.confidence === "exact" };
      }
    }
    return { symbols: [], exact: true };
  }

  /** A type name as written in `file` (heritage clause, qualifier) → its declarations. */
  resolveTypeName(fileReal: string, written: string): { symbols: SymbolRef[]; confidence: Confidence } {
    const cleaned = written.replace(/<.*$/s, "").replace(/\(.*$/s, "").replace(/^\s*(?:extends|implements|with|:)\s+/, "").trim();
    const parts = splitQualifier(cleaned);
    const last = parts[parts.length - 1];
    if (last === undefined) return { symbols: [], confidence: "exact" };
    const meaning = this.meaningOfPath(fileReal, parts);
    const types = meaning.symbols.filter((symbol) => TYPE_KINDS.has(symbol.kind) || symbol.kind === "function");
    if (types.length > 0) return { symbols: types, confidence: "exact" };
    if (meaning.external !== undefined) return { symbols: [], confidence: "exact" };
    const file = this.imports.file(fileReal);
    const candidates = this.#named(last).filter((symbol) =>
      TYPE_KINDS.has(symbol.kind) && (!file || groupOf(this.imports.file(symbol.file)?.language ?? "") === groupOf(file.language))
    );
    return { symbols: candidates, confidence: candidates.length === 1 ? "inferred" : "ambiguous" };
  }

  // ---------------------------------------------------------------- names through imports

  /** What `name` means at the top level of a module file: declarations, re-exports, star exports, imports (the re-export resolver, reexports.ts). */
  exportOf(fileReal: string, name: string, walk = new ReexportWalk()): Meaning {
    const resolved = lookupExport(this.imports, fileReal, name, this.#rules, walk);
    if (resolved.external !== undefined) return { ...NOTHING, external: resolved.external };
    return resolved.problem ? { symbols: [], modules: [], cut: resolved.problem.reason } : { symbols: resolved.found, modules: resolved.modules };
  }

  /** Declarations are any top-level ones; a module also stands for what its imports bind. */
  readonly #rules: LookupRules<SymbolRef> = {
    declared: (file, name) => this.symbolsOf(file.real).filter((symbol) => symbol.name === name && symbol.parent === undefined && !symbol.local),
    imported: (file, name, walk) => {
      const bound = this.#importedMeaning(file, name, walk);
      return bound && resolvedOf(bound);
    },
    wildcard: (file, name, walk) => resolvedOf(this.#starImported(file, name, walk)),
  };

  /** What a name bound by one of the file's imports refers to; undefined when no import binds it. */
  #importedMeaning(file: GraphFile, local: string, walk: ReexportWalk): Meaning | undefined {
    const meanings: Meaning[] = [];
    for (const fact of file.facts.imports) {
      for (const binding of bindings(file, fact)) {
        if (binding.local !== local) continue;
        const targets = this.imports.targetsOf(file.real, fact.specifier, fact.line);
        if (targets.length === 0) {
          const unresolved = this.imports.unresolvedOf(file.real).some((entry) => entry.line === fact.line && entry.specifier === fact.specifier);
          meanings.push(unresolved ? NOTHING : { symbols: [], modules: [], external: fact.specifier });
          continue;
        }
        if (binding.imported === "*") {
          meanings.push({ symbols: [], modules: targets });
          continue;
        }
        const exported = merge(targets.map((target) => this.exportOf(target, binding.imported, walk)));
        if (exported.symbols.length > 0 || exported.modules.length > 0) {
          meanings.push(exported);
          continue;
        }
        // Java/Kotlin static imports name a member of the file's type (`import static a.B.run`).
        if (groupOf(file.language) === "jvm") {
          const members = targets.flatMap((target) =>
            this.symbolsOf(target)
              .filter((symbol) => symbol.parent === undefined && TYPE_KINDS.has(symbol.kind))
              .flatMap((type) => this.membersOf(type, binding.imported).symbols)
          );
          if (members.length > 0) {
            meanings.push({ symbols: members, modules: [] });
            continue;
          }
        }
        // `from pkg import sub` (a submodule), `import com.x.Foo` (the file of Foo).
        const wanted = binding.imported.split(".").pop() ?? binding.imported;
        const modules = targets.filter((target) => {
          const base = path.basename(target).replace(/\.[^.]+$/, "");
          return base === wanted || (/^(__init__|mod|index)$/.test(base) && path.basename(path.dirname(target)) === wanted);
        });
        meanings.push({ symbols: [], modules });
      }
    }
    return meanings.length > 0 ? merge(meanings) : undefined;
  }

  /** A dotted path as written in a file ("ns.sub.Foo", "pkg.mod"), resolved segment by segment. */
  meaningOfPath(fileReal: string, parts: readonly string[]): Meaning {
    const file = this.imports.file(fileReal);
    const head = parts[0];
    if (!file || head === undefined) return NOTHING;
    let meaning: Meaning | undefined;
    let rest = parts.slice(1);
    // Python `import a.b` binds `a`, and `a.b.f()` names the module a/b.py: take the longest imported dotted prefix.
    if (file.language === "python" && parts.length > 1) {
      for (let length = parts.length; length >= 2 && !meaning; length--) {
        const dotted = parts.slice(0, length).join(".");
        const fact = file.facts.imports.find((candidate) => candidate.specifier === dotted && candidate.names.some((name) => name.imported === dotted && name.local === head));
        if (!fact) continue;
        meaning = { symbols: [], modules: this.imports.targetsOf(file.real, fact.specifier, fact.line) };
        rest = parts.slice(length);
      }
      if (meaning) return this.#walkMembers(meaning, rest);
    }
    const declared = this.symbolsOf(fileReal).filter((symbol) => symbol.name === head && symbol.parent === undefined && !symbol.local);
    if (declared.length > 0) meaning = { symbols: declared, modules: [] };
    else meaning = this.#importedMeaning(file, head, new ReexportWalk());
    if (!meaning && (file.language === "go" || groupOf(file.language) === "jvm")) meaning = this.#samePackage(file, head);
    if (!meaning) return NOTHING;
    return this.#walkMembers(meaning, rest);
  }

  /** Follows member names from a meaning: a module's exports, a type's members. */
  #walkMembers(start: Meaning, parts: readonly string[]): Meaning {
    let meaning = start;
    for (const part of parts) {
      if (meaning.external !== undefined) return meaning;
      const next: Meaning[] = [];
      for (const module of meaning.modules) next.push(this.exportOf(module, part));
      for (const symbol of meaning.symbols) {
        const members = this.membersOf(symbol, part);
        next.push({ symbols: members.symbols, modules: [] });
      }
      meaning = merge(next);
    }
    return meaning;
  }

  /** Go: `s.run()` inside `func (s *Server) Start()` calls a method of Server, declared anywhere in the package. */
  #goReceiverMethods(file: GraphFile, caller: string | undefined, receiver: string, name: string): SymbolRef[] {
    if (caller === undefined) return [];
    const method = this.symbolsOf(file.real).find((symbol) => symbol.qualifiedName === caller);
    const match = method ? /^func\s*\(\s*(\w+)\s+\*?\s*(\w+)/.exec(method.signature) : null;
    if (!match || match[1] !== receiver) return [];
    const type = match[2]!;
    const directory = path.dirname(file.real);
    return this.#named(name).filter((symbol) => symbol.parent === type && path.dirname(symbol.file) === directory);
  }

  /** Go, Java, Kotlin: top-level declarations of the same package (the file's folder), visible without an import. */
  #samePackage(file: GraphFile, name: string): Meaning | undefined {
    const directory = path.dirname(file.real);
    const group = groupOf(file.language);
    const symbols: SymbolRef[] = [];
    for (const candidate of this.#named(name)) {
      if (candidate.parent !== undefined || path.dirname(candidate.file) !== directory) continue;
      if (groupOf(this.imports.file(candidate.file)?.language ?? "") === group) symbols.push(candidate);
    }
    return symbols.length > 0 ? { symbols, modules: [] } : undefined;
  }

  // ---------------------------------------------------------------- calls

  resolveCall(site: CallSite): CallResolution {
    const key = `${site.file}\0${site.ordinal}`;
    let resolution = this.#memo.get(key);
    if (!resolution) {
      resolution = this.#resolve(site);
      this.#memo.set(key, resolution);
    }
    return resolution;
  }

  #resolve(site: CallSite): CallResolution {
    const file = this.imports.file(site.file);
    if (!file) return { status: "unresolved", detail: "file no longer indexed" };
    const { fact } = site;
    const name = fact.name;
    const qualifier = fact.qualifier?.trim();
    const exact = (symbols: SymbolRef[]): CallResolution => ({ status: "resolved", confidence: "exact", targets: symbols });

    if (qualifier === undefined || qualifier.length === 0) {
      const inScope = this.#inScope(file, name, fact.caller);
      if (inScope.length > 0) return exact(inScope);
      const imported = this.#importedMeaning(file, name, new ReexportWalk());
      if (imported) {
        if (imported.symbols.length > 0) return exact(imported.symbols);
        if (imported.external !== undefined) return { status: "external", detail: imported.external };
      }
      const starred = this.#starImported(file, name).symbols;
      if (starred.length > 0) return exact(starred);
      if (IMPLICIT_RECEIVER.has(file.language)) {
        const own = this.#enclosingMembers(file, fact.caller, name);
        if (own.symbols.length > 0) return own.exact ? exact(own.symbols) : this.#byCount(own.symbols);
      }
      if (file.language === "go" || groupOf(file.language) === "jvm") {
        const same = this.#samePackage(file, name);
        if (same) return exact(same.symbols);
      }
      // A bare name never calls a method in Go or Python (no implicit receiver).
      if (TYPED_RECEIVERS.has(file.language)) return this.#nameBased(file, name, "function");
      return this.#nameBased(file, name, "bare");
    }

    if (qualifier === "super" || qualifier === "super(…)") return this.#parentMembers(file, fact.caller, name);
    if (RECEIVER_WORDS.has(qualifier)) {
      const own = this.#enclosingMembers(file, fact.caller, name);
      if (own.symbols.length > 0) return own.exact ? exact(own.symbols) : this.#byCount(own.symbols);
      // The receiver's class is known: a method it and its ancestors lack is not a workspace method a subclass happens to declare.
      if (TYPED_RECEIVERS.has(file.language) && this.#enclosingType(file, fact.caller)) {
        return { status: "unresolved", detail: `${qualifier}.${name}: no method ${name} on the enclosing class or what it extends in the workspace` };
      }
      return this.#nameBased(file, name, "member");
    }
    const parts = splitQualifier(qualifier);
    const head = parts[0]!;
    if (file.language === "go" && parts.length === 1) {
      const methods = this.#goReceiverMethods(file, fact.caller, head, name);
      if (methods.length > 0) return exact(methods);
    }
    const typed = TYPED_RECEIVERS.has(file.language);
    if (!RECEIVER_WORDS.has(head) && !(typed && this.#receivers.isLocal(file, fact.caller, head, fact.line))) {
      const meaning = this.meaningOfPath(file.real, parts);
      if (meaning.external !== undefined) return { status: "external", detail: meaning.external };
      if (meaning.modules.length > 0 || meaning.symbols.length > 0) {
        const found: Meaning[] = [];
        for (const module of meaning.modules) found.push(this.exportOf(module, name));
        let allExact = true;
        for (const symbol of meaning.symbols) {
          const members = this.membersOf(symbol, name);
          allExact &&= members.exact;
          found.push({ symbols: members.symbols, modules: [] });
        }
        const targets = merge(found).symbols;
        if (targets.length > 0) return allExact ? exact(targets) : this.#byCount(targets);
        const cut = found.find((one) => one.cut !== undefined)?.cut;
        if (meaning.modules.length > 0) return { status: "unresolved", detail: `${name} is not declared in ${qualifier}${cut === undefined ? "" : ` (${cut})`}` };
      }
      if (KNOWN_GLOBALS.has(head) && !this.#isBound(file, head)) return { status: "external", detail: `${head} is a runtime global` };
    }
    if (typed) {
      const receiver = this.#receivers.of(file, fact.caller, qualifier, fact.line);
      if (receiver.status === "external") return { status: "external", detail: `called on \`${qualifier}\`: ${receiver.detail}` };
      let reason = receiver.status === "unknown" ? receiver.reason : "";
      if (receiver.status === "known") {
        const found = this.#methodOf(receiver.types, name, qualifier);
        // A type parameter's value may be of a subtype that declares the method.
        if (found.status !== "unresolved" || receiver.bound === undefined) return found;
        reason = `receiver \`${qualifier}\` is of type parameter ${receiver.bound}, whose constraint has no method ${name}`;
      }
      // By name only: even one method of that name may not be the one called.
      const byName = this.#nameBased(file, name, "member");
      return byName.status === "resolved" ? { ...byName, confidence: "ambiguous", reason } : byName;
    }
    return this.#nameBased(file, name, "member");
  }

  /**
   * A call on a receiver of known type: the method found on the type or what it extends or embeds
   * (an override shadows its parent's; through an interface, the interface's method), `exact`.
   * Not found there, it is no call of a workspace method of that name.
   */
  #methodOf(types: readonly SymbolRef[], name: string, qualifier: string): CallResolution {
    const found: SymbolRef[] = [];
    let allExact = true;
    for (const type of types) {
      const members = this.membersOf(type, name);
      allExact &&= members.exact;
      found.push(...members.symbols.filter((member) => CALLABLE_KINDS.has(member.kind)));
    }
    if (found.length === 0) {
      const named = types.map((type) => type.qualifiedName).join(" or ");
      return { status: "unresolved", detail: `called on \`${qualifier}\`, a ${named}, which has no method ${name} in the workspace (declared outside it, or a function value)` };
    }
    return allExact ? { status: "resolved", confidence: "exact", targets: found } : this.#byCount(found);
  }

  /** `super().m()` / `super.m()`: `m` of what the enclosing class extends, never the class's own. */
  #parentMembers(file: GraphFile, caller: string | undefined, name: string): CallResolution {
    const type = this.#enclosingType(file, caller);
    if (!type) return { status: "unresolved", detail: "super outside a class" };
    const found: SymbolRef[] = [];
    let allExact = true;
    for (const heritage of type.heritage ?? []) {
      const parents = this.resolveTypeName(type.file, heritage);
      for (const parent of parents.symbols) {
        const members = this.membersOf(parent, name);
        allExact &&= members.exact && parents.confidence === "exact";
        found.push(...members.symbols.filter((member) => CALLABLE_KINDS.has(member.kind)));
      }
    }
    if (found.length > 0) return allExact ? { status: "resolved", confidence: "exact", targets: found } : this.#byCount(found);
    return { status: "external", detail: `super: ${type.qualifiedName} extends no workspace class with a method ${name}` };
  }

  /** A name brought into scope by a wildcard import (`from x import *`, `import a.b.*`, `use x::*`). */
  #starImported(file: GraphFile, name: string, walk?: ReexportWalk): Meaning {
    const found: Meaning[] = [];
    for (const fact of file.facts.imports) {
      if (fact.kind === "reexport") continue;
      const star = fact.names.some((entry) => entry.imported === "*" && entry.local === "*") || /::\*$/.test(fact.specifier);
      if (!star) continue;
      for (const target of this.imports.targetsOf(file.real, fact.specifier, fact.line)) found.push(this.exportOf(target, name, walk));
    }
    return merge(found);
  }

  #isBound(file: GraphFile, name: string): boolean {
    return this.symbolsOf(file.real).some((symbol) => symbol.name === name) || file.facts.imports.some((fact) => bindings(file, fact).some((binding) => binding.local === name));
  }

  /** Declarations visible to a bare name: nested in the caller's scopes (innermost first), then top level. */
  #inScope(file: GraphFile, name: string, caller: string | undefined): SymbolRef[] {
    const symbols = this.symbolsOf(file.real).filter((symbol) => symbol.name === name && (CALLABLE_KINDS.has(symbol.kind) || TYPE_KINDS.has(symbol.kind)));
    if (symbols.length === 0) return [];
    // Scopes from innermost to the top level: "A.b.c" → "A.b.c", "A.b", "A", undefined.
    const scopes: Array<string | undefined> = [];
    if (caller !== undefined) {
      const parts = caller.split(".");
      for (let length = parts.length; length >= 1; length--) scopes.push(parts.slice(0, length).join("."));
    }
    scopes.push(undefined);
    for (const scope of scopes) {
      const found = symbols.filter((symbol) => symbol.parent === scope && (scope === undefined ? !symbol.local : true));
      // A class's methods are not in scope for a bare name in most languages: only locals and functions are.
      const usable = found.filter((symbol) => scope === undefined || symbol.local || symbol.kind !== "method");
      if (usable.length > 0) return usable;
    }
    return [];
  }

  /** The innermost class (or other type) the caller (a method, or a function nested in one) is written in. */
  #enclosingType(file: GraphFile, caller: string | undefined): SymbolRef | undefined {
    const parts = caller?.split(".") ?? [];
    const symbols = this.symbolsOf(file.real);
    for (let length = parts.length - 1; length >= 1; length--) {
      const type = symbols.find((symbol) => symbol.qualifiedName === parts.slice(0, length).join(".") && TYPE_KINDS.has(symbol.kind));
      if (type) return type;
    }
    return undefined;
  }

  /** Methods named `name` of the class the caller is written in (and what it extends). */
  #enclosingMembers(file: GraphFile, caller: string | undefined, name: string): { symbols: SymbolRef[]; exact: boolean } {
    if (caller === undefined) return { symbols: [], exact: true };
    const symbols = this.symbolsOf(file.real);
    const parts = caller.split(".");
    for (let length = parts.length; length >= 1; length--) {
      const qualified = parts.slice(0, length).join(".");
      const type = symbols.find((symbol) => symbol.qualifiedName === qualified && TYPE_KINDS.has(symbol.kind));
      if (!type) continue;
      const members = this.membersOf(type, name);
      if (members.symbols.length > 0) return members;
    }
    // Rust/Go methods name their receiver type as parent without a type symbol in the file.
    const receiver = symbols.find((symbol) => symbol.qualifiedName === caller)?.parent;
    if (receiver !== undefined) {
      const siblings = symbols.filter((symbol) => symbol.parent === receiver && symbol.name === name);
      if (siblings.length > 0) return { symbols: siblings, exact: true };
    }
    return { symbols: [], exact: true };
  }

  /** The calling file, its package (Go, Java, Kotlin: its folder) and the files within a few import hops: where a guessed callee may live. */
  #reachable(file: GraphFile): ReadonlySet<string> {
    const known = this.#reach.get(file.real);
    if (known) return known;
    const found = new Set([file.real, ...walkGraph(this.imports, file.real, "dependencies", LIMITS.intel.calls.inferenceHops, Infinity).levels.keys()]);
    if (file.language === "go" || groupOf(file.language) === "jvm") { for (const other of this.imports.filesIn(path.dirname(file.real))) found.add(other.real); }
    this.#reach.set(file.real, found);
    return found;
  }

  #byCount(targets: SymbolRef[]): CallResolution {
    return { status: "resolved", confidence: targets.length === 1 ? "inferred" : "ambiguous", targets };
  }

  /** Every workspace declaration of the name in a compatible language: one is inferred, several ambiguous. */
  #nameBased(file: GraphFile, name: string, mode: "bare" | "function" | "member"): CallResolution {
    const group = groupOf(file.language);
    let all = this.#named(name).filter((symbol) => CALLABLE_KINDS.has(symbol.kind) && groupOf(this.imports.file(symbol.file)?.language ?? "") === group);
    if (all.length === 0) return { status: "unresolved", detail: `no declaration of ${name} in the workspace` };
    if (MODULE_SCOPED.has(file.language)) {
      const reachable = this.#reachable(file);
      all = all.filter((symbol) => reachable.has(symbol.file));
      if (all.length === 0) {
        return { status: "unresolved", detail: `no declaration of ${name} is reachable through the imports of this file (a builtin, an external or a local value)` };
      }
    }
    const isMember = (symbol: SymbolRef) => symbol.parent !== undefined || symbol.kind === "method";
    if (mode === "function") {
      const functions = all.filter((symbol) => !isMember(symbol));
      return functions.length > 0 ?
        this.#byCount(functions) :
        { status: "unresolved", detail: `no function named ${name} in reach (a builtin, or a method, which a bare name does not call)` };
    }
    const preferred = mode === "member" ? all.filter(isMember) : all.filter((symbol) => !isMember(symbol) || IMPLICIT_RECEIVER.has(file.language));
    const targets = preferred.length > 0 ? preferred : all;
    return this.#byCount(targets);
  }

  // ---------------------------------------------------------------- edges

  /** Every name a declaration may be called by: its own, and the aliases it is imported or re-exported under. */
  #namesOf(symbol: SymbolRef): Set<string> {
    const names = new Set([symbol.name]);
    const queue = [symbol.name];
    while (queue.length > 0 && names.size < 64) {
      for (const alias of this.#aliases.get(queue.shift()!) ?? []) {
        if (!names.has(alias)) {
          names.add(alias);
          queue.push(alias);
        }
      }
    }
    // Default exports are called under whatever name the importer chose.
    if (symbol.parent === undefined) { for (const alias of this.#aliases.get("default") ?? []) names.add(alias); }
    return names;
  }

  /** Workspace declarations (callable or types, not locals) named `name`. */
  symbolsNamed(name: string): readonly SymbolRef[] {
    return this.#named(name);
  }

  /** Every call site whose callee's last name is `name`, in index order. */
  callSitesNamed(name: string): CallSite[] {
    const found: CallSite[] = [];
    this.#callsByName.forEach(name, (fileNumber, ordinal) => {
      const file = this.#callFiles[fileNumber] as CallFile;
      found.push({ file: file.real, ordinal, fact: file.facts.calls[ordinal] as CallFact });
    });
    return found;
  }

  /** Direct calls of `target`, best confidence first. */
  callersOf(target: SymbolRef): CallEdge[] {
    const wanted = symbolKey(target);
    const edges: CallEdge[] = [];
    for (const name of this.#namesOf(target)) {
      for (const site of this.callSitesNamed(name)) {
        const resolution = this.resolveCall(site);
        if (resolution.status !== "resolved" || !resolution.targets.some((candidate) => symbolKey(candidate) === wanted)) continue;
        edges.push({
          site,
          caller: this.callerOf(site),
          confidence: resolution.confidence,
          targets: resolution.targets,
          ...(resolution.reason === undefined ? {} : { reason: resolution.reason }),
        });
      }
    }
    return sortEdges(edges);
  }

  /**
   * The methods whose calls may dispatch to `method` at run time without being calls of it: in Go,
   * the interface methods it implements structurally (interfaces declaring a method of its name,
   * every method of which, their own and those of the workspace interfaces they embed, its type has,
   * declared or promoted); elsewhere, the methods of the types its class extends or implements that
   * it overrides, up the hierarchy. Constructors dispatch nowhere. Kept for the generation.
   */
  dispatchedFrom(method: SymbolRef): readonly SymbolRef[] {
    const key = symbolKey(method);
    let found = this.#dispatchedFrom.get(key);
    if (!found) this.#dispatchedFrom.set(key, found = this.#overridden(method));
    return found;
  }

  /** The inverse of dispatchedFrom: the implementations (Go) and overrides (class hierarchies) a call of `method` may run instead of it. */
  dispatchesTo(method: SymbolRef): SymbolRef[] {
    if (!this.#dispatching(method)) return [];
    const key = symbolKey(method);
    return this.#named(method.name).filter((candidate) => candidate !== method && this.dispatchedFrom(candidate).some((from) => symbolKey(from) === key));
  }

  /** A method that can be reached through another: not a constructor, and owned by a type. */
  #dispatching(method: SymbolRef): boolean {
    return method.kind === "method" && method.parent !== undefined && !CONSTRUCTOR_NAMES.has(method.name);
  }

  #overridden(method: SymbolRef): SymbolRef[] {
    const file = this.imports.file(method.file);
    if (!file || !this.#dispatching(method)) return [];
    if (file.language === "go") return this.#goInterfaceMethods(file, method);
    const owner = this.symbolsOf(method.file).find((symbol) => symbol.qualifiedName === method.parent && TYPE_KINDS.has(symbol.kind));
    if (!owner) return [];
    const found = new Map<string, SymbolRef>();
    const climb = (type: SymbolRef, depth: number) => {
      if (depth > LIMITS.intel.calls.maxHeritageDepth) return;
      for (const heritage of type.heritage ?? []) {
        for (const parent of this.resolveTypeName(type.file, heritage).symbols) {
          for (const member of this.membersOf(parent, method.name).symbols) {
            if (member.kind !== "method" || found.has(symbolKey(member))) continue;
            found.set(symbolKey(member), member);
            const memberOwner = this.symbolsOf(member.file).find((symbol) => symbol.qualifiedName === member.parent && TYPE_KINDS.has(symbol.kind));
            if (memberOwner) climb(memberOwner, depth + 1);
          }
        }
      }
    };
    climb(owner, 0);
    return [...found.values()];
  }

  #goInterfaceMethods(file: GraphFile, method: SymbolRef): SymbolRef[] {
    const type = this.#samePackage(file, method.parent!)?.symbols.find((symbol) => TYPE_KINDS.has(symbol.kind) && symbol.kind !== "interface");
    if (!type) return [];
    const has = (name: string) => this.membersOf(type, name).symbols.some((member) => CALLABLE_KINDS.has(member.kind));
    return this.#goInterfaceMethodsNamed(method.name).filter((entry) => entry.requires.every(has)).map((entry) => entry.method);
  }

  /** Go interface methods named `name`, each with every method name its interface requires; kept for the generation (asked once per same-name method). */
  #goInterfaceMethodsNamed(name: string): Array<{ method: SymbolRef; requires: string[] }> {
    let found = this.#goInterfaces.get(name);
    if (found) return found;
    found = [];
    for (const candidate of this.#named(name)) {
      if (candidate.kind !== "method" || candidate.parent === undefined || this.imports.file(candidate.file)?.language !== "go") continue;
      const owner = this.symbolsOf(candidate.file).find((symbol) => symbol.qualifiedName === candidate.parent && symbol.kind === "interface");
      if (owner) found.push({ method: candidate, requires: this.#interfaceNames(owner, new Set()) });
    }
    this.#goInterfaces.set(name, found);
    return found;
  }

  /** The method names an interface requires: its own and those of the workspace interfaces it embeds. */
  #interfaceNames(owner: SymbolRef, seen: Set<string>): string[] {
    const key = symbolKey(owner);
    if (seen.has(key)) return [];
    seen.add(key);
    const names = this.symbolsOf(owner.file).filter((symbol) => symbol.parent === owner.qualifiedName && symbol.kind === "method").map((symbol) => symbol.name);
    for (const written of owner.heritage ?? []) {
      for (const embedded of this.resolveTypeName(owner.file, written).symbols) if (embedded.kind === "interface") names.push(...this.#interfaceNames(embedded, seen));
    }
    return names;
  }

  /** Calls written in `symbol` (a function, method, or every member of a type), with what each resolves to. */
  callSitesIn(symbol: SymbolRef): CallSite[] {
    const file = this.imports.file(symbol.file);
    if (!file) return [];
    const sites: CallSite[] = [];
    const container = TYPE_KINDS.has(symbol.kind);
    const anyCaller = file.facts.calls.some((fact) => fact.caller !== undefined);
    for (const [ordinal, fact] of file.facts.calls.entries()) {
      // Where the extractor names callers, a call must also be written by this symbol (or a member of it).
      const named = !anyCaller || fact.caller === symbol.qualifiedName || (container && fact.caller?.startsWith(`${symbol.qualifiedName}.`) === true);
      if (named && fact.line >= symbol.startLine && fact.line <= symbol.endLine) sites.push({ file: symbol.file, ordinal, fact });
    }
    return sites;
  }

  /** Direct callees of `symbol`: resolved edges, plus the calls that stayed unresolved or external (counted by the caller). */
  calleesOf(symbol: SymbolRef): { edges: CallEdge[]; unresolved: Array<{ site: CallSite; resolution: CallResolution }> } {
    const edges: CallEdge[] = [];
    const unresolved: Array<{ site: CallSite; resolution: CallResolution }> = [];
    for (const site of this.callSitesIn(symbol)) {
      const resolution = this.resolveCall(site);
      if (resolution.status === "resolved") {
        edges.push({
          site,
          caller: symbol,
          confidence: resolution.confidence,
          targets: resolution.targets,
          ...(resolution.reason === undefined ? {} : { reason: resolution.reason }),
        });
      } else unresolved.push({ site, resolution });
    }
    return { edges: sortEdges(edges), unresolved };
  }
}
