/**
 * Questions over the call graph: transitive callers and callees, call paths between two
 * declarations, implementations of a type, and the impact of changing a declaration or a file
 * (callers, reverse dependencies, and the tests that reach it). Each answer says whether a limit
 * cut it.
 */
import { LIMITS } from "../../core/limits.ts";
import { walkGraph } from "../graph/import-graph.ts";
import type { CallGraph } from "./call-graph.ts";
import { worst } from "./names.ts";
import { isTestFile, sourceStem, testedStem } from "./tests.ts";
import { type CallEdge, type Confidence, CONFIDENCE_ORDER, type SymbolRef, symbolKey } from "./types.ts";

export interface LeveledEdge extends CallEdge {
  /** 1 for direct calls, 2 for calls of those, … */
  depth: number;
}

export interface WalkResult {
  edges: LeveledEdge[];
  /** Why the walk stopped early, if it did. */
  truncatedBy?: "limit" | "maxExpanded";
}

/**
 * Callers (or callees) up to `depth` levels, each edge once, best confidence first within a level.
 * Ambiguous edges are reported but not walked through (their callers belong to another candidate as often as to this one).
 */
export function walkCalls(graph: CallGraph, start: SymbolRef, direction: "callers" | "callees", depth: number, limit: number, minConfidence: Confidence = "ambiguous"): WalkResult {
  const edges: LeveledEdge[] = [];
  const expanded = new Set<string>([symbolKey(start)]);
  const seenEdges = new Set<string>();
  let frontier: SymbolRef[] = [start];
  for (let level = 1; level <= depth && frontier.length > 0; level++) {
    const next: SymbolRef[] = [];
    for (const symbol of frontier) {
      const found = direction === "callers" ? graph.callersOf(symbol) : graph.calleesOf(symbol).edges;
      for (const edge of found) {
        if (CONFIDENCE_ORDER[edge.confidence] > CONFIDENCE_ORDER[minConfidence]) continue;
        const edgeKey = `${edge.site.file}\0${edge.site.ordinal}\0${symbolKey(symbol)}`;
        if (seenEdges.has(edgeKey)) continue;
        seenEdges.add(edgeKey);
        if (edges.length >= limit) return { edges, truncatedBy: "limit" };
        edges.push({ ...edge, depth: level });
        if (edge.confidence === "ambiguous") continue;
        const onward = direction === "callers" ? (edge.caller ? [edge.caller] : []) : edge.targets;
        for (const symbol of onward) {
          const key = symbolKey(symbol);
          if (expanded.has(key)) continue;
          if (expanded.size >= LIMITS.intel.calls.maxExpanded) return { edges, truncatedBy: "maxExpanded" };
          expanded.add(key);
          next.push(symbol);
        }
      }
    }
    frontier = next;
  }
  return { edges };
}

/** `super().m()` names the parent's method itself: it never dispatches to an override. */
function isSuperCall(edge: CallEdge): boolean {
  const qualifier = edge.site.fact.qualifier?.trim();
  return qualifier === "super" || qualifier === "super(…)";
}

/**
 * What may run at a call without being what it names, apart from the calls ("may dispatch to"):
 * for callers of a method, the calls of each method it implements or overrides (targets: that one),
 * less the sites already among its calls; for callees, each call `symbol` makes whose target has
 * implementations or overrides (targets: those). Ambiguous edges are guesses already and super
 * calls name the parent's method itself: neither dispatches.
 */
export function dispatchOf(graph: CallGraph, symbol: SymbolRef, direction: "callers" | "callees"): CallEdge[] {
  const found: CallEdge[] = [];
  if (direction === "callers") {
    const direct = new Set(graph.callersOf(symbol).map((edge) => `${edge.site.file}\0${edge.site.ordinal}`));
    for (const method of graph.dispatchedFrom(symbol)) {
      for (const edge of graph.callersOf(method)) {
        if (edge.confidence !== "ambiguous" && !isSuperCall(edge) && !direct.has(`${edge.site.file}\0${edge.site.ordinal}`)) found.push(edge);
      }
    }
    return found;
  }
  for (const edge of graph.calleesOf(symbol).edges) {
    if (edge.confidence === "ambiguous" || isSuperCall(edge)) continue;
    const targets = edge.targets.flatMap((target) => graph.dispatchesTo(target));
    if (targets.length > 0) found.push({ ...edge, targets });
  }
  return found;
}

export interface TraceStep {
  symbol: SymbolRef;
  /** The call that leads to the next step (absent on the last step, and on a dispatch step). */
  call?: { file: string; line: number; column: number; confidence: Confidence; reason?: string };
  /** The next step is an implementation or override this method may dispatch to at run time, not a call of it. */
  dispatch?: true;
}

export interface TracePath {
  steps: TraceStep[];
  /** The weakest edge on the path. */
  confidence: Confidence;
  /** The path passes through a dispatch step. */
  dispatch?: true;
}

