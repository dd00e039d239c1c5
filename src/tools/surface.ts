import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { capText } from "../helpers/text-cap.ts";
import { estimateTokens } from "../helpers/tokens.ts";
import { packageFiles, publicSurface, type SurfaceEntry } from "../intel/graph/surface.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { PathInput, plural } from "./common.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { openImportGraph } from "./graph-common.ts";
import { budgetCut, budgetOf, clip, Cut, lineRange, MaxTokens, roundUp, footer } from "./outline.ts";
import { Completeness, completeness } from "./completeness.ts";

const SurfaceMember = z.object({
  name: z.string(),
  kind: z.string(),
  signature: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
  path: z.string().optional().describe("The file that declares it, when not the file of its type (a Go method declared in another file of the package)."),
});

const SurfaceEntrySchema = z.object({
  name: z.string().describe("The name importers use."),
  kind: z.string(),
  signature: z.string(),
  path: z.string().describe("The file that declares it."),
  file: z.string().describe("The file asked about that publishes it; the text groups entries by it."),
  startLine: z.number().int(),
  endLine: z.number().int(),
  qualifiedName: z.string().describe("Its qualified name in the declaring file (for show)."),
  via: z.array(z.string()).optional().describe("Files it is re-exported through, outermost first, when it is not declared in the file asked about."),
  doc: z.string().optional(),
  members: z.array(SurfaceMember).optional().describe("Public members of an exported type."),
});

const SurfaceProblemSchema = z.object({
  name: z.string(),
  from: z.string().optional().describe("The module specifier it was re-exported from."),
  file: z.string().describe("The file with the re-export."),
  reason: z.string().describe("Why it could not be followed (unresolved module, external package, name not found, cycle, depth limit)."),
});

/** Signatures as the outline tools show them (cut to maxSignatureChars). */
function clipped(entry: SurfaceEntry): SurfaceEntry {
  const max = LIMITS.intel.outline.maxSignatureChars;
  const out: SurfaceEntry = { ...entry, signature: clip(entry.signature, max) };
  if (entry.members) out.members = entry.members.map((member) => ({ ...member, signature: clip(member.signature, max) }));
  return out;
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
    testFiles: z.array(z.string()).describe("Test files of the package directory left out, being no public API (`_test.go`, `*Test.java`, …); pass one as path to see its names."),
    entries: z.array(SurfaceEntrySchema).describe("Public names, in file order (re-exported names after declared ones)."),
    entriesTotal: z.number().int(),
    problems: z.array(SurfaceProblemSchema).describe("Re-exports that could not be followed."),
    cut: Cut,
    ...Completeness,
  }),
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: async (args, context) => {
    const resolved = await context.workspace.resolve(args.path, "read");
    if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
    const { index, coverage, graph } = await openImportGraph(context);
    let files: IndexedFile[];
    let tests: IndexedFile[] = [];
    if (resolved.kind === "directory") {
      ({ files, tests } = packageFiles(index, resolved.real));
      if (files.length === 0) {
        const only = tests.length > 0 ? ` but ${plural(tests.length, "test file")}` : "";
        throw new ToolError("file_not_found", `${resolved.display} holds no indexed source files${only}.`, {
          hint: tests.length > 0 ?
            `Test files are no public API; pass one as path to list its names (first: ${JSON.stringify(tests[0]!.display)}).` :
            "Pass a source file, or a directory the index covers (see index with stats).",
        });
      }
    } else if (resolved.kind === "file") {
      files = [index.get(resolved.real) ?? ((await index.load(resolved)).file)];
    } else {
      throw new ToolError("not_a_file", `${resolved.display} is not a file or directory.`);
    }
    const surface = await publicSurface(files, graph, index);
    const all = surface.entries.map(clipped);
    const budget = budgetOf(args.maxTokens);
    let tokens = 0;
    let chars = 0;
    const entries: SurfaceEntry[] = [];
    for (const entry of all) {
      const text = renderSurfaceEntry(entry);
      const cost = estimateTokens(text) + 1;
      if (tokens + cost > budget.maxTokens || chars + text.length > budget.maxChars) break;
      tokens += cost;
      chars += text.length + 1;
      entries.push(entry);
    }
    const truncated = entries.length < all.length;
    const next = truncated ?
      `raise maxTokens (about ${roundUp(all.reduce((sum, entry) => sum + estimateTokens(renderSurfaceEntry(entry)) + 1, 0))}), or show the names you need` :
      null;
    return {
      path: resolved.display,
      files: files.map((file) => file.display),
      testFiles: tests.map((file) => file.display),
      entries,
      entriesTotal: all.length,
      problems: surface.problems,
      cut: { next, tokens },
      ...completeness(coverage, budgetCut(truncated ? "maxTokens" : null, next, args.maxTokens)),
    };
  },
  render: (result) => {
    const left = result.testFiles.length > 0 ? ` (${plural(result.testFiles.length, "test file")} left out)` : "";
    const out = [`${result.path}: ${plural(result.entriesTotal, "public name")}${result.files.length > 1 ? ` across ${plural(result.files.length, "file")}` : ""}${left}`];
    // Several files (a Go or Java package): under a heading per file, since a line range alone names no file.
    const grouped = result.files.length > 1;
    let heading: string | undefined;
    for (const entry of result.entries) {
      if (grouped && entry.file !== heading) {
        heading = entry.file;
        out.push(`  ${entry.file}`);
      }
      out.push(renderSurfaceEntry(entry, grouped ? "    " : "  "));
    }
    if (result.entries.length < result.entriesTotal) out.push(`… ${result.entriesTotal - result.entries.length} more not shown`);
    for (const problem of result.problems) out.push(`! ${problem.name}${problem.from ? ` from ${JSON.stringify(problem.from)}` : ""} (${problem.file}): ${problem.reason}`);
    out.push(...footer(result));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderSurfaceEntry(entry: z.infer<typeof SurfaceEntrySchema>, indent = "    "): string {
  const renamed = entry.qualifiedName !== entry.name && entry.kind !== "namespace" ? ` (as ${entry.name})` : "";
  const where = entry.path !== entry.file ? ` ← ${entry.path}` : "";
  const lines = [`${indent}${lineRange(entry)} ${entry.signature || `${entry.kind} ${entry.name}`}${renamed}${where}${entry.doc ? `  — ${entry.doc}` : ""}`];
  for (const member of entry.members ?? []) {
    lines.push(`${indent}  ${member.path ? `${member.path} ` : ""}${lineRange(member)} ${member.signature || `${member.kind} ${member.name}`}`);
  }
  return lines.join("\n");
}
