/** Types of bench-charts.mjs (plain JavaScript, so the browser test runs it under Node). */
export interface ResultRow {
  metric: string;
  value: string;
  target: string;
  verdict: string;
}
export interface PeerTable {
  title: string;
  headers: string[];
  rows: string[][];
}
export interface PhaseReport {
  phase: string;
  rows: ResultRow[];
  peers: PeerTable[];
  notes: string[];
}
export interface Series {
  name: string;
  values: Array<number | null>;
}
export interface Chart {
  title: string;
  /** ratio: parity at 1, below is lower; score: 0 to 1, higher is better; amount: absolute, this machine only. */
  kind: "ratio" | "score" | "amount";
  axis: string;
  labels: string[];
  series: Series[];
  /** Per bar of a ratio chart, which side of 1 is the better one (default lower). */
  better?: Array<"lower" | "higher">;
  headers: string[];
  rows: string[][];
}
export interface PublishedPhase {
  phase: string;
  file: string;
  date: string;
  commit: string;
  command: string;
  machine: string;
  loadAverage: number | null;
  charts: Chart[];
  /** The phase's peer tables that no chart draws. */
  tables: PeerTable[];
  rows: ResultRow[];
  notes: string[];
}
export function chartsOf(report: PhaseReport): Chart[];
export function publishedPhases(published: Array<{ file: string; run: unknown }>): PublishedPhase[];
