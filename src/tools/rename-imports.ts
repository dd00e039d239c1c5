/**
 * file_rename's updateImports: for every JS/TS or Python file the batch moves, the importers found
 * in the import graph get a write entry that rewrites the specifier to the new location (original
 * style kept), so the moves and the rewrites commit as one journaled batch. Importers that cannot
 * be rewritten faithfully are named, not guessed at.
 */
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { familyOf } from "../intel/graph/import-graph.ts";
import { replaceSpecifier, rewritePythonSpecifier, rewriteScriptSpecifier } from "../intel/graph/rewrite-imports.ts";
import type { ImportEdge } from "../intel/graph/types.ts";
import type { WriteEntry } from "../patch/index.ts";
import type { ToolContext } from "./contract.ts";
import { openImportGraph } from "./graph-common.ts";

const MOVABLE = /\.(?:[cm]?[jt]sx?|d\.[cm]?ts|pyi?)$/;

export interface Move {
  from: string;
  to: string;
}

export interface ImportUpdates {
  entries: WriteEntry[];
  /** Per moved file (real path): importers left unchanged, and why. */
  notes: Map<string, string[]>;
}

export async function planImportUpdates(moves: readonly Move[], context: ToolContext): Promise<ImportUpdates> {
  const notes = new Map<string, string[]>();
  const note = (move: string, text: string) => {
    const list = notes.get(move) ?? [];
    list.push(text);
    notes.set(move, list);
  };
  const relevant = moves.filter((move) => MOVABLE.test(move.from));
  if (relevant.length === 0) return { entries: [], notes };
  const { coverage, graph } = await openImportGraph(context);
  if (!coverage.complete) {
    for (const move of relevant) note(move.from, `the index is incomplete (${coverage.limits.join("; ")}): importers it does not hold are not updated`);
  }
  const destination = new Map(relevant.map((move) => [move.from, move.to]));
  const moving = new Set(moves.map((move) => move.from));

  const byImporter = new Map<string, ImportEdge[]>();
  for (const move of relevant) {
    for (const edge of graph.dependentsOf(move.from)) {
      const importer = graph.file(edge.from);
      const family = importer ? familyOf(importer.language) : undefined;
      const display = importer?.display ?? context.workspace.display(edge.from);
      if (family !== "script" && family !== "python") continue;
      if (moving.has(edge.from)) {
        note(move.from, `${display}:${edge.line} not updated: it moves in the same batch`);
        continue;
      }
      const list = byImporter.get(edge.from) ?? [];
      list.push(edge);
      byImporter.set(edge.from, list);
    }
  }
  if (byImporter.size + moves.length > LIMITS.batchPaths) {
    throw new ToolError(
      "too_many_items",
      `updateImports would rewrite ${byImporter.size} importers; with ${moves.length} renames that exceeds ${LIMITS.batchPaths} files per batch.`,
      {
        hint: "Rename fewer files per call, or pass updateImports: false and update the importers with file_patch or run.",
        details: { importers: byImporter.size, renames: moves.length },
      },
    );
  }

  // A moved file's own relative imports: this batch moves it as is, so they are named with the specifier they now need.
  for (const move of relevant) {
    const moved = graph.file(move.from);
    const family = moved ? familyOf(moved.language) : undefined;
    if (family !== "script" && family !== "python") continue;
    const seen = new Set<string>();
    for (const edge of graph.dependenciesOf(move.from)) {
      if (edge.via !== "relative" && edge.via !== "python_relative") continue;
      const key = `${edge.line}\0${edge.specifier}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const target = destination.get(edge.to) ?? edge.to;
      const rewrite = family === "script" ?
        rewriteScriptSpecifier(move.from, edge.specifier, edge.to, target, move.to) :
        rewritePythonSpecifier(move.from, edge.specifier, edge.to, target, move.to);
      if (rewrite.ok && rewrite.specifier !== edge.specifier) {
        note(move.from, `its own import ${JSON.stringify(edge.specifier)} (line ${edge.line}) now needs ${JSON.stringify(rewrite.specifier)}; patch the moved file`);
      }
    }
  }

  const entries: WriteEntry[] = [];
  for (const [importerReal, edges] of [...byImporter].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
    const indexed = graph.file(importerReal)!;
    const family = familyOf(indexed.language) as "script" | "python";
    const transform = (original: string, display: string) => {
      let text = original;
      const done = new Set<string>();
      for (const edge of edges.sort((a, b) => a.line - b.line)) {
        const key = `${edge.line}\0${edge.specifier}`;
        if (done.has(key)) continue;
        done.add(key);
        const newTarget = destination.get(edge.to)!;
        const rewrite = family === "script" ?
          rewriteScriptSpecifier(importerReal, edge.specifier, edge.to, newTarget) :
          rewritePythonSpecifier(importerReal, edge.specifier, edge.to, newTarget);
        if (!rewrite.ok) {
          note(edge.to, `${display}:${edge.line} not updated: ${rewrite.reason}`);
          continue;
        }
        if (rewrite.specifier === edge.specifier) continue;
        const replaced = replaceSpecifier(text, edge.line, family, edge.specifier, rewrite.specifier);
        if (replaced === undefined) {
          note(edge.to, `${display}:${edge.line} not updated: ${JSON.stringify(edge.specifier)} is not written on that line in a form that can be rewritten`);
          continue;
        }
        text = replaced;
      }
      return text;
    };
    // The index's hash is what the rewrite was planned against; a file changed since is stale.
    entries.push({ kind: "transform", key: indexed.display, path: importerReal, expectedSha256: indexed.sha256, transform });
  }
  return { entries, notes };
}
