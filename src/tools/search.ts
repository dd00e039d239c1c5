/**
 * search and find_related: ranked code chunks from the search index (src/intel/search), which
 * follows the code index. search reads a query as an identifier lookup or a concept
 * (intel/search/query.ts) and ranks names, signatures, doc comments and source by BM25 (plus dense
 * vectors when a model is plugged in), boosting definitions and files near contextFile in the import
 * graph; find_related ranks chunks by the rare identifiers they share with a place.
 */
import path from "node:path";
import { z } from "zod";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { log } from "../core/log.ts";
import { ImportGraph } from "../intel/graph/import-graph.ts";
import { CodeIndex } from "../intel/index/index.ts";
import type { Coverage, IndexedFile } from "../intel/index/types.ts";
import { CHUNK_LINES } from "../intel/search/chunks.ts";
import { ColdScan, type ScannedFile } from "../intel/search/cold.ts";
import {
  type Chunk,
  type ChunkFile,
  type DefinedSymbol,
  enclosingCallable,
  hopsFrom,
  queryMode,
  rankingTerms,
  type RecentTexts,
  type RefreshReport,
  type SearchIndex,
  snippetOf,
} from "../intel/search/index.ts";
import { queryTerms } from "../intel/search/tokenize.ts";
import { languageArg, PathInput, plural, resolveReadableFile } from "./common.ts";
import { Completeness, completeness, renderIncomplete } from "./completeness.ts";
import { SOURCE_ERRORS } from "./error-sets.ts";
import { defineTool, READ_ONLY, type ToolContext } from "./contract.ts";
import { graphOptions } from "./graph-common.ts";
import { phasedProgress, progressOf } from "./progress.ts";

const SIGNALS = ["name", "signature", "doc", "body", "embedding", "definition", "proximity"] as const;

const Snippet = z
  .object({
    startLine: z.number().int().describe("First line shown (1-based)."),
    endLine: z.number().int().describe("Last line shown."),
    text: z.string().describe("The lines, long ones cut."),
  })
  .describe("A few lines of the chunk around where the query terms are densest.");

const Result = z.object({
  path: z.string().describe("File path as the workspace displays it; usable as input."),
  startLine: z.number().int().describe("First line (1-based) of the symbol the query names, or of the matching chunk."),
  endLine: z.number().int().describe("Last line of it."),
  symbol: z.string().optional().describe("The symbol (qualified name): the one the query names, else the one the chunk belongs to."),
  kind: z.string().optional().describe("That symbol's kind."),
  score: z.number().describe("Fused score (higher is better; only comparable within one answer)."),
  signals: z.array(z.enum(SIGNALS)).describe("What matched: the fields that ranked it, and the boosts that applied."),
  snippet: Snippet,
  within: z
    .object({
      symbol: z.string().describe("Its qualified name."),
      kind: z.string().describe("function, method or constructor."),
      startLine: z.number().int().describe("Its first line."),
      endLine: z.number().int().describe("Its last line."),
    })
    .optional()
    .describe("The function or method the snippet lands in, with its whole line range (absent for code outside any)."),
});

const Notes = z.array(z.string()).describe("Other things to know (unused query terms, no import graph).");

const SearchOutput = z.object({
  query: z.string().describe("The query as given."),
  mode: z
    .enum(["identifier", "concept"])
    .describe(
      "How the query was read: identifier (every word written as code, or one word: names matching it first) or concept (prose: function words dropped, rare words and whole files weigh most, test files lower unless asked for).",
    ),
  terms: z.array(z.string()).describe("The terms it was split into (identifiers split on case, _ and digits)."),
  results: z.array(Result).describe("Best first."),
  indexed: z.object({ files: z.number().int().describe("Files searched."), chunks: z.number().int().describe("Chunks searched.") }).describe("What the search ran over."),
  embedder: z.string().describe("The embedding model in use (\"none\": lexical ranking only)."),
  ...Completeness,
  notes: Notes,
});

