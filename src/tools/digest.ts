import { createHash } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { capText } from "../helpers/text-cap.ts";
import { estimateTokens } from "../helpers/tokens.ts";
import type { SymbolFact } from "../intel/facts/types.ts";
import { isTestFileName } from "../intel/calls/tests.ts";
import { CONTAINER_KINDS } from "../intel/graph/surface.ts";
import type { IndexedFile } from "../intel/index/index.ts";
import { FailedPath, PathInput, plural, renderCounts, renderItemError } from "./common.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
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
  fileCount: z.number().int().describe("Files directly in this folder."),
  languages: z.record(z.string(), z.number().int()).describe("Files per language in this folder."),
  declarations: z.number().int().describe("Public declarations of its files (test files not counted)."),
  main: z.array(z.string()).describe("Its main declarations: the largest public types and functions."),
  shortened: z.boolean().describe("True when the budget left room for one line only: files is empty; digest the folder alone to see them."),
  files: z.array(DigestFile),
});
type DigestDirectoryOut = z.infer<typeof DigestDirectory>;

const DigestFolder = z.object({
  path: z.string(),
  files: z.number().int().describe("Files in the folder and below it."),
  languages: z.record(z.string(), z.number().int()),
  declarations: z.number().int(),
  main: z.array(z.string()),
});
type DigestFolderOut = z.infer<typeof DigestFolder>;

/** The order the folders are listed in, as the answer states it. */
const ORDER = "folders with the most public declarations first, test folders and test data last, then by path";

/** Member names listed per type before "+N". */
const DIGEST_MEMBERS = 12;
/** Types, functions, values or re-exports a file's line names before "+N". */
const DIGEST_NAMES = 24;
/** Main declarations named per folder. */
const MAIN_DECLARATIONS = 4;
/** Top-level folders the summary lists before "+N more". */
const SUMMARY_FOLDERS = 40;
/** Stub folders named before "+N". */
const STUB_NAMES = 12;
/** Tokens kept for the closing lines of a page. */
const FOOTER_TOKENS = 80;
/** Share of the budget the first page's summary may take. */
const SUMMARY_SHARE = 0.4;
/** Test folders and test data, by any segment of the folder's path. */
const TEST_DATA = /(^|\/)(tests?|__tests__|testdata|test-data|fixtures?|specs?|e2e|__snapshots__)(\/|$)/i;

function digestFile(file: IndexedFile): DigestFileOut {
  const isPublic = isPublicSymbol;
  const declaredHere = new Set(file.facts.symbols.map((symbol) => symbol.qualifiedName));
  // A member whose parent is declared in another file (a Go method) stands at the top level here.
  const top = file.facts.symbols.filter((symbol) => (symbol.parent === undefined || (symbol.kind === "method" && !declaredHere.has(symbol.parent))) && isPublic(symbol));
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
  // Overloads and merged declarations are one name.
  const named = new Set<string>();
  for (const exported of file.facts.exportedNames) {
    const label = exported.name === "*" && exported.from !== undefined ? `* from ${exported.from}` : exported.name;
    if (!declared.has(exported.name) && !out.reexports.includes(label)) out.reexports.push(label);
  }
  for (const symbol of top) {
    if (CONTAINER_KINDS.has(symbol.kind)) {
      const members = [
        ...new Set(
          file.facts.symbols.filter((member) => member.parent === symbol.qualifiedName && isPublic(member) && member.visibility !== "protected").map((member) => member.name),
        ),
      ];
      out.types.push({
        name: symbol.name,
        kind: symbol.kind,
        line: symbol.startLine,
        members: members.slice(0, DIGEST_MEMBERS),
        moreMembers: Math.max(0, members.length - DIGEST_MEMBERS),
      });
    } else if (symbol.kind === "function" || symbol.kind === "macro" || symbol.kind === "method") {
      const label = symbol.parent === undefined ? symbol.name : symbol.qualifiedName;
      if (!named.has(label)) out.functions.push(label);
      named.add(label);
    } else if (symbol.kind !== "heading" && symbol.kind !== "key") {
      if (!named.has(symbol.name)) out.values.push(symbol.name);
      named.add(symbol.name);
    }
  }
  return out;
}

