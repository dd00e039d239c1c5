/**
 * Guarded-write benchmark: end-to-end latency of `file_patch` / `file_write` over stdio on a fixture
 * repository with a dprint.json (so every candidate is formatted), beside the reference filesystem
 * server's `edit_file` making the same single edit. A phase of `npm run bench`; alone: `bun bench/write.ts`.
 *
 * Every edit is chained: it names the hash the previous call returned as expectedSha256, so each call
 * pays for the whole pipeline (hash check, syntax guard, dprint, journal, fsync, atomic rename).
 *
 * Options: --write-iterations N (timed single edits per kind and side, default 200), --write-batches N
 * (timed 50-file batches per tool, default 15), --write-warmup N (untimed edits first, default 10), --strict.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, unlinkSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CALL_TIMEOUT_MS,
  CLI,
  connectStdioServer,
  createFixture,
  type LatencySummary,
  mb,
  ms,
  PEER_FILESYSTEM_SERVER,
  type PhaseReport,
  progressFor,
  ratioText,
  readCpuSeconds,
  readPeakRss,
  type ResultRow,
  runPhaseMain,
  type StdioSession,
  summarize,
  verdict,
  positiveInt,
} from "./lib.ts";

const TARGETS = {
  singlePatchP50Ms: 10,
  batchP50Ms: 300,
} as const;

/** Files in one batch call: the most one guarded write accepts (LIMITS.batchPaths). */
const BATCH_FILES = 50;
/** max_batches of the server whose journal is kept at its limits (every commit past it prunes one batch). */
const FULL_JOURNAL_BATCHES = 50;
/** Functions in the 500-line target file (5 lines each, after a 5-line header). */
const FUNCTIONS = 99;
/** Alternating rounds of the peer comparison, so drift on a busy machine hits both servers alike. */
const PEER_ROUNDS = 4;
/** Files the disk probe creates before the timed edits. */
const PROBE_FILES = 100;
/** No timed loop runs longer than this, whatever the iteration counts say. */
const LOOP_MAX_SECONDS = 60;

export const WRITE_FLAGS = {
  "write-iterations": { type: "string", default: "200" },
  "write-batches": { type: "string", default: "15" },
  "write-warmup": { type: "string", default: "10" },
} as const;

export interface WriteOptions {
  iterations: number;
  batches: number;
  warmup: number;
}

export function writeOptionsFrom(values: Record<string, unknown>): WriteOptions {
  return {
    iterations: positiveInt("write-iterations", values["write-iterations"]),
    batches: positiveInt("write-batches", values["write-batches"]),
    warmup: positiveInt("write-warmup", values["write-warmup"]),
  };
}

// ---------------------------------------------------------------- fixture text

/** dprint's TypeScript plugin with the repository's own settings; plugin URLs are mapped to the installed plugin. */
const DPRINT_CONFIG = `${
  JSON.stringify({ lineWidth: 100, indentWidth: 2, typescript: { quoteStyle: "alwaysDouble" }, plugins: ["https://plugins.dprint.dev/typescript-0.96.1.wasm"] }, null, 2)
}\n`;

/** The one line of function `index` that edits change; `generation` counts the edits it has had. */
function labelLine(index: number, generation: number): string {
  return `  const label = track("fn${index}", ${generation});`;
}

