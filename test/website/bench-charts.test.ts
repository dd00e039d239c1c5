/** What the website's benchmark page charts from published runs (website/.vitepress/bench-charts.mjs). */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chartsOf, type PhaseReport, publishedPhases } from "../../website/.vitepress/bench-charts.mjs";

const PUBLISHED = join(import.meta.dir, "..", "..", "bench", "published");

const row = (metric: string, value: string, target = "—") => ({ metric, value, target, verdict: "info" });
const report = (phase: string, rows: PhaseReport["rows"], peers: PhaseReport["peers"] = []): PhaseReport => ({ phase, rows, peers, notes: [] });
const run = (finishedAt: string, reports: PhaseReport[]) => ({
  finishedAt,
  machine: { platform: "linux", arch: "x64", cpuModel: "CPU", cpuCount: 2, loadAverage1m: 1.5 },
  phases: Object.fromEntries(reports.map((one) => [one.phase, one])),
  published: { commit: "0123456789abcdef", command: "npm run bench" },
});

describe("the benchmark page's charts", () => {
  test("a peer table's ratio column becomes one ratio chart of the rows that have a ratio", () => {
    const charts = chartsOf(
      report("core", [], [{ title: "peer", headers: ["comparison", "ast-mcp", "peer", "ratio"], rows: [["p50", "1 ms", "2 ms", "0.50×"], ["errors", "0", "0", "n/a"]] }]),
    );
    expect(charts).toHaveLength(1);
    expect(charts[0]).toMatchObject({ kind: "ratio", labels: ["p50"], series: [{ values: [0.5] }] });
  });

  test("a ratio table that repeats a measure per configuration labels each bar with its configurations, and a throughput counts higher as better", () => {
    const [chart] = chartsOf(
      report("eras", [], [
        {
          title: "ratios (latency: < 1 is faster; throughput: > 1 is more)",
          headers: ["measure", "this", "against", "ratio"],
          rows: [["stdio p50 latency", "ours 2026-07-28", "ours 2025-11-25", "1.10×"], ["stdio p50 latency", "baseline", "ours 2025-11-25", "0.90×"], [
            "http throughput (8 clients)",
            "ours 2026-07-28",
            "ours 2025-11-25",
            "1.20×",
          ]],
        },
      ]),
    );
    expect(chart?.labels).toEqual([
      "stdio p50 latency: ours 2026-07-28 ÷ ours 2025-11-25",
      "stdio p50 latency: baseline ÷ ours 2025-11-25",
      "http throughput (8 clients): ours 2026-07-28 ÷ ours 2025-11-25",
    ]);
    expect(chart?.better).toEqual(["lower", "lower", "higher"]);
  });

  test("retrieval quality is charted per ranking: file acc@1, acc@5 and function hit@10, a missing score left empty", () => {
    const [chart] = chartsOf(
      report("retrieval", [], [
        {
          title: "effect: 60 concept tasks",
          headers: ["ranking", "file acc@1", "acc@5", "acc@10", "MRR@10", "function hit@10", "first result a test"],
          rows: [["search", "0.317", "0.583", "0.600", "0.423", "25.0%", "0"], ["BM25, whole files", "0.333", "0.483", "0.583", "0.408", "—", "0"]],
        },
      ]),
    );
    expect(chart?.kind).toBe("score");
    expect(chart?.labels).toEqual(["search", "BM25, whole files"]);
    expect(chart?.series).toEqual([
      { name: "file acc@1", values: [0.317, 0.333] },
      { name: "acc@5", values: [0.583, 0.483] },
      { name: "function hit@10", values: [0.25, null] },
    ]);
  });

  test("call accuracy is charted per language: recall and precision, at the default confidence and exact+inferred only", () => {
    const [chart] = chartsOf(
      report("accuracy", [
        row("go: recall (20 symbols, 49 true call sites)", "1.000"),
        row("go: precision, default confidence (1 listed sites not scored)", "0.961"),
        row("go: precision, exact+inferred (recall 0.959)", "1.000"),
        row("typescript: recall (20 symbols, 65 true call sites)", "0.738"),
        row("typescript: precision, default confidence (5 listed sites not scored)", "0.578"),
        row("typescript: precision, exact+inferred (recall 0.246)", "1.000"),
      ]),
    );
    expect(chart?.labels).toEqual(["go", "typescript"]);
    expect(chart?.series.map((series) => series.values)).toEqual([[1, 0.738], [0.961, 0.578], [0.959, 0.246], [1, 1]]);
  });

  test("first-answer times chart a fresh process beside a restart on its snapshot, in seconds", () => {
    const [chart] = chartsOf(
      report("first", [
        row("go: first callers: answer and progress", "7.53 s, partial; no progress"),
        row("go: first show: answer and progress", "0.16 s, complete; no progress"),
        row("go: restart on the snapshot: first callers", "0.36 s, partial, 100 listed (2.17× rg -l)"),
      ]),
    ).filter((one) => one.kind === "amount");
    expect(chart?.labels).toEqual(["go: callers", "go: show"]);
    expect(chart?.series).toEqual([
      { name: "fresh process, empty cache", values: [7.53, 0.16] },
      { name: "restart on its snapshot", values: [0.36, null] },
    ]);
  });

  test("the hook's answer time is charted per event, wall time beside CPU time, with node's own start as the floor", () => {
    const [chart] = chartsOf(
      report("hook", [
        row("hook: Read (not an edit: allowed) p50 (n=30)", "179.6 ms"),
        row("hook: Read (not an edit: allowed) p95", "717.9 ms"),
        row("hook: Read (not an edit: allowed) CPU p50", "47.7 ms"),
        row("node -e 0 p50 (the floor)", "558.6 ms"),
        row("node -e 0 CPU p50", "63.6 ms"),
        row("hook without NODE_EXTRA_CA_CERTS: Read (not an edit: allowed) p50 (n=30)", "287.1 ms"),
      ]),
    );
    expect(chart?.labels).toEqual(["Read (not an edit: allowed)", "node -e 0 (the floor)"]);
    expect(chart?.series).toEqual([
      { name: "wall p50", values: [179.6, 558.6] },
      { name: "CPU p50", values: [47.7, 63.6] },
    ]);
  });

  test("ratios come before scores, and scores before absolute figures", () => {
    const charts = chartsOf(
      report("intel", [
        row("ts: peak RSS (VmHWM), 623 files", "182.7 MB"),
        row("ts: map warm p50 (n=20)", "1.421 ms"),
        row("ts: cold index throughput ÷ parse-only ceiling (same run)", "25% (2.8 / 11.4 MB/s)"),
        row("go: first search, fresh process, empty cache", "3.65 s, partial, 10 listed (28.75× rg -l)"),
      ]),
    );
    expect(charts.map((chart) => chart.kind)).toEqual(["ratio", "score", "amount", "amount"]);
    expect(charts[1]?.series[0]?.values).toEqual([0.25]);
    expect(charts.at(-1)?.series[0]?.values).toEqual([182.7]);
  });

  test("each phase shows its newest published run, and the peer tables no chart draws are kept as tables", () => {
    const older = run("2026-01-01T00:00:00.000Z", [report("retrieval", [row("effect: search function hit@10", "20.0%")])]);
    const table = { title: "timing", headers: ["cli", "peak RSS"], rows: [["search", "147 MB"]] };
    const newer = run("2026-02-01T00:00:00.000Z", [report("retrieval", [], [table])]);
    const [phase] = publishedPhases([
      { file: "b.json", run: newer },
      { file: "a.json", run: older },
    ]);
    expect(phase?.file).toBe("b.json");
    expect(phase?.tables).toEqual([table]);
    expect(phase?.machine).toBe("CPU, 2 cores, linux/x64");
  });

  test("every phase of the published runs in bench/published/ draws at least one chart", () => {
    const files = readdirSync(PUBLISHED).filter((file) => file.endsWith(".json"));
    const phases = publishedPhases(files.map((file) => ({ file, run: JSON.parse(readFileSync(join(PUBLISHED, file), "utf8")) })));
    expect(phases.length).toBeGreaterThan(0);
    const chartless = phases.filter((phase) => phase.charts.length === 0).map((phase) => phase.phase);
    expect(chartless).toEqual([]);
  });
});
