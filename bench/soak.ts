/**
 * `npm run soak -- --minutes 10`: many HTTP sessions open, call a tool and close (DELETE) against one
 * server for a while, and the server's resident memory is sampled to see whether it keeps growing.
 * Writes bench/results/soak-<timestamp>.json and bench/results/soak-latest.json.
 *
 * Options: --minutes M (default 10), --sessions N (concurrent workers, default 32), --sample-seconds S
 * (default 10), --warmup-minutes W (left out of the slope, default 1), --max-slope F (MB per minute
 * above which growth is flagged, default 1; judged only over at least 2 settled minutes), --strict (exit 1 when growth or errors are flagged).
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  CLI,
  callOk,
  closeHttpSession,
  connectHttp,
  createFixture,
  expectAnswerContains,
  type HttpSession,
  machineInfo,
  mb,
  megabytes,
  printResultRows,
  type ResultRow,
  readPeakRss,
  readRss,
  serverNodeVersion,
  slope,
  startHttpServer,
  summarize,
  verdict,
  writeResults,
} from "./lib.ts";

/** Pause after a failed cycle so a broken server is not hammered in a tight loop. */
const ERROR_BACKOFF_MS = 100;
/** A slope fitted over less settled time than this is mostly GC sawtooth: it is shown but not judged. */
const MIN_JUDGED_SPAN_MINUTES = 2;
/** Upper bound on cycles per worker, whatever the duration: the loop is bounded in count as well as time. */
const MAX_CYCLES_PER_WORKER = 5_000_000;

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    sessions: { type: "string", default: "32" },
    "sample-seconds": { type: "string", default: "10" },
    "warmup-minutes": { type: "string", default: "1" },
    "max-slope": { type: "string", default: "1" },
    strict: { type: "boolean", default: false },
  },
});

function positiveNumber(name: string, text: string, allowZero = false): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new Error(`--${name} must be a positive number`);
  return value;
}

const options = {
  minutes: positiveNumber("minutes", flags.minutes),
  sessions: Math.round(positiveNumber("sessions", flags.sessions)),
  sampleSeconds: positiveNumber("sample-seconds", flags["sample-seconds"]),
  warmupMinutes: positiveNumber("warmup-minutes", flags["warmup-minutes"], true),
  maxSlopeMbPerMinute: positiveNumber("max-slope", flags["max-slope"]),
};

interface RssSample {
  minutes: number;
  rssBytes: number;
  cycles: number;
}

