/**
 * First contact with a big tree (issue 16, "Measure"): what a new user waits for on the first calls
 * of a fresh process with an empty ast-mcp cache, beside ripgrep and the parse-only time measured in
 * the same run, then a restart on the snapshot the first session left. A phase of `npm run bench`
 * (`--phases first`); alone: `bun bench/first-contact.ts`.
 *
 * Per tree (Go 1.19, effect, Django), each measurement in its own server process and cache directory:
 * - the first `callers` and `show` of a package-level function (found in the tree by a regex) ≤ 20×
 *   `rg -l <name>` over the tree; the first `search` ≤ 40× `rg -l` for its words; the first `digest`
 *   of a folder ≤ 2× the parse-only time of that folder's files (parseCeiling, in this process);
 * - every first call (map, graph, cycles, impact too) answers within 10 s, complete or saying it is
 *   partial (structuredContent.complete === false), and its progress notifications are ≥ 250 ms
 *   apart with the last at 100% (a call over 2 s must send some);
 * - restart on the snapshot (the callers session's cache, after it indexed fully): first `callers`
 *   ≤ 5× `rg -l`, first `search` ≤ 15×;
 * - the fast path against the full index: every call site a first (or restarted) `callers` lists is
 *   in the full index's answer, or the answer says it is partial; how many of a cold `search`'s
 *   results are among the full index's top 50 (the primed session gives both references);
 * - peak RSS (VmHWM) of every server on the Go tree < 500 MB.
 * Servers run with the environment `npx ast-mcp mcp` gets, not the installer's allocator variables
 * (src/hosts/targets.ts serverEnvironment). A call that times out fails its gate; the phase goes on.
 *
 * Options: --first-trees go,effect,django (default all three; "none" skips the phase),
 * --first-timeout S (seconds a first call may take before it counts as timed out, default 120),
 * --first-rg-rounds N (timed ripgrep runs per command after one untimed, median kept, default 3), --strict.
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { serverEnvironment } from "../src/hosts/targets.ts";
import { CORPORA, type CorpusId, copyCorpus, ensureCorpus } from "./corpora.ts";
import {
  CLI,
  connectStdioServer,
  corpusFiles,
  createFixture,
  mb,
  ms,
  type PhaseReport,
  parseCeiling,
  positiveInt,
  progressFor,
  ratioText,
  readPeakRss,
  type ResultRow,
  runPhaseMain,
  type StdioSession,
  summarize,
  verdict,
} from "./lib.ts";

const execFileAsync = promisify(execFile);

const TARGETS = {
  /** First callers / show, as a multiple of `rg -l <name>` over the tree. */
  firstLookupVsRg: 20,
  /** First search, as a multiple of `rg -l` for its words. */
  firstSearchVsRg: 40,
  /** First digest of a folder, as a multiple of parsing that folder's files. */
  firstDigestVsParse: 2,
  /** Every first call answers (complete or partial) within this. */
  firstCallMs: 10_000,
  /** Progress notifications of one call are at least this far apart (the last, at 100%, excepted). */
  progressGapMs: 250,
  /** A call longer than this must have sent progress (room for a few at the pace above, and for a loaded machine). */
  progressRequiredAfterMs: 2_000,
  restartCallersVsRg: 5,
  restartSearchVsRg: 15,
  /** Peak RSS of a server on the Go tree. */
  goPeakRssMB: 500,
} as const;

/** The priming session waits for the whole index: long on a large tree under load. */
const INDEX_TIMEOUT_MS = 15 * 60_000;
const APT_TIMEOUT_MS = 5 * 60_000;
/** The full index's callers answer the first ones are compared with: every call site of the name, not the default first 100. */
const FULL_CALLERS_LIMIT = 2_000;
/** The full index's top results a cold search's results are looked for in. */
const FULL_SEARCH_TOP = 50;

export type TreeId = "go" | "effect" | "django";