/** "a, b, c, +7": the first names of a list, so one long file cannot take a page. */
function firstNames(names: readonly string[], more = 0): string {
  const shown = names.slice(0, DIGEST_NAMES);
  const rest = names.length - shown.length + more;
  return `${shown.join(", ")}${rest > 0 ? `, +${rest}` : ""}`;
}

function renderDigestFile(file: DigestFileOut, directory: string): string {
  const name = directory === "." || directory === "" ? file.path : file.path.startsWith(`${directory}/`) ? file.path.slice(directory.length + 1) : file.path;
  const parts: string[] = [];
  for (const type of file.types.slice(0, DIGEST_NAMES)) {
    const members = type.members.length > 0 ? ` { ${firstNames(type.members, type.moreMembers)} }` : "";
    parts.push(`${type.kind} ${type.name}${members}`);
  }
  if (file.types.length > DIGEST_NAMES) parts.push(`+${plural(file.types.length - DIGEST_NAMES, "more type")}`);
  if (file.functions.length > 0) parts.push(`fn ${firstNames(file.functions)}`);
  if (file.values.length > 0) parts.push(firstNames(file.values));
  if (file.reexports.length > 0) parts.push(`re-exports ${firstNames(file.reexports)}`);
  const errors = file.parseErrors > 0 ? ` (${plural(file.parseErrors, "parse error")})` : "";
  return `  ${name}${errors}: ${parts.length > 0 ? parts.join(" · ") : "—"}`;
}

function declarationsOf(file: DigestFileOut): number {
  return file.types.length + file.functions.length + file.values.length;
}

/** The files directly in one folder, with what the listing and its order need. */
interface Group {
  path: string;
  files: IndexedFile[];
  digests: DigestFileOut[];
  languages: Record<string, number>;
  /** Public declarations of its non-test files. */
  declarations: number;
  /** No file of it declares anything: only a package.json, re-exports, data. */
  stub: boolean;
  test: boolean;
}

function isPublicSymbol(symbol: SymbolFact): boolean {
  return symbol.local !== true && symbol.visibility !== "private" && (symbol.exported || symbol.visibility === "public");
}

/** The largest public types and functions of these files (by lines), the names a reader meets first. */
function mainDeclarations(files: readonly IndexedFile[]): string[] {
  const sized = new Map<string, number>();
  for (const file of files) {
    if (isTestFileName(file.display)) continue;
    for (const symbol of file.facts.symbols) {
      if (symbol.parent !== undefined || !isPublicSymbol(symbol)) continue;
      if (!CONTAINER_KINDS.has(symbol.kind) && symbol.kind !== "function" && symbol.kind !== "type") continue;
      const span = symbol.endLine - symbol.startLine + 1;
      sized.set(symbol.name, Math.max(span, sized.get(symbol.name) ?? 0));
    }
  }
  return [...sized].sort((a, b) => b[1] - a[1] || compareDisplay(a[0], b[0])).slice(0, MAIN_DECLARATIONS).map(([name]) => name);
}

function groupFiles(files: readonly IndexedFile[]): Group[] {
  const groups = new Map<string, Group>();
  for (const file of files) {
    const directory = path.posix.dirname(file.display);
    let group = groups.get(directory);
    if (!group) {
      group = { path: directory, files: [], digests: [], languages: {}, declarations: 0, stub: true, test: TEST_DATA.test(directory) };
      groups.set(directory, group);
    }
    const digest = digestFile(file);
    group.files.push(file);
    group.digests.push(digest);
    group.languages[file.language] = (group.languages[file.language] ?? 0) + 1;
    const count = declarationsOf(digest);
    if (count > 0) group.stub = false;
    if (!isTestFileName(file.display)) group.declarations += count;
  }
  for (const group of groups.values()) {
    if (group.files.every((file) => isTestFileName(file.display))) group.test = true;
    const order = group.files.map((file, position) => ({ file, digest: group.digests[position]! })).sort((a, b) => compareDisplay(a.file.display, b.file.display));
    group.files = order.map((entry) => entry.file);
    group.digests = order.map((entry) => entry.digest);
  }
  return [...groups.values()];
}