export interface TraceResult {
  paths: TracePath[];
  /** Shortest path length found (edges), when any. */
  length?: number;
  truncatedBy?: "maxPaths" | "maxExpanded" | "maxDepth";
}

/**
 * Shortest call paths from any of `from` to any of `to` (breadth-first over callees, every
 * confidence). Where calls alone reach no target, the search runs again letting a method step to
 * what it may dispatch to (an interface method's implementations, a method's overrides), each such
 * step marked: calls come first, and a dispatch is never passed off as a call.
 */
export function traceCalls(graph: CallGraph, from: SymbolRef[], to: SymbolRef[], maxDepth: number, maxPaths: number = LIMITS.intel.calls.maxTracePaths): TraceResult {
  const byCalls = shortestPaths(graph, from, to, maxDepth, maxPaths, false);
  if (byCalls.paths.length > 0) return byCalls;
  const byDispatch = shortestPaths(graph, from, to, maxDepth, maxPaths, true);
  if (byDispatch.paths.length === 0) return byCalls;
  // A calls-only search that was cut did not show that calls reach no target: the answer keeps its cut.
  const truncatedBy = byDispatch.truncatedBy ?? byCalls.truncatedBy;
  return truncatedBy === undefined ? byDispatch : { ...byDispatch, truncatedBy };
}

function shortestPaths(graph: CallGraph, from: SymbolRef[], to: SymbolRef[], maxDepth: number, maxPaths: number, dispatch: boolean): TraceResult {
  const targets = new Set(to.map(symbolKey));
  const symbols = new Map<string, SymbolRef>();
  const distance = new Map<string, number>();
  /** node → the (predecessor, edge) pairs at distance - 1; no edge: a dispatch step. */
  const parents = new Map<string, Array<{ from: string; edge: CallEdge | undefined }>>();
  let frontier: string[] = [];
  for (const symbol of from) {
    const key = symbolKey(symbol);
    symbols.set(key, symbol);
    distance.set(key, 0);
    frontier.push(key);
  }
  let found: string[] = frontier.filter((key) => targets.has(key));
  let truncatedBy: TraceResult["truncatedBy"];
  for (let level = 1; level <= maxDepth && frontier.length > 0 && found.length === 0; level++) {
    const next: string[] = [];
    const reach = (key: string, target: SymbolRef, edge: CallEdge | undefined) => {
      const targetKey = symbolKey(target);
      const known = distance.get(targetKey);
      if (known !== undefined && known < level) return;
      if (known === undefined) {
        if (distance.size >= LIMITS.intel.calls.maxExpanded) {
          truncatedBy = "maxExpanded";
          return;
        }
        distance.set(targetKey, level);
        symbols.set(targetKey, target);
        next.push(targetKey);
      }
      const list = parents.get(targetKey) ?? [];
      list.push({ from: key, edge });
      parents.set(targetKey, list);
    };
    for (const key of frontier) {
      const symbol = symbols.get(key)!;
      for (const edge of graph.calleesOf(symbol).edges) for (const target of edge.targets) reach(key, target, edge);
      if (dispatch) { for (const target of graph.dispatchesTo(symbol)) reach(key, target, undefined); }
    }
    frontier = next;
    found = next.filter((key) => targets.has(key));
    if (found.length === 0 && level === maxDepth && next.length > 0) truncatedBy ??= "maxDepth";
  }
  if (found.length === 0) return truncatedBy ? { paths: [], truncatedBy } : { paths: [] };

  // Every shortest path, walking parents back from each target; each step carries the call (or the dispatch) out of it.
  const paths: TracePath[] = [];
  const build = (key: string, suffix: TraceStep[], confidence: Confidence, dispatched: boolean): boolean => {
    if (distance.get(key) === 0) {
      paths.push({ steps: suffix, confidence, ...(dispatched ? { dispatch: true as const } : {}) });
      return paths.length < maxPaths;
    }
    for (const { from: previous, edge } of parents.get(key) ?? []) {
      const step: TraceStep = edge ?
        {
          symbol: symbols.get(previous)!,
          call: {
            file: edge.site.file,
            line: edge.site.fact.line,
            column: edge.site.fact.column,
            confidence: edge.confidence,
            ...(edge.reason === undefined ? {} : { reason: edge.reason }),
          },
        } :
        { symbol: symbols.get(previous)!, dispatch: true };
      if (!build(previous, [step, ...suffix], edge ? worst(confidence, edge.confidence) : confidence, dispatched || !edge)) return false;
    }
    return true;
  };
  for (const key of found) {
    if (!build(key, [{ symbol: symbols.get(key)! }], "exact", false)) {
      truncatedBy = "maxPaths";
      break;
    }
  }
  paths.sort((a, b) => CONFIDENCE_ORDER[a.confidence] - CONFIDENCE_ORDER[b.confidence]);
  return { paths, length: distance.get(found[0]!)!, ...(truncatedBy ? { truncatedBy } : {}) };
}

export interface Implementation {
  symbol: SymbolRef;
  /** The heritage entry as written that names the type (or the implementation it comes through). */
  via: string;
  confidence: Confidence;
  /** 1: names the type directly; 2: extends a direct implementation; … */
  depth: number;
}

