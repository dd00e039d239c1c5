/**
 * `bun bench/eras.ts`: what serving two protocol eras costs. Per-call latency (file_hash, sequential) over
 * stdio and HTTP, and HTTP throughput with --eras-clients concurrent clients, for a 2025-11-25 client (the
 * 1.x SDK, one session each) and a 2026-07-28 client (the v2 SDK, stateless: a fresh server per HTTP
 * request), side by side. With --eras-baseline-cli <dist/cli.js of another build> the same 2025-11-25
 * measurements run against that build too, interleaved round by round with ours, so the table's ratios
 * compare builds under the same load (only ratios within one run mean anything on a shared machine).
 * Over stdio the same calls also run against the SDK floor (bench/sdk-floor-server.mjs: a bare server of
 * each SDK line answering a constant), and the server's CPU per call is read from /proc where there is
 * one, so the report separates what the SDK and Node cost per call from what ast-mcp adds on top.
 *
 * Options: --eras-calls N (sequential calls per configuration and round, default 300), --eras-rounds N
 * (alternating rounds, default 4), --eras-clients N (default 32), --eras-seconds S (per throughput run,
 * default 5), --eras-baseline-cli PATH.
 */
import { join } from "node:path";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernStdioTransport } from "@modelcontextprotocol/client/stdio";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as LegacyStdioTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as LegacyHttpTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CALL_TIMEOUT_MS,
  CLI,
  createFixture,
  type HttpServer,
  type PhaseReport,
  PROJECT_DIR,
  positiveInt,
  progressFor,
  ratioText,
  readCpuSeconds,
  type ResultRow,
  runPhaseMain,
  startHttpServer,
  summarize,
} from "./lib.ts";

export const ERAS_FLAGS = {
  "eras-calls": { type: "string", default: "300" },
  "eras-rounds": { type: "string", default: "4" },
  "eras-clients": { type: "string", default: "32" },
  "eras-seconds": { type: "string", default: "5" },
  "eras-baseline-cli": { type: "string" },
} as const;

export interface ErasOptions {
  calls: number;
  rounds: number;
  clients: number;
  seconds: number;
  baselineCli: string | undefined;
}

export function erasOptionsFrom(values: Record<string, unknown>): ErasOptions {
  return {
    calls: positiveInt("eras-calls", values["eras-calls"]),
    rounds: positiveInt("eras-rounds", values["eras-rounds"]),
    clients: positiveInt("eras-clients", values["eras-clients"]),
    seconds: positiveInt("eras-seconds", values["eras-seconds"]),
    baselineCli: typeof values["eras-baseline-cli"] === "string" ? values["eras-baseline-cli"] : undefined,
  };
}