const RelatedOutput = z.object({
  anchor: z
    .object({
      path: z.string().describe("The file asked about."),
      startLine: z.number().int().describe("First line of the chunk holding the line."),
      endLine: z.number().int().describe("Its last line."),
      symbol: z.string().optional().describe("The symbol the chunk belongs to."),
    })
    .describe("The chunk whose identifiers were compared."),
  results: z
    .array(
      Result.omit({ signals: true }).extend({
        shared: z.array(z.string()).describe("Shared terms (identifiers and their words, lowercased) that weigh most, rarest first."),
      }),
    )
    .describe("Best first; the anchor chunk itself is left out."),
  ...Completeness,
  notes: Notes,
});

type SearchOutput = z.infer<typeof SearchOutput>;
type RelatedOutput = z.infer<typeof RelatedOutput>;

interface Prepared {
  index: CodeIndex;
  search: SearchIndex;
  coverage: Coverage;
  refresh: RefreshReport;
}

async function prepare(context: ToolContext): Promise<Prepared> {
  const progress = phasedProgress(context.progress);
  const index = context.services.indexes.forContext(context);
  const indexProgress = progress.phase();
  const coverage = await index.ensureFresh({ signal: context.signal, deadlineMs: LIMITS.intel.index.answerWithinMs, ...(indexProgress ? { onProgress: indexProgress } : {}) });
  const search = context.services.search.indexFor(index);
  const chunkProgress = progress.phase();
  const refresh = await search.refresh({ signal: context.signal, ...(chunkProgress ? { onProgress: chunkProgress } : {}) });
  return { index, search, coverage, refresh };
}

/** What an answer says about its query: no searchable terms, terms past the limit, and a contextFile not used yet (an answer before the index is built). */
function queryNotes(terms: readonly string[], ignoredTerms: readonly string[], contextFileWaits: boolean): string[] {
  const notes: string[] = [];
  if (terms.length === 0) notes.push("the query has no searchable terms (identifiers or words).");
  if (ignoredTerms.length > 0) notes.push(`only the first ${LIMITS.intel.search.maxQueryTerms} terms were used; ignored: ${ignoredTerms.join(", ")}`);
  if (contextFileWaits) notes.push("contextFile is used once the index is built (its import graph is not known yet).");
  return notes;
}

/**
 * search while the first build of a large tree runs: one pass over the files' texts ranked by BM25
 * over 40-line windows (intel/search/cold.ts), instead of waiting for the index. Undefined when the
 * build ended meanwhile (the caller then searches the index).
 */
async function coldSearch(
  index: CodeIndex,
  context: ToolContext,
  query: string,
  topK: number,
  accept: (file: ScannedFile) => boolean,
  hasContextFile: boolean,
): Promise<SearchOutput | undefined> {
  const allTerms = queryTerms(query);
  const terms = allTerms.slice(0, LIMITS.intel.search.maxQueryTerms);
  const mode = queryMode(query);
  // A concept's function words would rank windows by "the" and "of": the scan counts what the index would rank by.
  const scan = new ColdScan(rankingTerms(mode, terms));
  // Files outside the path or languages asked for are not read into the ranking at all.
  const streamed = await index.streamTexts((file, text) => {
    if (accept(file)) scan.add(file, text);
  }, progressOf(context));
  if (!streamed) return undefined;
  const notes = queryNotes(terms, allTerms.slice(terms.length), hasContextFile);
  const results = scan.top(topK).map((hit) => {
    const text = index.readTextNow(hit.file.real);
    const snippet = text === undefined ? { startLine: hit.startLine, endLine: hit.startLine, text: "" } : snippetOf(text, hit.startLine, hit.endLine, terms);
    return { path: hit.file.display, startLine: hit.startLine, endLine: hit.endLine, score: score(hit.score), signals: ["body" as const], snippet };
  });
  const cuts = [
    index.stillBuilding(
      `ranked by one pass over ${
        plural(scan.files, "file")
      } in ${CHUNK_LINES.window}-line windows, BM25 over their text only (names, signatures, doc comments and definitions weigh in once the index is built); every result holds a query term, the order may differ from the full index's`,
    ),
  ];
  if (streamed.unreadable > 0) cuts.push(`${plural(streamed.unreadable, "file")} could not be read or decoded`);
  return {
    query,
    mode,
    terms,
    results,
    indexed: { files: scan.files, chunks: scan.windows },
    embedder: context.services.search.indexFor(index).embedder.id,
    ...completeness(index.coverage(), cuts),
    notes,
  };
}

