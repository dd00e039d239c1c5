/**
 * Shared measuring code for the benchmark (bench/run.ts) and the soak (bench/soak.ts):
 * percentiles, process memory, a fixture root, spawning the built CLI, tables and result files.
 * The clients run here (under Bun); every server runs as its own Node process so its memory is its own.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DEFAULT_CONFIG } from "../src/config/schema.ts";
import { serverEnvironment } from "../src/hosts/targets.ts";
import { DEFAULT_INDEX_TUNING } from "../src/intel/index/index.ts";
import { languageFromPath, parseTreeAsync } from "../src/syntax/index.ts";

export const PROJECT_DIR = join(import.meta.dir, "..");
/** The built CLI; AST_MCP_BENCH_CLI points the bench at another build (say, a previous release) to compare. */
export const CLI = process.env.AST_MCP_BENCH_CLI ?? join(PROJECT_DIR, "dist", "cli.js");
export const RESULTS_DIR = join(import.meta.dir, "results");
export const PEER_FILESYSTEM_SERVER = join(PROJECT_DIR, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");

/** No single call may hang a run: a call slower than this counts as an error. */
export const CALL_TIMEOUT_MS = 15_000;
/** A server that has not said where it listens by then failed to start. */
const START_TIMEOUT_MS = 20_000;
/** Bytes of a server's stderr kept for error messages; the rest is drained and dropped. */
const STDERR_TAIL_CHARS = 8_000;

// ---------------------------------------------------------------- statistics

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array (p in 0..100). */
export function percentile(sortedAscending: readonly number[], p: number): number {
  if (sortedAscending.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sortedAscending.length);
  const index = Math.min(sortedAscending.length - 1, Math.max(0, rank - 1));
  return sortedAscending[index] as number;
}

export function summarize(samplesMs: readonly number[]): LatencySummary {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((acc, value) => acc + value, 0);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

/** Least-squares slope of y over x (units of y per unit of x); NaN with fewer than two points. */
export function slope(points: ReadonlyArray<{ x: number; y: number }>): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const meanX = points.reduce((acc, p) => acc + p.x, 0) / n;
  const meanY = points.reduce((acc, p) => acc + p.y, 0) / n;
  let numerator = 0;
  let denominator = 0;
  for (const p of points) {
    numerator += (p.x - meanX) * (p.y - meanY);
    denominator += (p.x - meanX) ** 2;
  }
  return denominator === 0 ? Number.NaN : numerator / denominator;
}

// ---------------------------------------------------------------- process memory

/** Reads a kB field of /proc/<pid>/status as bytes; undefined where /proc is absent or the process is gone. */
function procStatusBytes(pid: number, field: "VmRSS" | "VmHWM"): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Current resident set size of a process in bytes (Linux only). */
export function readRss(pid: number): number | undefined {
  return procStatusBytes(pid, "VmRSS");
}

/** Peak resident set size ("high water mark") of a process in bytes (Linux only). */
export function readPeakRss(pid: number): number | undefined {
  return procStatusBytes(pid, "VmHWM");
}

/** Linux reports process CPU time in clock ticks; USER_HZ is 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU seconds a process has used so far (Linux only). */
export function readCpuSeconds(pid: number): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses; the fields after its closing ")" are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const userTicks = Number(fields[11]);
    const systemTicks = Number(fields[12]);
    return Number.isFinite(userTicks + systemTicks) ? (userTicks + systemTicks) / CLOCK_TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

/** CPU seconds this (client) process has used so far. */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

export function megabytes(bytes: number | undefined): number | undefined {
  return bytes === undefined ? undefined : bytes / (1024 * 1024);
}

// ---------------------------------------------------------------- fixture and environment

/** A small TypeScript file: the kind of file an agent hashes and reads all day. */
function sampleSource(): string {
  const lines = ["// A small module the benchmark hashes and reads.", "import { createHash } from \"node:crypto\";", ""];
  for (let i = 1; i <= 12; i++) {
    lines.push(`export function step${i}(input: string): string {`, `  return createHash("sha256").update(input + "${i}").digest("hex");`, "}", "");
  }
  return lines.join("\n");
}

export interface Fixture {
  root: string;
  /** Absolute path of the small file every call names. */
  file: string;
  text: string;
  sha256: string;
  /** An isolated HOME/XDG environment so no user configuration leaks into a measurement. */
  env: Record<string, string>;
  cleanup: () => Promise<void>;
}

export async function createFixture(): Promise<Fixture> {
  const base = await realpath(await mkdtemp(join(tmpdir(), "ast-mcp-bench-")));
  const root = join(base, "root");
  const home = join(base, "home");
  await mkdir(join(root, "src"), { recursive: true });
  await mkdir(home, { recursive: true });
  const text = sampleSource();
  const file = join(root, "src", "sample.ts");
  await writeFile(file, text);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    AST_MCP_LOG_LEVEL: "warn",
    // What installed entries start the server with (src/hosts/targets.ts).
    ...serverEnvironment(process.platform),
  };
  return {
    root,
    file,
    text,
    sha256: createHash("sha256").update(text).digest("hex"),
    env,
    cleanup: () => rm(base, { recursive: true, force: true, maxRetries: 5 }),
  };
}

