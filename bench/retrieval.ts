/**
 * Retrieval quality of `search` (issue 18): concept queries whose right answers are known, ranked by
 * the built CLI beside three rankings computed here over the same text in the same run — Okapi BM25
 * over whole files (k1 1.2, b 0.75, the index's identifier tokenizer, no stopwords), the same BM25
 * over 40-line windows, and a grep-style count of the query's words per file. A phase of
 * `npm run bench` (`--phases retrieval`); alone: `bun bench/retrieval.ts`.
 *
 * Tasks, built deterministically per tree: every function or method whose doc comment's first
 * sentence keeps at least 8 words once the function's name and its name-words are taken out; a
 * seeded sample of them; the query is that sentence without those words. The tree searched is a copy
 * of the tree's source files in which every doc comment (and docstring) is blanked, line numbers
 * kept, so a sentence cannot find itself. The same functions give identifier-lookup tasks: the query
 * is the name, and the first result should be a definition of it (any one, when the name is defined
 * more than once: the name alone cannot say which).
 *
 * Measures per ranking: file acc@1/5/10 (the function's file among the files of the first k
 * results), MRR@10 (of the first result in that file), function hit@10 (a result in that file whose
 * lines overlap the function's; whole-file rankings have none), and how many first results are test
 * files. Per CLI: the index build (the `index` call and the first `search`, which builds the search
 * index), peak RSS, and warm `search` p50 over every task's query, concept and name queries apart
 * too (a second pass over them, timed), with the server's CPU time per query over that pass (load
 * from others on the machine stretches wall time far more than CPU time). With --retrieval-base-cli,
 * an older build runs the same tasks, alternating with this one, so a change is compared in one run.
 *
 * find_related is asked at each task's function (its first line), and each of its results is
 * judged from the facts of the indexed copy, by name: a caller (it holds a call of the function's
 * name), a callee (it defines a name the function calls), a sibling (a member of the same class or
 * receiver type), or none of these.
 *
 * Trees: effect, django and go are reported (targets apply); werkzeug (python3-werkzeug) and
 * xcrypto (golang-golang-x-crypto-dev, under /usr/share/gocode) are for tuning and are never
 * reported against targets. Prepared copies are kept in the bench cache (retrieval/).
 *
 * Options: --retrieval-trees effect,django,go (default; add werkzeug,xcrypto to tune, "none" skips),
 * --retrieval-tasks N (sample per tree, default 150), --retrieval-seed N (default 18),
 * --retrieval-base-cli PATH (an older dist/cli.js to compare), --retrieval-rounds N (builds timed per
 * CLI, alternating, default 1), --strict.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { extractFacts } from "../src/intel/facts/extract.ts";
import type { SymbolFact } from "../src/intel/facts/types.ts";
import { identifiersIn, identifierTerms, queryTerms } from "../src/intel/search/tokenize.ts";
import { lineStarts } from "../src/text/index.ts";
import { random } from "../test/support/random.ts";
import { benchCacheDir, CORPORA, type CorpusId, ensureCorpus } from "./corpora.ts";
import {
  CLI,
  connectStdioServer,
  corpusFiles,
  createFixture,
  mb,
  ms,
  type PhaseReport,
  positiveInt,
  progressFor,
  readCpuSeconds,
  readPeakRss,
  runPhaseMain,
  summarize,
  verdict,
} from "./lib.ts";

const TARGETS = {
  /** Concept tasks: file acc@5 of search at least BM25 over whole files plus this. */
  fileAcc5OverBm25: 0.1,
  functionHit10: 0.5,
  /** Identifier tasks: the named function is the first result. */
  identifierFirst: 0.9,
} as const;

const K1 = 1.2;
const B = 0.75;
const WINDOW_LINES = 40;
const TOP = 10;
/** Words a doc sentence must keep once the name's words are gone. */
const MIN_QUERY_WORDS = 8;
/** How prepared copies are made; a copy prepared another way is made again. */
const PREPARATION = 2;
const INDEX_TIMEOUT_MS = 20 * 60_000;
const CALL_TIMEOUT_MS = 60_000;

export type Language = "typescript" | "python" | "go";
export type RetrievalTreeId = "effect" | "django" | "go" | "werkzeug" | "xcrypto";

export interface RetrievalTree {
  id: RetrievalTreeId;
  language: Language;
  extension: string;
  /** Reported against the targets (the tuning trees are not). */
  reported: boolean;
  /** The directory holding the sources (a fetched corpus or a Debian package's files on this machine). */
  source: (progress: (text: string) => void) => Promise<string | undefined>;
  /** Files no task is taken from (tests, test data). */
  isTest: (path: string) => boolean;
}

