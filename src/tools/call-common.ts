/**
 * What the call-graph tools share (callers, callees, trace, implements, impact, context, one file
 * each): the call graph over the import graph, target resolution, the symbol and edge shapes and
 * their rendering, the callers/callees walk. Every edge carries its confidence (exact: through
 * imports, scope or the receiver's known type; inferred: the only declaration of that name;
 * ambiguous: several, listed).
 * Answers say whether they are complete and which limit cut them.
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { CallGraph } from "../intel/calls/call-graph.ts";
import { type CallCandidate, callCandidates } from "../intel/calls/candidates.ts";
import { dispatchOf, type LeveledEdge, walkCalls } from "../intel/calls/queries.ts";
import { type CallEdge, type Confidence, confidenceTag, type SymbolRef, symbolKey } from "../intel/calls/types.ts";
import { supportsTypedAnswers, typedCallers } from "../intel/typescript/index.ts";
import { plural } from "./common.ts";
import type { ToolContext } from "./contract.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { type About, graphOptions, type IntelSession, openImportGraph, resolveScope, splitSymbolSpec } from "./graph-common.ts";

interface CallSession extends IntelSession {
  calls: CallGraph;
}

/** The call graph over a fresh import graph; `about` lets a first-build call index the file it names and the files that mention the name first. */
export function openCallGraph(context: ToolContext, about?: About): Promise<CallSession> {
  return openImportGraph(
    context,
    about,
    async (session) => ({ ...session, calls: await CallGraph.for(session.index, context.workspace, graphOptions(session.index, context)) }),
  );
}

export const SymbolInput = z
  .string()
  .min(1)
  .max(LIMITS.pathChars)
  .describe("A declaration: a name (\"format\"), a qualified name (\"UserService.create\"), or \"path#Name\" to pick the file.");

export const ConfidenceEnum = z.enum(["exact", "inferred", "ambiguous"]);

export const SymbolOut = z
  .object({
    name: z.string().describe("Qualified name, e.g. UserService.create."),
    kind: z.string().describe("function, method, class, …"),
    path: z.string().describe("The declaring file, usable as input."),
    startLine: z.number().int().describe("First line (1-based)."),
    endLine: z.number().int().describe("Last line (inclusive)."),
    signature: z.string().describe("The declaration's head."),
  })
  .describe("A declaration.");
export type SymbolOut = z.infer<typeof SymbolOut>;

export function symbolOut(symbol: SymbolRef, display: (real: string) => string): SymbolOut {
  return { name: symbol.qualifiedName, kind: symbol.kind, path: display(symbol.file), startLine: symbol.startLine, endLine: symbol.endLine, signature: symbol.signature };
}

export function place(symbol: SymbolOut): string {
  return `${symbol.path}:${symbol.startLine}`;
}

