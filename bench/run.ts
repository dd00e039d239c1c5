/**
 * `npm run bench`: latency, throughput and memory of the built CLI (`node dist/cli.js mcp`),
 * beside the reference filesystem MCP server on the same root. Not a test: it prints a table and
 * writes bench/results/<timestamp>.json and bench/results/latest.json.
 *
 * Options: --calls N (timed sequential calls per latency phase, default 2000), --warmup N (untimed
 * calls first, default 200), --sessions N (concurrent HTTP sessions, default 32), --seconds S
 * (throughput phase, default 10), --peer-calls N (calls per side in the peer comparison, default 1000),
 * --phases core,eras,write,intel,hook,first,retrieval,accuracy (which phases run, default all eight), --strict (exit 1 when a target is missed).
 * The eras phase (bench/eras.ts), the write phase (bench/write.ts), the code-intelligence phase (bench/intel.ts), the hook phase
 * (bench/hook.ts), the first-contact phase (bench/first-contact.ts), the retrieval phase
 * (bench/retrieval.ts) and the call-accuracy phase (bench/accuracy.ts) take their own --write-*,
 * --eras-*, --intel-*, --hook-*, --first-*, --retrieval-* and --accuracy-* options, documented in those files;
 * each also runs alone with `bun bench/<file>.ts`.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  CLI,
  callOk,
  closeHttpSession,
  connectHttp,
  connectStdioServer,
  createFixture,
  expectAnswerContains,
  type Fixture,
  type HttpServer,
  type HttpSession,
  type LatencyRun,
  type LatencySummary,
  machineInfo,
  mb,
  ms,
  measureSequential,
  PEER_FILESYSTEM_SERVER,
  ownCpuSeconds,
  type ResultRow,
  readCpuSeconds,
  readPeakRss,
  readRss,
  serverNodeVersion,
  startHttpServer,
  printPhase,
  type PhaseReport,
  summarize,
  type ToolArgs,
  verdict,
  writeResults,
  positiveInt,
} from "./lib.ts";
import { ACCURACY_FLAGS, accuracyOptionsFrom, runAccuracyBench } from "./accuracy.ts";
import { ERAS_FLAGS, erasOptionsFrom, runErasBench } from "./eras.ts";
import { FIRST_FLAGS, firstOptionsFrom, runFirstContactBench } from "./first-contact.ts";
import { HOOK_FLAGS, hookOptionsFrom, runHookBench } from "./hook.ts";
import { INTEL_FLAGS, intelOptionsFrom, runIntelBench } from "./intel.ts";
import { RETRIEVAL_FLAGS, retrievalOptionsFrom, runRetrievalBench } from "./retrieval.ts";
import { runWriteBench, WRITE_FLAGS, writeOptionsFrom } from "./write.ts";

const TARGETS = {
  stdioP50Ms: 1,
  httpP50Ms: 5,
  throughputCallsPerSecond: 1000,
} as const;

/** A latency phase never runs longer than this, whatever --calls says. */
const PHASE_MAX_SECONDS = 25;
/** Rounds the peer comparison alternates between the two servers, so drift on a busy machine hits both alike. */
const PEER_ROUNDS = 4;
/** How often memory is sampled during the throughput phase. */
const RSS_SAMPLE_MS = 1_000;

const { values: flags } = parseArgs({
  options: {
    calls: { type: "string", default: "2000" },
    warmup: { type: "string", default: "200" },
    sessions: { type: "string", default: "32" },
    seconds: { type: "string", default: "10" },
    "peer-calls": { type: "string", default: "1000" },
    phases: { type: "string", default: "core,eras,write,intel,hook,first,retrieval,accuracy" },
    strict: { type: "boolean", default: false },
    ...ERAS_FLAGS,
    ...WRITE_FLAGS,
    ...INTEL_FLAGS,
    ...HOOK_FLAGS,
    ...FIRST_FLAGS,
    ...RETRIEVAL_FLAGS,
    ...ACCURACY_FLAGS,
  },
});

const PHASES = ["core", "eras", "write", "intel", "hook", "first", "retrieval", "accuracy"] as const;
type Phase = (typeof PHASES)[number];
const selectedPhases = new Set<Phase>(
  flags.phases.split(",").map((name) => {
    const phase = name.trim() as Phase;
    if (!PHASES.includes(phase)) throw new Error(`--phases: unknown phase ${name} (known: ${PHASES.join(", ")})`);
    return phase;
  }),
);