const fromCorpus = (corpus: CorpusId, subdir: string) => async (progress: (text: string) => void) => join((await ensureCorpus(CORPORA[corpus], progress)).dir, subdir);
const fromMachine = (dir: string) => async () => (existsSync(dir) ? dir : undefined);
const goTest = (path: string) => path.endsWith("_test.go") || path.split(sep).includes("testdata");
const pythonTest = (path: string) => path.split(sep).some((part) => part === "tests" || /^test_.*\.py$/.test(part));

export const TREES: Record<RetrievalTreeId, RetrievalTree> = {
  effect: { id: "effect", language: "typescript", extension: ".ts", reported: true, source: fromCorpus("ts", "effect-3.22.4"), isTest: () => false },
  django: { id: "django", language: "python", extension: ".py", reported: true, source: fromCorpus("python", ""), isTest: pythonTest },
  go: { id: "go", language: "go", extension: ".go", reported: true, source: fromCorpus("go", "go-1.19/src"), isTest: goTest },
  werkzeug: { id: "werkzeug", language: "python", extension: ".py", reported: false, source: fromMachine("/usr/lib/python3/dist-packages/werkzeug"), isTest: pythonTest },
  xcrypto: { id: "xcrypto", language: "go", extension: ".go", reported: false, source: fromMachine("/usr/share/gocode/src/golang.org/x/crypto"), isTest: goTest },
};

export const RETRIEVAL_FLAGS = {
  "retrieval-trees": { type: "string", default: "effect,django,go" },
  "retrieval-tasks": { type: "string", default: "150" },
  "retrieval-seed": { type: "string", default: "18" },
  "retrieval-base-cli": { type: "string" },
  "retrieval-rounds": { type: "string", default: "1" },
} as const;

export interface RetrievalOptions {
  trees: RetrievalTreeId[];
  tasks: number;
  seed: number;
  baseCli?: string;
  rounds: number;
}

export function retrievalOptionsFrom(values: Record<string, unknown>): RetrievalOptions {
  const list = String(values["retrieval-trees"] ?? "effect,django,go");
  const trees = list === "none" ? [] : list.split(",").map((name) => {
    const id = name.trim() as RetrievalTreeId;
    if (!(id in TREES)) throw new Error(`--retrieval-trees: unknown tree ${name} (known: ${Object.keys(TREES).join(", ")})`);
    return id;
  });
  const options: RetrievalOptions = {
    trees,
    tasks: positiveInt("retrieval-tasks", values["retrieval-tasks"] ?? "150"),
    seed: positiveInt("retrieval-seed", values["retrieval-seed"] ?? "18"),
    rounds: positiveInt("retrieval-rounds", values["retrieval-rounds"] ?? "1"),
  };
  const base = values["retrieval-base-cli"];
  if (typeof base === "string" && base !== "") options.baseCli = base;
  return options;
}

// ---------------------------------------------------------------- tasks

export interface Definition {
  path: string;
  name: string;
  startLine: number;
  endLine: number;
}

export interface Task extends Definition {
  /** The doc sentence without the name's words. */
  query: string;
}

export interface Prepared {
  /** The copy with doc comments blanked. */
  root: string;
  /** Its files (relative paths). */
  files: string[];
  tasks: Task[];
  /** Every definition of a task's name, for identifier lookups: a name defined more than once is found by any of them. */
  definitions: Record<string, Definition[]>;
}

const CALLABLE = new Set(["function", "method", "constructor"]);

/** The doc sentence with the function's name and name-words taken out; undefined when fewer than MIN_QUERY_WORDS words stay. */
export function conceptQuery(name: string, doc: string): string | undefined {
  const nameWords = new Set(identifierTerms(name));
  const kept = doc.split(/\s+/).filter((word) => {
    const terms = identifiersIn(word).flatMap((identifier) => identifierTerms(identifier));
    return terms.length === 0 || !terms.every((term) => nameWords.has(term));
  });
  const words = kept.filter((word) => /\p{L}/u.test(word));
  return words.length >= MIN_QUERY_WORDS ? kept.join(" ") : undefined;
}

/** Replaces every character of text[from, to) but line breaks with a space. */
function blank(chars: string[], from: number, to: number): void {
  for (let at = from; at < to; at++) if (chars[at] !== "\n" && chars[at] !== "\r") chars[at] = " ";
}