/** The listing order: what a reader needs first, not the alphabet (which starts Go with misc/cgo test data). */
function compareRank(a: { test: boolean; declarations: number; path: string }, b: { test: boolean; declarations: number; path: string }): number {
  return Number(a.test) - Number(b.test) || b.declarations - a.declarations || compareDisplay(a.path, b.path);
}

/** The deepest folder holding every group ("." for the root). */
function commonFolder(paths: readonly string[]): string {
  let common: string[] | undefined;
  for (const folder of paths) {
    const segments = folder === "." ? [] : folder.split("/");
    if (common === undefined) common = segments;
    else {
      let same = 0;
      while (same < common.length && same < segments.length && common[same] === segments[same]) same++;
      common = common.slice(0, same);
    }
  }
  return common && common.length > 0 ? common.join("/") : ".";
}

/** The first level below the common folder, each with its totals (the summary a first page starts with). */
function topFolders(groups: readonly Group[]): { base: string; folders: Array<DigestFolderOut & { stub: boolean; test: boolean }> } {
  const base = commonFolder(groups.map((group) => group.path));
  const tops = new Map<string, { folder: DigestFolderOut; files: IndexedFile[]; stub: boolean; test: boolean }>();
  for (const group of groups) {
    const relative = base === "." ? group.path : group.path === base ? "." : group.path.slice(base.length + 1);
    const first = relative === "." ? "." : relative.split("/")[0]!;
    const key = first === "." ? base : base === "." ? first : `${base}/${first}`;
    let top = tops.get(key);
    if (!top) {
      top = { folder: { path: key, files: 0, languages: {}, declarations: 0, main: [] }, files: [], stub: true, test: true };
      tops.set(key, top);
    }
    top.folder.files += group.files.length;
    for (const [language, count] of Object.entries(group.languages)) top.folder.languages[language] = (top.folder.languages[language] ?? 0) + count;
    top.folder.declarations += group.declarations;
    top.files.push(...group.files);
    if (!group.stub) top.stub = false;
    // A folder holding nothing but test folders and test data (Go's misc/cgo/test) ranks with them.
    if (!group.test && !group.stub) top.test = false;
  }
  const folders = [...tops.values()].map((top) => ({ ...top.folder, main: mainDeclarations(top.files), stub: top.stub, test: top.test }));
  return { base, folders: folders.sort(compareRank) };
}

interface CursorState {
  /** A hash of the order the folders were listed in: a cursor pages on while that order holds. */
  order: string;
  key: string;
  offset: number;
}

/** The listing's order as the cursor holds it: the index changing elsewhere (the first build going on, a file of another folder) does not make it stale. */
function orderKey(stubs: readonly string[], ranked: readonly Group[]): string {
  return createHash("sha256").update(JSON.stringify([stubs, ranked.map((group) => group.path)])).digest("hex").slice(0, 8);
}

function cursorKey(paths: readonly string[], glob: string | undefined): string {
  return createHash("sha256").update(JSON.stringify([paths, glob ?? null])).digest("hex").slice(0, 8);
}

/** Opaque to the caller; short, since it is quoted in the answer's next step. */
function encodeCursor(state: CursorState): string {
  return `d2.${state.order}.${state.key}.${state.offset.toString(36)}`;
}