/** How much deeper than asked a restart ranks: a file changed since the index was saved drops out when its hash no longer matches. */
const WARM_DEPTH = 4;

/**
 * search on a restart while the code index's first build runs: the search index saved by the last
 * session is restored and ranked at once, and each result's file is resolved through the policy and
 * read now; a result shows only when the file's content hash is the one its chunks were cut from.
 * Undefined when nothing was saved (or the build ended meanwhile): the caller goes on as usual.
 */
async function warmSearch(
  index: CodeIndex,
  context: ToolContext,
  query: string,
  topK: number,
  accept: ((file: ChunkFile) => boolean) | undefined,
  hasContextFile: boolean,
): Promise<SearchOutput | undefined> {
  if (index.built) return undefined;
  const search = context.services.search.indexFor(index);
  if ((await search.restoreFirst()) === 0 || index.built) return undefined;
  const options = { topK: topK * WARM_DEPTH, unlisted: true, ...(accept ? { accept } : {}) };
  const current = new Map<string, { file: IndexedFile; text: string } | undefined>();
  /** The file of a chunk as it is now, when its content is what the chunk was cut from (named on the way). */
  const now = async (chunk: Chunk) => {
    if (!current.has(chunk.real)) {
      let loaded: { file: IndexedFile; text: string } | undefined;
      try {
        const resolved = await context.workspace.resolve(chunk.real, "read");
        if (resolved.exists && resolved.kind === "file") loaded = await index.load(resolved);
      } catch (error) {
        if (context.signal.aborted) throw error;
      }
      current.set(chunk.real, loaded);
      if (loaded?.file.sha256 === chunk.sha256) await search.nameRestored(loaded.file);
    }
    const loaded = current.get(chunk.real);
    return loaded?.file.sha256 === chunk.sha256 ? loaded : undefined;
  };
  // Files are checked best first until topK results hold; the names given meanwhile show in a second ranking (in the same order).
  let held = 0;
  for (const hit of (await search.search(query, options)).hits) {
    if (held >= topK) break;
    context.signal.throwIfAborted();
    if (await now(hit.chunk)) held += 1;
  }
  const found = await search.search(query, options);
  const results = [];
  for (const hit of found.hits) {
    if (results.length >= topK) break;
    const loaded = current.get(hit.chunk.real);
    if (loaded === undefined || loaded.file.sha256 !== hit.chunk.sha256) continue;
    results.push({ ...(await present(hit.chunk, async () => loaded.text, index, found.terms, hit.focus)), score: score(hit.score), signals: [...new Set(hit.signals)] });
  }
  const notes = queryNotes(found.terms, found.ignoredTerms, hasContextFile);
  const madeOf =
    "ranked by the search index the last session saved, each result's file read now and found as saved; files added or changed since are searched once the index is built";
  return {
    query,
    mode: found.mode,
    terms: found.terms,
    results,
    indexed: { files: search.persistStats().restoredFiles, chunks: search.chunkCount },
    embedder: search.embedder.id,
    ...completeness(index.coverage(), [index.stillBuilding(madeOf)]),
    notes,
  };
}

/** What cut the searched text: the index's limits, files searched by names only, files that could not be read. */
function searchCompleteness(prepared: Prepared): Completeness {
  const cuts: string[] = [];
  if (prepared.refresh.bodiesSkipped > 0) {
    cuts.push(
      `intel.search.maxChunkedFileBytes = ${LIMITS.intel.search.maxChunkedFileBytes} (${
        plural(prepared.refresh.bodiesSkipped, "file")
      } searched by symbol names only): read those with map or show`,
    );
  }
  if (prepared.refresh.unreadable.length > 0) {
    cuts.push(`${plural(prepared.refresh.unreadable.length, "file")} could not be read: ${prepared.refresh.unreadable.slice(0, 5).join(", ")}`);
  }
  return completeness(prepared.coverage, cuts);
}