/**
 * The text with its doc comments blanked, lines kept: TypeScript `/** … *\/` blocks, Go `//` lines
 * right above a declaration, Python docstrings (the first statement of a def or class, and of the
 * module). The comment markers stay, so the file parses as before.
 */
export function blankDocs(language: Language, text: string, symbols: readonly SymbolFact[]): string {
  // Code units, as the offsets below count them.
  const chars = text.split("");
  if (language === "typescript") {
    for (const match of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) blank(chars, match.index + 3, match.index + match[0].length - 2);
  } else if (language === "go") {
    const starts = lineStarts(text);
    const lineText = (line: number) => text.slice(starts[line - 1], starts[line] ?? text.length);
    for (const symbol of symbols) {
      for (let line = symbol.startLine - 1; line >= 1 && /^\s*\/\//.test(lineText(line)); line--) {
        const from = starts[line - 1]! + lineText(line).indexOf("//") + 2;
        blank(chars, from, starts[line] ?? text.length);
      }
    }
  } else {
    const starts = lineStarts(text);
    const docstringAt = (from: number) => {
      const match = /^[ \t\r\n]*(?:#[^\n]*\n[ \t\r\n]*)*[rRuUbB]{0,2}("""|'''|"|')/.exec(text.slice(from, from + 2000));
      if (!match) return;
      const quote = match[1]!;
      const open = from + match[0].length;
      const close = text.indexOf(quote, open);
      if (close > open) blank(chars, open, close);
    };
    docstringAt(0);
    for (const symbol of symbols) {
      if (!CALLABLE.has(symbol.kind) && symbol.kind !== "class") continue;
      const head = /\b(?:def|class)\b/g;
      head.lastIndex = starts[symbol.startLine - 1] ?? text.length;
      const found = head.exec(text);
      if (!found) continue;
      // The header ends at the first ':' outside brackets.
      let depth = 0;
      let at = found.index;
      for (; at < text.length; at++) {
        const char = text[at]!;
        if (char === "(" || char === "[" || char === "{") depth++;
        else if (char === ")" || char === "]" || char === "}") depth--;
        else if (char === ":" && depth === 0) break;
      }
      if (at < text.length) docstringAt(at + 1);
    }
  }
  return chars.join("");
}

/** `count` items drawn without repeats by a seeded shuffle, then put back in their order. */
export function seededSample<T>(items: readonly T[], count: number, seed: number): T[] {
  const next = random(seed);
  const order = items.map((_, index) => index);
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(next() * (index + 1));
    [order[index], order[other]] = [order[other]!, order[index]!];
  }
  return order
    .slice(0, count)
    .sort((a, b) => a - b)
    .map((index) => items[index]!);
}

/**
 * One file of a tree as the bench indexes it (its doc comments blanked), adding its candidate tasks
 * (documented functions outside test files whose sentence keeps enough words) and every definition
 * to the lists given.
 */
export function blankedFile(tree: RetrievalTree, path: string, text: string, candidates: Task[], definitions: Record<string, Definition[]>): string {
  const symbols = extractFacts(tree.language, text, undefined, { calls: false }).symbols;
  for (const symbol of symbols) {
    const definition = { path, name: symbol.name, startLine: symbol.startLine, endLine: symbol.endLine };
    (definitions[symbol.name] ??= []).push(definition);
    if (!CALLABLE.has(symbol.kind) || symbol.doc === undefined || tree.isTest(path)) continue;
    const query = conceptQuery(symbol.name, symbol.doc);
    if (query !== undefined) candidates.push({ ...definition, query });
  }
  return blankDocs(tree.language, text, symbols);
}

async function prepare(tree: RetrievalTree, options: RetrievalOptions, progress: (text: string) => void): Promise<Prepared | undefined> {
  const source = await tree.source(progress);
  if (source === undefined || !existsSync(source)) return undefined;
  const dir = join(benchCacheDir(), "retrieval", `${tree.id}-p${PREPARATION}-n${options.tasks}-s${options.seed}`);
  const saved = join(dir, "prepared.json");
  if (existsSync(saved)) return JSON.parse(await readFile(saved, "utf8")) as Prepared;
  progress(`${tree.id}: blanking doc comments into ${dir}`);
  await rm(dir, { recursive: true, force: true });
  const root = join(dir, "tree");
  const files = (await corpusFiles(source, tree.extension)).map((file) => file.path);
  const candidates: Task[] = [];
  const definitions: Record<string, Definition[]> = Object.create(null);
  for (const path of files) {
    await mkdir(join(root, path, ".."), { recursive: true });
    await writeFile(join(root, path), blankedFile(tree, path, await readFile(join(source, path), "utf8"), candidates, definitions));
  }
  const tasks = seededSample(candidates, options.tasks, options.seed);
  const used = new Set(tasks.map((task) => task.name));
  const prepared: Prepared = { root, files, tasks, definitions: Object.fromEntries(Object.entries(definitions).filter(([name]) => used.has(name))) };
  await writeFile(saved, JSON.stringify(prepared));
  progress(`${tree.id}: ${files.length} files, ${candidates.length} candidate tasks, ${tasks.length} sampled`);
  return prepared;
}