/** Types whose heritage (extends / implements / impl … for) names `type`, then their subtypes, transitively. */
export function implementationsOf(
  graph: CallGraph,
  type: SymbolRef,
  maxDepth: number = LIMITS.intel.calls.maxHeritageDepth,
): { implementations: Implementation[]; truncated: boolean } {
  const withHeritage = graph.symbolsWithHeritage();
  const result: Implementation[] = [];
  const seen = new Set<string>([symbolKey(type)]);
  let frontier: Array<{ symbol: SymbolRef; confidence: Confidence }> = [{ symbol: type, confidence: "exact" }];
  let truncated = false;
  for (let depth = 1; frontier.length > 0; depth++) {
    if (depth > maxDepth) {
      truncated = true;
      break;
    }
    const next: typeof frontier = [];
    for (const { symbol: base, confidence: baseConfidence } of frontier) {
      const key = symbolKey(base);
      for (const candidate of withHeritage) {
        const candidateKey = symbolKey(candidate);
        if (seen.has(candidateKey)) continue;
        for (const written of candidate.heritage ?? []) {
          const bare = written.replace(/<.*$/s, "").replace(/\(.*$/s, "").trim().split(/\.|::/).pop();
          if (bare !== base.name) continue;
          const resolved = graph.resolveTypeName(candidate.file, written);
          if (!resolved.symbols.some((symbol) => symbolKey(symbol) === key)) continue;
          const confidence = worst(baseConfidence, resolved.confidence);
          seen.add(candidateKey);
          result.push({ symbol: candidate, via: written, confidence, depth });
          next.push({ symbol: candidate, confidence });
          break;
        }
      }
    }
    frontier = next;
  }
  result.sort((a, b) => a.depth - b.depth || CONFIDENCE_ORDER[a.confidence] - CONFIDENCE_ORDER[b.confidence] || (a.symbol.file < b.symbol.file ? -1 : 1));
  return { implementations: result, truncated };
}

export interface ReachingTest {
  file: string;
  /** How the test reaches the target: calling it (through callers), importing it (through imports), or only by its name. */
  via: "calls" | "imports" | "name";
  /** Call or import hops from the test to the target. */
  distance: number;
}

export interface ImpactResult {
  callers: LeveledEdge[];
  /** Files that import the target's file, directly or not, with the hop count. */
  dependents: Map<string, number>;
  tests: ReachingTest[];
  truncated: string[];
}

/**
 * What a change to `symbol` (or to the whole file when `symbol` is undefined) can reach:
 * transitive callers (ambiguous ones listed, not followed), transitive importers of its file, and the test files among them, plus test
 * files named after it (util.ts ↔ util.test.ts, test_util.py, util_test.go).
 */
export function impactOf(
  graph: CallGraph,
  file: string,
  symbol: SymbolRef | undefined,
  options: { depth: number; limit: number; display: (real: string) => string },
): ImpactResult {
  const truncated: string[] = [];
  // Ambiguous callers are listed (with their reason) but not walked through, and reach no test.
  const callers = symbol ? walkCalls(graph, symbol, "callers", options.depth, options.limit) : { edges: [] };
  if (callers.truncatedBy) {
    truncated.push(callers.truncatedBy === "limit" ? `callers cut at limit ${options.limit}` : `callers cut at ${LIMITS.intel.calls.maxExpanded} expanded symbols`);
  }
  const walk = walkGraph(graph.imports, file, "dependents", LIMITS.intel.graph.maxDepth);
  if (walk.truncated) truncated.push(`dependents cut at ${LIMITS.intel.graph.maxWalkNodes} files`);
  const tests = new Map<string, ReachingTest>();
  const offer = (test: ReachingTest) => {
    const known = tests.get(test.file);
    const rank = { calls: 0, imports: 1, name: 2 } as const;
    if (!known || rank[test.via] < rank[known.via] || (test.via === known.via && test.distance < known.distance)) tests.set(test.file, test);
  };
  for (const edge of callers.edges) {
    if (edge.confidence !== "ambiguous" && isTestFile(options.display(edge.site.file))) offer({ file: edge.site.file, via: "calls", distance: edge.depth });
  }
  for (const [dependent, distance] of walk.levels) if (isTestFile(options.display(dependent))) offer({ file: dependent, via: "imports", distance });
  const stem = sourceStem(options.display(file));
  if (!isTestFile(options.display(file))) {
    for (const candidate of graph.imports.files()) {
      const display = options.display(candidate.real);
      if (isTestFile(display) && testedStem(display) === stem && !tests.has(candidate.real)) offer({ file: candidate.real, via: "name", distance: 0 });
    }
  }
  const ordered = [...tests.values()].sort((a, b) => (a.via === b.via ? a.distance - b.distance : a.via < b.via ? -1 : 1) || (a.file < b.file ? -1 : 1));
  return { callers: callers.edges, dependents: walk.levels, tests: ordered, truncated };
}
