/**
 * The call-graph tools: callers, callees, trace, implements, impact, context. Every edge carries
 * its confidence (exact: through imports or scope; inferred: the only declaration of that name;
 * ambiguous: several, listed). Answers say whether they are complete and which limit cut them.
 *
 * Over 600 lines for now: six tools share their edge rendering and target resolution here; one file
 * per tool is the house rule, and this file is next to be split.
 */
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { CallGraph } from "../intel/calls/call-graph.ts";
import { packContext } from "../intel/calls/context.ts";
import { impactOf, implementationsOf, type LeveledEdge, traceCalls, walkCalls } from "../intel/calls/queries.ts";
import type { CallEdge, Confidence, SymbolRef } from "../intel/calls/types.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { supportsTypedAnswers, typedCallers } from "../intel/typescript/index.ts";
import { PathInput, plural } from "./common.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./contract.ts";
import { graphOptions, type IntelSession, openImportGraph, resolveScope } from "./graph.ts";

interface CallSession extends IntelSession {
  calls: CallGraph;
}

async function openCallGraph(context: ToolContext): Promise<CallSession> {
  const session = await openImportGraph(context);
  const calls = await CallGraph.for(session.index, context.workspace, graphOptions(session.index, context));
  return { ...session, calls };
}

const SymbolInput = z
  .string()
  .min(1)
  .max(LIMITS.pathChars)
  .describe("A declaration: a name (\"format\"), a qualified name (\"UserService.create\"), or \"path#Name\" to pick the file.");

const ConfidenceEnum = z.enum(["exact", "inferred", "ambiguous"]);

const SymbolOut = z
  .object({
    name: z.string().describe("Qualified name, e.g. UserService.create."),
    kind: z.string().describe("function, method, class, …"),
    path: z.string().describe("The declaring file, usable as input."),
    startLine: z.number().int().describe("First line (1-based)."),
    endLine: z.number().int().describe("Last line (inclusive)."),
    signature: z.string().describe("The declaration's head."),
  })
  .describe("A declaration.");
type SymbolOut = z.infer<typeof SymbolOut>;

function symbolOut(symbol: SymbolRef, display: (real: string) => string): SymbolOut {
  return { name: symbol.qualifiedName, kind: symbol.kind, path: display(symbol.file), startLine: symbol.startLine, endLine: symbol.endLine, signature: symbol.signature };
}

function place(symbol: SymbolOut): string {
  return `${symbol.path}:${symbol.startLine}`;
}

const Complete = {
  complete: z.boolean().describe("Whether nothing was cut: the index was complete and no limit stopped the answer."),
  limits: z.array(z.string()).describe("When incomplete: what cut it."),
};