// ---------------------------------------------------------------- the rankings measured here

export interface Ranked {
  path: string;
  startLine?: number;
  endLine?: number;
}

interface Documents {
  paths: string[];
  starts: number[];
  ends: number[];
  lengths: Float64Array;
  /** Per query term: document → frequency. */
  postings: Map<string, Map<number, number>>;
}

/** Documents (whole files, or windows of `window` lines) counted for the query terms only; lengths count every term. */
async function documents(prepared: Prepared, vocabulary: ReadonlySet<string>, window: number | undefined): Promise<Documents> {
  const docs: Documents = { paths: [], starts: [], ends: [], lengths: new Float64Array(0), postings: new Map() };
  const lengths: number[] = [];
  for (const term of vocabulary) docs.postings.set(term, new Map());
  for (const path of prepared.files) {
    const lines = (await readFile(join(prepared.root, path), "utf8")).split("\n");
    const size = window ?? Math.max(1, lines.length);
    for (let first = 0; first < lines.length; first += size) {
      const id = docs.paths.length;
      docs.paths.push(path);
      docs.starts.push(first + 1);
      docs.ends.push(Math.min(lines.length, first + size));
      let length = 0;
      for (const identifier of identifiersIn(lines.slice(first, first + size).join("\n"))) {
        for (const term of identifierTerms(identifier)) {
          length++;
          const posting = docs.postings.get(term);
          if (posting) posting.set(id, (posting.get(id) ?? 0) + 1);
        }
      }
      lengths.push(length);
    }
  }
  docs.lengths = Float64Array.from(lengths);
  return docs;
}

function rank(docs: Documents, scores: Map<number, number>, whole: boolean): Ranked[] {
  return [...scores]
    .sort((a, b) => b[1] - a[1] || (docs.paths[a[0]]! < docs.paths[b[0]]! ? -1 : docs.paths[a[0]]! > docs.paths[b[0]]! ? 1 : a[0] - b[0]))
    .slice(0, TOP)
    .map(([id]) => (whole ? { path: docs.paths[id]! } : { path: docs.paths[id]!, startLine: docs.starts[id]!, endLine: docs.ends[id]! }));
}

function bm25(docs: Documents, query: string, whole: boolean): Ranked[] {
  const total = docs.paths.length;
  let sum = 0;
  for (const length of docs.lengths) sum += length;
  const average = sum / Math.max(1, total) || 1;
  const scores = new Map<number, number>();
  for (const term of queryTerms(query)) {
    const posting = docs.postings.get(term);
    if (!posting || posting.size === 0) continue;
    const idf = Math.log(1 + (total - posting.size + 0.5) / (posting.size + 0.5));
    for (const [id, frequency] of posting) {
      const part = (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * docs.lengths[id]!) / average));
      scores.set(id, (scores.get(id) ?? 0) + part);
    }
  }
  return rank(docs, scores, whole);
}

/** grep-style: how many times the query's words occur in the file. */
function wordCount(docs: Documents, query: string): Ranked[] {
  const scores = new Map<number, number>();
  for (const term of queryTerms(query)) for (const [id, frequency] of docs.postings.get(term) ?? []) scores.set(id, (scores.get(id) ?? 0) + frequency);
  return rank(docs, scores, true);
}

// ---------------------------------------------------------------- scoring

interface Quality {
  tasks: number;
  acc1: number;
  acc5: number;
  acc10: number;
  mrr10: number;
  /** Undefined for whole-file rankings. */
  functionHit10?: number;
  firstIsTest: number;
}