/** "path#Name" or a name with an optional separate path → exactly one declaration (or a listed ambiguity). */
export async function resolveSymbol(session: CallSession, context: ToolContext, spec: string, pathInput: string | undefined, what: string): Promise<SymbolRef> {
  const split = splitSymbolSpec(spec);
  const location = pathInput ?? split.path;
  const query = pathInput === undefined ? split.name : spec.trim();
  let within: { real: string; directory: boolean } | undefined;
  if (location !== undefined) {
    const scope = await resolveScope(session, context, location);
    within = { real: scope.resolved.real, directory: scope.directory };
  }
  const found = session.calls.findSymbols(query, within);
  if (found.length === 0) {
    const where = location !== undefined ? ` in ${location}` : " in the workspace";
    const details = { symbol: query, ...(location !== undefined ? { path: location } : {}) };
    // While the first build runs, a declaration in a file not indexed yet is not there: say so, and that asking again helps.
    if (!session.index.built) {
      throw new ToolError("symbol_not_found", `${what}: no declaration named ${JSON.stringify(query)}${where} among the files indexed so far; the index is still building.`, {
        hint: "Call again shortly (the index tool with wait reports when it is complete), or pass path with the declaring file.",
        retryable: true,
        details,
      });
    }
    throw new ToolError("symbol_not_found", `${what}: no declaration named ${JSON.stringify(query)}${where}.`, { details });
  }
  const exactName = found.filter((symbol) => symbol.qualifiedName === query.replace(/::/g, "."));
  const pool = exactName.length > 0 ? exactName : found;
  const nonLocal = pool.filter((symbol) => !symbol.local);
  const candidates = nonLocal.length > 0 ? nonLocal : pool;
  // One declaration split over lines (TypeScript overloads) counts once: same file and qualified name.
  const distinct = new Map(candidates.map((symbol) => [`${symbol.file}\0${symbol.qualifiedName}`, symbol]));
  if (distinct.size > 1) {
    const listed = [...distinct.values()].slice(0, LIMITS.intel.calls.maxCandidates).map((symbol) =>
      `${session.display(symbol.file)}#${symbol.qualifiedName} (${symbol.kind}, line ${symbol.startLine})`
    );
    throw new ToolError(
      "ambiguous_symbol",
      `${what}: ${distinct.size} declarations match ${JSON.stringify(query)}: ${listed.join("; ")}${distinct.size > listed.length ? "; …" : ""}.`,
      {
        details: { candidates: listed },
      },
    );
  }
  const chosen = [...distinct.values()][0]!;
  // Overloads: the implementation is the last declaration of the name in the file (a signature spread over lines may be as long as it).
  const same = candidates.filter((symbol) => symbol.file === chosen.file && symbol.qualifiedName === chosen.qualifiedName);
  return same.sort((a, b) => b.startLine - a.startLine)[0] ?? chosen;
}

export const CallOut = z
  .object({
    path: z.string().describe("File of the call."),
    line: z.number().int().describe("1-based line of the call."),
    column: z.number().int().describe("1-based column of the call."),
    callee: z.string().describe("The callee expression as written."),
    caller: z.string().optional().describe("The function or method the call is written in (absent at module level)."),
    confidence: ConfidenceEnum.describe(
      "exact: through imports or scope, or (Go, Python, TS/JS) a method of the receiver's known type; inferred: the only declaration of that name; ambiguous: several could be meant, or (Go, Python, TS/JS) the receiver's type is unknown (see reason).",
    ),
    reason: z.string().optional().describe("Why the edge is ambiguous when not for several candidates: the receiver's type is unknown, and why."),
    depth: z.number().int().describe("1 = direct; n = n calls away."),
    targets: z.array(z.string()).describe("What the call resolves to (\"path#Name\"); several when ambiguous (the first few)."),
    candidates: z.number().int().optional().describe("For ambiguous calls: how many declarations could be meant."),
  })
  .describe("One call site.");
export type CallOut = z.infer<typeof CallOut>;

export function callOut(edge: CallEdge & { depth?: number }, display: (real: string) => string): CallOut {
  const out: CallOut = {
    path: display(edge.site.file),
    line: edge.site.fact.line,
    column: edge.site.fact.column,
    callee: edge.site.fact.callee,
    confidence: edge.confidence,
    depth: edge.depth ?? 1,
    targets: edge.targets.slice(0, LIMITS.intel.calls.maxCandidates).map((target) => `${display(target.file)}#${target.qualifiedName}`),
  };
  if (edge.caller) out.caller = edge.caller.qualifiedName;
  if (edge.confidence === "ambiguous") out.candidates = edge.targets.length;
  if (edge.reason !== undefined) out.reason = edge.reason;
  return out;
}

function countBy(calls: CallOut[]): Record<Confidence, number> {
  const counts: Record<Confidence, number> = { exact: 0, inferred: 0, ambiguous: 0 };
  for (const call of calls) counts[call.confidence] += 1;
  return counts;
}

export function renderCall(call: CallOut, direction: "callers" | "callees"): string {
  const indent = "  ".repeat(call.depth);
  const tag = confidenceTag(call.confidence, call.targets, call.reason, call.candidates);
  if (direction === "callers") return `${indent}${call.path}:${call.line} ${call.caller ?? "(module level)"} → ${call.callee}${tag}`;
  return `${indent}${call.path}:${call.line} ${call.callee} → ${call.confidence === "ambiguous" ? "?" : call.targets.join(", ")}${tag}`;
}