/** "path#Name" or a name with an optional separate path → exactly one declaration (or a listed ambiguity). */
async function resolveSymbol(session: CallSession, context: ToolContext, spec: string, pathInput: string | undefined, what: string): Promise<SymbolRef> {
  let query = spec.trim();
  let location = pathInput;
  // "src/x.ts#Name": the part before "#" must look like a path, so private names ("A.#m") stay names.
  const split = /^(.+?\.[A-Za-z0-9]+|[^#]*\/[^#]*)#(.+)$/.exec(query);
  if (split && location === undefined) {
    location = split[1]!;
    query = split[2]!;
  }
  let within: { real: string; directory: boolean } | undefined;
  if (location !== undefined) {
    const scope = await resolveScope(session, context, location);
    within = { real: scope.resolved.real, directory: scope.directory };
  }
  const found = session.calls.findSymbols(query, within);
  if (found.length === 0) {
    throw new ToolError("symbol_not_found", `${what}: no declaration named ${JSON.stringify(query)}${location !== undefined ? ` in ${location}` : " in the workspace"}.`, {
      details: { symbol: query, ...(location !== undefined ? { path: location } : {}) },
    });
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
  // Overloads: the implementation is the last (and longest) declaration of the name in the file.
  const same = candidates.filter((symbol) => symbol.file === chosen.file && symbol.qualifiedName === chosen.qualifiedName);
  return same.sort((a, b) => b.endLine - b.startLine - (a.endLine - a.startLine))[0] ?? chosen;
}

const CallOut = z
  .object({
    path: z.string().describe("File of the call."),
    line: z.number().int().describe("1-based line of the call."),
    column: z.number().int().describe("1-based column of the call."),
    callee: z.string().describe("The callee expression as written."),
    caller: z.string().optional().describe("The function or method the call is written in (absent at module level)."),
    confidence: ConfidenceEnum.describe("exact: through imports or scope; inferred: the only declaration of that name; ambiguous: several could be meant."),
    depth: z.number().int().describe("1 = direct; n = n calls away."),
    targets: z.array(z.string()).describe("What the call resolves to (\"path#Name\"); several when ambiguous (the first few)."),
    candidates: z.number().int().optional().describe("For ambiguous calls: how many declarations could be meant."),
  })
  .describe("One call site.");
type CallOut = z.infer<typeof CallOut>;

function callOut(edge: CallEdge & { depth?: number }, display: (real: string) => string): CallOut {
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
  return out;
}

function countBy(calls: CallOut[]): Record<Confidence, number> {
  const counts: Record<Confidence, number> = { exact: 0, inferred: 0, ambiguous: 0 };
  for (const call of calls) counts[call.confidence] += 1;
  return counts;
}

function renderIncomplete(result: { complete: boolean; limits: string[] }, lines: string[]): void {
  if (!result.complete) lines.push(`incomplete: ${result.limits.join("; ") || "the index did not cover every file"}`);
}

function renderCall(call: CallOut, direction: "callers" | "callees"): string {
  const indent = "  ".repeat(call.depth);
  const candidates = (call.candidates ?? 0) <= 3 ? call.targets.join(", ") : `${call.candidates} candidates`;
  const tag = call.confidence === "exact" ? "" : ` [${call.confidence}${call.confidence === "ambiguous" ? `: ${candidates}` : ""}]`;
  if (direction === "callers") return `${indent}${call.path}:${call.line} ${call.caller ?? "(module level)"} → ${call.callee}${tag}`;
  return `${indent}${call.path}:${call.line} ${call.callee} → ${call.confidence === "ambiguous" ? "?" : call.targets.join(", ")}${tag}`;
}

const DepthInput = z
  .number()
  .int()
  .min(1)
  .max(LIMITS.intel.calls.maxDepth)
  .optional()
  .describe(`Levels of calls to follow (default ${LIMITS.intel.calls.defaultDepth}, at most ${LIMITS.intel.calls.maxDepth}); ambiguous edges are listed but not followed.`);

// ───────────────────────────── callers / callees ─────────────────────────────

const WalkOutput = z.object({
  symbol: SymbolOut,
  depth: z.number().int().describe("Levels followed."),
  calls: z.array(CallOut).describe("Call sites, level by level, exact first."),
  counts: z.object({ exact: z.number().int(), inferred: z.number().int(), ambiguous: z.number().int() }).describe("Listed calls per confidence."),
  unresolved: z.number().int().optional().describe("callees: calls inside the symbol that resolve to nothing in the workspace (external or unknown)."),
  typed: z.boolean().optional().describe("callers with typed: true on TS/JS: the TypeScript compiler resolved every call (all exact)."),
  ...Complete,
});
type WalkOutput = z.infer<typeof WalkOutput>;

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
  const limits = [...typed.limits, ...typed.project.notes];
  return { symbol: symbolOut(symbol, session.display), depth, calls, counts: countBy(calls), typed: true, complete: limits.length === 0, limits };
}

async function walkTool(
  args: { symbol: string; path?: string | undefined; depth?: number | undefined; limit?: number | undefined; minConfidence?: Confidence | undefined; typed?: boolean | undefined },
  context: ToolContext,
  direction: "callers" | "callees",
): Promise<WalkOutput> {
  const session = await openCallGraph(context);
  const symbol = await resolveSymbol(session, context, args.symbol, args.path, "symbol");
  const depth = args.depth ?? LIMITS.intel.calls.defaultDepth;
  const limit = args.limit ?? LIMITS.intel.calls.defaultLimit;
  if (args.typed === true && direction === "callers" && supportsTypedAnswers(symbol.file)) {
    const typed = await typedWalk(session, context, symbol, depth, limit);
    if (typed) return typed;
  }
  const walk = walkCalls(session.calls, symbol, direction, depth, limit, args.minConfidence ?? "ambiguous");
  const limits = [...session.limits];
  if (walk.truncatedBy === "limit") limits.push(`limit = ${limit}`);
  if (walk.truncatedBy === "maxExpanded") limits.push(`intel.calls.maxExpanded = ${LIMITS.intel.calls.maxExpanded}`);
  const calls = walk.edges.map((edge: LeveledEdge) => callOut(edge, session.display));
  const result: WalkOutput = {
    symbol: symbolOut(symbol, session.display),
    depth,
    calls,
    counts: countBy(calls),
    complete: session.coverage.complete && limits.length === 0,
    limits,
  };
  if (direction === "callees") result.unresolved = session.calls.calleesOf(symbol).unresolved.length;
  return result;
}

function renderWalk(result: WalkOutput, direction: "callers" | "callees"): string {
  const { exact, inferred, ambiguous } = result.counts;
  const lines = [
    `${direction} of ${result.symbol.name} (${place(result.symbol)}), depth ${result.depth}: ${
      plural(result.calls.length, "call")
    } (${exact} exact, ${inferred} inferred, ${ambiguous} ambiguous)${result.typed ? ", resolved by the TypeScript compiler" : ""}`,
  ];
  for (const call of result.calls) lines.push(renderCall(call, direction));
  if (result.unresolved) lines.push(`${plural(result.unresolved, "call")} inside resolve to nothing in the workspace (external or unknown)`);
  renderIncomplete(result, lines);
  return lines.join("\n");
}

export const callersTool = defineTool({
  name: "callers",
  title: "Who calls a function",
  description:
    "The call sites of a function, method or class, resolved syntactically through imports (re-exports, aliases and namespaces followed) and scope; each edge is exact, inferred (the only declaration of that name) or ambiguous (several candidates, listed). depth > 1 walks up through the callers' callers.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    depth: DepthInput,
    limit: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.intel.calls.maxLimit)
      .optional()
      .describe(`Call sites listed at most (default ${LIMITS.intel.calls.defaultLimit}).`),
    minConfidence: ConfidenceEnum.optional().describe("Drop edges weaker than this: exact, inferred, or ambiguous (default: keep all)."),
    typed: z
      .boolean()
      .optional()
      .describe("TS/JS: let the TypeScript compiler resolve the call sites (slower; precise through aliases, re-exports and methods). Other languages ignore it."),
  }),
  output: WalkOutput,
  annotations: READ_ONLY,
  handler: (args, context) => walkTool(args, context, "callers"),
  render: (result) => renderWalk(result, "callers"),
});