export function quality(tasks: readonly Task[], rankings: readonly Ranked[][], isTest: (path: string) => boolean, lands: boolean): Quality {
  let acc1 = 0;
  let acc5 = 0;
  let acc10 = 0;
  let mrr = 0;
  let hits = 0;
  let firstIsTest = 0;
  tasks.forEach((task, index) => {
    const ranked = (rankings[index] ?? []).slice(0, TOP);
    const first = ranked.findIndex((result) => result.path === task.path);
    if (first === 0) acc1++;
    if (first >= 0 && first < 5) acc5++;
    if (first >= 0) {
      acc10++;
      mrr += 1 / (first + 1);
    }
    if (ranked.some((result) => result.path === task.path && result.startLine !== undefined && result.startLine <= task.endLine && result.endLine! >= task.startLine)) hits++;
    if (ranked[0] !== undefined && isTest(ranked[0].path)) firstIsTest++;
  });
  const n = Math.max(1, tasks.length);
  const result: Quality = { tasks: tasks.length, acc1: acc1 / n, acc5: acc5 / n, acc10: acc10 / n, mrr10: mrr / n, firstIsTest };
  if (lands) result.functionHit10 = hits / n;
  return result;
}

/** Identifier lookups: whether the first result (or one of the first ten) overlaps a definition of the name. */
export function lookups(prepared: Prepared, rankings: readonly Ranked[][]): { first: number; top10: number } {
  let first = 0;
  let top10 = 0;
  prepared.tasks.forEach((task, index) => {
    const defs = prepared.definitions[task.name] ?? [task];
    const on = (result: Ranked) =>
      defs.some((def) => def.path === result.path && result.startLine !== undefined && result.startLine <= def.endLine && result.endLine! >= def.startLine);
    const ranked = rankings[index] ?? [];
    if (ranked[0] !== undefined && on(ranked[0])) first++;
    if (ranked.slice(0, TOP).some(on)) top10++;
  });
  const n = Math.max(1, prepared.tasks.length);
  return { first: first / n, top10: top10 / n };
}

// ---------------------------------------------------------------- find_related

/** Where each task's function is called from, what it calls, and its siblings, read from the facts of the indexed copy. */
export interface Relations {
  /** Per file: its definitions and its call sites. */
  files: Map<string, { definitions: Array<{ name: string; parent?: string; startLine: number; endLine: number }>; calls: Array<{ name: string; line: number }> }>;
}

async function relationsOf(tree: RetrievalTree, prepared: Prepared): Promise<Relations> {
  const files: Relations["files"] = new Map();
  for (const path of prepared.files) {
    const facts = extractFacts(tree.language, await readFile(join(prepared.root, path), "utf8"));
    files.set(path, {
      definitions: facts.symbols.map((symbol) => ({
        name: symbol.name,
        ...(symbol.parent === undefined ? {} : { parent: symbol.parent }),
        startLine: symbol.startLine,
        endLine: symbol.endLine,
      })),
      calls: facts.calls.map((call) => ({ name: call.name, line: call.line })),
    });
  }
  return { files };
}

/** How a find_related result stands to the task's function: it calls it, it is called by it, it is a sibling (same class or receiver type), else none. */
export function relationOf(task: Task, result: Ranked, relations: Relations): "caller" | "callee" | "sibling" | "none" {
  const here = relations.files.get(result.path);
  const home = relations.files.get(task.path);
  if (here === undefined || home === undefined || result.startLine === undefined) return "none";
  const inside = (line: number) => line >= result.startLine! && line <= result.endLine!;
  if (here.calls.some((call) => call.name === task.name && inside(call.line))) return "caller";
  const called = new Set(home.calls.filter((call) => call.line >= task.startLine && call.line <= task.endLine).map((call) => call.name));
  const overlaps = (definition: { startLine: number; endLine: number }) => definition.startLine <= result.endLine! && definition.endLine >= result.startLine!;
  if (here.definitions.some((definition) => called.has(definition.name) && definition.name !== task.name && overlaps(definition))) return "callee";
  const parent = home.definitions.find((definition) => definition.name === task.name && definition.startLine === task.startLine)?.parent;
  if (
    parent !== undefined && result.path === task.path &&
    here.definitions.some((definition) => definition.parent === parent && definition.name !== task.name && overlaps(definition))
  ) return "sibling";
  return "none";
}

export interface RelatedQuality {
  tasks: number;
  /** Share of all results that are a caller, callee or sibling. */
  precision10: number;
  /** Tasks whose first result is one. */
  first: number;
  /** Tasks with at least one caller among the results, among tasks whose function has a caller anywhere. */
  callerFound: number;
  callerTasks: number;
  /** Results per relation, over all tasks. */
  counts: Record<"caller" | "callee" | "sibling" | "none", number>;
}