/** The calls apart from the walk that may dispatch to the symbol (callers) or away from what they name (callees), for the same answer shape. */
export function dispatchOut(session: CallSession, symbol: SymbolRef, direction: "callers" | "callees", limit: number): CallOut[] | undefined {
  const found = dispatchOf(session.calls, symbol, direction);
  return found.length > 0 ? found.slice(0, limit).map((edge) => callOut(edge, session.display)) : undefined;
}

export const DispatchOutput = z
  .array(CallOut)
  .optional()
  .describe(
    "Calls that may dispatch elsewhere at run time, apart from the calls and never counted as calls. Callers of a method: calls of a method it implements (a Go interface's) or overrides (a parent class's; super calls excluded), whose targets name that method; callees: its calls of an interface or overridable method, whose targets name the implementations and overrides that may run instead.",
  );

/** The dispatch list as text, under the calls. */
export function renderDispatch(dispatch: CallOut[] | undefined, direction: "callers" | "callees", lines: string[]): void {
  if (!dispatch) return;
  lines.push(
    direction === "callers" ?
      `may dispatch here through an interface or a parent's method (${dispatch.length}, not counted as calls):` :
      `may dispatch at run time to an implementation or override (${dispatch.length}, not counted as calls):`,
  );
  for (const call of dispatch) {
    const head = `${"  ".repeat(call.depth)}${call.path}:${call.line} ${direction === "callers" ? `${call.caller ?? "(module level)"} → ${call.callee}` : call.callee}`;
    lines.push(`${head} (${direction === "callers" ? "calls" : "may run"} ${call.targets.join(", ")})`);
  }
}

export const DepthInput = z
  .number()
  .int()
  .min(1)
  .max(LIMITS.intel.calls.maxDepth)
  .optional()
  .describe(`Levels of calls to follow (default ${LIMITS.intel.calls.defaultDepth}, at most ${LIMITS.intel.calls.maxDepth}); ambiguous edges are listed but not followed.`);

const CandidateOut = z
  .object({
    path: z.string().describe("File of the occurrence."),
    line: z.number().int().describe("1-based line."),
    column: z.number().int().describe("1-based column."),
    text: z.string().describe("The line as written, trimmed."),
    confidence: z.literal("unresolved").describe("Below exact, inferred and ambiguous: not a call the index resolved, never counted as one."),
    reason: z.enum(["unresolved_import", "external_import", "unbound", "value"]).describe(
      "unresolved_import: the import binding the name did not resolve; external_import: it resolved to no file under the roots and was taken as external, though its path names the target's module; unbound: nothing in scope binds the name; value: named or called through a value the index does not follow.",
    ),
    detail: z.string().describe("The import that did not resolve and why, or what was tried."),
    specifier: z.string().optional().describe("The import the reason names."),
  })
  .describe("A textual occurrence of the target's name that resolves to nothing.");
type CandidateOut = z.infer<typeof CandidateOut>;

export const CandidatesOutput = {
  candidates: z
    .array(CandidateOut)
    .optional()
    .describe("callers, impact: occurrences of the name that resolve to no declaration (not counted as calls), with the reason; check each before trusting a count of 0."),
  totalCandidates: z.number().int().optional().describe("Unresolved candidates found before the list was cut."),
};

function candidateOut(candidate: CallCandidate, display: (real: string) => string): CandidateOut {
  const out: CandidateOut = {
    path: display(candidate.file),
    line: candidate.line,
    column: candidate.column,
    text: candidate.text,
    confidence: "unresolved",
    reason: candidate.reason,
    detail: candidate.detail,
  };
  if (candidate.specifier !== undefined) out.specifier = candidate.specifier;
  return out;
}

/**
 * The unresolved candidates of `symbol` for an answer, with the cuts they add: incomplete whenever
 * one exists, since one of them may be a call the layout hid. `direct` are the calls the answer
 * already resolved to it. The texts are scanned only when there are none (the silent zero this
 * guards against; a scan on every call would cost every warm answer a read of the tree).
 */