/** One connected client of either SDK, reduced to what the bench does with it. */
interface Caller {
  /** The server process over stdio, whose CPU time the bench reads. */
  pid: number | undefined;
  call(name: string, args: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

type Era = "legacy" | "modern";
type Wire = { kind: "stdio"; args: string[]; env: Record<string, string> } | { kind: "http"; url: string };

const FLOOR_SERVER = join(PROJECT_DIR, "bench", "sdk-floor-server.mjs");

/** CPU milliseconds a server process has used, or undefined where it cannot be read (no pid, not Linux). */
function cpuMsOf(pid: number | undefined): number | undefined {
  const seconds = pid === undefined ? undefined : readCpuSeconds(pid);
  return seconds === undefined ? undefined : seconds * 1000;
}

async function connect(era: Era, wire: Wire): Promise<Caller> {
  const check = (name: string, answer: unknown) => {
    const result = answer as { isError?: unknown; content?: unknown };
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  };
  const stdio = wire.kind === "stdio" ? { command: "node", args: wire.args, env: wire.env, cwd: PROJECT_DIR, stderr: "ignore" as const } : undefined;
  if (era === "modern") {
    const client = new ModernClient({ name: "bench-eras", version: "0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    const transport = stdio ? new ModernStdioTransport(stdio) : new ModernHttpTransport(new URL((wire as { url: string }).url));
    await client.connect(transport);
    return {
      pid: transport instanceof ModernStdioTransport ? (transport.pid ?? undefined) : undefined,
      call: async (name, args) => check(name, await client.callTool({ name, arguments: args }, { timeout: CALL_TIMEOUT_MS })),
      close: () => client.close(),
    };
  }
  const client = new LegacyClient({ name: "bench-eras", version: "0" });
  const transport = stdio ? new LegacyStdioTransport(stdio) : new LegacyHttpTransport(new URL((wire as { url: string }).url));
  await client.connect(transport);
  return {
    pid: transport instanceof LegacyStdioTransport ? (transport.pid ?? undefined) : undefined,
    call: async (name, args) => check(name, await client.callTool({ name, arguments: args }, undefined, { timeout: CALL_TIMEOUT_MS })),
    close: async () => {
      if (transport instanceof LegacyHttpTransport) await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

async function timedCalls(caller: Caller, args: Record<string, unknown>, count: number, into: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await caller.call("file_hash", args);
    into.push(performance.now() - start);
  }
}

/** Calls per second of `clients` callers calling in a loop for `seconds`. */
async function throughput(callers: readonly Caller[], args: Record<string, unknown>, seconds: number): Promise<number> {
  let calls = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  await Promise.all(
    callers.map(async (caller) => {
      while (performance.now() < deadline) {
        await caller.call("file_hash", args);
        calls++;
      }
    }),
  );
  return calls / ((performance.now() - start) / 1000);
}

export async function runErasBench(options: ErasOptions): Promise<PhaseReport> {
  const progress = progressFor("eras");
  const fixture = await createFixture();
  const args = { filePaths: [fixture.file] };
  const servers: HttpServer[] = [];
  const callers: Caller[] = [];
  try {
    // Configurations: ours in both eras, and the baseline build (2025-era only: it speaks nothing newer).
    const builds = [{ label: "ours", cli: CLI }, ...(options.baselineCli ? [{ label: "baseline", cli: options.baselineCli }] : [])];
    const configs: Array<{ key: string; build: string; era: Era; stdioArgs: string[]; floor?: string }> = [];
    for (const build of builds) {
      const stdioArgs = [build.cli, "mcp", fixture.root];
      configs.push({ key: `${build.label} 2025-11-25`, build: build.label, era: "legacy", stdioArgs });
      if (build.label === "ours") configs.push({ key: "ours 2026-07-28", build: build.label, era: "modern", stdioArgs });
    }
    // The SDK floor, over stdio only: which floor each configuration stands on.
    const floorOf = new Map([
      ["ours 2025-11-25", "SDK v2 floor 2025-11-25"],
      ["ours 2026-07-28", "SDK v2 floor 2026-07-28"],
      ["baseline 2025-11-25", "SDK v1 floor 2025-11-25"],
    ]);
    const floors: typeof configs = [
      { key: "SDK v1 floor 2025-11-25", build: "floor", era: "legacy", stdioArgs: [FLOOR_SERVER, "v1"], floor: "v1" },
      { key: "SDK v2 floor 2025-11-25", build: "floor", era: "legacy", stdioArgs: [FLOOR_SERVER, "v2"], floor: "v2" },
      { key: "SDK v2 floor 2026-07-28", build: "floor", era: "modern", stdioArgs: [FLOOR_SERVER, "v2"], floor: "v2" },
    ];
    const httpUrl = new Map<string, string>();
    for (const build of builds) {
      progress(`starting the ${build.label} HTTP server`);
      const server = await startHttpServer(fixture.root, fixture.env, [], build.cli);
      servers.push(server);
      httpUrl.set(build.label, server.url);
    }

    // -------- per-call latency, rounds alternating between configurations
    const latency = new Map<string, number[]>();
    const serverCpu = new Map<string, { ms: number; calls: number }>();
    for (const kind of ["stdio", "http"] as const) {
      const connected = new Map<string, Caller>();
      const measured = kind === "stdio" ? [...configs, ...floors] : configs;
      for (const config of measured) {
        const wire: Wire = kind === "stdio" ? { kind, args: config.stdioArgs, env: fixture.env } : { kind, url: httpUrl.get(config.build) as string };
        const caller = await connect(config.era, wire);
        callers.push(caller);
        connected.set(config.key, caller);
        await timedCalls(caller, args, 50, []);
      }
      for (let round = 0; round < options.rounds; round++) {
        progress(`${kind} latency, round ${round + 1}/${options.rounds}`);
        for (const config of measured) {
          const samples = latency.get(`${kind} ${config.key}`) ?? [];
          latency.set(`${kind} ${config.key}`, samples);
          const caller = connected.get(config.key) as Caller;
          const cpuBefore = cpuMsOf(caller.pid);
          await timedCalls(caller, args, options.calls, samples);
          const cpuAfter = cpuMsOf(caller.pid);
          if (cpuBefore !== undefined && cpuAfter !== undefined) {
            const sum = serverCpu.get(config.key) ?? { ms: 0, calls: 0 };
            serverCpu.set(config.key, { ms: sum.ms + cpuAfter - cpuBefore, calls: sum.calls + options.calls });
          }
        }
      }
      for (const caller of connected.values()) await caller.close();
    }

    // -------- HTTP throughput with many clients, alternating configurations
    const rates = new Map<string, number[]>();
    for (let round = 0; round < 2; round++) {
      for (const config of configs) {
        progress(`http throughput, ${options.clients} clients, ${config.key}, round ${round + 1}/2`);
        const group: Caller[] = [];
        for (let i = 0; i < options.clients; i++) group.push(await connect(config.era, { kind: "http", url: httpUrl.get(config.build) as string }));
        callers.push(...group);
        await Promise.all(group.map((caller) => caller.call("file_hash", args)));
        const rate = await throughput(group, args, options.seconds);
        rates.set(config.key, [...(rates.get(config.key) ?? []), rate]);
        await Promise.all(group.map((caller) => caller.close()));
      }
    }

    const rows: ResultRow[] = [];
    const p50 = (key: string) => summarize(latency.get(key) ?? []).p50;
    const rate = (key: string) => {
      const all = rates.get(key) ?? [];
      return all.reduce((sum, value) => sum + value, 0) / Math.max(1, all.length);
    };
    for (const kind of ["stdio", "http"] as const) {
      for (const config of configs) {
        rows.push({ metric: `${kind} file_hash p50, ${config.key}`, value: `${p50(`${kind} ${config.key}`).toFixed(3)} ms`, target: "—", verdict: "info" });
      }
    }
    for (const config of floors) {
      rows.push({ metric: `stdio file_hash p50, ${config.key}`, value: `${p50(`stdio ${config.key}`).toFixed(3)} ms`, target: "—", verdict: "info" });
    }
    for (const config of configs) {
      rows.push({ metric: `http throughput, ${options.clients} clients, ${config.key}`, value: `${rate(config.key).toFixed(0)} calls/s`, target: "—", verdict: "info" });
    }
    const cpuPerCall = (key: string) => {
      const sum = serverCpu.get(key);
      return sum === undefined ? undefined : sum.ms / sum.calls;
    };
    // Per stdio call: the floor's latency and server CPU, and what the product adds over the floor it stands on.
    const floorRows: string[][] = [];
    for (const config of configs) {
      const floor = floorOf.get(config.key) as string;
      const ours = cpuPerCall(config.key);
      const under = cpuPerCall(floor);
      floorRows.push([
        config.key,
        floor,
        `${p50(`stdio ${floor}`).toFixed(3)} ms`,
        `${(p50(`stdio ${config.key}`) - p50(`stdio ${floor}`)).toFixed(3)} ms`,
        under === undefined ? "—" : `${under.toFixed(3)} ms`,
        ours === undefined || under === undefined ? "—" : `${(ours - under).toFixed(3)} ms`,
      ]);
    }

    const ratioRows: string[][] = [];
    const versus = (against: string) => {
      for (const kind of ["stdio", "http"] as const) {
        for (const config of configs.filter((c) => c.key !== against)) {
          ratioRows.push([`${kind} p50 latency`, config.key, against, ratioText(p50(`${kind} ${config.key}`), p50(`${kind} ${against}`))]);
        }
      }
      for (const config of configs.filter((c) => c.key !== against)) {
        ratioRows.push([`http throughput (${options.clients} clients)`, config.key, against, ratioText(rate(config.key), rate(against))]);
      }
    };
    versus(options.baselineCli ? "baseline 2025-11-25" : "ours 2025-11-25");
    return {
      phase: "eras",
      rows,
      peers: [
        { title: "ratios (latency: < 1 is faster; throughput: > 1 is more)", headers: ["measure", "this", "against", "ratio"], rows: ratioRows },
        {
          title: "stdio per call over the SDK floor (a bare server of the same SDK line answering a constant)",
          headers: ["configuration", "floor", "floor p50", "p50 over the floor", "floor server CPU", "server CPU over the floor"],
          rows: floorRows,
        },
      ],
      notes: [
        `${options.rounds} alternating rounds of ${options.calls} sequential calls per configuration; throughput: 2 alternating runs of ${options.seconds} s each`,
        "the floor rows show what each SDK line and revision costs per call before any product code runs; \"over the floor\" is what ast-mcp itself adds",
      ],
      details: {
        latencyMs: Object.fromEntries([...latency].map(([key, samples]) => [key, summarize(samples)])),
        callsPerSecond: Object.fromEntries(rates),
        serverCpuMsPerCall: Object.fromEntries([...serverCpu.keys()].map((key) => [key, cpuPerCall(key)])),
      },
    };
  } finally {
    await Promise.allSettled(callers.map((caller) => caller.close()));
    await Promise.allSettled(servers.map((server) => server.stop()));
    await fixture.cleanup();
  }
}

if (import.meta.main) runPhaseMain("eras", ERAS_FLAGS, erasOptionsFrom, runErasBench);