export function relatedQuality(tasks: readonly Task[], rankings: readonly Ranked[][], relations: Relations): RelatedQuality {
  const counts = { caller: 0, callee: 0, sibling: 0, none: 0 };
  let first = 0;
  let results = 0;
  let callerFound = 0;
  let callerTasks = 0;
  const called = new Set<string>();
  for (const file of relations.files.values()) for (const call of file.calls) called.add(call.name);
  tasks.forEach((task, index) => {
    const ranked = (rankings[index] ?? []).slice(0, TOP);
    const kinds = ranked.map((result) => relationOf(task, result, relations));
    for (const kind of kinds) counts[kind]++;
    results += kinds.length;
    if (kinds[0] !== undefined && kinds[0] !== "none") first++;
    if (called.has(task.name)) {
      callerTasks++;
      if (kinds.includes("caller")) callerFound++;
    }
  });
  const n = Math.max(1, tasks.length);
  return {
    tasks: tasks.length,
    precision10: (results - counts.none) / Math.max(1, results),
    first: first / n,
    callerFound: callerFound / Math.max(1, callerTasks),
    callerTasks,
    counts,
  };
}

// ---------------------------------------------------------------- search through the CLI

interface CliRun {
  concept: Ranked[][];
  identifier: Ranked[][];
  /** find_related at each task's first line. */
  related: Ranked[][];
  buildMs: number;
  peakRssBytes?: number;
  warmP50Ms: number;
  conceptP50Ms: number;
  identifierP50Ms: number;
  /** The server's CPU milliseconds per query over the timed pass. */
  conceptCpuMs: number;
  identifierCpuMs: number;
}

async function searchOnce(client: Client, query: string, timeout: number): Promise<{ results: Ranked[]; ms: number }> {
  const start = performance.now();
  const answer = await client.callTool({ name: "search", arguments: { query, topK: TOP } }, undefined, { timeout, resetTimeoutOnProgress: true });
  const elapsed = performance.now() - start;
  if (answer.isError) throw new Error(`search ${JSON.stringify(query)} failed: ${JSON.stringify(answer.content).slice(0, 400)}`);
  const results = ((answer.structuredContent as { results?: Array<{ path: string; startLine: number; endLine: number }> } | undefined)?.results ?? []).map((result) => ({
    path: result.path,
    startLine: result.startLine,
    endLine: result.endLine,
  }));
  return { results, ms: elapsed };
}

async function relatedOnce(client: Client, path: string, line: number): Promise<Ranked[]> {
  const answer = await client.callTool({ name: "find_related", arguments: { path, line, topK: TOP } }, undefined, { timeout: CALL_TIMEOUT_MS });
  if (answer.isError) throw new Error(`find_related ${path}:${line} failed: ${JSON.stringify(answer.content).slice(0, 400)}`);
  return ((answer.structuredContent as { results?: Array<{ path: string; startLine: number; endLine: number }> } | undefined)?.results ?? []).map((result) => ({
    path: result.path,
    startLine: result.startLine,
    endLine: result.endLine,
  }));
}

