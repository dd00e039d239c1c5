/** surface: the public API of a file or package after re-exports, read from the code index and the import graph. */
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { capText } from "../helpers/text-cap.ts";
import { estimateTokens } from "../helpers/tokens.ts";
import type { SymbolFact } from "../intel/facts/types.ts";
import { ImportGraph } from "../intel/graph/import-graph.ts";
import { CodeIndex } from "../intel/index/code-index.ts";
import type { IndexedFile } from "../intel/index/types.ts";
import { PathInput, plural } from "./common.ts";
import { defineTool, READ_ONLY } from "./contract.ts";

import { budgetOf, clip, CONTAINER_KINDS, coverageOut, CoverageOut, Cut, lineRange, MaxTokens, progressOf, roundUp, footer } from "./outline.ts";

const SurfaceEntry = z.object({
  name: z.string().describe("The name importers use."),
  kind: z.string(),
  signature: z.string(),
  path: z.string().describe("The file that declares it."),
  startLine: z.number().int(),
  endLine: z.number().int(),
  qualifiedName: z.string().describe("Its qualified name in the declaring file (for show)."),
  via: z.array(z.string()).optional().describe("Files it is re-exported through, outermost first, when it is not declared in the file asked about."),
  doc: z.string().optional(),
  members: z
    .array(z.object({ name: z.string(), kind: z.string(), signature: z.string(), startLine: z.number().int(), endLine: z.number().int() }))
    .optional()
    .describe("Public members of an exported type."),
});
type SurfaceEntryOut = z.infer<typeof SurfaceEntry>;

const SurfaceProblem = z.object({
  name: z.string(),
  from: z.string().optional().describe("The module specifier it was re-exported from."),
  file: z.string().describe("The file with the re-export."),
  reason: z.string().describe("Why it could not be followed (unresolved module, external package, name not found, cycle, depth limit)."),
});

/** Index files that stand for their directory. */
const PACKAGE_ENTRY_FILES = ["index.ts", "index.tsx", "index.mts", "index.js", "index.jsx", "index.mjs", "__init__.py", "mod.rs", "lib.rs"];

interface SurfaceState {
  graph: ImportGraph;
  index: CodeIndex;
  problems: Array<z.infer<typeof SurfaceProblem>>;
  cache: Map<string, SurfaceEntryOut[]>;
}

function isPublicMember(symbol: SymbolFact): boolean {
  return symbol.local !== true && symbol.visibility !== "private" && symbol.visibility !== "protected" && symbol.visibility !== "file" && (symbol.exported || symbol.visibility === "public");
}

function declaredSurface(file: IndexedFile): SurfaceEntryOut[] {
  const entries: SurfaceEntryOut[] = [];
  for (const symbol of file.facts.symbols) {
    if (symbol.parent !== undefined || symbol.local === true || !symbol.exported) continue;
    entries.push(entryFor(file, symbol, symbol.name));
  }
  return entries;
}