async function main(): Promise<number> {
  if (!existsSync(CLI)) {
    console.error(`soak: ${CLI} is missing; run \`npm run build\` (or \`npm run soak\`, which builds first).`);
    return 1;
  }
  const startedAt = new Date();
  const fixture = await createFixture();
  const server = await startHttpServer(fixture.root, fixture.env).catch(async (error: unknown) => {
    await fixture.cleanup();
    throw error;
  });
  try {
    const hashArgs = { filePaths: [fixture.file] };
    const probe = await connectHttp(server.url);
    await expectAnswerContains(probe.client, "file_hash", hashArgs, fixture.sha256);
    await closeHttpSession(probe);

    let cycles = 0;
    let errors = 0;
    let firstError: string | undefined;
    const cycleMs: number[] = [];
    const samples: RssSample[] = [];
    const start = performance.now();
    const deadline = start + options.minutes * 60_000;
    const elapsedMinutes = (): number => (performance.now() - start) / 60_000;
    const sample = (): void => {
      const rssBytes = readRss(server.pid);
      if (rssBytes === undefined) return;
      samples.push({ minutes: elapsedMinutes(), rssBytes, cycles });
      const at = samples[samples.length - 1] as RssSample;
      process.stderr.write(`soak: ${at.minutes.toFixed(2)} min  rss ${mb(at.rssBytes)}  cycles ${cycles}  errors ${errors}\n`);
    };
    sample();
    const sampler = setInterval(sample, options.sampleSeconds * 1000);

    const worker = async (): Promise<void> => {
      for (let i = 0; i < MAX_CYCLES_PER_WORKER && performance.now() < deadline; i++) {
        const cycleStart = performance.now();
        let session: HttpSession | undefined;
        try {
          session = await connectHttp(server.url);
          await callOk(session.client, "file_hash", hashArgs);
          const opened = session;
          session = undefined;
          await closeHttpSession(opened);
          cycles++;
          cycleMs.push(performance.now() - cycleStart);
        } catch (error) {
          errors++;
          firstError ??= error instanceof Error ? error.message : String(error);
          if (session) await session.client.close().catch(() => {});
          await new Promise((resolve) => setTimeout(resolve, ERROR_BACKOFF_MS));
        }
      }
    };
    await Promise.all(Array.from({ length: options.sessions }, () => worker()));
    clearInterval(sampler);
    sample();
    const peakRssBytes = readPeakRss(server.pid);
    const durationMinutes = elapsedMinutes();

    // The slope leaves out the warm-up, when caches, JIT and heap settle; a short run keeps every sample.
    const settled = samples.filter((s) => s.minutes >= options.warmupMinutes);
    const slopeSamples = settled.length >= 2 ? settled : samples;
    const slopeMbPerMinute = slope(slopeSamples.map((s) => ({ x: s.minutes, y: megabytes(s.rssBytes) ?? 0 })));
    const rssAvailable = samples.length > 0;
    const maxRss = rssAvailable ? Math.max(...samples.map((s) => s.rssBytes)) : undefined;
    const slopeSpanMinutes = slopeSamples.length >= 2 ? (slopeSamples[slopeSamples.length - 1] as RssSample).minutes - (slopeSamples[0] as RssSample).minutes : 0;
    const slopeJudged = Number.isFinite(slopeMbPerMinute) && slopeSpanMinutes >= MIN_JUDGED_SPAN_MINUTES;
    const growthFlagged = slopeJudged && slopeMbPerMinute > options.maxSlopeMbPerMinute;
    const cycle = summarize(cycleMs);

    const rows: ResultRow[] = [
      { metric: "duration", value: `${durationMinutes.toFixed(2)} min`, target: "—", verdict: "info" },
      {
        metric: `cycles (open, file_hash, DELETE) by ${options.sessions} workers`,
        value: `${cycles} (${(cycles / (durationMinutes * 60)).toFixed(0)}/s)`,
        target: "—",
        verdict: "info",
      },
      { metric: "cycle p50 / p99", value: `${cycle.p50.toFixed(1)} / ${cycle.p99.toFixed(1)} ms`, target: "—", verdict: "info" },
      { metric: "errors", value: String(errors), target: "0", verdict: verdict(errors === 0) },
      { metric: "RSS first", value: mb(samples[0]?.rssBytes), target: "—", verdict: "info" },
      { metric: `RSS first after ${options.warmupMinutes} min warm-up`, value: mb(settled[0]?.rssBytes), target: "—", verdict: "info" },
      { metric: "RSS last", value: mb(samples[samples.length - 1]?.rssBytes), target: "—", verdict: "info" },
      { metric: "RSS max (sampled)", value: mb(maxRss), target: "—", verdict: "info" },
      { metric: "RSS peak (VmHWM)", value: mb(peakRssBytes), target: "—", verdict: "info" },
      {
        metric: `RSS slope${settled.length >= 2 ? " after warm-up" : " (whole run: too short for a warm-up)"} (${slopeSamples.length} samples)`,
        value: Number.isFinite(slopeMbPerMinute) ? `${slopeMbPerMinute.toFixed(2)} MB/min` : "n/a",
        target: `≤ ${options.maxSlopeMbPerMinute} MB/min`,
        verdict: slopeJudged ? verdict(!growthFlagged) : "info",
      },
    ];
    const finishedAt = new Date();
    console.log(`\nast-mcp soak — ${finishedAt.toISOString()}\n`);
    printResultRows(rows);
    if (!slopeJudged) console.log(`\nThe slope spans ${slopeSpanMinutes.toFixed(1)} min after warm-up; growth is judged from ${MIN_JUDGED_SPAN_MINUTES} min on (run longer).`);
    if (growthFlagged) console.log(`\nGROWTH: RSS rose ${slopeMbPerMinute.toFixed(2)} MB/min after warm-up (limit ${options.maxSlopeMbPerMinute}).`);
    if (firstError !== undefined) console.log(`\nfirst error: ${firstError}`);
    if (!rssAvailable) console.log("\nRSS is read from /proc and is n/a on this platform.");

    const path = await writeResults("soak-", {
      kind: "soak",
      startedAt: startedAt.toISOString(),
      finishedAt: finishedAt.toISOString(),
      machine: { ...machineInfo(), serverRuntime: `node ${await serverNodeVersion()}` },
      options,
      rows,
      cycles,
      errors,
      firstError: firstError ?? null,
      cycleLatencyMs: cycle,
      rss: {
        firstBytes: samples[0]?.rssBytes ?? null,
        firstAfterWarmupBytes: settled[0]?.rssBytes ?? null,
        lastBytes: samples[samples.length - 1]?.rssBytes ?? null,
        maxSampledBytes: maxRss ?? null,
        peakBytes: peakRssBytes ?? null,
        slopeMbPerMinute: Number.isFinite(slopeMbPerMinute) ? slopeMbPerMinute : null,
        slopeSpanMinutes,
        slopeJudged,
        growthFlagged,
        samples,
      },
    });
    console.log(`\nresults: ${path}`);
    return flags.strict && (growthFlagged || errors > 0) ? 1 : 0;
  } finally {
    await server.stop().catch(() => {});
    await fixture.cleanup().catch(() => {});
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