// ---------------------------------------------------------------- servers and clients

export const CLIENT_INFO = { name: "ast-mcp-bench", version: "0.0.0" };

/** A stdio server the bench talks to through one client. */
export interface StdioSession {
  client: Client;
  pid: number;
  stderr: () => string;
  close: () => Promise<void>;
}

function keepTail(onText: (append: (chunk: Buffer) => void) => void): () => string {
  let tail = "";
  onText((chunk) => {
    tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
  });
  return () => tail;
}

/** Spawns `node <script> ...args` as a stdio MCP server and connects one client to it. */
export async function connectStdioServer(script: string, args: readonly string[], env: Record<string, string>): Promise<StdioSession> {
  const transport = new StdioClientTransport({ command: "node", args: [script, ...args], env, cwd: PROJECT_DIR, stderr: "pipe" });
  const stderr = keepTail((append) => transport.stderr?.on("data", append));
  const client = new Client(CLIENT_INFO);
  try {
    await client.connect(transport);
  } catch (error) {
    await transport.close().catch(() => {});
    throw new Error(`stdio server ${script} did not start: ${error instanceof Error ? error.message : String(error)}\n${stderr()}`);
  }
  const pid = transport.pid;
  if (pid === null) throw new Error(`stdio server ${script} has no pid`);
  return { client, pid, stderr, close: () => client.close() };
}

/** An ast-mcp HTTP server process. */
export interface HttpServer {
  url: string;
  pid: number;
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Starts `node dist/cli.js mcp --transport http --port 0 ...` (or another build's CLI) and waits for the line that names its URL. */
export async function startHttpServer(root: string, env: Record<string, string>, extraArgs: readonly string[] = [], cli = CLI): Promise<HttpServer> {
  const child = spawn("node", [cli, "mcp", "--transport", "http", "--host", "127.0.0.1", "--port", "0", ...extraArgs, root], {
    env: { ...env, AST_MCP_LOG_LEVEL: "info" },
    cwd: PROJECT_DIR,
    stdio: "pipe",
  });
  child.stdin.end();
  child.stdout.resume();
  const stderr = keepTail((append) => child.stderr.on("data", append));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`HTTP server did not start within ${START_TIMEOUT_MS} ms:\n${stderr()}`)), START_TIMEOUT_MS);
    const onData = (): void => {
      const match = /listening on (http:\/\/\S+)/.exec(stderr());
      if (match?.[1]) {
        clearTimeout(timer);
        child.stderr.off("data", onData);
        resolve(match[1]);
      }
    };
    child.stderr.on("data", onData);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`HTTP server exited (${code ?? signal}) before listening:\n${stderr()}`));
    });
  });
  if (child.pid === undefined) throw new Error("HTTP server has no pid");
  const pid = child.pid;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killTimer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killTimer);
  };
  return { url, pid, child, stderr, stop };
}

export interface HttpSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

export async function connectHttp(url: string): Promise<HttpSession> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return { client, transport };
}

/** Ends a session the way a polite client does: DELETE, then close the transport. */
export async function closeHttpSession(session: HttpSession): Promise<void> {
  try {
    await session.transport.terminateSession();
  } finally {
    await session.client.close();
  }
}

// ---------------------------------------------------------------- calls

export type ToolArgs = Record<string, unknown>;