export const calleesTool = defineTool({
  name: "callees",
  title: "What a function calls",
  description:
    "The calls a function or method makes (every member's calls for a class), each resolved to its declaration with a confidence: exact, inferred or ambiguous. depth > 1 follows into the callees.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    depth: DepthInput,
  }),
  output: WalkOutput,
  annotations: READ_ONLY,
  handler: (args, context) => walkTool(args, context, "callees"),
  render: (result) => renderWalk(result, "callees"),
});

// ───────────────────────────── trace ─────────────────────────────

const TraceOutput = z.object({
  from: SymbolOut,
  to: SymbolOut,
  length: z.number().int().optional().describe("Calls on the shortest path, when one was found."),
  paths: z
    .array(
      z.object({
        confidence: ConfidenceEnum.describe("The weakest edge on the path."),
        steps: z
          .array(
            z.object({
              symbol: z.string().describe("\"path#Name\" of the step."),
              line: z.number().int().optional().describe("Line of the call to the next step."),
              confidence: ConfidenceEnum.optional().describe("Confidence of that call."),
            }),
          )
          .describe("From the start to the target."),
      }),
    )
    .describe("Shortest call paths, surest first."),
  ...Complete,
});
type TraceOutput = z.infer<typeof TraceOutput>;

export const traceTool = defineTool({
  name: "trace",
  title: "Call paths between two functions",
  description:
    "The shortest call paths from one function to another (through callees, every confidence), each step with the line of its call; none when the target is not reachable within maxDepth.",
  input: z.strictObject({
    from: SymbolInput.describe("Where the paths start: a name, qualified name or \"path#Name\"."),
    to: SymbolInput.describe("Where the paths end: a name, qualified name or \"path#Name\"."),
    maxDepth: z
      .number()
      .int()
      .min(1)
      .max(LIMITS.intel.calls.maxTraceDepth)
      .optional()
      .describe(`Longest path in calls (default ${LIMITS.intel.calls.defaultTraceDepth}).`),
  }),
  output: TraceOutput,
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const session = await openCallGraph(context);
    const from = await resolveSymbol(session, context, args.from, undefined, "from");
    const to = await resolveSymbol(session, context, args.to, undefined, "to");
    const maxDepth = args.maxDepth ?? LIMITS.intel.calls.defaultTraceDepth;
    const result = traceCalls(session.calls, [from], [to], maxDepth);
    const limits = [...session.limits];
    if (result.truncatedBy === "maxPaths") limits.push(`intel.calls.maxTracePaths = ${LIMITS.intel.calls.maxTracePaths}`);
    if (result.truncatedBy === "maxExpanded") limits.push(`intel.calls.maxExpanded = ${LIMITS.intel.calls.maxExpanded}`);
    if (result.truncatedBy === "maxDepth") limits.push(`maxDepth = ${maxDepth}`);
    const out: TraceOutput = {
      from: symbolOut(from, session.display),
      to: symbolOut(to, session.display),
      paths: result.paths.map((entry) => ({
        confidence: entry.confidence,
        steps: entry.steps.map((step) => ({
          symbol: `${session.display(step.symbol.file)}#${step.symbol.qualifiedName}`,
          ...(step.call ? { line: step.call.line, confidence: step.call.confidence } : {}),
        })),
      })),
      complete: session.coverage.complete && limits.length === 0,
      limits,
    };
    if (result.length !== undefined) out.length = result.length;
    return out;
  },
  render: (result) => {
    const lines: string[] = [];
    if (result.paths.length === 0) lines.push(`no call path from ${result.from.name} (${place(result.from)}) to ${result.to.name} (${place(result.to)})`);
    else lines.push(`${plural(result.paths.length, "shortest path")} of ${plural(result.length ?? 0, "call")} from ${result.from.name} to ${result.to.name}`);
    for (const entry of result.paths) {
      const steps = entry.steps.map((step) =>
        `${step.symbol}${step.line !== undefined ? ` :${step.line}${step.confidence && step.confidence !== "exact" ? ` [${step.confidence}]` : ""}` : ""}`
      );
      lines.push(`  ${steps.join(" → ")}`);
    }
    renderIncomplete(result, lines);
    return lines.join("\n");
  },
});