export async function candidatesFor(
  session: CallSession,
  context: ToolContext,
  symbol: SymbolRef,
  direct: readonly CallEdge[],
): Promise<{ listed: CandidateOut[]; total: number; cuts: string[] }> {
  const scanText = direct.length === 0;
  const max = LIMITS.intel.calls.maxCandidatesListed;
  const found = await session.calls.derived(`candidates\0${symbolKey(symbol)}\0${scanText}`, async () => {
    const result = await callCandidates(session.calls, symbol, new Set(direct.map((edge) => `${edge.site.file}\0${edge.site.fact.line}`)), {
      read: (file) => session.index.text(file as IndexedFile).catch(() => undefined),
      size: (file) => (file as IndexedFile).size,
      scanText,
      maxScanBytes: LIMITS.intel.calls.candidateScanBytes,
      maxListed: max,
      signal: context.signal,
    });
    return context.signal?.aborted ? undefined : result;
  }) ?? { candidates: [], total: 0 };
  const listed = found.candidates.map((candidate) => candidateOut(candidate, session.display));
  const cuts: string[] = [];
  if (found.total > 0) {
    cuts.push(
      `candidates = ${found.total}: occurrences of ${symbol.name} resolve to no declaration (listed in candidates with the reason, not counted as calls); check each with file_read at its line, or configure the module layout the reason names`,
    );
  }
  if (found.total > listed.length) cuts.push(`intel.calls.maxCandidatesListed = ${max} candidates listed of ${found.total}: pass path to narrow, or search for the name`);
  if (found.scanCut) {
    cuts.push(
      `intel.calls.candidateScanBytes = ${LIMITS.intel.calls.candidateScanBytes}: the scan for unresolved candidates read ${found.scanCut.scanned} of ${found.scanCut.files} files; search for ${symbol.name} for the rest`,
    );
  }
  return { listed, total: found.total, cuts };
}

export const WalkOutput = z.object({
  symbol: SymbolOut,
  depth: z.number().int().describe("Levels followed."),
  calls: z.array(CallOut).describe("Call sites, level by level, exact first."),
  counts: z.object({ exact: z.number().int(), inferred: z.number().int(), ambiguous: z.number().int() }).describe("Listed calls per confidence."),
  unresolved: z.number().int().optional().describe("callees: calls inside the symbol that resolve to nothing in the workspace (external or unknown)."),
  typed: z.boolean().optional().describe("callers with typed: true on TS/JS: the TypeScript compiler resolved every call (all exact)."),
  dispatch: DispatchOutput,
  ...CandidatesOutput,
  ...Completeness,
});
export type WalkOutput = z.infer<typeof WalkOutput>;

/** callers with typed: true: the compiler's references instead of the syntactic graph (undefined: fall back). */
async function typedWalk(session: CallSession, context: ToolContext, symbol: SymbolRef, depth: number, limit: number): Promise<WalkOutput | undefined> {
  const resolved = await context.workspace.resolve(symbol.file, "read");
  let typed;
  try {
    typed = await typedCallers(context.workspace, resolved, symbol.qualifiedName, { depth, limit, projects: context.services.typescript, signal: context.signal });
  } catch (error) {
    // The compiler names the declaration differently: the syntactic answer still stands.
    if (error instanceof ToolError && error.code === "invalid_input") return undefined;
    throw error;
  }
  const calls: CallOut[] = typed.calls.map((call) => ({
    path: call.path,
    line: call.line,
    column: call.column,
    callee: call.callee,
    ...(call.caller !== undefined ? { caller: call.caller } : {}),
    confidence: "exact",
    depth: call.depth,
    targets: [call.target],
  }));
  return { symbol: symbolOut(symbol, session.display), depth, calls, counts: countBy(calls), typed: true, ...completeness(undefined, [...typed.limits, ...typed.project.notes]) };
}