/** The position a cursor names, if it was issued for these arguments on a listing in the same order. */
function decodeCursor(cursor: string, expected: Omit<CursorState, "offset">, retry: Record<string, unknown>): number {
  const parts = /^d2\.([0-9a-f]+)\.([0-9a-f]+)\.([0-9a-z]+)$/.exec(cursor);
  const suggestedNextCall = { tool: "digest", arguments: retry };
  if (!parts) {
    throw new ToolError("invalid_input", "cursor is not one a digest answer gave.", {
      hint: "Pass nextCursor exactly as digest returned it, or call digest without cursor.",
      suggestedNextCall,
    });
  }
  if (parts[2] !== expected.key) {
    throw new ToolError("invalid_input", "cursor belongs to a digest of other paths or glob.", {
      hint: "Page on with the same paths and glob the cursor came with.",
      suggestedNextCall,
    });
  }
  if (parts[1] !== expected.order) {
    throw new ToolError("invalid_input", "cursor is stale: the folders changed since it was issued, so the listing is no longer in the order it paged.", {
      hint: "Call digest again without cursor; its first page lists the folders in the current order.",
      suggestedNextCall,
    });
  }
  return Number.parseInt(parts[3]!, 36);
}

function directoryOut(group: Group, shortened: boolean): DigestDirectoryOut {
  return {
    path: group.path,
    fileCount: group.files.length,
    languages: group.languages,
    declarations: group.declarations,
    main: mainDeclarations(group.files),
    shortened,
    files: shortened ? [] : group.digests,
  };
}

function renderDirectoryHead(directory: DigestDirectoryOut): string {
  const languages = Object.entries(directory.languages).map(([language, count]) => `${language} ${count}`).join(", ");
  const head = `${directory.path === "." ? "./" : `${directory.path}/`} (${plural(directory.fileCount, "file")}: ${languages})`;
  if (!directory.shortened) return head;
  const more = directory.declarations - directory.main.length;
  return `${head} · ${plural(directory.declarations, "declaration")}${
    directory.main.length > 0 ? `: ${directory.main.join(", ")}${more > 0 ? `, +${more}` : ""}` : ""
  } [shortened]`;
}

function renderDirectory(directory: DigestDirectoryOut): string[] {
  return [renderDirectoryHead(directory), ...directory.files.map((file) => renderDigestFile(file, directory.path))];
}

function renderFolder(folder: DigestFolderOut, base: string): string {
  const name = folder.path === base ? "(files here)" : `${base === "." ? folder.path : folder.path.slice(base.length + 1)}/`;
  const main = folder.main.length > 0 ? `: ${folder.main.join(", ")}` : "";
  return `  ${name} ${plural(folder.files, "file")} (${renderCounts(folder.languages)}) · ${plural(folder.declarations, "declaration")}${main}`;
}

function renderStubs(count: number, paths: readonly string[]): string {
  const names = paths.slice(0, STUB_NAMES).map((stub) => `${stub}/`).join(", ");
  return `${plural(count, "stub folder")} without declarations (package.json, re-exports or data only), left out: ${names}${count > STUB_NAMES ? `, +${count - STUB_NAMES}` : ""}`;
}

function lineCost(line: string): number {
  return estimateTokens(line) + 1;
}