// ───────────────────────────── implements ─────────────────────────────

const ImplementsOutput = z.object({
  symbol: SymbolOut,
  implementations: z
    .array(
      SymbolOut.extend({
        via: z.string().describe("The heritage entry as written (extends/implements/impl … for)."),
        confidence: ConfidenceEnum.describe("How surely the entry names this type (and, deeper, the chain)."),
        depth: z.number().int().describe("1: names the type directly; 2: extends a direct implementation; …"),
      }),
    )
    .describe("Types that extend or implement it, nearest first."),
  ...Complete,
});
type ImplementsOutput = z.infer<typeof ImplementsOutput>;

export const implementsTool = defineTool({
  name: "implements",
  title: "Implementations of a type",
  description:
    "The classes, structs and interfaces that extend or implement an interface, trait or class (heritage clauses; Rust `impl Trait for`), directly or through subclasses, each with the confidence that the clause names this type and not a same-named one. Go's implicit interfaces are not inferred.",
  input: z.strictObject({
    symbol: SymbolInput,
    path: PathInput.optional().describe("File or folder the type is declared in, when the name alone is ambiguous."),
  }),
  output: ImplementsOutput,
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const session = await openCallGraph(context);
    const symbol = await resolveSymbol(session, context, args.symbol, args.path, "symbol");
    const { implementations, truncated } = implementationsOf(session.calls, symbol);
    const limits = [...session.limits];
    if (truncated) limits.push(`intel.calls.maxHeritageDepth = ${LIMITS.intel.calls.maxHeritageDepth}`);
    return {
      symbol: symbolOut(symbol, session.display),
      implementations: implementations.map((entry) => ({ ...symbolOut(entry.symbol, session.display), via: entry.via, confidence: entry.confidence, depth: entry.depth })),
      complete: session.coverage.complete && limits.length === 0,
      limits,
    };
  },
  render: (result: ImplementsOutput) => {
    const lines = [`${plural(result.implementations.length, "implementation")} of ${result.symbol.name} (${place(result.symbol)})`];
    for (const entry of result.implementations) {
      lines.push(`${"  ".repeat(entry.depth)}${entry.name} (${entry.kind}) ${place(entry)} via ${entry.via}${entry.confidence === "exact" ? "" : ` [${entry.confidence}]`}`);
    }
    renderIncomplete(result, lines);
    return lines.join("\n");
  },
});

// ───────────────────────────── impact ─────────────────────────────