/** Reads result files once each for snippets (recent ones from `recent`); a file that cannot be read shows no snippet lines. */
function textReader(index: CodeIndex, recent: RecentTexts) {
  const pending = new Map<string, Promise<string | undefined>>();
  return (file: IndexedFile | undefined): Promise<string | undefined> => {
    if (!file) return Promise.resolve(undefined);
    const key = `${file.real}\u0000${file.sha256}`;
    const known = recent.get(key);
    if (known !== undefined) return Promise.resolve(known);
    let text = pending.get(key);
    if (!text) {
      text = index.text(file).then(
        (loaded) => {
          recent.remember(key, loaded);
          return loaded;
        },
        (error: unknown) => {
          log.debug("no snippet: the file could not be read", { file: file.display, error: error instanceof Error ? error.message : String(error) });
          return undefined;
        },
      );
      pending.set(key, text);
    }
    return text;
  };
}

/** A result: the chunk, or the defined symbol the query names when there is one (`focus`), with a snippet of it. */
async function present(chunk: Chunk, read: (file: IndexedFile | undefined) => Promise<string | undefined>, index: CodeIndex, terms: readonly string[], focus?: DefinedSymbol) {
  const startLine = focus?.startLine ?? chunk.startLine;
  const endLine = focus?.endLine ?? chunk.endLine;
  const symbol = focus?.qualifiedName ?? chunk.symbol;
  const kind = focus?.kind ?? chunk.kind;
  const file = index.get(chunk.real);
  const text = await read(file);
  // The chunk's offset holds for the text it was cut from: then the snippet need not scan the file from its start.
  const known = file !== undefined && file.sha256 === chunk.sha256 && chunk.startOffset >= 0 ? { line: chunk.startLine, offset: chunk.startOffset } : undefined;
  const snippet = text === undefined ? { startLine, endLine: startLine, text: "" } : snippetOf(text, startLine, endLine, terms, known);
  // The facts name the function around the snippet only while they describe the text the chunk was cut from.
  const callable = file?.sha256 === chunk.sha256 ? enclosingCallable(file.facts.symbols, Math.floor((snippet.startLine + snippet.endLine) / 2)) : undefined;
  return {
    path: chunk.display,
    startLine,
    endLine,
    ...(symbol === undefined ? {} : { symbol }),
    ...(kind === undefined ? {} : { kind }),
    snippet,
    ...(callable === undefined ? {} : { within: { symbol: callable.qualifiedName, kind: callable.kind, startLine: callable.startLine, endLine: callable.endLine } }),
  };
}

/** Import-graph hops from the context file; without a graph, only the file itself is near. */
async function proximityFor(contextFile: string, prepared: Prepared, context: ToolContext, notes: string[]): Promise<Map<string, number>> {
  const resolved = await context.workspace.resolve(contextFile, "read");
  try {
    const graph = await ImportGraph.for(prepared.index, context.workspace, graphOptions(prepared.index, context));
    return hopsFrom(graph, resolved.real, LIMITS.intel.search.proximityMaxHops);
  } catch (error) {
    if (context.signal.aborted) throw error;
    log.warn("search: the import graph is unavailable; contextFile boosts only its own chunks", { error: error instanceof Error ? error.message : String(error) });
    notes.push("the import graph could not be built; contextFile boosted only its own chunks.");
    return new Map([[resolved.real, 0]]);
  }
}

function score(value: number): number {
  return Math.round(value * 1e5) / 1e5;
}