export interface TreeSpec {
  id: TreeId;
  corpus: CorpusId;
  /** The root inside the corpus copy ("" for the copy itself). */
  subdir: string;
  /** File of the corpus language counted for the parse-only time. */
  extension: string;
  /** Where the function looked up is defined, and the regex that finds top-level definitions there. */
  definitionFile: string;
  definitionPattern: RegExp;
  /** Taken when the regex finds it, else the first definition found. */
  preferredName: string;
  digestFolder: string;
  searchQuery: string;
}

const TREES: Record<TreeId, TreeSpec> = {
  go: {
    id: "go",
    corpus: "go",
    subdir: "go-1.19",
    extension: ".go",
    definitionFile: "src/strings/strings.go",
    definitionPattern: /^func ([A-Z]\w*)\(/gm,
    preferredName: "Cut",
    digestFolder: "src/net/http",
    searchQuery: "parse duration",
  },
  effect: {
    id: "effect",
    corpus: "ts",
    subdir: "effect-3.22.4",
    extension: ".ts",
    definitionFile: "Effect.ts",
    definitionPattern: /^export const ([A-Za-z_$][\w$]*)\b/gm,
    preferredName: "runPromise",
    digestFolder: "internal",
    searchQuery: "retry with backoff",
  },
  django: {
    id: "django",
    corpus: "python",
    subdir: "",
    extension: ".py",
    definitionFile: "django/utils/crypto.py",
    definitionPattern: /^def ([A-Za-z_]\w*)\(/gm,
    preferredName: "get_random_string",
    digestFolder: "django/db/models",
    searchQuery: "csrf token",
  },
};

export const FIRST_FLAGS = {
  "first-trees": { type: "string", default: "go,effect,django" },
  "first-timeout": { type: "string", default: "120" },
  "first-rg-rounds": { type: "string", default: "3" },
} as const;

export interface FirstOptions {
  trees: TreeId[];
  timeoutMs: number;
  rgRounds: number;
}

export function firstOptionsFrom(values: Record<string, unknown>): FirstOptions {
  const list = String(values["first-trees"] ?? "").trim();
  const trees = list === "none" || list === "" ? [] : list.split(",").map((item) => item.trim());
  for (const id of trees) if (!(id in TREES)) throw new Error(`--first-trees: unknown tree ${id} (known: ${Object.keys(TREES).join(", ")}, none)`);
  return {
    trees: trees as TreeId[],
    timeoutMs: positiveInt("first-timeout", values["first-timeout"]) * 1000,
    rgRounds: positiveInt("first-rg-rounds", values["first-rg-rounds"]),
  };
}

// ---------------------------------------------------------------- ripgrep

async function ripgrepVersion(): Promise<string | undefined> {
  try {
    const { stdout } = await execFileAsync("rg", ["--version"], { timeout: 10_000 });
    return stdout.trim().split("\n")[0];
  } catch {
    return undefined;
  }
}

/** ripgrep, installed with apt-get where it is missing (as root, or through sudo without a password); a note says why not. */
async function ensureRipgrep(progress: (text: string) => void): Promise<{ version?: string; note?: string }> {
  const present = await ripgrepVersion();
  if (present) return { version: present };
  const asRoot = process.getuid?.() === 0;
  const apt = (args: string[]): Promise<unknown> => {
    const command = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", ...args];
    // Not root: sudo only when it needs no password (a bench never prompts).
    return asRoot ? execFileAsync(command[0]!, command.slice(1), { timeout: APT_TIMEOUT_MS }) : execFileAsync("sudo", ["-n", ...command], { timeout: APT_TIMEOUT_MS });
  };
  progress("ripgrep is missing: apt-get install -y ripgrep");
  try {
    await apt(["install", "-y", "ripgrep"]);
  } catch {
    // An image without package lists installs only after an update.
    try {
      await apt(["update"]);
      await apt(["install", "-y", "ripgrep"]);
    } catch (error) {
      return {
        note: `ripgrep (rg) is missing and apt-get install ripgrep failed (${
          error instanceof Error ? error.message.split("\n")[0] : String(error)
        }): the comparisons with rg are skipped`,
      };
    }
  }
  const installed = await ripgrepVersion();
  return installed ? { version: installed } : { note: "ripgrep was installed but rg is not on PATH: the comparisons with rg are skipped" };
}

/** Wall time of one `rg` run to completion, its output drained. */
async function timeRg(args: readonly string[]): Promise<{ ms: number; files: number }> {
  const start = performance.now();
  const child = spawn("rg", [...args], { stdio: ["ignore", "pipe", "ignore"] });
  let lines = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    for (const byte of chunk) if (byte === 10) lines++;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  // rg exits 1 when nothing matched: still a valid time.
  if (code !== 0 && code !== 1) throw new Error(`rg ${args.join(" ")} exited ${code}`);
  return { ms: performance.now() - start, files: lines };
}

/** Median of `rounds` timed runs after one untimed (the page cache is warm for both sides). */
async function medianRg(args: readonly string[], rounds: number): Promise<{ ms: number; files: number }> {
  const first = await timeRg(args);
  const samples: number[] = [];
  for (let i = 0; i < rounds; i++) samples.push((await timeRg(args)).ms);
  return { ms: summarize(samples).p50, files: first.files };
}

// ---------------------------------------------------------------- one call, timed, with its progress

interface ProgressEvent {
  atMs: number;
  progress: number;
  total?: number;
}

interface FirstCall {
  tool: string;
  args: Record<string, unknown>;
  /** Wall time to the answer, or to the timeout. */
  ms: number;
  outcome: "answered" | "error" | "timeout";
  /** structuredContent.complete when the answer has it. */
  complete?: boolean;
  error?: string;
  textChars: number;
  /** Call sites (callers, impact) or results (search) listed: a fast empty answer shows here. */
  items?: number;
  /** What it listed, as path:line:column (call sites) or path:line (search results), for the comparison with the full index. */
  keys?: string[];
  progress: { count: number; minGapMs: number | null; lastAtFull: boolean | null; ok: boolean; problem?: string };
  peakRssBytes: number | null;
  /** Bytes the cache directory holds after the session ended (a snapshot left behind, or none). */
  cacheBytesAfter?: number;
}

/** The call sites (`calls`: path:line:column) or search results (`results`: path:startLine-endLine) an answer lists; undefined when it has neither. */
export function answerKeys(structured: Record<string, unknown> | undefined): string[] | undefined {
  const calls = structured?.calls;
  if (Array.isArray(calls)) return calls.map((call: { path?: unknown; line?: unknown; column?: unknown }) => `${call.path}:${call.line}:${call.column}`);
  const results = structured?.results;
  if (Array.isArray(results)) return results.map((result: { path?: unknown; startLine?: unknown; endLine?: unknown }) => `${result.path}:${result.startLine}-${result.endLine}`);
  return undefined;
}

/**
 * How many search results (path:startLine-endLine keys) share lines with one of the full index's,
 * and how many lie in a file the full index lists: a cold search ranks 40-line windows and the
 * index ranks symbol-sized chunks, so their start lines rarely match even where they agree.
 */
export function overlapAgreement(first: readonly string[], full: readonly string[]): { lines: number; files: number; of: number } {
  const place = (key: string) => {
    const match = /^(.*):(\d+)-(\d+)$/.exec(key);
    return match ? { path: match[1]!, start: Number(match[2]), end: Number(match[3]) } : { path: key, start: 0, end: -1 };
  };
  const reference = full.map(place);
  const files = new Set(reference.map((item) => item.path));
  let lines = 0;
  let inFiles = 0;
  for (const item of first.map(place)) {
    if (files.has(item.path)) inFiles += 1;
    if (reference.some((other) => other.path === item.path && other.start <= item.end && item.start <= other.end)) lines += 1;
  }
  return { lines, files: inFiles, of: first.length };
}

/** How many of `first` the full index's answer also lists, and the first few it does not. */
export function agreement(first: readonly string[], full: readonly string[]): { agreed: number; of: number; missing: string[] } {
  const known = new Set(full);
  const missing = first.filter((key) => !known.has(key));
  return { agreed: first.length - missing.length, of: first.length, missing: missing.slice(0, 5) };
}

/** What `npx ast-mcp mcp` runs with: `env` without the variables an installed entry adds (allocator and V8 tuning). */
export function userEnvironment(env: Record<string, string>, platform: NodeJS.Platform = process.platform): Record<string, string> {
  const installerOnly = new Set(Object.keys(serverEnvironment(platform)));
  return Object.fromEntries(Object.entries(env).filter(([key]) => !installerOnly.has(key)));
}

/** Checks a call's notifications: ≥ TARGETS.progressGapMs apart (the closing 100% one excepted), last at 100%, some when the call was long. */
export function judgeProgress(events: readonly ProgressEvent[], callMs: number): FirstCall["progress"] {
  if (events.length === 0) {
    const ok = callMs <= TARGETS.progressRequiredAfterMs;
    return ok ? { count: 0, minGapMs: null, lastAtFull: null, ok } : { count: 0, minGapMs: null, lastAtFull: null, ok, problem: "no progress on a long call" };
  }
  const last = events[events.length - 1] as ProgressEvent;
  const lastAtFull = last.total !== undefined && last.progress >= last.total;
  // The closing notification may follow the one before it closely; every other gap must keep the pace.
  const paced = lastAtFull ? events.slice(0, -1) : events;
  let minGap = Number.POSITIVE_INFINITY;
  for (let i = 1; i < paced.length; i++) minGap = Math.min(minGap, (paced[i] as ProgressEvent).atMs - (paced[i - 1] as ProgressEvent).atMs);
  const minGapMs = Number.isFinite(minGap) ? minGap : null;
  const problems: string[] = [];
  if (minGapMs !== null && minGapMs < TARGETS.progressGapMs) problems.push(`two ${Math.round(minGapMs)} ms apart`);
  if (!lastAtFull) problems.push("last not at 100%");
  const result: FirstCall["progress"] = { count: events.length, minGapMs, lastAtFull, ok: problems.length === 0 };
  if (problems.length > 0) result.problem = problems.join(", ");
  return result;
}

export async function timedCall(session: StdioSession, tool: string, args: Record<string, unknown>, timeoutMs: number): Promise<FirstCall> {
  const events: ProgressEvent[] = [];
  const start = performance.now();
  let outcome: FirstCall["outcome"] = "answered";
  let complete: boolean | undefined;
  let error: string | undefined;
  let textChars = 0;
  let keys: string[] | undefined;
  let items: number | undefined;
  try {
    const result = await session.client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: timeoutMs,
      // The wall time to the answer is the measurement: progress must not extend the timeout.
      resetTimeoutOnProgress: false,
      onprogress: (update) => {
        const event: ProgressEvent = { atMs: performance.now() - start, progress: update.progress };
        if (update.total !== undefined) event.total = update.total;
        events.push(event);
      },
    });
    const content = Array.isArray(result.content) ? (result.content as Array<{ type: string; text?: string }>) : [];
    const text = content.map((item) => (item.type === "text" ? (item.text ?? "") : "")).join("\n");
    textChars = text.length;
    const structured = result.structuredContent as Record<string, unknown> | undefined;
    if (typeof structured?.complete === "boolean") complete = structured.complete;
    keys = answerKeys(structured);
    if (keys !== undefined) items = keys.length;
    if (result.isError) {
      outcome = "error";
      error = text.slice(0, 300);
    }
  } catch (thrown) {
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    outcome = /timed out/i.test(message) ? "timeout" : "error";
    error = message.slice(0, 300);
  }
  const elapsed = performance.now() - start;
  const call: FirstCall = { tool, args, ms: elapsed, outcome, textChars, progress: judgeProgress(events, elapsed), peakRssBytes: readPeakRss(session.pid) ?? null };
  if (complete !== undefined) call.complete = complete;
  if (items !== undefined) call.items = items;
  if (keys !== undefined) call.keys = keys;
  if (error !== undefined) call.error = error;
  return call;
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  const walk = async (path: string): Promise<void> => {
    for (const entry of await readdir(path, { withFileTypes: true }).catch(() => [])) {
      const child = join(path, entry.name);
      if (entry.isDirectory()) await walk(child);
      else if (entry.isFile()) total += (await stat(child)).size;
    }
  };
  await walk(dir);
  return total;
}

