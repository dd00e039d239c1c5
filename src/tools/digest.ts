import path from "node:path";
import { z } from "zod";
import { LIMITS } from "../core/limits.ts";
import { capText } from "../helpers/text-cap.ts";
import { estimateTokens } from "../helpers/tokens.ts";
import type { SymbolFact } from "../intel/facts/types.ts";
import { CONTAINER_KINDS } from "../intel/graph/surface.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { FailedPath, PathInput, plural, renderCounts, renderItemError } from "./common.ts";
import { defineTool, READ_ONLY } from "./contract.ts";
import { budgetCut, budgetOf, type BudgetLimit, collectFiles, compareDisplay, Cut, MaxTokens, footer } from "./outline.ts";
import { Completeness, completeness } from "./completeness.ts";

const DigestFile = z.object({
  path: z.string(),
  language: z.string(),
  lines: z.number().int(),
  parseErrors: z.number().int(),
  types: z
    .array(z.object({ name: z.string(), kind: z.string(), line: z.number().int(), members: z.array(z.string()).describe("Public member names."), moreMembers: z.number().int() }))
    .describe("Public types with their public members."),
  functions: z.array(z.string()).describe("Public top-level functions."),
  values: z.array(z.string()).describe("Public top-level constants, variables and type aliases."),
  reexports: z.array(z.string()).describe("Names re-exported from other modules (\"*\" for everything of one)."),
});
type DigestFileOut = z.infer<typeof DigestFile>;

const DigestDirectory = z.object({
  path: z.string(),
  files: z.array(DigestFile),
  languages: z.record(z.string(), z.number().int()).describe("Files per language in this directory."),
});

/** Member names listed per type before "+N". */
const DIGEST_MEMBERS = 12;

function digestFile(file: IndexedFile): DigestFileOut {
  const isPublic = (symbol: SymbolFact) => symbol.local !== true && symbol.visibility !== "private" && (symbol.exported || symbol.visibility === "public");
  const top = file.facts.symbols.filter((symbol) => symbol.parent === undefined && isPublic(symbol));
  const out: DigestFileOut = {
    path: file.display,
    language: file.language,
    lines: file.lines,
    parseErrors: file.facts.parseErrors,
    types: [],
    functions: [],
    values: [],
    reexports: [],
  };
  const declared = new Set(top.map((symbol) => symbol.name));
  for (const exported of file.facts.exportedNames) {
    const label = exported.name === "*" && exported.from !== undefined ? `* from ${exported.from}` : exported.name;
    if (!declared.has(exported.name) && !out.reexports.includes(label)) out.reexports.push(label);
  }
  for (const symbol of top) {
    if (CONTAINER_KINDS.has(symbol.kind)) {
      const members = file.facts.symbols.filter((member) => member.parent === symbol.qualifiedName && isPublic(member) && member.visibility !== "protected").map((member) =>
        member.name
      );
      out.types.push({
        name: symbol.name,
        kind: symbol.kind,
        line: symbol.startLine,
        members: members.slice(0, DIGEST_MEMBERS),
        moreMembers: Math.max(0, members.length - DIGEST_MEMBERS),
      });
    } else if (symbol.kind === "function" || symbol.kind === "macro") {
      out.functions.push(symbol.name);
    } else if (symbol.kind !== "heading" && symbol.kind !== "key") {
      out.values.push(symbol.name);
    }
  }
  return out;
}

function renderDigestFile(file: DigestFileOut, directory: string): string {
  const name = directory === "." || directory === "" ? file.path : file.path.startsWith(`${directory}/`) ? file.path.slice(directory.length + 1) : file.path;
  const parts: string[] = [];
  for (const type of file.types) {
    const members = type.members.length > 0 ? ` { ${type.members.join(", ")}${type.moreMembers > 0 ? `, +${type.moreMembers}` : ""} }` : "";
    parts.push(`${type.kind} ${type.name}${members}`);
  }
  if (file.functions.length > 0) parts.push(`fn ${file.functions.join(", ")}`);
  if (file.values.length > 0) parts.push(`${file.values.join(", ")}`);
  if (file.reexports.length > 0) parts.push(`re-exports ${file.reexports.join(", ")}`);
  const errors = file.parseErrors > 0 ? ` (${plural(file.parseErrors, "parse error")})` : "";
  return `  ${name}${errors}: ${parts.length > 0 ? parts.join(" · ") : "—"}`;
}