/** Exactly 500 lines of dprint-clean TypeScript: a 5-line header and 99 five-line functions. */
function targetFileText(generations: readonly number[]): string {
  const lines = ["const seen: string[] = [];", "function track(name: string, generation: number): string {", "  seen.push(name);", "  return `${name}:${generation}`;", "}"];
  for (let index = 0; index < FUNCTIONS; index++) {
    lines.push("", `export function fn${index}(input: string): string {`, labelLine(index, generations[index] ?? 0), "  return input + label;", "}");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The same file with an ignore comment above its first statement: still formatter-clean, but any
 * `dprint-ignore` makes edits format the whole file, which this variant measures for comparison.
 */
function wholeFileTargetText(generations: readonly number[]): string {
  return `// dprint-ignore\n${targetFileText(generations)}`;
}

function batchFileText(index: number, generation: number): string {
  const lines = [`// Batch module ${index}.`, `export const generation${index} = ${generation};`, ""];
  for (let fn = 0; fn < 8; fn++) {
    lines.push(`export function batch${index}x${fn}(value: number): number {`, `  return value * ${fn + 1} + generation${index};`, "}", "");
  }
  return lines.join("\n");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

// ---------------------------------------------------------------- calls

interface FileOutcome {
  sha256: string | null;
  change: string;
  formatted?: boolean;
  formatNote?: string;
}

/** How the timed single edits were formatted: only their changed statements, or the whole file. */
const formattingPaths = { statements: 0, wholeFile: 0 };

/** Calls a mutation tool and returns its per-file outcomes; throws on a tool error or a missing entry. */
async function mutate(client: Client, tool: string, files: Record<string, unknown>): Promise<Record<string, FileOutcome>> {
  const result = await client.callTool({ name: tool, arguments: { files } }, undefined, { timeout: CALL_TIMEOUT_MS });
  if (result.isError) throw new Error(`${tool} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  const structured = result.structuredContent as { committed?: boolean; files?: Record<string, FileOutcome> } | undefined;
  const outcomes = structured?.files;
  if (!structured?.committed || !outcomes) throw new Error(`${tool} committed nothing: ${JSON.stringify(result.structuredContent).slice(0, 500)}`);
  for (const key of Object.keys(files)) {
    const outcome = outcomes[key];
    if (!outcome || typeof outcome.sha256 !== "string") throw new Error(`${tool} returned no hash for ${key}`);
    if (outcome.change !== "modified") throw new Error(`${tool} left ${key} ${outcome.change}`);
    // The target repository has a dprint config: an unformatted write means the bench measured less than it claims.
    if (outcome.formatted !== true) throw new Error(`${tool} did not format ${key}: ${outcome.formatNote ?? "no note"}`);
    if (Object.keys(files).length === 1) {
      if (outcome.formatNote?.includes("the changed statements")) formattingPaths.statements++;
      else formattingPaths.wholeFile++;
    }
  }
  return outcomes;
}

interface TimedRun {
  summary: LatencySummary;
  errors: number;
  firstError?: string;
}

function timedRun(samples: number[], errors: number, firstError: string | undefined): TimedRun {
  const run: TimedRun = { summary: summarize(samples), errors };
  if (firstError !== undefined) run.firstError = firstError;
  return run;
}

/** One chained single-line edit stream over one file: the state that carries from call to call. */
class EditChain {
  readonly generations: number[] = Array.from({ length: FUNCTIONS }, () => 0);
  private step = 0;
  constructor(
    readonly absolutePath: string,
    public sha: string,
    private readonly textFor: (generations: readonly number[]) => string = targetFileText,
  ) {}

  /** The next edit: function (step mod 99), its label line from generation g to g+1. */
  next(): { index: number; before: string; after: string; generation: number } {
    const index = this.step++ % FUNCTIONS;
    const generation = this.generations[index] ?? 0;
    return { index, before: labelLine(index, generation), after: labelLine(index, generation + 1), generation };
  }

  commit(index: number): void {
    this.generations[index] = (this.generations[index] ?? 0) + 1;
  }

  /** The disk must hold exactly what the chain expects, byte for byte. */
  verify(label: string): void {
    const text = readFileSync(this.absolutePath, "utf8");
    if (text !== this.textFor(this.generations)) throw new Error(`${label}: the file on disk is not what the edits should have produced`);
    if (this.sha !== "" && sha256(text) !== this.sha) throw new Error(`${label}: the last returned hash does not match the file on disk`);
  }
}

type EditKind = "aider" | "ast";

function patchEntry(kind: EditKind, chain: EditChain, edit: ReturnType<EditChain["next"]>): Record<string, unknown> {
  if (kind === "aider") {
    return { expectedSha256: chain.sha, patchStrategy: "aider_block", aiderBlocks: [{ search: `${edit.before}\n`, replace: `${edit.after}\n` }] };
  }
  return {
    expectedSha256: chain.sha,
    patchStrategy: "ast",
    astRules: [{ pattern: `track("fn${edit.index}", $GEN)`, fix: `track("fn${edit.index}", ${edit.generation + 1})`, expectedMatches: 1 }],
  };
}

/** `count` chained file_patch calls on one file, each timed end to end. */
async function timeOurEdits(client: Client, key: string, kind: EditKind, chain: EditChain, count: number, samples: number[]): Promise<{ errors: number; firstError?: string }> {
  let errors = 0;
  let firstError: string | undefined;
  const deadline = performance.now() + LOOP_MAX_SECONDS * 1000;
  for (let i = 0; i < count && performance.now() < deadline; i++) {
    const edit = chain.next();
    const start = performance.now();
    try {
      const outcomes = await mutate(client, "file_patch", { [key]: patchEntry(kind, chain, edit) });
      samples.push(performance.now() - start);
      chain.sha = outcomes[key]?.sha256 ?? "";
      chain.commit(edit.index);
    } catch (error) {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
      // A failed edit may still have happened (a timeout); a fresh hash keeps the chain going.
      chain.sha = sha256(readFileSync(chain.absolutePath, "utf8"));
      if (readFileSync(chain.absolutePath, "utf8").includes(edit.after)) chain.commit(edit.index);
    }
  }
  return firstError === undefined ? { errors } : { errors, firstError };
}

/** The same edits through the reference server's edit_file (no hashes, no formatting, no journal). */
async function timePeerEdits(client: Client, chain: EditChain, count: number, samples: number[]): Promise<{ errors: number; firstError?: string }> {
  let errors = 0;
  let firstError: string | undefined;
  const deadline = performance.now() + LOOP_MAX_SECONDS * 1000;
  for (let i = 0; i < count && performance.now() < deadline; i++) {
    const edit = chain.next();
    const start = performance.now();
    try {
      const result = await client.callTool(
        { name: "edit_file", arguments: { path: chain.absolutePath, edits: [{ oldText: edit.before, newText: edit.after }] } },
        undefined,
        { timeout: CALL_TIMEOUT_MS },
      );
      if (result.isError) throw new Error(`edit_file failed: ${JSON.stringify(result.content).slice(0, 500)}`);
      samples.push(performance.now() - start);
      chain.commit(edit.index);
    } catch (error) {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
      if (readFileSync(chain.absolutePath, "utf8").includes(edit.after)) chain.commit(edit.index);
    }
  }
  return firstError === undefined ? { errors } : { errors, firstError };
}

/** One batch stream over 50 files: file_patch (one Aider block each) or file_write (whole new content). */
async function timeBatches(
  client: Client,
  tool: "file_patch" | "file_write",
  root: string,
  keys: string[],
  shas: string[],
  generations: number[],
  count: number,
): Promise<TimedRun> {
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const deadline = performance.now() + LOOP_MAX_SECONDS * 1000;
  for (let i = 0; i < count && performance.now() < deadline; i++) {
    const files: Record<string, unknown> = {};
    keys.forEach((key, index) => {
      const generation = generations[index] ?? 0;
      files[key] = tool === "file_patch" ?
        {
          expectedSha256: shas[index],
          patchStrategy: "aider_block",
          aiderBlocks: [{ search: `export const generation${index} = ${generation};\n`, replace: `export const generation${index} = ${generation + 1};\n` }],
        } :
        { expectedSha256: shas[index], content: batchFileText(index, generation + 1) };
    });
    const start = performance.now();
    try {
      const outcomes = await mutate(client, tool, files);
      samples.push(performance.now() - start);
      keys.forEach((key, index) => {
        shas[index] = outcomes[key]?.sha256 ?? "";
        generations[index] = (generations[index] ?? 0) + 1;
      });
    } catch (error) {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
      keys.forEach((key, index) => {
        const text = readFileSync(join(root, key), "utf8");
        shas[index] = sha256(text);
        generations[index] = Number(/export const generation\d+ = (\d+);/.exec(text)?.[1] ?? generations[index]);
      });
    }
  }
  // Every file must hold the last generation the bench asked for.
  keys.forEach((key, index) => {
    const text = readFileSync(join(root, key), "utf8");
    if (text !== batchFileText(index, generations[index] ?? 0)) throw new Error(`${tool} batch: ${key} on disk is not what the batches should have produced`);
  });
  return timedRun(samples, errors, firstError);
}

// ---------------------------------------------------------------- disk state

/**
 * Microseconds (p50, p95) to create one empty file exclusively in `dir` and close it, over
 * PROBE_FILES files removed afterwards. Every edit on either side creates a file, so this shows
 * the state of the disk a run inherits: on some file systems each inode freed in the last minutes
 * (by an earlier run's clean-up, say) makes later creations slower, for both servers alike.
 */
function probeFileCreation(dir: string): { p50Us: number; p95Us: number } {
  const times: number[] = [];
  const made: string[] = [];
  try {
    for (let index = 0; index < PROBE_FILES; index++) {
      const file = join(dir, `.disk-probe-${index}`);
      const started = performance.now();
      closeSync(openSync(file, "wx"));
      times.push((performance.now() - started) * 1000);
      made.push(file);
    }
  } finally {
    for (const file of made) unlinkSync(file);
  }
  const summary = summarize(times);
  return { p50Us: summary.p50, p95Us: summary.p95 };
}

// ---------------------------------------------------------------- server CPU

/** CPU time a server process uses between reset() and perCall() (Linux; undefined elsewhere). */
function cpuMeter(pid: number) {
  let start = readCpuSeconds(pid);
  return {
    reset() {
      start = readCpuSeconds(pid);
    },
    perCall(calls: number): number | undefined {
      const now = readCpuSeconds(pid);
      if (start === undefined || now === undefined || calls === 0) return undefined;
      return ((now - start) * 1000) / calls;
    },
  };
}

function cpuText(msPerCall: number | undefined): string {
  return msPerCall === undefined ? "n/a" : `${msPerCall.toFixed(1)} ms`;
}

// ---------------------------------------------------------------- the phase

export async function runWriteBench(options: WriteOptions): Promise<PhaseReport> {
  const progress = progressFor("write");
  const fixture = await createFixture();
  const stateDir = await mkdtemp(join(tmpdir(), "ast-mcp-bench-state-"));
  const fullJournalStateDir = await mkdtemp(join(tmpdir(), "ast-mcp-bench-state-"));
  const sessions: StdioSession[] = [];
  try {
    const { root } = fixture;
    await writeFile(join(root, "dprint.json"), DPRINT_CONFIG);
    const initial = targetFileText([]);
    const targets = {
      aider: "src/patch-aider.ts",
      ast: "src/patch-ast.ts",
      peer: "src/patch-peer.ts",
      wholeFile: "src/patch-whole-file.ts",
      fullJournal: "src/patch-full-journal.ts",
    } as const;
    for (const key of [targets.aider, targets.ast, targets.peer, targets.fullJournal]) await writeFile(join(root, key), initial);
    await writeFile(join(root, targets.wholeFile), wholeFileTargetText([]));
    await mkdir(join(root, "src", "batch"), { recursive: true });
    const batchKeys = Array.from({ length: BATCH_FILES }, (_, index) => `src/batch/mod${String(index).padStart(2, "0")}.ts`);
    const batchShas: string[] = [];
    for (const [index, key] of batchKeys.entries()) {
      const text = batchFileText(index, 0);
      await writeFile(join(root, key), text);
      batchShas.push(sha256(text));
    }

    const diskProbe = probeFileCreation(join(root, "src"));

    progress("starting ast-mcp and @modelcontextprotocol/server-filesystem");
    const ours = await connectStdioServer(CLI, ["mcp", root], { ...fixture.env, AST_MCP_STATE_DIR: stateDir });
    sessions.push(ours);
    const peer = await connectStdioServer(PEER_FILESYSTEM_SERVER, [root], fixture.env);
    sessions.push(peer);

    const aiderChain = new EditChain(join(root, targets.aider), sha256(initial));
    const astChain = new EditChain(join(root, targets.ast), sha256(initial));
    const peerChain = new EditChain(join(root, targets.peer), "");
    const wholeFileChain = new EditChain(join(root, targets.wholeFile), sha256(wholeFileTargetText([])), wholeFileTargetText);

    // The first guarded write loads dprint's wasm plugin and opens the journal: shown, then kept out of the percentiles.
    const coldStart = performance.now();
    const coldSamples: number[] = [];
    const cold = await timeOurEdits(ours.client, targets.aider, "aider", aiderChain, 1, coldSamples);
    if (cold.errors > 0) throw new Error(`the first file_patch failed: ${cold.firstError}`);
    const coldMs = performance.now() - coldStart;
    await timeOurEdits(ours.client, targets.aider, "aider", aiderChain, options.warmup, []);
    await timeOurEdits(ours.client, targets.ast, "ast", astChain, options.warmup, []);
    await timeOurEdits(ours.client, targets.wholeFile, "aider", wholeFileChain, options.warmup, []);
    formattingPaths.statements = 0;
    formattingPaths.wholeFile = 0;
    await timePeerEdits(peer.client, peerChain, options.warmup, []);

    progress(`single edits: file_patch (aider) vs edit_file, ${options.iterations} each, ${PEER_ROUNDS} alternating rounds`);
    const aiderSamples: number[] = [];
    const peerSamples: number[] = [];
    const aiderErrors: Array<{ errors: number; firstError?: string }> = [];
    const peerErrors: Array<{ errors: number; firstError?: string }> = [];
    const perRound = Math.max(1, Math.ceil(options.iterations / PEER_ROUNDS));
    // Server CPU per call (user + system, all threads): steadier than wall time on a shared machine.
    const serverCpu = cpuMeter(ours.pid);
    for (let round = 0; round < PEER_ROUNDS; round++) {
      aiderErrors.push(await timeOurEdits(ours.client, targets.aider, "aider", aiderChain, perRound, aiderSamples));
      peerErrors.push(await timePeerEdits(peer.client, peerChain, perRound, peerSamples));
    }
    const merged = (list: Array<{ errors: number; firstError?: string }>, samples: number[]): TimedRun =>
      timedRun(
        samples,
        list.reduce((acc, item) => acc + item.errors, 0),
        list.find((item) => item.firstError !== undefined)?.firstError,
      );
    const aiderRun = merged(aiderErrors, aiderSamples);
    const aiderCpuMs = serverCpu.perCall(aiderSamples.length);
    const peerRun = merged(peerErrors, peerSamples);
    aiderChain.verify("file_patch (aider)");
    peerChain.verify("edit_file");

    progress(`single edits: file_patch (ast rule), ${options.iterations}`);
    const astSamples: number[] = [];
    serverCpu.reset();
    const astRun = merged([await timeOurEdits(ours.client, targets.ast, "ast", astChain, options.iterations, astSamples)], astSamples);
    const astCpuMs = serverCpu.perCall(astSamples.length);
    astChain.verify("file_patch (ast)");
    const timedPaths = { ...formattingPaths };

    progress(`single edits formatting the whole file (an ignore comment in the file), ${options.iterations}`);
    const wholeFileSamples: number[] = [];
    serverCpu.reset();
    const wholeFileRun = merged([await timeOurEdits(ours.client, targets.wholeFile, "aider", wholeFileChain, options.iterations, wholeFileSamples)], wholeFileSamples);
    const wholeFileCpuMs = serverCpu.perCall(wholeFileSamples.length);
    wholeFileChain.verify("file_patch (aider, whole-file formatting)");

    // A journal at its limits, as a server used for a while has: every commit prunes the oldest batch.
    progress(`single edits with the journal at its limits (max_batches ${FULL_JOURNAL_BATCHES}), ${options.iterations}`);
    const fullJournal = await connectStdioServer(CLI, ["mcp", root], {
      ...fixture.env,
      AST_MCP_STATE_DIR: fullJournalStateDir,
      AST_MCP_JOURNAL_MAX_BATCHES: String(FULL_JOURNAL_BATCHES),
    });
    sessions.push(fullJournal);
    const fullJournalChain = new EditChain(join(root, targets.fullJournal), sha256(initial));
    await timeOurEdits(fullJournal.client, targets.fullJournal, "aider", fullJournalChain, FULL_JOURNAL_BATCHES + options.warmup, []);
    const fullJournalSamples: number[] = [];
    const fullJournalRun = merged(
      [await timeOurEdits(fullJournal.client, targets.fullJournal, "aider", fullJournalChain, options.iterations, fullJournalSamples)],
      fullJournalSamples,
    );
    fullJournalChain.verify("file_patch (aider, journal at its limits)");

    progress(`${BATCH_FILES}-file batches: file_patch and file_write, ${options.batches} each`);
    const batchGenerations = batchKeys.map(() => 0);
    // One untimed batch each: the first batch pays for opening 50 files' worth of caches.
    await timeBatches(ours.client, "file_patch", root, batchKeys, batchShas, batchGenerations, 1);
    serverCpu.reset();
    const patchBatch = await timeBatches(ours.client, "file_patch", root, batchKeys, batchShas, batchGenerations, options.batches);
    const patchBatchCpuMs = serverCpu.perCall(patchBatch.summary.count + patchBatch.errors);
    serverCpu.reset();
    const writeBatch = await timeBatches(ours.client, "file_write", root, batchKeys, batchShas, batchGenerations, options.batches);
    const writeBatchCpuMs = serverCpu.perCall(writeBatch.summary.count + writeBatch.errors);

    const oursPeakRss = readPeakRss(ours.pid);
    const peerPeakRss = readPeakRss(peer.pid);

    const rows: ResultRow[] = [
      { metric: "first file_patch (loads dprint, opens journal)", value: ms(coldMs), target: "—", verdict: "info" },
      {
        metric: `file_patch aider, 500-line file p50 (n=${aiderRun.summary.count})`,
        value: ms(aiderRun.summary.p50),
        target: `< ${TARGETS.singlePatchP50Ms} ms`,
        verdict: verdict(aiderRun.summary.p50 < TARGETS.singlePatchP50Ms),
      },
      { metric: "file_patch aider p95", value: ms(aiderRun.summary.p95), target: "—", verdict: "info" },
      {
        metric: `file_patch ast rule, 500-line file p50 (n=${astRun.summary.count})`,
        value: ms(astRun.summary.p50),
        target: `< ${TARGETS.singlePatchP50Ms} ms`,
        verdict: verdict(astRun.summary.p50 < TARGETS.singlePatchP50Ms),
      },
      { metric: "file_patch ast rule p95", value: ms(astRun.summary.p95), target: "—", verdict: "info" },
      { metric: "server CPU per file_patch aider / ast rule", value: `${cpuText(aiderCpuMs)} / ${cpuText(astCpuMs)}`, target: "—", verdict: "info" },
      { metric: "timed single edits formatted by changed statements / whole file", value: `${timedPaths.statements} / ${timedPaths.wholeFile}`, target: "—", verdict: "info" },
      {
        metric: `file_patch aider, same file formatting the whole file (dprint-ignore comment) p50 (n=${wholeFileRun.summary.count})`,
        value: ms(wholeFileRun.summary.p50),
        target: "—",
        verdict: "info",
      },
      { metric: "server CPU per whole-file-formatted file_patch", value: cpuText(wholeFileCpuMs), target: "—", verdict: "info" },
      {
        metric: `file_patch aider, journal at its limits (max_batches ${FULL_JOURNAL_BATCHES}) p50 (n=${fullJournalRun.summary.count})`,
        value: ms(fullJournalRun.summary.p50),
        target: "—",
        verdict: "info",
      },
      {
        metric: `file_patch ${BATCH_FILES}-file batch p50 (n=${patchBatch.summary.count})`,
        value: ms(patchBatch.summary.p50),
        target: `< ${TARGETS.batchP50Ms} ms`,
        verdict: verdict(patchBatch.summary.p50 < TARGETS.batchP50Ms),
      },
      { metric: `file_patch ${BATCH_FILES}-file batch p95`, value: ms(patchBatch.summary.p95), target: "—", verdict: "info" },
      {
        metric: `file_write ${BATCH_FILES}-file batch p50 (n=${writeBatch.summary.count})`,
        value: ms(writeBatch.summary.p50),
        target: `< ${TARGETS.batchP50Ms} ms`,
        verdict: verdict(writeBatch.summary.p50 < TARGETS.batchP50Ms),
      },
      { metric: `file_write ${BATCH_FILES}-file batch p95`, value: ms(writeBatch.summary.p95), target: "—", verdict: "info" },
      {
        metric: `server CPU per ${BATCH_FILES}-file batch, file_patch / file_write`,
        value: `${cpuText(patchBatchCpuMs)} / ${cpuText(writeBatchCpuMs)}`,
        target: "—",
        verdict: "info",
      },
      { metric: "peak RSS, ast-mcp (write phase)", value: mb(oursPeakRss), target: "—", verdict: "info" },
      {
        metric: `disk before the run: create one empty file p50 / p95 (n=${PROBE_FILES})`,
        value: `${diskProbe.p50Us.toFixed(0)} / ${diskProbe.p95Us.toFixed(0)} µs`,
        target: "—",
        verdict: "info",
      },
    ];
    const runs = [aiderRun, astRun, wholeFileRun, fullJournalRun, patchBatch, writeBatch];
    const errorCount = runs.reduce((acc, run) => acc + run.errors, 0);
    rows.push({ metric: "write call errors", value: String(errorCount), target: "0", verdict: verdict(errorCount === 0) });

    const notes: string[] = [];
    const firstError = [...runs, peerRun].find((run) => run.firstError !== undefined)?.firstError;
    if (firstError !== undefined) notes.push(`first error: ${firstError}`);
    notes.push("every ast-mcp edit is chained on the previous hash, syntax-checked, dprint-formatted, journaled and fsynced; edit_file does none of these");

    return {
      phase: "write",
      rows,
      peers: [
        {
          title: "peer: @modelcontextprotocol/server-filesystem edit_file, same single-line edit on a copy of the same 500-line file (ratio = ast-mcp / peer)",
          headers: ["comparison", "ast-mcp", "peer", "ratio"],
          rows: [
            ["file_patch aider vs edit_file p50", ms(aiderRun.summary.p50), ms(peerRun.summary.p50), ratioText(aiderRun.summary.p50, peerRun.summary.p50)],
            ["file_patch aider vs edit_file p95", ms(aiderRun.summary.p95), ms(peerRun.summary.p95), ratioText(aiderRun.summary.p95, peerRun.summary.p95)],
            ["peak RSS", mb(oursPeakRss), mb(peerPeakRss), oursPeakRss && peerPeakRss ? ratioText(oursPeakRss, peerPeakRss) : "n/a"],
          ],
        },
      ],
      notes,
      details: {
        targets: TARGETS,
        fixture: { lines: initial.split("\n").length - 1, bytes: Buffer.byteLength(initial), batchFiles: BATCH_FILES, dprintConfig: JSON.parse(DPRINT_CONFIG) },
        coldFirstPatchMs: coldMs,
        diskProbeUs: diskProbe,
        filePatchAider: aiderRun,
        filePatchAst: astRun,
        filePatchAiderFullJournal: fullJournalRun,
        batchFilePatch: patchBatch,
        batchFileWrite: writeBatch,
        peerEditFile: peerRun,
        peakRssBytes: { ours: oursPeakRss ?? null, peer: peerPeakRss ?? null },
        serverCpuMsPerCall: {
          filePatchAider: aiderCpuMs ?? null,
          filePatchAst: astCpuMs ?? null,
          batchFilePatch: patchBatchCpuMs ?? null,
          batchFileWrite: writeBatchCpuMs ?? null,
        },
      },
    };
  } finally {
    for (const session of sessions.reverse()) await session.close().catch(() => {});
    for (const dir of [stateDir, fullJournalStateDir]) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
    await fixture.cleanup();
  }
}

if (import.meta.main) runPhaseMain("write", WRITE_FLAGS, writeOptionsFrom, runWriteBench);