// ---------------------------------------------------------------- one tree

export interface TreeResult {
  rows: ResultRow[];
  notes: string[];
  details: Record<string, unknown>;
}

/** The name looked up: the preferred one when the tree defines it there, else the first definition the regex finds. */
export async function pickName(root: string, tree: Pick<TreeSpec, "definitionFile" | "definitionPattern" | "preferredName">): Promise<string> {
  const path = join(root, tree.definitionFile);
  if (!existsSync(path)) throw new Error(`${tree.definitionFile} is not in the tree`);
  const names = [...(await readFile(path, "utf8")).matchAll(tree.definitionPattern)].map((match) => match[1] as string);
  if (names.length === 0) throw new Error(`no definition matches ${tree.definitionPattern} in ${tree.definitionFile}`);
  return names.includes(tree.preferredName) ? tree.preferredName : (names[0] as string);
}

/** The words of a query as rg patterns (rg -l -i -F -e a -e b …). */
function wordArgs(query: string): string[] {
  return query.split(/\s+/).filter((word) => word !== "").flatMap((word) => ["-e", word]);
}

/** Every measurement of one tree rooted at `root` (a copy: nothing is written to it, but the servers watch it). */
export async function measureTree(tree: TreeSpec, root: string, options: FirstOptions, rg: boolean): Promise<TreeResult> {
  const progress = progressFor(`first ${tree.id}`);
  const rows: ResultRow[] = [];
  const notes: string[] = [];
  const details: Record<string, unknown> = {};
  const label = (text: string): string => `${tree.id}: ${text}`;
  const fixture = await createFixture();
  const scratch: string[] = [];
  const sessions: StdioSession[] = [];
  const userEnv = userEnvironment(fixture.env);
  const installerOnly = Object.keys(serverEnvironment(process.platform));
  const startMs: number[] = [];
  const start = async (cacheDir: string): Promise<StdioSession> => {
    const spawned = performance.now();
    const session = await connectStdioServer(CLI, ["mcp", root], { ...userEnv, AST_MCP_CACHE_DIR: cacheDir, AST_MCP_STATE_DIR: join(cacheDir, "..", "state") });
    // Spawn to initialized: what a user waits for besides the call, reported beside the calls.
    startMs.push(performance.now() - spawned);
    sessions.push(session);
    return session;
  };
  const freshCache = async (): Promise<string> => {
    const dir = await mkdtemp(join(tmpdir(), "ast-mcp-bench-first-cache-"));
    scratch.push(dir);
    return join(dir, "cache");
  };
  try {
    const name = await pickName(root, tree);
    details.name = name;
    details.definitionFile = tree.definitionFile;

    // -------- the references measured in this run: ripgrep, and parsing the digested folder
    let rgName: { ms: number; files: number } | undefined;
    let rgWords: { ms: number; files: number } | undefined;
    if (rg) {
      progress(`rg -l ${name}`);
      rgName = await medianRg(["-l", "-F", "--", name, root], options.rgRounds);
      progress(`rg -l for "${tree.searchQuery}"`);
      rgWords = await medianRg(["-l", "-i", "-F", ...wordArgs(tree.searchQuery), root], options.rgRounds);
      rows.push(
        { metric: label(`rg -l ${name} over the tree (${rgName.files} files)`), value: ms(rgName.ms), target: "—", verdict: "info" },
        { metric: label(`rg -l -i for "${tree.searchQuery}" (${rgWords.files} files)`), value: ms(rgWords.ms), target: "—", verdict: "info" },
      );
      details.rg = { name: rgName, words: rgWords };
    }
    progress(`parse-only time of ${tree.digestFolder}`);
    const folderFiles = (await corpusFiles(join(root, tree.digestFolder), tree.extension)).map((file) => ({ path: join(tree.digestFolder, file.path), size: file.size }));
    // Twice, the faster kept: the first pass also loads the parser in this process.
    const parses = [await parseCeiling(root, folderFiles), await parseCeiling(root, folderFiles)];
    const parse = parses[0]!.wallMs <= parses[1]!.wallMs ? parses[0]! : parses[1]!;
    rows.push({ metric: label(`parse-only, ${tree.digestFolder} (${parse.files} files, ${mb(parse.bytes)})`), value: ms(parse.wallMs), target: "—", verdict: "info" });
    details.folderParse = parse;

    // -------- first calls, each in a fresh process with an empty cache
    const firstCalls: Array<{ tool: string; args: Record<string, unknown> }> = [
      { tool: "callers", args: { symbol: name, path: tree.definitionFile } },
      { tool: "show", args: { path: tree.definitionFile, symbols: [name] } },
      { tool: "search", args: { query: tree.searchQuery } },
      { tool: "digest", args: { paths: [tree.digestFolder] } },
      { tool: "map", args: { paths: [tree.definitionFile] } },
      { tool: "impact", args: { symbol: name, path: tree.definitionFile } },
      { tool: "graph", args: {} },
      { tool: "cycles", args: {} },
    ];
    const calls: FirstCall[] = [];
    let primedCache: string | undefined;
    let primedIndex: Record<string, unknown> | undefined;
    let fullCallers: string[] | undefined;
    let fullSearch: string[] | undefined;
    const peaks: number[] = [];
    for (const { tool, args } of firstCalls) {
      progress(`fresh process: first ${tool}`);
      const cacheDir = await freshCache();
      const session = await start(cacheDir);
      const call = await timedCall(session, tool, args, options.timeoutMs);
      if (tool === "callers") {
        // This session becomes the snapshot the restart reads: the whole index, and search's postings.
        progress("priming the snapshot: waiting for the whole index");
        try {
          const indexed = await session.client.callTool({ name: "index", arguments: { stats: true } }, undefined, { timeout: INDEX_TIMEOUT_MS, resetTimeoutOnProgress: true });
          primedIndex = indexed.structuredContent as Record<string, unknown> | undefined;
          // The full index's answers, the reference for what the first answers listed.
          const long = { timeout: INDEX_TIMEOUT_MS, resetTimeoutOnProgress: true };
          const callers = await session.client.callTool({ name: "callers", arguments: { ...args, limit: FULL_CALLERS_LIMIT } }, undefined, long);
          fullCallers = answerKeys(callers.structuredContent as Record<string, unknown> | undefined);
          const search = await session.client.callTool({ name: "search", arguments: { query: tree.searchQuery, topK: FULL_SEARCH_TOP } }, undefined, long);
          fullSearch = answerKeys(search.structuredContent as Record<string, unknown> | undefined);
          primedCache = cacheDir;
        } catch (error) {
          notes.push(`${tree.id}: priming the snapshot failed, no restart measured: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      const peak = readPeakRss(session.pid);
      if (peak !== undefined) peaks.push(peak);
      await session.close();
      call.cacheBytesAfter = await directoryBytes(cacheDir);
      calls.push(call);
    }
    details.firstCalls = calls;
    if (primedIndex !== undefined) details.primedIndex = primedIndex;

    const seconds = (value: number): string => `${(value / 1000).toFixed(2)} s`;
    const state = (call: FirstCall): string =>
      call.outcome === "timeout" ? `timed out after ${seconds(call.ms)}` : call.outcome === "error" ? `error after ${seconds(call.ms)}` : seconds(call.ms);
    // "partial" and the count listed sit beside every ratio: a fast answer that holds nothing is no win.
    const what = (call: FirstCall): string => `${call.complete === false ? ", partial" : ""}${call.items === undefined ? "" : `, ${call.items} listed`}`;
    const byTool = new Map(calls.map((call) => [call.tool, call]));
    const versus = (tool: string, measured: { ms: number } | undefined, limit: number, reference: string): void => {
      const call = byTool.get(tool);
      if (!call) return;
      const ok = call.outcome === "answered" && measured !== undefined ? call.ms <= limit * measured.ms : call.outcome === "answered" ? undefined : false;
      const ratio = measured === undefined ? "rg skipped" : ratioText(call.ms, measured.ms);
      rows.push({
        metric: label(`first ${tool}, fresh process, empty cache`),
        value: `${state(call)}${what(call)} (${ratio} ${reference})`,
        target: `≤ ${limit}× ${reference}`,
        verdict: verdict(ok),
      });
    };
    versus("callers", rgName, TARGETS.firstLookupVsRg, "rg -l");
    versus("show", rgName, TARGETS.firstLookupVsRg, "rg -l");
    versus("search", rgWords, TARGETS.firstSearchVsRg, "rg -l");
    versus("digest", { ms: parse.wallMs }, TARGETS.firstDigestVsParse, "parse-only");
    for (const call of calls) {
      const answered = call.outcome === "answered" && call.ms <= TARGETS.firstCallMs;
      const shape = call.outcome !== "answered" ?
        (call.error ?? call.outcome).slice(0, 80) :
        call.complete === false ?
        "partial" :
        call.complete === true ?
        "complete" :
        "no complete field";
      const paced = call.progress.count === 0 ?
        "no progress" :
        `${call.progress.count} progress, min gap ${call.progress.minGapMs === null ? "—" : `${Math.round(call.progress.minGapMs)} ms`}${
          call.progress.lastAtFull ? ", last 100%" : ""
        }`;
      rows.push({
        metric: label(`first ${call.tool}: answer and progress`),
        value: `${state(call)}, ${shape}; ${paced}${call.progress.problem ? ` (${call.progress.problem})` : ""}`,
        target: `≤ ${TARGETS.firstCallMs / 1000} s (partial allowed); progress ≥ ${TARGETS.progressGapMs} ms apart, last 100%`,
        verdict: verdict(answered && call.progress.ok),
      });
    }
    rows.push({ metric: label(`server start to initialized, median of ${startMs.length}`), value: ms(summarize(startMs).p50), target: "—", verdict: "info" });
    details.startMs = startMs;
    const oneCall = calls.filter((call) => call.tool !== "callers");
    const leftSnapshot = oneCall.filter((call) => (call.cacheBytesAfter ?? 0) > 0).length;
    rows.push({ metric: label("one-call sessions that left something in the cache"), value: `${leftSnapshot} of ${oneCall.length}`, target: "—", verdict: "info" });

    // -------- restart on the snapshot: same cache directory, new processes
    if (primedCache !== undefined) {
      rows.push({ metric: label("snapshot left by the primed session"), value: mb(await directoryBytes(primedCache)), target: "—", verdict: "info" });
      const restarts: FirstCall[] = [];
      for (
        const { tool, args, reference, limit } of [
          { tool: "callers", args: { symbol: name, path: tree.definitionFile }, reference: rgName, limit: TARGETS.restartCallersVsRg },
          { tool: "search", args: { query: tree.searchQuery }, reference: rgWords, limit: TARGETS.restartSearchVsRg },
        ]
      ) {
        progress(`restart on the snapshot: first ${tool}`);
        const session = await start(primedCache);
        const call = await timedCall(session, tool, args, options.timeoutMs);
        const peak = readPeakRss(session.pid);
        if (peak !== undefined) peaks.push(peak);
        await session.close();
        restarts.push(call);
        const ok = call.outcome === "answered" && reference !== undefined ? call.ms <= limit * reference.ms : call.outcome === "answered" ? undefined : false;
        rows.push({
          metric: label(`restart on the snapshot: first ${tool}`),
          value: `${state(call)}${what(call)} (${reference === undefined ? "rg skipped" : ratioText(call.ms, reference.ms)} rg -l)`,
          target: `≤ ${limit}× rg -l`,
          verdict: verdict(ok),
        });
      }
      details.restarts = restarts;
    }

    // -------- the fast path against the full index (the primed session's answers)
    const agree = (call: FirstCall | undefined, when: string): void => {
      if (!call?.keys || fullCallers === undefined) return;
      const result = agreement(call.keys, fullCallers);
      const all = result.agreed === result.of;
      rows.push({
        metric: label(`${when} callers: its call sites are among the full index's (${fullCallers.length})`),
        value: `${result.agreed} of ${result.of}${call.complete === false ? ", marked partial" : ""}${all ? "" : `; not there: ${result.missing.join(", ")}`}`,
        target: "all, or the answer marked partial",
        verdict: verdict(all || call.complete === false),
      });
    };
    agree(byTool.get("callers"), "first");
    agree(((details.restarts as FirstCall[] | undefined) ?? []).find((call) => call.tool === "callers"), "restart");
    const coldSearch = byTool.get("search");
    if (coldSearch?.keys && fullSearch !== undefined) {
      const result = overlapAgreement(coldSearch.keys, fullSearch);
      rows.push({
        metric: label(`first search: its results sharing lines with (in a file of) the full index's top ${FULL_SEARCH_TOP}`),
        value: `${result.lines} (${result.files}) of ${result.of}`,
        target: "—",
        verdict: "info",
      });
    }

    // -------- memory, with the environment a user gets
    const peak = peaks.length === 0 ? undefined : Math.max(...peaks);
    const environment = `user environment, no ${installerOnly.join("/")}`;
    rows.push(
      tree.id === "go" ?
        {
          metric: label(`peak RSS (VmHWM) of any server, ${environment}`),
          value: mb(peak),
          target: `< ${TARGETS.goPeakRssMB} MB`,
          verdict: verdict(peak === undefined ? undefined : peak < TARGETS.goPeakRssMB * 1024 * 1024),
        } :
        { metric: label(`peak RSS (VmHWM) of any server, ${environment}`), value: mb(peak), target: "—", verdict: "info" },
    );
    details.peakRssBytes = peak ?? null;

    const failures = [...calls, ...((details.restarts as FirstCall[] | undefined) ?? [])].filter((call) => call.outcome !== "answered");
    for (const call of failures) notes.push(`${tree.id}: ${call.tool} ${call.outcome}: ${call.error ?? ""}`);
    return { rows, notes, details };
  } finally {
    for (const session of sessions) await session.close().catch(() => {});
    for (const dir of scratch) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    await fixture.cleanup();
  }
}

/** One tree: its corpus fetched when missing, measured on a fresh copy. */
async function benchTree(tree: TreeSpec, options: FirstOptions, rg: boolean): Promise<TreeResult> {
  const progress = progressFor(`first ${tree.id}`);
  const corpus = await ensureCorpus(CORPORA[tree.corpus], progress);
  const work = await mkdtemp(join(tmpdir(), "ast-mcp-bench-first-"));
  try {
    progress("copying the corpus");
    const copy = await copyCorpus(corpus, work);
    const root = tree.subdir === "" ? copy : join(copy, tree.subdir);
    if (!existsSync(root)) throw new Error(`the corpus has no ${tree.subdir}/`);
    const result = await measureTree(tree, root, options, rg);
    result.details.provenance = corpus.provenance;
    return result;
  } finally {
    await rm(work, { recursive: true, force: true, maxRetries: 5 });
  }
}

// ---------------------------------------------------------------- the phase

export async function runFirstContactBench(options: FirstOptions): Promise<PhaseReport> {
  const progress = progressFor("first");
  const report: PhaseReport = { phase: "first", rows: [], peers: [], notes: [], details: { targets: TARGETS, trees: {} } };
  if (options.trees.length === 0) {
    report.notes.push("no tree selected (--first-trees none)");
    return report;
  }
  const ripgrep = await ensureRipgrep(progress);
  if (ripgrep.note) report.notes.push(ripgrep.note);
  report.details.ripgrep = ripgrep.version ?? null;
  for (const id of options.trees) {
    try {
      const result = await benchTree(TREES[id], options, ripgrep.version !== undefined);
      report.rows.push(...result.rows);
      report.notes.push(...result.notes);
      (report.details.trees as Record<string, unknown>)[id] = result.details;
    } catch (error) {
      // One tree failing (not fetched, a crash) must not hide the others' numbers.
      report.rows.push({ metric: `${id}: first-contact run`, value: "failed", target: "completes", verdict: "FAIL" });
      report.notes.push(`${id}: failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 1000)}`);
    }
  }
  return report;
}

if (import.meta.main) runPhaseMain("first", FIRST_FLAGS, firstOptionsFrom, runFirstContactBench);