export async function walkTool(
  args: { symbol: string; path?: string | undefined; depth?: number | undefined; limit?: number | undefined; minConfidence?: Confidence | undefined; typed?: boolean | undefined },
  context: ToolContext,
  direction: "callers" | "callees",
): Promise<WalkOutput> {
  const session = await openCallGraph(context, { name: args.symbol, path: args.path });
  const symbol = await resolveSymbol(session, context, args.symbol, args.path, "symbol");
  const depth = args.depth ?? LIMITS.intel.calls.defaultDepth;
  const limit = args.limit ?? LIMITS.intel.calls.defaultLimit;
  if (args.typed === true && direction === "callers" && supportsTypedAnswers(symbol.file)) {
    const typed = await typedWalk(session, context, symbol, depth, limit);
    if (typed) return typed;
  }
  const walk = walkCalls(session.calls, symbol, direction, depth, limit, args.minConfidence ?? "ambiguous");
  const cuts: string[] = [];
  if (walk.truncatedBy === "limit") cuts.push(`limit = ${limit}: raise limit or lower depth`);
  if (walk.truncatedBy === "maxExpanded") cuts.push(`intel.calls.maxExpanded = ${LIMITS.intel.calls.maxExpanded}: lower depth`);
  const calls = walk.edges.map((edge: LeveledEdge) => callOut(edge, session.display));
  // The walk's first level holds every direct call unless its confidence filter or limit left some out.
  const direct = walk.truncatedBy === undefined && (args.minConfidence ?? "ambiguous") === "ambiguous" ?
    walk.edges.filter((edge) => edge.depth === 1) :
    session.calls.callersOf(symbol);
  const found = direction === "callers" ? await candidatesFor(session, context, symbol, direct) : undefined;
  if (found) cuts.push(...found.cuts);
  const result: WalkOutput = {
    symbol: symbolOut(symbol, session.display),
    depth,
    calls,
    counts: countBy(calls),
    ...(found ? { candidates: found.listed, totalCandidates: found.total } : {}),
    ...completeness(session.coverage, cuts),
  };
  if (direction === "callees") result.unresolved = session.calls.calleesOf(symbol).unresolved.length;
  const dispatch = dispatchOut(session, symbol, direction, limit);
  if (dispatch) result.dispatch = dispatch;
  return result;
}

export function renderWalk(result: WalkOutput, direction: "callers" | "callees"): string {
  const { exact, inferred, ambiguous } = result.counts;
  const lines = [
    `${direction} of ${result.symbol.name} (${place(result.symbol)}), depth ${result.depth}: ${
      plural(result.calls.length, "call")
    } (${exact} exact, ${inferred} inferred, ${ambiguous} ambiguous)${result.typed ? ", resolved by the TypeScript compiler" : ""}`,
  ];
  for (const call of result.calls) lines.push(renderCall(call, direction));
  if (result.unresolved) lines.push(`${plural(result.unresolved, "call")} inside resolve to nothing in the workspace (external or unknown)`);
  renderDispatch(result.dispatch, direction, lines);
  renderCandidates(result, lines);
  return renderIncomplete(result, lines);
}

/** The unresolved candidates, apart from the calls. */
export function renderCandidates(result: { candidates?: CandidateOut[] | undefined; totalCandidates?: number | undefined }, lines: string[]): void {
  const total = result.totalCandidates ?? 0;
  if (total === 0 || !result.candidates) return;
  lines.push(`unresolved candidates (${total}, not counted as calls):`);
  // Candidates through one import share its reason: each line names the import, each reason is said once below.
  const reasons = new Map<string, string>();
  for (const candidate of result.candidates) {
    const tag = `${candidate.reason}${candidate.specifier === undefined ? "" : ` \`${candidate.specifier}\``}`;
    if (!reasons.has(tag)) {
      reasons.set(
        tag,
        candidate.reason === "value" ?
          "named without a call the index resolved (passed or assigned as a value, or in a string); calls through a value are not followed" :
          // Said once for every file importing it: the line belongs to one of them.
          candidate.detail.replace(/ \(line \d+\)/, ""),
      );
    }
    lines.push(`  ${candidate.path}:${candidate.line} ${candidate.text} [${tag}]`);
  }
  if (total > result.candidates.length) lines.push(`  … ${total - result.candidates.length} more`);
  for (const [tag, detail] of reasons) lines.push(`  ${tag}: ${detail}`);
}
