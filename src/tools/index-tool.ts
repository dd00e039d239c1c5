import path from "node:path";
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { relativeInside } from "../helpers/path-text.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { PathInput, plural, renderCounts } from "./common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { PATH_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { progressOf } from "./progress.ts";

const IndexOutput = z.object({
  scope: z.string().describe("The path reported on (\".\" for everything)."),
  files: z.number().int().describe("Indexed files in scope."),
  bytes: z.number().int(),
  lines: z.number().int(),
  ...Completeness,
  skipped: z
    .object({
      tooLarge: z.number().int(),
      ignored: z.number().int(),
      denied: z.number().int(),
      unsupported: z.number().int(),
      overLimit: z.number().int(),
      minified: z.number().int(),
      unreadable: z.number().int(),
      tooDeep: z.number().int().describe("Directories deeper than the index walks; limits names the depth."),
    })
    .describe("Across the whole index (ignored and denied directories count once)."),
  ms: z.number().int().describe("Time this call spent building or refreshing."),
  generation: z.number().int(),
  languages: z.record(z.string(), z.number().int()).optional(),
  parseErrors: z.number().int().optional(),
  filesWithParseErrors: z.array(z.object({ path: z.string(), errors: z.number().int() })).optional().describe("Files with syntax errors, most first (first 20)."),
  freshness: z.enum(["stat", "watch"]).optional().describe("How the last refresh found changes."),
  watch: z.object({ active: z.boolean(), directories: z.number().int(), reason: z.string().optional() }).optional(),
  lastBuild: z.object({ ms: z.number(), parsed: z.number().int(), fromSnapshot: z.number().int(), bytes: z.number().int() }).optional(),
  snapshot: z.object({
    enabled: z.boolean(),
    path: z.string().optional(),
    loaded: z.boolean(),
    reused: z.number().int(),
    savedAt: z.string().optional(),
    problem: z.string().optional(),
  }).optional(),
});

export const indexTool = defineTool({
  name: "index",
  title: "Code index",
  description:
    "Builds or refreshes the code index every outline, graph and search tool reads, and reports it: files, languages, bytes, parse errors, what was skipped and why (ignored, too large, over the file limit, denied), timing, and whether a persisted snapshot was used. Other tools refresh the index themselves; call this to see coverage or to force a rebuild.",
  input: z.strictObject({
    path: PathInput.optional().describe("Report only on the indexed files under this file or directory."),
    rebuild: z.boolean().default(false).describe("Forget everything and parse every file again (ignores the snapshot)."),
    stats: z.boolean().default(false).describe("Include per-language counts, parse errors, watch and snapshot details."),
  }),
  output: IndexOutput,
  annotations: READ_ONLY,
  errors: [...PATH_ERRORS, "file_not_found"],
  handler: async (args, context) => {
    const index = context.services.indexes.forContext(context);
    const started = performance.now();
    const coverage = args.rebuild ? await index.rebuild(progressOf(context)) : await index.ensureFresh(progressOf(context));
    const ms = Math.round(performance.now() - started);
    let scope = ".";
    let inScope = (_file: IndexedFile) => true;
    if (args.path !== undefined) {
      const resolved = await context.workspace.resolve(args.path, "read");
      if (!resolved.exists) throw new ToolError("file_not_found", `${resolved.display} does not exist.`);
      scope = resolved.display;
      inScope = (file) => relativeInside(resolved.real, file.real, path.sep) !== undefined;
    }
    const files = index.files().filter(inScope);
    const stats = index.stats();
    const result: z.input<typeof IndexOutput> = {
      scope,
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.size, 0),
      lines: files.reduce((sum, file) => sum + file.lines, 0),
      ...completeness(coverage),
      skipped: coverage.skipped,
      ms,
      generation: index.generation,
    };
    if (args.stats) {
      const languages: Record<string, number> = {};
      for (const file of files) languages[file.language] = (languages[file.language] ?? 0) + 1;
      result.languages = languages;
      result.parseErrors = files.reduce((sum, file) => sum + file.facts.parseErrors, 0);
      result.filesWithParseErrors = files
        .filter((file) => file.facts.parseErrors > 0)
        .sort((a, b) => b.facts.parseErrors - a.facts.parseErrors)
        .slice(0, 20)
        .map((file) => ({ path: file.display, errors: file.facts.parseErrors }));
      result.freshness = stats.freshness;
      result.watch = stats.watch;
      if (stats.lastBuild) result.lastBuild = stats.lastBuild;
      result.snapshot = stats.snapshot;
    }
    return result;
  },
  render: (result) => {
    const skipped = Object.entries(result.skipped)
      .filter(([, count]) => count > 0)
      .map(([reason, count]) => `${reason} ${count}`)
      .join(", ");
    const out = [
      `index ${result.scope}: ${plural(result.files, "file")}, ${plural(result.lines, "line")}, ${result.bytes} bytes · ${result.ms} ms · generation ${result.generation}`,
    ];
    renderIncomplete(result, out);
    if (skipped) out.push(`skipped: ${skipped}`);
    if (result.languages) out.push(`languages: ${renderCounts(result.languages)}`);
    if (result.parseErrors !== undefined) {
      out.push(
        `parse errors: ${result.parseErrors}${
          result.filesWithParseErrors && result.filesWithParseErrors.length > 0 ?
            ` (${result.filesWithParseErrors.map((file) => `${file.path} ${file.errors}`).join(", ")})` :
            ""
        }`,
      );
    }
    if (result.lastBuild) out.push(`cold build: ${result.lastBuild.ms} ms, ${plural(result.lastBuild.parsed, "file")} parsed, ${result.lastBuild.fromSnapshot} from the snapshot`);
    if (result.watch) {
      out.push(
        `freshness: ${result.freshness ?? "stat"}; watcher ${
          result.watch.active ? `on (${plural(result.watch.directories, "directory")})` : `off${result.watch.reason ? ` (${result.watch.reason})` : ""}`
        }`,
      );
    }
    if (result.snapshot) {
      const snapshot = result.snapshot;
      out.push(
        `snapshot: ${snapshot.enabled ? "on" : "off"}${snapshot.path ? ` ${snapshot.path}` : ""}${snapshot.loaded ? `, ${snapshot.reused} files reused` : ""}${
          snapshot.problem ? ` (${snapshot.problem})` : ""
        }`,
      );
    }
    return out.join("\n");
  },
});
