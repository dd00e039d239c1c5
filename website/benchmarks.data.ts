/**
 * Build-time loader for the benchmark page: reads every published run in bench/published/ (written by
 * `npx bun bench/publish.ts` from a `npm run bench` result) and keeps, per phase, the newest run's
 * peer comparisons with their ratios as numbers. Nothing is fetched at run time.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { defineLoader } from "vitepress";

export interface Comparison {
  title: string;
  headers: string[];
  rows: string[][];
  /** The row labels and their ratios (ast-mcp / peer, or as the table's last column says), as numbers. */
  labels: string[];
  ratios: number[];
  /** What a bar's length is a multiple of. */
  axis: string;
}

export interface PublishedPhase {
  phase: string;
  file: string;
  date: string;
  commit: string;
  command: string;
  machine: string;
  loadAverage: number | null;
  comparisons: Comparison[];
  rows: Array<{ metric: string; value: string; target: string; verdict: string }>;
  notes: string[];
}

export interface BenchData {
  phases: PublishedPhase[];
}

declare const data: BenchData;
export { data };

interface PhaseReport {
  phase: string;
  rows: Array<{ metric: string; value: string; target: string; verdict: string }>;
  peers: Array<{ title: string; headers: string[]; rows: string[][] }>;
  notes: string[];
}

interface PublishedRun {
  finishedAt: string;
  machine: { platform: string; arch: string; cpuModel: string; cpuCount: number; loadAverage1m?: number; serverRuntime?: string; clientRuntime?: string };
  phases?: Record<string, PhaseReport>;
  report?: PhaseReport;
  published: { commit: string; command: string };
}

const EMBEDDED_RATIO = /\(([\d.]+)× ([^)]+)\)/;

/**
 * Ratios a phase states inside its rows' values, such as "1.36 s, partial (22.75× rg -l)": one
 * comparison per baseline, in the order the rows name them.
 */
function embeddedComparisons(rows: PhaseReport["rows"]): Comparison[] {
  const byBaseline = new Map<string, PhaseReport["rows"]>();
  for (const row of rows) {
    const baseline = EMBEDDED_RATIO.exec(row.value)?.[2];
    if (baseline === undefined) continue;
    byBaseline.set(baseline, [...(byBaseline.get(baseline) ?? []), row]);
  }
  return [...byBaseline].map(([baseline, matching]) => ({
    title: `Measured as a multiple of ${baseline} in the same run`,
    headers: ["metric", "value", "target"],
    rows: matching.map((row) => [row.metric, row.value, row.target]),
    labels: matching.map((row) => row.metric),
    ratios: matching.map((row) => Number(EMBEDDED_RATIO.exec(row.value)![1])),
    axis: `× ${baseline}`,
  }));
}

/** "1.23×" → 1.23; anything else → NaN. */
function ratioOf(cell: string | undefined): number {
  const match = /^([\d.]+)×$/.exec((cell ?? "").trim());
  return match ? Number(match[1]) : Number.NaN;
}

function machineText(run: PublishedRun): string {
  const m = run.machine;
  const runtimes = [m.serverRuntime && `server ${m.serverRuntime}`, m.clientRuntime && `client ${m.clientRuntime}`].filter(Boolean).join(", ");
  return `${m.cpuModel}, ${m.cpuCount} cores, ${m.platform}/${m.arch}${runtimes ? `; ${runtimes}` : ""}`;
}

export default defineLoader({
  watch: ["../bench/published/*.json"],
  load(files: string[]): BenchData {
    const newest = new Map<string, PublishedPhase>();
    for (const file of [...files].sort()) {
      const run = JSON.parse(readFileSync(file, "utf8")) as PublishedRun;
      const reports = run.phases ? Object.values(run.phases) : run.report ? [run.report] : [];
      for (const report of reports) {
        const comparisons = report.peers
          .map((peer) => {
            const ratioColumn = peer.headers.findIndex((header) => header.startsWith("ratio"));
            const charted = peer.rows.filter((row) => Number.isFinite(ratioOf(row[ratioColumn])));
            return { ...peer, labels: charted.map((row) => row[0]!), ratios: charted.map((row) => ratioOf(row[ratioColumn])), axis: "× the peer's value (below 1 is lower)" };
          })
          .filter((comparison) => comparison.ratios.length > 0)
          .concat(embeddedComparisons(report.rows));
        const phase: PublishedPhase = {
          phase: report.phase,
          file: basename(file),
          date: run.finishedAt,
          commit: run.published.commit,
          command: run.published.command,
          machine: machineText(run),
          loadAverage: run.machine.loadAverage1m ?? null,
          comparisons,
          rows: report.rows,
          notes: report.notes,
        };
        const previous = newest.get(report.phase);
        if (!previous || previous.date <= phase.date) newest.set(report.phase, phase);
      }
    }
    return { phases: [...newest.values()].sort((a, b) => a.phase.localeCompare(b.phase)) };
  },
});