async function runCli(cli: string, prepared: Prepared): Promise<CliRun> {
  const fixture = await createFixture();
  // No background build: the `index` call below is the build, timed.
  const session = await connectStdioServer(cli, ["mcp", prepared.root], { ...fixture.env, AST_MCP_INDEX_BACKGROUND: "false" });
  try {
    const start = performance.now();
    await session.client.callTool({ name: "index", arguments: {} }, undefined, { timeout: INDEX_TIMEOUT_MS, resetTimeoutOnProgress: true });
    // The first search builds the search index.
    await searchOnce(session.client, prepared.tasks[0]?.query ?? "search", INDEX_TIMEOUT_MS);
    const buildMs = performance.now() - start;
    const peakRssBytes = readPeakRss(session.pid);
    const samples: number[] = [];
    const concept: Ranked[][] = [];
    const identifier: Ranked[][] = [];
    const toDisplay = (results: Ranked[]) => results.map((result) => ({ ...result, path: result.path.startsWith("/") ? relative(prepared.root, result.path) : result.path }));
    // The answers come from a first pass; the second is timed, so warm latency is not the JIT's warm-up.
    for (const task of prepared.tasks) concept.push(toDisplay((await searchOnce(session.client, task.query, CALL_TIMEOUT_MS)).results));
    for (const task of prepared.tasks) identifier.push(toDisplay((await searchOnce(session.client, task.name, CALL_TIMEOUT_MS)).results));
    const related: Ranked[][] = [];
    for (const task of prepared.tasks) related.push(toDisplay(await relatedOnce(session.client, task.path, task.startLine)));
    // The server's CPU time per query, beside the wall time: other load on the machine stretches the one, hardly the other.
    const cpuPerQuery = async (queries: readonly string[]) => {
      const before = readCpuSeconds(session.pid);
      for (const query of queries) samples.push((await searchOnce(session.client, query, CALL_TIMEOUT_MS)).ms);
      const after = readCpuSeconds(session.pid);
      return before === undefined || after === undefined ? Number.NaN : ((after - before) * 1000) / Math.max(1, queries.length);
    };
    const conceptCpuMs = await cpuPerQuery(prepared.tasks.map((task) => task.query));
    const identifierCpuMs = await cpuPerQuery(prepared.tasks.map((task) => task.name));
    const half = prepared.tasks.length;
    const run: CliRun = {
      concept,
      identifier,
      related,
      buildMs,
      warmP50Ms: summarize(samples).p50,
      conceptP50Ms: summarize(samples.slice(0, half)).p50,
      identifierP50Ms: summarize(samples.slice(half)).p50,
      conceptCpuMs,
      identifierCpuMs,
    };
    if (peakRssBytes !== undefined) run.peakRssBytes = peakRssBytes;
    return run;
  } finally {
    await session.close().catch(() => {});
    await fixture.cleanup();
  }
}

// ---------------------------------------------------------------- the phase

const percent = (value: number | undefined) => (value === undefined ? "—" : `${(value * 100).toFixed(1)}%`);
const fixed = (value: number) => value.toFixed(3);

function qualityRow(label: string, value: Quality): string[] {
  return [label, fixed(value.acc1), fixed(value.acc5), fixed(value.acc10), fixed(value.mrr10), percent(value.functionHit10), String(value.firstIsTest)];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor((sorted.length - 1) / 2)]!;
}

