/**
 * Which files import a given file: the reference check file_delete runs, answered from the full
 * import graph over the code index (every resolver: relative paths, tsconfig paths, package
 * exports, workspace packages, Python, Go, Rust, Java/Kotlin, C includes). A file the index does
 * not hold (in an ignored folder) is still found through the specifiers that failed to resolve.
 * An index cut by its file limit is refused rather than passed off as a complete answer.
 */
import { ToolError } from "../core/errors.ts";
import type { ResolvedPath } from "../policy/workspace.ts";
import { ImportGraph } from "./graph/import-graph.ts";
import { CodeIndex, type IndexContext } from "./index/index.ts";

export interface ImportScanOptions {
  signal?: AbortSignal;
  /** Indexed files beyond which the check gives up with too_many_items (default: the index's own limit). */
  maxFiles?: number;
}

function tooManyFiles(detail: string, limit?: number): ToolError {
  return new ToolError("too_many_items", `The reference check cannot see the whole workspace: ${detail}.`, {
    hint: "Narrow the workspace roots or raise [index].max_files, or skip the reference check where the tool allows it (file_delete: force: true).",
    details: limit === undefined ? {} : { maxFiles: limit },
  });
}

/**
 * Display paths of the files under the workspace roots that import `target` (sorted). An import of
 * a whole package (a Go import, a Java/Kotlin wildcard) counts only when the target is the
 * package's last file. Throws too_many_items when the index could not hold every file.
 */
export async function findImporters(target: ResolvedPath, context: IndexContext, options: ImportScanOptions = {}): Promise<string[]> {
  if (target.kind !== "file") return [];
  const { signal } = options;
  const { workspace } = context;
  const index = context.services.indexes.forContext(context);
  const coverage = await index.ensureFresh(signal ? { signal } : {});
  if (coverage.skipped.overLimit > 0) throw tooManyFiles(`${coverage.skipped.overLimit} files are over the index's file limit (${coverage.limits.join("; ")})`);
  if (options.maxFiles !== undefined && coverage.files > options.maxFiles) {
    throw tooManyFiles(`${coverage.files} files are indexed, more than ${options.maxFiles}`, options.maxFiles);
  }
  const graph = await ImportGraph.for(index, workspace, {
    readHead: (file) => index.text(file as Parameters<CodeIndex["text"]>[0]).catch(() => undefined),
    ...(signal ? { signal } : {}),
  });
  signal?.throwIfAborted();
  const edges = graph.file(target.real) ? [...graph.dependentsOf(target.real)] : await graph.edgesToUnindexed((await index.load(target)).file);
  const importers = new Set<string>();
  for (const edge of edges) {
    if (edge.from === target.real) continue;
    if (graph.sharesPackage(edge)) continue;
    importers.add(graph.file(edge.from)?.display ?? workspace.display(edge.from));
  }
  return [...importers].sort();
}