const options = {
  calls: positiveInt("calls", flags.calls),
  warmup: positiveInt("warmup", flags.warmup),
  sessions: positiveInt("sessions", flags.sessions),
  seconds: positiveInt("seconds", flags.seconds),
  peerCalls: positiveInt("peer-calls", flags["peer-calls"]),
  phases: [...selectedPhases],
  eras: erasOptionsFrom(flags),
  write: writeOptionsFrom(flags),
  intel: intelOptionsFrom(flags),
  hook: hookOptionsFrom(flags),
  first: firstOptionsFrom(flags),
  retrieval: retrievalOptionsFrom(flags),
  accuracy: accuracyOptionsFrom(flags),
};

interface ThroughputRun {
  sessions: number;
  seconds: number;
  calls: number;
  errors: number;
  firstError?: string;
  callsPerSecond: number;
  latency: LatencySummary;
  rssSamplesBytes: number[];
  /** CPU the server and this client process used during the phase: shows which side was the bottleneck. */
  serverCpuSeconds: number | null;
  clientCpuSeconds: number;
}

/** Every session calls in a loop until the deadline; calls in flight then are allowed to finish and count. */
async function measureThroughput(server: HttpServer, name: string, args: ToolArgs, sessionCount: number, seconds: number): Promise<ThroughputRun> {
  const sessions: HttpSession[] = [];
  try {
    for (let i = 0; i < sessionCount; i++) sessions.push(await connectHttp(server.url));
    // One untimed call per session so connection setup stays out of the measurement.
    await Promise.all(sessions.map((session) => callOk(session.client, name, args)));

    const samples: number[] = [];
    let errors = 0;
    let firstError: string | undefined;
    const rssSamplesBytes: number[] = [];
    const sampler = setInterval(() => {
      const rss = readRss(server.pid);
      if (rss !== undefined) rssSamplesBytes.push(rss);
    }, RSS_SAMPLE_MS);

    const serverCpuBefore = readCpuSeconds(server.pid);
    const clientCpuBefore = ownCpuSeconds();
    const start = performance.now();
    const deadline = start + seconds * 1000;
    await Promise.all(
      sessions.map(async (session) => {
        while (performance.now() < deadline) {
          const callStart = performance.now();
          try {
            await callOk(session.client, name, args);
            samples.push(performance.now() - callStart);
          } catch (error) {
            errors++;
            firstError ??= error instanceof Error ? error.message : String(error);
          }
        }
      }),
    );
    const elapsedSeconds = (performance.now() - start) / 1000;
    clearInterval(sampler);
    const serverCpuAfter = readCpuSeconds(server.pid);
    const clientCpuSeconds = ownCpuSeconds() - clientCpuBefore;

    const run: ThroughputRun = {
      sessions: sessionCount,
      seconds: elapsedSeconds,
      calls: samples.length,
      errors,
      callsPerSecond: samples.length / elapsedSeconds,
      latency: summarize(samples),
      rssSamplesBytes,
      serverCpuSeconds: serverCpuBefore === undefined || serverCpuAfter === undefined ? null : serverCpuAfter - serverCpuBefore,
      clientCpuSeconds,
    };
    if (firstError !== undefined) run.firstError = firstError;
    return run;
  } finally {
    await Promise.allSettled(sessions.map((session) => closeHttpSession(session)));
  }
}