/** Calls a tool and throws unless it succeeded; returns the result for callers that check its content. */
export async function callOk(client: Client, name: string, args: ToolArgs): Promise<unknown> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 500)}`);
  return result;
}

/** Fails loudly when a tool answers but not with what the file holds: a fast wrong answer is no benchmark. */
export async function expectAnswerContains(client: Client, name: string, args: ToolArgs, needle: string): Promise<void> {
  const result = await callOk(client, name, args);
  if (!JSON.stringify(result).includes(needle)) {
    throw new Error(`${name} answered without ${JSON.stringify(needle.slice(0, 60))}: ${JSON.stringify(result).slice(0, 500)}`);
  }
}

export interface LatencyRun {
  summary: LatencySummary;
  /** Raw samples in milliseconds, for merging interleaved runs. */
  samples: number[];
  errors: number;
  firstError?: string;
}

/**
 * Times `count` sequential calls after `warmupCalls` untimed ones.
 * Bounded by count and by `maxSeconds`, whichever comes first.
 */
export async function measureSequential(
  client: Client,
  name: string,
  args: ToolArgs,
  options: { warmupCalls: number; count: number; maxSeconds: number },
): Promise<LatencyRun> {
  for (let i = 0; i < options.warmupCalls; i++) await callOk(client, name, args);
  const samples: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const deadline = performance.now() + options.maxSeconds * 1000;
  for (let i = 0; i < options.count && performance.now() < deadline; i++) {
    const start = performance.now();
    try {
      await callOk(client, name, args);
      samples.push(performance.now() - start);
    } catch (error) {
      errors++;
      firstError ??= error instanceof Error ? error.message : String(error);
    }
  }
  const run: LatencyRun = { summary: summarize(samples), samples, errors };
  if (firstError !== undefined) run.firstError = firstError;
  return run;
}

// ---------------------------------------------------------------- source trees

/** Directories the corpus walk never enters (the index skips them too). */
const SKIPPED_DIRS = new Set(["node_modules", "vendor", "dist", "build", "target", ".git"]);

/** Every file of the corpus language, relative to the root, sorted (the index's own skips applied). */
export async function corpusFiles(root: string, extension: string): Promise<Array<{ path: string; size: number }>> {
  const found: Array<{ path: string; size: number }> = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry.name)) await walk(path);
      } else if (entry.isFile() && entry.name.endsWith(extension) && !entry.name.endsWith(".d.ts")) {
        found.push({ path: relative(root, path), size: (await stat(path)).size });
      }
    }
  };
  await walk(root);
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The parse-only ceiling: every file of the corpus's language parsed on the thread pool with as
 * many in flight as the index keeps, nothing extracted (in the bench process, which loads the same
 * napi parsers; reads are done first and not timed). Cold-index throughput can reach this at most.
 */
export async function parseCeiling(
  root: string,
  files: ReadonlyArray<{ path: string; size: number }>,
): Promise<{ bytes: number; wallMs: number; cpuSeconds: number; files: number }> {
  const inputs: Array<{ language: string; text: string }> = [];
  let bytes = 0;
  for (const file of files) {
    if (file.size > DEFAULT_CONFIG.index.max_file_bytes) continue;
    const language = languageFromPath(file.path);
    if (language === null) continue;
    inputs.push({ language, text: await readFile(join(root, file.path), "utf8") });
    bytes += file.size;
  }
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  await Promise.all(
    Array.from({ length: DEFAULT_INDEX_TUNING.concurrency }, async () => {
      while (next < inputs.length) {
        const input = inputs[next++]!;
        await parseTreeAsync(input.language, input.text);
      }
    }),
  );
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return { bytes, wallMs, cpuSeconds: (cpu.user + cpu.system) / 1e6, files: inputs.length };
}

// ---------------------------------------------------------------- reporting

export type Verdict = "pass" | "FAIL" | "info";

export interface ResultRow {
  metric: string;
  value: string;
  target: string;
  verdict: Verdict;
}

export function verdict(ok: boolean | undefined): Verdict {
  return ok === undefined ? "info" : ok ? "pass" : "FAIL";
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  return value < 10 ? `${value.toFixed(3)} ms` : `${value.toFixed(1)} ms`;
}

export function mb(bytes: number | undefined): string {
  const value = megabytes(bytes);
  return value === undefined ? "n/a" : `${value.toFixed(1)} MB`;
}

/** Prints rows as an aligned plain-text table. */
export function printTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): void {
  const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]): string => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ").trimEnd();
  console.log(line(headers));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(line(row));
}

export function printResultRows(rows: readonly ResultRow[]): void {
  printTable(
    ["metric", "value", "target", "result"],
    rows.map((row) => [row.metric, row.value, row.target, row.verdict]),
  );
}

/** Facts about the machine a result came from, so numbers from different runs can be compared honestly. */
export function machineInfo(): Record<string, unknown> {
  const cpuList = cpus();
  return {
    platform: process.platform,
    arch: process.arch,
    cpuModel: cpuList[0]?.model ?? "unknown",
    cpuCount: cpuList.length,
    // Other work on the machine skews every number; a high load average says to distrust this run.
    loadAverage1m: Number(loadavg()[0]?.toFixed(2)),
    clientRuntime: typeof Bun === "undefined" ? `node ${process.version}` : `bun ${Bun.version}`,
  };
}

/** Writes `<prefix><timestamp>.json` and `<prefix>latest.json` under bench/results/; returns the timestamped path. */
export async function writeResults(prefix: string, data: unknown): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const text = `${JSON.stringify(data, null, 2)}\n`;
  const path = join(RESULTS_DIR, `${prefix}${stamp}.json`);
  await writeFile(path, text);
  await writeFile(join(RESULTS_DIR, `${prefix}latest.json`), text);
  return path;
}

/** `node --version` of the runtime the servers use. */
export async function serverNodeVersion(): Promise<string> {
  const child = spawn("node", ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  await new Promise<void>((resolve) => child.once("close", () => resolve()));
  return out.trim();
}

// ---------------------------------------------------------------- phases

/** A side-by-side comparison with a peer tool measured in the same run. */
export interface PeerTable {
  title: string;
  headers: string[];
  rows: string[][];
}

/** What one benchmark phase (bench/write.ts, bench/intel.ts) hands back to bench/run.ts or prints alone. */
export interface PhaseReport {
  phase: string;
  rows: ResultRow[];
  peers: PeerTable[];
  notes: string[];
  details: Record<string, unknown>;
}

/** "1.23×" for a / b, "n/a" when either side is missing. */
export function ratioText(a: number, b: number): string {
  return Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : "n/a";
}

export function printPhase(report: PhaseReport): void {
  console.log(`\n[${report.phase}]\n`);
  if (report.rows.length > 0) printResultRows(report.rows);
  for (const peer of report.peers) {
    console.log(`\n${peer.title}\n`);
    printTable(peer.headers, peer.rows);
  }
  for (const note of report.notes) console.log(`note: ${note}`);
}

/** Runs a phase on its own (`bun bench/<phase>.ts`): prints it and writes bench/results/<phase>-<timestamp>.json. */
/** A phase run as its own script (`bun bench/<phase>.ts [flags] [--strict]`): parses its flags, runs it, reports, and exits (1 on a failure, or with --strict on a missed target). */
export function runPhaseMain<Options>(
  phase: string,
  flags: NonNullable<ParseArgsConfig["options"]>,
  optionsFrom: (values: Record<string, unknown>) => Options,
  run: (options: Options) => Promise<PhaseReport>,
): void {
  const { values } = parseArgs({ options: { ...flags, strict: { type: "boolean", default: false } } });
  const options = optionsFrom(values);
  runPhaseAlone(phase, options, () => run(options), values.strict === true).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`bench ${phase} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}