export async function runRetrievalBench(options: RetrievalOptions): Promise<PhaseReport> {
  const progress = progressFor("retrieval");
  const report: PhaseReport = { phase: "retrieval", rows: [], peers: [], notes: [], details: { targets: TARGETS, trees: {} } };
  if (options.trees.length === 0) {
    report.notes.push("no tree selected (--retrieval-trees none)");
    return report;
  }
  const clis = [{ label: "search", cli: CLI }, ...(options.baseCli ? [{ label: "search (base)", cli: options.baseCli }] : [])];
  for (const id of options.trees) {
    const tree = TREES[id];
    const prepared = await prepare(tree, options, progress);
    if (prepared === undefined) {
      report.notes.push(`${id}: skipped, its sources are not on this machine`);
      continue;
    }
    const tag = tree.reported ? id : `${id} (tuning)`;
    const vocabulary = new Set(prepared.tasks.flatMap((task) => queryTerms(task.query)));
    progress(`${id}: baselines over ${prepared.files.length} files`);
    const files = await documents(prepared, vocabulary, undefined);
    const windows = await documents(prepared, vocabulary, WINDOW_LINES);
    const baselines = {
      bm25Files: quality(prepared.tasks, prepared.tasks.map((task) => bm25(files, task.query, true)), tree.isTest, false),
      bm25Windows: quality(prepared.tasks, prepared.tasks.map((task) => bm25(windows, task.query, false)), tree.isTest, true),
      wordCount: quality(prepared.tasks, prepared.tasks.map((task) => wordCount(files, task.query)), tree.isTest, false),
    };
    progress(`${id}: callers, callees and siblings from the facts, for find_related`);
    const relations = await relationsOf(tree, prepared);
    // Builds alternate between the CLIs, so load on the machine falls on both alike.
    const runs = new Map<string, CliRun[]>(clis.map(({ label }) => [label, []]));
    for (let round = 0; round < options.rounds; round++) {
      for (const { label, cli } of round % 2 === 0 ? clis : [...clis].reverse()) {
        progress(`${id}: ${label}, round ${round + 1} of ${options.rounds}`);
        runs.get(label)!.push(await runCli(cli, prepared));
      }
    }
    const rows: string[][] = [];
    const timing: string[][] = [];
    const relatedRows: string[][] = [];
    const details: Record<string, unknown> = { files: prepared.files.length, tasks: prepared.tasks.length, baselines };
    for (const { label } of clis) {
      const done = runs.get(label)!;
      const first = done[0]!;
      const concept = quality(prepared.tasks, first.concept, tree.isTest, true);
      const identifier = lookups(prepared, first.identifier);
      const related = relatedQuality(prepared.tasks, first.related, relations);
      relatedRows.push([
        label,
        percent(related.precision10),
        percent(related.first),
        `${percent(related.callerFound)} of ${related.callerTasks}`,
        `${related.counts.caller} / ${related.counts.callee} / ${related.counts.sibling} / ${related.counts.none}`,
      ]);
      rows.push(qualityRow(label, concept));
      const buildMs = median(done.map((run) => run.buildMs));
      const peak = median(done.map((run) => run.peakRssBytes ?? Number.NaN));
      const warm = median(done.map((run) => run.warmP50Ms));
      const warmConcept = median(done.map((run) => run.conceptP50Ms));
      const warmIdentifier = median(done.map((run) => run.identifierP50Ms));
      const conceptCpu = median(done.map((run) => run.conceptCpuMs));
      const identifierCpu = median(done.map((run) => run.identifierCpuMs));
      timing.push([
        label,
        `${(buildMs / 1000).toFixed(2)} s`,
        mb(peak),
        ms(warm),
        ms(warmConcept),
        ms(warmIdentifier),
        ms(conceptCpu),
        ms(identifierCpu),
        percent(identifier.first),
        percent(identifier.top10),
      ]);
      details[label] = {
        concept,
        identifier,
        related,
        buildMs: done.map((run) => run.buildMs),
        peakRssBytes: done.map((run) => run.peakRssBytes),
        warmP50Ms: done.map((run) => run.warmP50Ms),
        conceptP50Ms: done.map((run) => run.conceptP50Ms),
        identifierP50Ms: done.map((run) => run.identifierP50Ms),
        conceptCpuMs: done.map((run) => run.conceptCpuMs),
        identifierCpuMs: done.map((run) => run.identifierCpuMs),
      };
      if (label === "search" && tree.reported) {
        report.rows.push(
          {
            metric: `${id}: search file acc@5 − BM25 whole files`,
            value: `${concept.acc5.toFixed(3)} − ${baselines.bm25Files.acc5.toFixed(3)}`,
            target: `≥ +${TARGETS.fileAcc5OverBm25}`,
            verdict: verdict(concept.acc5 - baselines.bm25Files.acc5 >= TARGETS.fileAcc5OverBm25),
          },
          {
            metric: `${id}: search function hit@10`,
            value: percent(concept.functionHit10),
            target: `≥ ${percent(TARGETS.functionHit10)}`,
            verdict: verdict((concept.functionHit10 ?? 0) >= TARGETS.functionHit10),
          },
          {
            metric: `${id}: identifier lookup, named function first`,
            value: percent(identifier.first),
            target: `≥ ${percent(TARGETS.identifierFirst)}`,
            verdict: verdict(identifier.first >= TARGETS.identifierFirst),
          },
        );
      }
    }
    rows.push(
      qualityRow("BM25, whole files", baselines.bm25Files),
      qualityRow(`BM25, ${WINDOW_LINES}-line windows`, baselines.bm25Windows),
      qualityRow("word count, whole files", baselines.wordCount),
    );
    report.peers.push({
      title: `${tag}: ${prepared.tasks.length} concept tasks over ${prepared.files.length} files (doc comments blanked)`,
      headers: ["ranking", "file acc@1", "acc@5", "acc@10", "MRR@10", "function hit@10", "first result a test"],
      rows,
    });
    report.peers.push({
      title: `${tag}: build, memory, warm latency and identifier lookups (${options.rounds} round(s) per CLI, median)`,
      headers: ["cli", "index + search build", "peak RSS", "warm search p50", "concept p50", "name p50", "concept CPU/query", "name CPU/query", "name lookup: first", "in top 10"],
      rows: timing,
    });
    report.peers.push({
      title:
        `${tag}: find_related at each task's function (its first line): how many of the ${TOP} results call it, are called by it, or are its siblings (same class or receiver type), by name`,
      headers: ["cli", "related of all results", "first result related", "a caller listed (tasks called by name somewhere)", "callers / callees / siblings / other"],
      rows: relatedRows,
    });
    (report.details.trees as Record<string, unknown>)[id] = details;
  }
  return report;
}

if (import.meta.main) runPhaseMain("retrieval", RETRIEVAL_FLAGS, retrievalOptionsFrom, runRetrievalBench);