/** Runs the same call against two servers in alternating blocks and merges each side's samples. */
async function measurePair(
  ours: { client: Client; name: string; args: ToolArgs },
  peer: { client: Client; name: string; args: ToolArgs },
): Promise<{ ours: LatencyRun; peer: LatencyRun }> {
  const perRound = Math.max(1, Math.ceil(options.peerCalls / PEER_ROUNDS));
  const runs = { ours: [] as LatencyRun[], peer: [] as LatencyRun[] };
  for (let round = 0; round < PEER_ROUNDS; round++) {
    const warmupCalls = round === 0 ? options.warmup : 0;
    const maxSeconds = PHASE_MAX_SECONDS / PEER_ROUNDS;
    runs.ours.push(await measureSequential(ours.client, ours.name, ours.args, { warmupCalls, count: perRound, maxSeconds }));
    runs.peer.push(await measureSequential(peer.client, peer.name, peer.args, { warmupCalls, count: perRound, maxSeconds }));
  }
  const merge = (list: LatencyRun[]): LatencyRun => {
    const samples = list.flatMap((run) => run.samples);
    const merged: LatencyRun = { summary: summarize(samples), samples, errors: list.reduce((acc, run) => acc + run.errors, 0) };
    const firstError = list.find((run) => run.firstError !== undefined)?.firstError;
    if (firstError !== undefined) merged.firstError = firstError;
    return merged;
  };
  return { ours: merge(runs.ours), peer: merge(runs.peer) };
}

function withoutSamples(run: LatencyRun): Omit<LatencyRun, "samples"> {
  const { samples: _samples, ...rest } = run;
  return rest;
}

function latencyRows(label: string, run: LatencyRun, p50TargetMs: number | undefined): ResultRow[] {
  const { summary } = run;
  const target = p50TargetMs === undefined ? "—" : `< ${p50TargetMs} ms`;
  return [
    { metric: `${label} p50 (n=${summary.count})`, value: ms(summary.p50), target, verdict: verdict(p50TargetMs === undefined ? undefined : summary.p50 < p50TargetMs) },
    { metric: `${label} p95`, value: ms(summary.p95), target: "—", verdict: "info" },
    { metric: `${label} p99`, value: ms(summary.p99), target: "—", verdict: "info" },
  ];
}