const ImpactOutput = z.object({
  symbol: SymbolOut.optional().describe("The declaration asked about (absent for a whole file)."),
  path: z.string().describe("The file changed."),
  callers: z.array(CallOut).describe("Exact and inferred callers, transitively."),
  dependents: z.array(z.object({ path: z.string(), depth: z.number().int() })).describe("Files importing the file, transitively, nearest first."),
  totalDependents: z.number().int().describe("Dependents before the list was cut."),
  tests: z
    .array(
      z.object({
        path: z.string().describe("The test file."),
        via: z.enum(["calls", "imports", "name"]).describe(
          "calls: it calls the target through the callers; imports: it imports the file through the dependents; name: only named after it.",
        ),
        distance: z.number().int().describe("Calls or import hops to the target (0 for name)."),
      }),
    )
    .describe("Test files (by convention: *.test.*, *.spec.*, test_*.py, *_test.go, tests/ folders, …) that reach the target."),
  ...Complete,
});
type ImpactOutput = z.infer<typeof ImpactOutput>;

export const impactTool = defineTool({
  name: "impact",
  title: "What a change affects",
  description:
    "What changing a declaration (symbol) or a whole file (path) can break: its callers (exact and inferred, transitively), the files importing its file (transitively), and the test files that reach it by calls, by imports or by name — the tests to run after the change.",
  input: z
    .strictObject({
      symbol: SymbolInput.optional(),
      path: PathInput.optional().describe("The file (or, with symbol, the file or folder the declaration is in)."),
      depth: z
        .number()
        .int()
        .min(1)
        .max(LIMITS.intel.calls.maxDepth)
        .optional()
        .describe(`Caller levels to follow (default ${LIMITS.intel.calls.impactDepth}).`),
    })
    .refine((args) => args.symbol !== undefined || args.path !== undefined, "pass symbol, path, or both"),
  output: ImpactOutput,
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const session = await openCallGraph(context);
    let symbol: SymbolRef | undefined;
    let file: string;
    if (args.symbol !== undefined) {
      symbol = await resolveSymbol(session, context, args.symbol, args.path, "symbol");
      file = symbol.file;
    } else {
      const scope = await resolveScope(session, context, args.path!);
      if (scope.directory) throw new ToolError("not_a_file", `${scope.resolved.display} is a folder; impact takes a file or a symbol.`);
      file = scope.resolved.real;
    }
    const depth = args.depth ?? LIMITS.intel.calls.impactDepth;
    const impact = impactOf(session.calls, file, symbol, { depth, limit: LIMITS.intel.calls.maxLimit, display: session.display });
    const limits = [...session.limits, ...impact.truncated];
    const dependents = [...impact.dependents].sort((a, b) => a[1] - b[1] || (session.display(a[0]) < session.display(b[0]) ? -1 : 1));
    const shown = dependents.slice(0, LIMITS.intel.graph.defaultMaxEdges);
    if (dependents.length > shown.length) limits.push(`intel.graph.defaultMaxEdges = ${LIMITS.intel.graph.defaultMaxEdges} dependents listed`);
    const result: ImpactOutput = {
      path: session.display(file),
      callers: impact.callers.map((edge) => callOut(edge, session.display)),
      dependents: shown.map(([real, level]) => ({ path: session.display(real), depth: level })),
      totalDependents: dependents.length,
      tests: impact.tests.map((test) => ({ path: session.display(test.file), via: test.via, distance: test.distance })),
      complete: session.coverage.complete && limits.length === 0,
      limits,
    };
    if (symbol) result.symbol = symbolOut(symbol, session.display);
    return result;
  },
  render: (result: ImpactOutput) => {
    const target = result.symbol ? `${result.symbol.name} (${place(result.symbol)})` : result.path;
    const lines = [
      `impact of ${target}: ${plural(result.callers.length, "caller")}, ${plural(result.totalDependents, "dependent file")}, ${plural(result.tests.length, "test file")}`,
    ];
    if (result.tests.length > 0) {
      lines.push("tests:");
      for (const test of result.tests) lines.push(`  ${test.path} (${test.via}${test.via === "name" ? "" : `, ${test.distance} away`})`);
    }
    if (result.callers.length > 0) {
      lines.push("callers:");
      for (const call of result.callers) lines.push(renderCall(call, "callers"));
    }
    if (result.dependents.length > 0) {
      lines.push("dependents:");
      for (const dependent of result.dependents) lines.push(`  ${dependent.depth > 1 ? `[${dependent.depth}] ` : ""}${dependent.path}`);
      if (result.totalDependents > result.dependents.length) lines.push(`  … ${result.totalDependents - result.dependents.length} more`);
    }
    renderIncomplete(result, lines);
    return lines.join("\n");
  },
});

// ───────────────────────────── context ─────────────────────────────