function renderResults(results: ReadonlyArray<z.infer<typeof Result> | (Omit<z.infer<typeof Result>, "signals"> & { shared: string[] })>): string[] {
  const lines: string[] = [];
  for (const result of results) {
    const tags = "signals" in result ? result.signals.join(" ") : `shared: ${result.shared.join(", ")}`;
    const { within } = result;
    const inside = within === undefined || (within.symbol === result.symbol && within.startLine === result.startLine && within.endLine === result.endLine) ?
      "" :
      ` in ${within.symbol} (${within.kind}, ${within.startLine}-${within.endLine})`;
    lines.push(
      `${result.path}:${result.startLine}-${result.endLine}${result.symbol ? ` ${result.symbol}` : ""}${
        result.kind ? ` (${result.kind})` : ""
      }${inside}  score ${result.score} [${tags}]`,
    );
    const width = String(result.snippet.endLine).length;
    result.snippet.text.split("\n").forEach((line, offset) => {
      if (result.snippet.text === "") return;
      lines.push(`  ${String(result.snippet.startLine + offset).padStart(width)}| ${line}`);
    });
  }
  return lines;
}

export const searchTool = defineTool({
  name: "search",
  title: "Search code",
  description:
    "Ranked code search over the indexed workspace, in two modes read from the query. Identifier lookup (one word, or every word written as code: `parseConfig`, `Paginator.page`): definitions of the name first. Concept (words: `split a string into fields`): function words dropped, word forms matched (splits → split), BM25 over symbol names (split on camelCase/snake_case), signatures, doc comments and source added up by how rare each word is, the whole file's match counted, test files lower unless the query asks for tests; the first half of the results spans files, the rest are the best places left (often more functions of the leading files). Files near contextFile in the import graph rise. Each result: path, line range, symbol, the function or method it lands in, a snippet and which signals matched. Use it to find where something is implemented before reading files.",
  input: z.strictObject({
    query: z.string().min(1).max(1000).describe("Words or identifiers, e.g. `parse config` or `parseConfig`."),
    path: PathInput.optional().describe("Only search this file or directory."),
    topK: z.number().int().min(1).max(LIMITS.intel.search.maxTopK).optional().describe(`Results to return (default ${LIMITS.intel.search.defaultTopK}).`),
    languages: z.array(z.string().min(1).max(40)).min(1).max(30).optional().describe("Only these languages (ids or extensions: typescript, py, go…)."),
    contextFile: PathInput.optional().describe("The file you are working in: files it imports or that import it rank higher."),
  }),
  output: SearchOutput,
  annotations: READ_ONLY,
  errors: [...SOURCE_ERRORS, "invalid_range"],
  handler: async ({ query, path: scope, topK = LIMITS.intel.search.defaultTopK, languages, contextFile }, context) => {
    const languageSet = languages === undefined ? undefined : new Set(languages.map((name) => languageArg("languages", name)));
    const scopeReal = scope === undefined ? undefined : (await context.workspace.resolve(scope, "read")).real;
    const index = context.services.indexes.forContext(context);
    const accepts = (file: ScannedFile | ChunkFile) =>
      (scopeReal === undefined || relativeInside(scopeReal, file.real, path.sep) !== undefined) && (languageSet === undefined || languageSet.has(file.language));
    const filtered = scopeReal !== undefined || languageSet !== undefined;
    // A restart answers from the search index the last session saved, the first build held back meanwhile.
    const warm = await index.ahead(() => warmSearch(index, context, query, topK, filtered ? accepts : undefined, contextFile !== undefined));
    if (warm) return warm;
    // Taking files from a restart's snapshot is quicker than a pass over every file's text: only parses count.
    if (await index.worthFocusing(context.signal, "parses")) {
      const cold = await coldSearch(index, context, query, topK, accepts, contextFile !== undefined);
      if (cold) return cold;
    }
    const prepared = await prepare(context);
    const notes: string[] = [];
    const proximity = contextFile === undefined ? undefined : await proximityFor(contextFile, prepared, context, notes);
    const found = await prepared.search.search(query, { topK, ...(filtered ? { accept: accepts } : {}), ...(proximity ? { proximity } : {}) });
    notes.push(...queryNotes(found.terms, found.ignoredTerms, false));
    const read = textReader(prepared.index, context.services.search.recentTexts);
    const results = await Promise.all(
      found.hits.map(async (hit) => ({ ...(await present(hit.chunk, read, prepared.index, found.terms, hit.focus)), score: score(hit.score), signals: [...new Set(hit.signals)] })),
    );
    return {
      query,
      mode: found.mode,
      terms: found.terms,
      results,
      indexed: { files: prepared.refresh.files, chunks: prepared.search.chunkCount },
      embedder: prepared.search.embedder.id,
      ...searchCompleteness(prepared),
      notes,
    };
  },
  render: (result: SearchOutput) => {
    const lines = [
      `search ${JSON.stringify(result.query)} (${result.mode}): ${plural(result.results.length, "result")} over ${plural(result.indexed.chunks, "chunk")} in ${
        plural(result.indexed.files, "file")
      }`,
    ];
    lines.push(...renderResults(result.results));
    for (const note of result.notes) lines.push(`note: ${note}`);
    return renderIncomplete(result, lines);
  },
});