async function runPhaseAlone(phase: string, options: unknown, run: () => Promise<PhaseReport>, strict: boolean): Promise<number> {
  if (!existsSync(CLI)) {
    console.error(`bench: ${CLI} is missing; run \`npm run build\` first.`);
    return 1;
  }
  const startedAt = new Date();
  const report = await run();
  const finishedAt = new Date();
  console.log(`\nast-mcp benchmark, phase ${phase} — ${finishedAt.toISOString()} (${((finishedAt.getTime() - startedAt.getTime()) / 1000).toFixed(1)} s)`);
  printPhase(report);
  const path = await writeResults(`${phase}-`, {
    kind: `bench-${phase}`,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    machine: { ...machineInfo(), serverRuntime: `node ${await serverNodeVersion()}` },
    options,
    report,
  });
  console.log(`\nresults: ${path}`);
  const missed = report.rows.filter((row) => row.verdict === "FAIL").length;
  if (missed > 0) console.log(`${missed} target(s) missed`);
  return strict && missed > 0 ? 1 : 0;
}

/** Sends a phase's progress to stderr so stdout keeps only the tables. */
export function progressFor(phase: string): (text: string) => void {
  return (text) => void process.stderr.write(`bench ${phase}: ${text}\n`);
}

/** A command-line count: a whole number of at least 1, named in the error by its flag. */
export function positiveInt(name: string, value: unknown): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new Error(`--${name} must be a positive whole number`);
  return number;
}