/** The transport phase: file_hash/file_read latency over stdio and HTTP, HTTP throughput, the filesystem peer. */
async function runCorePhase(): Promise<PhaseReport> {
  const fixture: Fixture = await createFixture();
  const cleanups: Array<() => Promise<void>> = [fixture.cleanup];
  const hashArgs = { filePaths: [fixture.file] };
  const readArgs = { files: [{ filePath: fixture.file }] };
  // A line without quotes, so it reads the same inside JSON text.
  const lineNeedle = "export function step12(input: string): string {";
  const details: Record<string, unknown> = {};
  const rows: ResultRow[] = [];
  const progress = (text: string): void => void process.stderr.write(`bench: ${text}\n`);

  try {
    // -------- stdio: ours, then the peer comparison on the same session
    progress("stdio: starting ast-mcp");
    const stdio = await connectStdioServer(CLI, ["mcp", fixture.root], fixture.env);
    cleanups.push(stdio.close);
    await expectAnswerContains(stdio.client, "file_hash", hashArgs, fixture.sha256);
    await expectAnswerContains(stdio.client, "file_read", readArgs, lineNeedle);
    progress(`stdio: ${options.calls} file_hash calls`);
    const stdioHash = await measureSequential(stdio.client, "file_hash", hashArgs, { warmupCalls: options.warmup, count: options.calls, maxSeconds: PHASE_MAX_SECONDS });
    rows.push(...latencyRows("stdio file_hash", stdioHash, TARGETS.stdioP50Ms));
    details.stdioFileHash = withoutSamples(stdioHash);

    progress("peer: starting @modelcontextprotocol/server-filesystem");
    const peer = await connectStdioServer(PEER_FILESYSTEM_SERVER, [fixture.root], fixture.env);
    cleanups.push(peer.close);
    const peerReadArgs = { path: fixture.file };
    await expectAnswerContains(peer.client, "read_text_file", peerReadArgs, lineNeedle);
    await expectAnswerContains(peer.client, "get_file_info", peerReadArgs, "size");
    progress(`peer: file_read vs read_text_file, file_hash vs get_file_info (${options.peerCalls} calls each side)`);
    const readPair = await measurePair(
      { client: stdio.client, name: "file_read", args: readArgs },
      { client: peer.client, name: "read_text_file", args: peerReadArgs },
    );
    const infoPair = await measurePair(
      { client: stdio.client, name: "file_hash", args: hashArgs },
      { client: peer.client, name: "get_file_info", args: peerReadArgs },
    );
    const stdioPeakRss = readPeakRss(stdio.pid);
    const peerPeakRss = readPeakRss(peer.pid);
    await stdio.close();
    await peer.close();

    // -------- HTTP with SSE responses (the default): one session, then many
    progress("http (sse): starting ast-mcp");
    const sseServer = await startHttpServer(fixture.root, fixture.env);
    cleanups.push(sseServer.stop);
    const sseSession = await connectHttp(sseServer.url);
    await expectAnswerContains(sseSession.client, "file_hash", hashArgs, fixture.sha256);
    progress(`http (sse): ${options.calls} file_hash calls on one session`);
    const sseHash = await measureSequential(sseSession.client, "file_hash", hashArgs, { warmupCalls: options.warmup, count: options.calls, maxSeconds: PHASE_MAX_SECONDS });
    await closeHttpSession(sseSession);
    rows.push(...latencyRows("http sse file_hash", sseHash, TARGETS.httpP50Ms));
    details.httpSseFileHash = withoutSamples(sseHash);

    progress(`http (sse): ${options.sessions} sessions calling file_hash for ${options.seconds} s`);
    const throughput = await measureThroughput(sseServer, "file_hash", hashArgs, options.sessions, options.seconds);
    rows.push(
      {
        metric: `http throughput, ${throughput.sessions} sessions`,
        value: `${throughput.callsPerSecond.toFixed(0)} calls/s`,
        target: `≥ ${TARGETS.throughputCallsPerSecond} calls/s`,
        verdict: verdict(throughput.callsPerSecond >= TARGETS.throughputCallsPerSecond),
      },
      { metric: "http latency under load p50", value: ms(throughput.latency.p50), target: "—", verdict: "info" },
      { metric: "http latency under load p99", value: ms(throughput.latency.p99), target: "—", verdict: "info" },
      {
        metric: "http load: server / client CPU busy",
        value: `${throughput.serverCpuSeconds === null ? "n/a" : `${Math.round((100 * throughput.serverCpuSeconds) / throughput.seconds)}%`} / ${
          Math.round((100 * throughput.clientCpuSeconds) / throughput.seconds)
        }%`,
        target: "—",
        verdict: "info",
      },
    );
    const ssePeakRss = readPeakRss(sseServer.pid);
    details.httpThroughput = { ...throughput, peakRssBytes: ssePeakRss ?? null };
    await sseServer.stop();

    // -------- HTTP with plain JSON responses
    progress("http (json): starting ast-mcp --json-response");
    const jsonServer = await startHttpServer(fixture.root, fixture.env, ["--json-response"]);
    cleanups.push(jsonServer.stop);
    const jsonSession = await connectHttp(jsonServer.url);
    await expectAnswerContains(jsonSession.client, "file_hash", hashArgs, fixture.sha256);
    progress(`http (json): ${options.calls} file_hash calls on one session`);
    const jsonHash = await measureSequential(jsonSession.client, "file_hash", hashArgs, { warmupCalls: options.warmup, count: options.calls, maxSeconds: PHASE_MAX_SECONDS });
    await closeHttpSession(jsonSession);
    const jsonPeakRss = readPeakRss(jsonServer.pid);
    await jsonServer.stop();
    rows.push(...latencyRows("http json file_hash", jsonHash, TARGETS.httpP50Ms));
    details.httpJsonFileHash = withoutSamples(jsonHash);

    // -------- memory
    rows.push(
      { metric: "peak RSS, stdio server", value: mb(stdioPeakRss), target: "—", verdict: "info" },
      { metric: `peak RSS, http server (after ${throughput.sessions}-session load)`, value: mb(ssePeakRss), target: "—", verdict: "info" },
      { metric: "peak RSS, http --json-response server", value: mb(jsonPeakRss), target: "—", verdict: "info" },
    );

    // -------- errors across every phase: a fast wrong answer does not count
    const allRuns = [stdioHash, sseHash, jsonHash, readPair.ours, infoPair.ours];
    const errorCount = allRuns.reduce((acc, run) => acc + run.errors, 0) + throughput.errors;
    const firstError = [...allRuns.map((run) => run.firstError), throughput.firstError].find((text) => text !== undefined);
    rows.push({ metric: "ast-mcp call errors (all phases)", value: String(errorCount), target: "0", verdict: verdict(errorCount === 0) });

    // -------- peer comparison
    const ratio = (a: number, b: number): string => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "n/a");
    const peerTable = [
      ["file_read vs read_text_file p50", ms(readPair.ours.summary.p50), ms(readPair.peer.summary.p50), ratio(readPair.ours.summary.p50, readPair.peer.summary.p50)],
      ["file_read vs read_text_file p95", ms(readPair.ours.summary.p95), ms(readPair.peer.summary.p95), ratio(readPair.ours.summary.p95, readPair.peer.summary.p95)],
      ["file_hash vs get_file_info p50", ms(infoPair.ours.summary.p50), ms(infoPair.peer.summary.p50), ratio(infoPair.ours.summary.p50, infoPair.peer.summary.p50)],
      ["file_hash vs get_file_info p95", ms(infoPair.ours.summary.p95), ms(infoPair.peer.summary.p95), ratio(infoPair.ours.summary.p95, infoPair.peer.summary.p95)],
      ["peak RSS (stdio)", mb(stdioPeakRss), mb(peerPeakRss), stdioPeakRss && peerPeakRss ? ratio(stdioPeakRss, peerPeakRss) : "n/a"],
    ];
    details.peer = {
      server: "@modelcontextprotocol/server-filesystem",
      fileReadVsReadTextFile: { ours: withoutSamples(readPair.ours), peer: withoutSamples(readPair.peer) },
      fileHashVsGetFileInfo: { ours: withoutSamples(infoPair.ours), peer: withoutSamples(infoPair.peer) },
      peakRssBytes: { ours: stdioPeakRss ?? null, peer: peerPeakRss ?? null },
    };

    const notes: string[] = [];
    if (firstError !== undefined) notes.push(`first error: ${firstError}`);
    if (process.platform !== "linux") notes.push("RSS is read from /proc and is n/a on this platform.");
    return {
      phase: "core",
      rows,
      peers: [
        {
          title: "peer: @modelcontextprotocol/server-filesystem over stdio, same root and file (ratio = ast-mcp / peer; < 1 is faster)",
          headers: ["comparison", "ast-mcp", "peer", "ratio"],
          rows: peerTable,
        },
      ],
      notes,
      details: { targets: TARGETS, ...details },
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

async function main(): Promise<number> {
  if (!existsSync(CLI)) {
    console.error(`bench: ${CLI} is missing; run \`npm run build\` (or \`npm run bench\`, which builds first).`);
    return 1;
  }
  const startedAt = new Date();
  const reports: PhaseReport[] = [];
  if (selectedPhases.has("core")) reports.push(await runCorePhase());
  if (selectedPhases.has("eras")) reports.push(await runErasBench(options.eras));
  if (selectedPhases.has("write")) reports.push(await runWriteBench(options.write));
  if (selectedPhases.has("intel")) reports.push(await runIntelBench(options.intel));
  if (selectedPhases.has("hook")) reports.push(await runHookBench(options.hook));
  if (selectedPhases.has("first")) reports.push(await runFirstContactBench(options.first));
  if (selectedPhases.has("retrieval")) reports.push(await runRetrievalBench(options.retrieval));
  if (selectedPhases.has("accuracy")) reports.push(await runAccuracyBench(options.accuracy));

  const finishedAt = new Date();
  console.log(`\nast-mcp benchmark — ${finishedAt.toISOString()} (${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(1)} s)`);
  for (const report of reports) printPhase(report);

  const core = reports.find((report) => report.phase === "core");
  const path = await writeResults("", {
    kind: "bench",
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    machine: { ...machineInfo(), serverRuntime: `node ${await serverNodeVersion()}` },
    options,
    targets: TARGETS,
    // The transport phase keeps its fields where earlier result files had them.
    rows: core?.rows ?? [],
    peerComparison: (core?.peers[0]?.rows ?? []).map(([comparison, ours, peerValue, ratio]) => ({ comparison, ours, peer: peerValue, ratio })),
    details: core?.details ?? {},
    phases: Object.fromEntries(reports.map((report) => [report.phase, report])),
  });
  console.log(`\nresults: ${path}`);
  const missed = reports.flatMap((report) => report.rows).filter((row) => row.verdict === "FAIL").length;
  if (missed > 0) console.log(`${missed} target(s) missed`);
  return flags.strict && missed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