const ContextOutput = z.object({
  target: SymbolOut,
  budget: z.number().int().describe("The token budget."),
  usedTokens: z.number().int().describe("Estimated tokens of the sections."),
  sections: z
    .array(
      z.object({
        role: z.enum(["target", "callee", "caller"]).describe("target: the body asked for; callee: a body it calls; caller: a caller's signature."),
        name: z.string().describe("Qualified name (callers at module level: (module level))."),
        path: z.string().describe("File of the section."),
        startLine: z.number().int().describe("First line (1-based); for callers, the line of the call."),
        endLine: z.number().int().describe("Last line."),
        confidence: ConfidenceEnum.optional().describe("For callees and callers: the confidence of the edge."),
        cut: z.boolean().optional().describe("The target's body was cut to fit the budget."),
        text: z.string().describe("The source (target, callees) or signature line (callers)."),
      }),
    )
    .describe("Target first, then callee bodies in call order, then caller signatures."),
  omitted: z.array(z.object({ role: z.enum(["callee", "caller"]), name: z.string(), path: z.string(), line: z.number().int() })).describe("What did not fit (ask show for it)."),
  ambiguousCallees: z.array(z.string()).describe("Calls the graph could not pin to one declaration (not packed)."),
  ...Complete,
});
type ContextOutput = z.infer<typeof ContextOutput>;

export const contextTool = defineTool({
  name: "context",
  title: "A function with what it calls and who calls it",
  description:
    "Everything needed to change one declaration, packed into a token budget: its body, the bodies of the functions it calls (exact and inferred edges, in call order) and the signatures of its callers; what did not fit is named so show can fetch it.",
  input: z.strictObject({
    target: SymbolInput,
    path: PathInput.optional().describe("File or folder the declaration is in, when the name alone is ambiguous."),
    budget: z
      .number()
      .int()
      .min(16)
      .max(LIMITS.intel.calls.maxContextBudget)
      .optional()
      .describe(`Token budget (default ${LIMITS.intel.calls.defaultContextBudget}), estimated with the shared o200k-like estimator.`),
  }),
  output: ContextOutput,
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const session = await openCallGraph(context);
    const target = await resolveSymbol(session, context, args.target, args.path, "target");
    const budget = args.budget ?? LIMITS.intel.calls.defaultContextBudget;
    const read = async (real: string) => {
      const file = session.index.get(real);
      // A file changed since the index was refreshed fails with stale_hash (retryable), rather than packing a wrong body.
      return file ? session.index.text(file as IndexedFile) : undefined;
    };
    const packed = await packContext(session.calls, target, budget, read, session.display);
    const limits = [...session.limits];
    if (packed.omitted.length > 0 || packed.sections[0]?.cut) limits.push(`budget = ${budget}`);
    return {
      target: symbolOut(target, session.display),
      budget,
      usedTokens: packed.usedTokens,
      sections: packed.sections.map((section) => ({
        role: section.role,
        name: section.symbol?.qualifiedName ?? "(module level)",
        path: session.display(section.file),
        startLine: section.startLine,
        endLine: section.endLine,
        ...(section.confidence ? { confidence: section.confidence } : {}),
        ...(section.cut ? { cut: true } : {}),
        text: section.text,
      })),
      omitted: packed.omitted.map((entry) => ({ role: entry.role, name: entry.name, path: session.display(entry.file), line: entry.line })),
      ambiguousCallees: packed.ambiguousCallees,
      complete: session.coverage.complete && limits.length === 0,
      limits,
    };
  },
  render: (result: ContextOutput) => {
    const lines = [`context of ${result.target.name} (${place(result.target)}): ${result.usedTokens}/${result.budget} tokens`];
    let role = "";
    for (const section of result.sections) {
      if (section.role !== role) {
        role = section.role;
        if (role === "callee") lines.push("", "── callees");
        if (role === "caller") lines.push("", "── callers");
      }
      lines.push(section.text + (section.cut ? "\n… (cut to the budget)" : ""));
    }
    if (result.ambiguousCallees.length > 0) lines.push("", `ambiguous calls (not packed): ${result.ambiguousCallees.join(", ")}`);
    if (result.omitted.length > 0) lines.push("", `did not fit: ${result.omitted.map((entry) => `${entry.role} ${entry.name} (${entry.path}:${entry.line})`).join(", ")}`);
    renderIncomplete(result, lines);
    return lines.join("\n");
  },
});

export const CALL_TOOLS = [callersTool, calleesTool, traceTool, implementsTool, impactTool, contextTool];