function entryFor(file: IndexedFile, symbol: SymbolFact, name: string): SurfaceEntryOut {
  const entry: SurfaceEntryOut = {
    name,
    kind: symbol.kind,
    signature: clip(symbol.signature, LIMITS.intel.outline.maxSignatureChars),
    path: file.display,
    startLine: symbol.startLine,
    endLine: symbol.endLine,
    qualifiedName: symbol.qualifiedName,
  };
  if (symbol.doc !== undefined) entry.doc = symbol.doc;
  if (CONTAINER_KINDS.has(symbol.kind)) {
    const members = file.facts.symbols.filter((member) => member.parent === symbol.qualifiedName && isPublicMember(member));
    if (members.length > 0) {
      entry.members = members.map((member) => ({ name: member.name, kind: member.kind, signature: clip(member.signature, LIMITS.intel.outline.maxSignatureChars), startLine: member.startLine, endLine: member.endLine }));
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

async function surfaceOf(file: IndexedFile, state: SurfaceState, stack: string[]): Promise<SurfaceEntryOut[]> {
  const cached = state.cache.get(file.real);
  if (cached) return cached;
  const entries = new Map<string, SurfaceEntryOut>();
  for (const entry of declaredSurface(file)) if (!entries.has(entry.name)) entries.set(entry.name, entry);
  const stars: SurfaceEntryOut[][] = [];
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
        entries.set(exported.name, { name: exported.name, kind: "value", signature: clip(`${exported.name} = ${local}`, LIMITS.intel.outline.maxSignatureChars), path: file.display, startLine: exported.line, endLine: exported.line, qualifiedName: exported.name });
      } else {
        state.problems.push({ name: exported.name, file: file.display, reason: `no declaration or import named ${JSON.stringify(local)} in this file` });
      }
      continue;
    }
    const dependencies = state.graph.dependenciesOf(file.real);
    const source = sources.find((candidate) => dependencies.some((edge) => edge.specifier === candidate.specifier)) ?? sources[0]!;
    const problem = (reason: string) => state.problems.push({ name: exported.name, from: source.specifier, file: file.display, reason });
    const edges = dependencies.filter((edge) => edge.specifier === source.specifier);
    if (edges.length === 0) {
      const unresolved = state.graph.unresolvedOf(file.real).find((entry) => entry.specifier === source.specifier);
      const external = state.graph.externalsOf(file.real).some((use) => source.specifier === use.package || source.specifier.startsWith(`${use.package}/`));
      problem(unresolved ? `unresolved module (${unresolved.reason}: ${unresolved.detail})` : external ? "an external package (not followed)" : "module not resolved");
      continue;
    }
    const target = state.index.get(edges[0]!.to);
    if (!target) {
      problem("the module's file is not indexed");
      continue;
    }
    if (stack.includes(target.real)) {
      problem(`re-export cycle through ${target.display}`);
      continue;
    }
    if (stack.length >= LIMITS.intel.outline.maxReexportDepth) {
      problem(`more than ${LIMITS.intel.outline.maxReexportDepth} re-export hops`);
      continue;
    }
    const targetSurface = await surfaceOf(target, state, [...stack, target.real]);
    const via = (entry: SurfaceEntryOut): SurfaceEntryOut => ({ ...entry, via: [target.display, ...(entry.via ?? [])] });
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
          signature: `namespace ${exported.name} (${plural(targetSurface.length, "export")} of ${target.display})`,
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

export const surfaceTool = defineTool({
  name: "surface",
  title: "Public API",
  description:
    "The public API of a module or package after re-exports: exported declarations with signatures and line ranges, and names re-exported from other modules followed to where they are declared (TS/JS `export … from`, Python `__all__` and package imports, Rust `pub use`, Go capitalised names, Java/Kotlin public types). A directory means its index/__init__/mod/lib file, or every file in it (Go and Java packages).",
  input: z.strictObject({
    path: PathInput.describe("A file or a package directory, absolute or relative to the first root."),
    maxTokens: MaxTokens(LIMITS.intel.outline.defaultMaxTokens),
  }),
  output: z.object({
    path: z.string(),
    files: z.array(z.string()).describe("The files whose surface this is."),
    entries: z.array(SurfaceEntry).describe("Public names, in file order (re-exported names after declared ones)."),
    entriesTotal: z.number().int(),
    problems: z.array(SurfaceProblem).describe("Re-exports that could not be followed."),
    cut: Cut,
    coverage: CoverageOut,
  }),
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const resolved = await context.workspace.resolve(args.path, "read");
    if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
    const index = CodeIndex.forContext(context);
    const coverage = await index.ensureFresh(progressOf(context));
    const graph = await ImportGraph.for(index, context.workspace, { signal: context.signal, readHead: (file) => index.text(file as IndexedFile).catch(() => undefined) });
    let files: IndexedFile[];
    if (resolved.kind === "directory") {
      const entryFile = PACKAGE_ENTRY_FILES.map((name) => index.get(path.join(resolved.real, name))).find((file) => file !== undefined);
      files = entryFile ? [entryFile] : index.files().filter((file) => path.dirname(file.real) === resolved.real);
      if (files.length === 0) {
        throw new ToolError("file_not_found", `${resolved.display} holds no indexed source files.`, { hint: "Pass a source file, or a directory the index covers (see index with stats)." });
      }
    } else if (resolved.kind === "file") {
      files = [index.get(resolved.real) ?? (await index.fileFor(resolved))];
    } else {
      throw new ToolError("not_a_file", `${resolved.display} is not a file or directory.`);
    }
    const state: SurfaceState = { graph, index, problems: [], cache: new Map() };
    const all: SurfaceEntryOut[] = [];
    for (const file of files) all.push(...(await surfaceOf(file, state, [file.real])));
    const budget = budgetOf(args.maxTokens);
    let tokens = 0;
    let chars = 0;
    const entries: SurfaceEntryOut[] = [];
    for (const entry of all) {
      const text = renderSurfaceEntry(entry);
      const cost = estimateTokens(text) + 1;
      if (tokens + cost > budget.maxTokens || chars + text.length > budget.maxChars) break;
      tokens += cost;
      chars += text.length + 1;
      entries.push(entry);
    }
    const truncated = entries.length < all.length;
    return {
      path: resolved.display,
      files: files.map((file) => file.display),
      entries,
      entriesTotal: all.length,
      problems: state.problems,
      cut: {
        truncated,
        limitedBy: truncated ? ("maxTokens" as const) : null,
        next: truncated ? `raise maxTokens (about ${roundUp(all.reduce((sum, entry) => sum + estimateTokens(renderSurfaceEntry(entry)) + 1, 0))}), or show the names you need` : null,
        tokens,
      },
      coverage: coverageOut(coverage, truncated ? [`maxTokens = ${args.maxTokens}`] : []),
    };
  },
  render: (result) => {
    const out = [`${result.path}: ${plural(result.entriesTotal, "public name")}${result.files.length > 1 ? ` across ${plural(result.files.length, "file")}` : ""}`];
    for (const entry of result.entries) out.push(renderSurfaceEntry(entry));
    if (result.entries.length < result.entriesTotal) out.push(`… ${result.entriesTotal - result.entries.length} more not shown`);
    for (const problem of result.problems) out.push(`! ${problem.name}${problem.from ? ` from ${JSON.stringify(problem.from)}` : ""} (${problem.file}): ${problem.reason}`);
    out.push(...footer(result.cut, result.coverage));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderSurfaceEntry(entry: SurfaceEntryOut): string {
  const renamed = entry.qualifiedName !== entry.name && entry.kind !== "namespace" ? ` (as ${entry.name})` : "";
  const where = entry.via && entry.via.length > 0 ? ` ← ${entry.path}` : "";
  const lines = [`  ${lineRange(entry)} ${entry.signature || `${entry.kind} ${entry.name}`}${renamed}${where}${entry.doc ? `  — ${entry.doc}` : ""}`];
  for (const member of entry.members ?? []) lines.push(`    ${lineRange(member)} ${member.signature || `${member.kind} ${member.name}`}`);
  return lines.join("\n");
}