export const digestTool = defineTool({
  name: "digest",
  title: "Digest a directory",
  description:
    "A one-page map of an unfamiliar directory: its files grouped by folder, each with its public types (and their public members), functions and constants. Use it first in code you do not know; then map for signatures and show for bodies.",
  input: z.strictObject({
    paths: z.array(PathInput).min(1).max(LIMITS.batchPaths).describe("Directories (or files) to digest, absolute or relative to the first root."),
    glob: z.string().min(1).max(1000).optional().describe("Only files whose path relative to a given directory matches, e.g. \"**/*.py\"."),
    maxTokens: MaxTokens(LIMITS.intel.outline.digestMaxTokens),
  }),
  output: z.object({
    directories: z.array(DigestDirectory),
    summary: z.object({ files: z.number().int(), languages: z.record(z.string(), z.number().int()), lines: z.number().int() }).describe(
      "Totals over every matched file (also those cut).",
    ),
    failed: z.array(FailedPath),
    omittedFiles: z.array(z.string()).describe("Files left out by the budget (first 50)."),
    omittedCount: z.number().int(),
    cut: Cut,
    ...Completeness,
  }),
  annotations: READ_ONLY,
  handler: async (args, context) => {
    const collected = await collectFiles(context, args.paths, args.glob);
    const budget = budgetOf(args.maxTokens);
    // Grouped by folder: a folder's files come together, before its subfolders.
    const sorted = [...collected.files].sort(
      (a, b) => compareDisplay(path.posix.dirname(a.file.display), path.posix.dirname(b.file.display)) || compareDisplay(a.file.display, b.file.display),
    );
    const summary = { files: sorted.length, languages: {} as Record<string, number>, lines: 0 };
    for (const { file } of sorted) {
      summary.languages[file.language] = (summary.languages[file.language] ?? 0) + 1;
      summary.lines += file.lines;
    }
    const directories: Array<z.infer<typeof DigestDirectory>> = [];
    const omitted: string[] = [];
    let tokens = estimateTokens(renderDigestSummary(summary));
    let chars = 0;
    let limitedBy: BudgetLimit | null = null;
    for (const { file } of sorted) {
      if (limitedBy !== null) {
        omitted.push(file.display);
        continue;
      }
      const directory = path.posix.dirname(file.display);
      let group = directories.at(-1);
      const newGroup = group?.path !== directory;
      const digest = digestFile(file);
      const line = renderDigestFile(digest, directory);
      const cost = estimateTokens(line) + 1 + (newGroup ? estimateTokens(directory) + 8 : 0);
      if (tokens + cost > budget.maxTokens || chars + line.length > budget.maxChars) {
        limitedBy = tokens + cost > budget.maxTokens ? "maxTokens" : "outputLimit";
        omitted.push(file.display);
        continue;
      }
      tokens += cost;
      chars += line.length + 1;
      if (newGroup || !group) {
        group = { path: directory, files: [], languages: {} };
        directories.push(group);
      }
      group.files.push(digest);
      group.languages[file.language] = (group.languages[file.language] ?? 0) + 1;
    }
    if (limitedBy === null && collected.overMaxFiles > 0) limitedBy = "maxFiles";
    const next = limitedBy !== null ?
      omitted.length > 0 ?
        `call digest with paths naming the folders not shown (first: ${JSON.stringify(path.posix.dirname(omitted[0]!))}), or raise maxTokens` :
        "narrow paths or glob" :
      null;
    return {
      directories,
      summary,
      failed: collected.failed,
      omittedFiles: omitted.slice(0, LIMITS.batchPaths),
      omittedCount: omitted.length + collected.overMaxFiles,
      cut: { next, tokens },
      ...completeness(collected.coverage, budgetCut(limitedBy, next, args.maxTokens)),
    };
  },
  render: (result) => {
    const out: string[] = [renderDigestSummary(result.summary)];
    for (const directory of result.directories) {
      const languages = Object.entries(directory.languages).map(([language, count]) => `${language} ${count}`).join(", ");
      out.push(`${directory.path === "." ? "./" : `${directory.path}/`} (${plural(directory.files.length, "file")}: ${languages})`);
      for (const file of directory.files) out.push(renderDigestFile(file, directory.path));
    }
    for (const failed of result.failed) out.push(renderItemError(failed.path, failed.error));
    out.push(...footer(result, result.omittedCount));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderDigestSummary(summary: { files: number; languages: Record<string, number>; lines: number }): string {
  const languages = renderCounts(summary.languages);
  return `${plural(summary.files, "file")}, ${plural(summary.lines, "line")}${languages ? ` (${languages})` : ""}`;
}