export const findRelatedTool = defineTool({
  name: "find_related",
  title: "Find related code",
  description:
    "Code that shares the most identifiers with a given place (the chunk holding path:line), each identifier weighted by how rare it is in the workspace: related implementations, callers, tests and data structures. Results: path, line range, symbol, shared identifiers and a snippet.",
  input: z.strictObject({
    path: PathInput.describe("The file, absolute or relative to the first root."),
    line: z.number().int().min(1).describe("A line in it (1-based); its enclosing chunk is compared."),
    topK: z.number().int().min(1).max(LIMITS.intel.search.maxTopK).optional().describe(`Results to return (default ${LIMITS.intel.search.defaultTopK}).`),
  }),
  output: RelatedOutput,
  annotations: READ_ONLY,
  errors: [...SOURCE_ERRORS, "invalid_range"],
  handler: async ({ path: input, line, topK = LIMITS.intel.search.defaultTopK }, context) => {
    const resolved = await resolveReadableFile(context, input);
    const prepared = await prepare(context);
    const file = prepared.index.get(resolved.real) ?? ((await prepared.index.load(resolved)).file);
    if (line > Math.max(file.lines, 1)) throw new ToolError("invalid_range", `line ${line} is past the end of ${file.display} (${plural(file.lines, "line")}).`);
    const read = textReader(prepared.index, context.services.search.recentTexts);
    // The anchor's identifiers are read from its text (the index keeps no copy of the source); a failed read reports why.
    const text = (await read(file)) ?? (await prepared.index.text(file));
    const anchor = prepared.search.chunkAt(file.real, line) ?? prepared.search.transientChunkAt(file, text, line);
    const anchorTerms = anchor ? prepared.search.anchorTerms(anchor, text) : [];
    const notes: string[] = [];
    if (anchorTerms.length === 0) notes.push(`line ${line} of ${file.display} holds no identifiers to compare.`);
    const hits = anchor ? prepared.search.relatedTo(anchor, anchorTerms, { topK }) : [];
    const results = await Promise.all(hits.map(async (hit) => ({ ...(await present(hit.chunk, read, prepared.index, hit.shared)), score: score(hit.score), shared: hit.shared })));
    return {
      anchor: {
        path: file.display,
        startLine: anchor?.startLine ?? line,
        endLine: anchor?.endLine ?? line,
        ...(anchor?.symbol === undefined ? {} : { symbol: anchor.symbol }),
      },
      results,
      ...searchCompleteness(prepared),
      notes,
    };
  },
  render: (result: RelatedOutput) => {
    const { anchor } = result;
    const lines = [
      `related to ${anchor.path}:${anchor.startLine}-${anchor.endLine}${anchor.symbol ? ` ${anchor.symbol}` : ""}: ${plural(result.results.length, "result")}`,
    ];
    lines.push(...renderResults(result.results));
    for (const note of result.notes) lines.push(`note: ${note}`);
    return renderIncomplete(result, lines);
  },
});