export const digestTool = defineTool({
  name: "digest",
  title: "Digest a directory",
  description:
    "A one-page map of an unfamiliar directory or a whole root: first its top-level folders with file counts, languages and main declarations, then its files grouped by folder, each with its public types (and their public members), functions and constants. Folders come most declarations first (test data last); folders with no declarations (only a package.json or re-exports) are collapsed into one line; folders that do not fit are shortened to one line, and nextCursor pages on. Use it first in code you do not know; then map for signatures and show for bodies.",
  input: z.strictObject({
    paths: z.array(PathInput).min(1).max(LIMITS.batchPaths).describe("Directories (or files) to digest, absolute or relative to the first root."),
    glob: z.string().min(1).max(1000).optional().describe("Only files whose path relative to a given directory matches, e.g. \"**/*.py\"."),
    cursor: z.string().min(1).max(400).optional().describe("nextCursor of the previous answer, to page on with the same paths and glob."),
    maxTokens: MaxTokens(LIMITS.intel.outline.digestMaxTokens),
  }),
  output: z.object({
    order: z.string().describe("The order folders are listed in."),
    base: z.string().describe("The deepest folder holding every matched file; folders are the level below it."),
    folders: z.array(DigestFolder).describe("First page only: the first level of folders below base, with totals (stub folders left out)."),
    foldersTotal: z.number().int().describe("First page only: top-level folders with declarations (folders lists the first of them)."),
    directories: z.array(DigestDirectory),
    stubFolders: z.array(z.string()).describe(`First page only: folders whose files declare nothing (first ${LIMITS.batchPaths}); not listed.`),
    stubFolderCount: z.number().int(),
    summary: z.object({ files: z.number().int(), languages: z.record(z.string(), z.number().int()), lines: z.number().int() }).describe(
      "Totals over every matched file (also those cut).",
    ),
    failed: z.array(FailedPath),
    omittedFiles: z.array(z.string()).describe("Files not shown: those of shortened folders, then of folders past this page (first 50)."),
    omittedCount: z.number().int(),
    nextCursor: z.string().nullable().describe(
      "Pass as cursor (same paths and glob) for the folders after this page; null on the last page. Valid while the folders listed and their order do not change.",
    ),
    cut: Cut,
    ...Completeness,
  }),
  annotations: READ_ONLY,
  errors: SOURCE_ERRORS,
  handler: async (args, context) => {
    const collected = await collectFiles(context, args.paths, args.glob, LIMITS.intel.outline.digestMaxFiles);
    const key = cursorKey(args.paths, args.glob);
    const retry: Record<string, unknown> = { paths: args.paths, ...(args.glob === undefined ? {} : { glob: args.glob }) };
    const budget = budgetOf(args.maxTokens);
    // Room kept for the closing lines (what was left out, the cursor and the next call).
    budget.maxTokens -= Math.min(FOOTER_TOKENS, Math.floor(args.maxTokens / 4));
    const summary = { files: collected.files.length, languages: {} as Record<string, number>, lines: 0 };
    for (const { file } of collected.files) {
      summary.languages[file.language] = (summary.languages[file.language] ?? 0) + 1;
      summary.lines += file.lines;
    }
    const groups = groupFiles(collected.files.map(({ file }) => file));
    const stubs = groups.filter((group) => group.stub).map((group) => group.path).sort(compareDisplay);
    const ranked = groups.filter((group) => !group.stub).sort(compareRank);
    const order = orderKey(stubs, ranked);
    const offset = args.cursor === undefined ? 0 : decodeCursor(args.cursor, { order, key }, retry);
    let tokens = lineCost(renderDigestSummary(summary)) + lineCost(ORDER);
    let chars = 0;
    const fits = (lines: readonly string[]) => {
      const cost = lines.reduce((sum, line) => sum + lineCost(line), 0);
      const length = lines.reduce((sum, line) => sum + line.length + 1, 0);
      return { ok: tokens + cost <= budget.maxTokens && chars + length <= budget.maxChars, cost, length, overTokens: tokens + cost > budget.maxTokens };
    };
    let limitedBy: BudgetLimit | null = null;
    const over = (check: { overTokens: boolean }) => {
      limitedBy ??= check.overTokens ? "maxTokens" : "outputLimit";
    };

    // The first page starts with the top-level summary, within its share of the budget.
    const folders: DigestFolderOut[] = [];
    let foldersTotal = 0;
    const top = topFolders(groups);
    if (offset === 0) {
      const listed = top.folders.filter((folder) => !folder.stub);
      foldersTotal = listed.length;
      if (top.folders.length > 1) {
        const share = Math.floor(budget.maxTokens * SUMMARY_SHARE);
        for (const folder of listed.slice(0, SUMMARY_FOLDERS)) {
          const { stub: _stub, test: _test, ...shown } = folder;
          const check = fits([renderFolder(shown, top.base)]);
          if (!check.ok || tokens + check.cost > share) break;
          tokens += check.cost;
          chars += check.length;
          folders.push(shown);
        }
      }
      if (stubs.length > 0) {
        const line = renderStubs(stubs.length, stubs);
        tokens += lineCost(line);
        chars += line.length + 1;
      }
    }

    const directories: DigestDirectoryOut[] = [];
    const omitted: string[] = [];
    let stop: number | undefined;
    for (let position = offset; position < ranked.length; position++) {
      const group = ranked[position]!;
      const full = directoryOut(group, false);
      const fullCheck = fits(renderDirectory(full));
      if (fullCheck.ok) {
        directories.push(full);
        tokens += fullCheck.cost;
        chars += fullCheck.length;
        continue;
      }
      over(fullCheck);
      // Shortened to one line rather than ending the listing; the first entry of a page always goes in.
      const short = directoryOut(group, true);
      const shortCheck = fits([renderDirectoryHead(short)]);
      if (shortCheck.ok || directories.length === 0) {
        directories.push(short);
        tokens += shortCheck.cost;
        chars += shortCheck.length;
        omitted.push(...group.files.map((file) => file.display));
        continue;
      }
      stop = position;
      break;
    }
    const rest = stop === undefined ? [] : ranked.slice(stop);
    for (const group of rest) omitted.push(...group.files.map((file) => file.display));
    const nextCursor = stop === undefined ? null : encodeCursor({ order, key, offset: stop });
    const hints: string[] = [];
    if (nextCursor !== null) {
      const names = rest.slice(0, 3).map((group) => JSON.stringify(group.path)).join(", ");
      hints.push(
        `call digest with cursor ${JSON.stringify(nextCursor)} (same paths) for the ${plural(rest.length, "folder")} after this page (next: ${names}${
          rest.length > 3 ? ", …" : ""
        })`,
      );
    }
    const shortened = directories.filter((directory) => directory.shortened);
    if (shortened.length > 0) hints.push(`digest a shortened folder alone to see its files (paths ${JSON.stringify(shortened.slice(0, 3).map((directory) => directory.path))})`);
    if (limitedBy !== null) hints.push("or raise maxTokens");
    if (limitedBy === null && collected.overMaxFiles > 0) {
      limitedBy = "maxFiles";
      hints.push("narrow paths or glob");
    }
    const next = hints.length > 0 ? hints.join("; ") : null;
    return {
      order: ORDER,
      base: top.base,
      folders,
      foldersTotal,
      directories,
      stubFolders: offset === 0 ? stubs.slice(0, LIMITS.batchPaths) : [],
      stubFolderCount: stubs.length,
      summary,
      failed: collected.failed,
      omittedFiles: omitted.slice(0, LIMITS.batchPaths),
      omittedCount: omitted.length + collected.overMaxFiles,
      nextCursor,
      cut: { next, tokens },
      ...completeness(collected.coverage, budgetCut(limitedBy, next, args.maxTokens, `outline.digestMaxFiles = ${LIMITS.intel.outline.digestMaxFiles}`)),
    };
  },
  render: (result) => {
    const out: string[] = [renderDigestSummary(result.summary)];
    if (result.folders.length > 0) {
      out.push(`Folders${result.base === "." ? "" : ` under ${result.base}/`}:`);
      for (const folder of result.folders) out.push(renderFolder(folder, result.base));
      if (result.foldersTotal > result.folders.length) out.push(`  +${plural(result.foldersTotal - result.folders.length, "more folder")} (listed below or on the next pages)`);
    }
    if (result.stubFolders.length > 0) out.push(renderStubs(result.stubFolderCount, result.stubFolders));
    if (result.directories.length > 0) out.push(`Listed by ${result.order}:`);
    for (const directory of result.directories) out.push(...renderDirectory(directory));
    for (const failed of result.failed) out.push(renderItemError(failed.path, failed.error));
    out.push(...footer(result, result.omittedCount));
    return capText(out.join("\n"), LIMITS.output.maxTextChars);
  },
});

function renderDigestSummary(summary: { files: number; languages: Record<string, number>; lines: number }): string {
  const languages = renderCounts(summary.languages);
  return `${plural(summary.files, "file")}, ${plural(summary.lines, "line")}${languages ? ` (${languages})` : ""}`;
}
