/**
 * What the benchmark page charts, read from published runs (bench/published/*.json, written by
 * `npx bun bench/publish.ts`). Shared by the page's build-time loader (benchmarks.data.ts) and the
 * browser test, which checks that the page draws exactly these charts; test/website/bench-charts.test.ts
 * checks the reading itself. Plain JavaScript so that the browser test runs under Node without a build.
 *
 * Per phase, only the newest run that has it counts. Its charts come in this order:
 * 1. ratios measured in one run (ast-mcp's figure ÷ a peer's): a peer table's "ratio" column, or a row
 *    value that states one, "1.36 s (22.75× rg -l)";
 * 2. scores from 0 to 1: retrieval quality per ranking (file acc@1, acc@5, function hit@10), call
 *    accuracy per language (recall and precision), index throughput as a share of the parse-only ceiling;
 * 3. absolute figures, which hold only for the machine named beside them: first-answer times, warm
 *    latency, the hook's answer time, peak memory.
 */

/** @typedef {{ metric: string, value: string, target: string, verdict: string }} ResultRow */
/** @typedef {{ title: string, headers: string[], rows: string[][] }} PeerTable */
/** @typedef {{ phase: string, rows: ResultRow[], peers: PeerTable[], notes: string[] }} PhaseReport */
/** @typedef {{ name: string, values: Array<number | null> }} Series */
/**
 * @typedef {object} Chart
 * @property {string} title
 * @property {"ratio" | "score" | "amount"} kind  ratio: parity at 1, below is lower; score: 0 to 1, higher is better; amount: absolute, this machine only
 * @property {string} axis  what a bar's length measures
 * @property {string[]} labels
 * @property {Series[]} series
 * @property {Array<"lower" | "higher">} [better]  per bar of a ratio chart, which side of 1 is the better one (default lower)
 * @property {string[]} headers  the table printed under the chart
 * @property {string[][]} rows
 */

const EMBEDDED_RATIO = /\(([\d.]+)× ([^)]+)\)/;

/** "1.23×" → 1.23; anything else → null. */
function ratioCell(cell) {
  const match = /^([\d.]+)×$/.exec((cell ?? "").trim());
  return match ? Number(match[1]) : null;
}

/** "0.583" → 0.583, "25.0%" → 0.25, "—" or "n/a" → null. */
function scoreCell(cell) {
  const text = (cell ?? "").trim();
  const percent = /^([\d.]+)%/.exec(text);
  // Rounded so that 36.7% reads 0.367, not 0.36700000000000005.
  if (percent) return Number((Number(percent[1]) / 100).toFixed(6));
  return /^[\d.]+$/.test(text) ? Number(text) : null;
}

/** The leading number of a value in a unit: ("7.53 s, partial", "s") → 7.53. */
function amountIn(value, unit) {
  const match = new RegExp(`^([\\d.]+) ${unit}\\b`).exec(value.trim());
  return match ? Number(match[1]) : null;
}

/** A measure where more is better: a throughput, a rate. */
const MORE_IS_BETTER = /throughput|calls\/s|MB\/s|per second/i;

/**
 * A peer table's "ratio" column as one ratio chart. A bar is labelled by the row's first cell, or,
 * when that repeats (the eras phase compares several configurations per measure), by the row's
 * cells before the ratio, "stdio p50 latency: ours 2026-07-28 ÷ ours 2025-11-25".
 * @param {PhaseReport} report @returns {Chart[]}
 */
function peerRatioCharts(report) {
  return report.peers.flatMap((peer) => {
    const column = peer.headers.findIndex((header) => header.startsWith("ratio"));
    if (column < 0) return [];
    const charted = peer.rows.filter((row) => ratioCell(row[column]) !== null);
    if (charted.length === 0) return [];
    const firstCells = charted.map((row) => row[0]);
    const unique = new Set(firstCells).size === firstCells.length;
    const labels = unique ? firstCells : charted.map((row) => `${row[0]}: ${row.slice(1, column).join(" ÷ ")}`);
    return [
      {
        title: peer.title,
        kind: "ratio",
        axis: "× the peer's value (1 is parity)",
        labels,
        series: [{ name: "ast-mcp ÷ peer", values: charted.map((row) => ratioCell(row[column])) }],
        better: labels.map((label) => (MORE_IS_BETTER.test(label) ? "higher" : "lower")),
        headers: peer.headers,
        rows: peer.rows,
      },
    ];
  });
}

/** Ratios a phase states inside its rows' values: one chart per baseline, in the order the rows name them. @param {PhaseReport} report @returns {Chart[]} */
function embeddedRatioCharts(report) {
  const byBaseline = new Map();
  for (const row of report.rows) {
    const baseline = EMBEDDED_RATIO.exec(row.value)?.[2];
    if (baseline !== undefined) byBaseline.set(baseline, [...(byBaseline.get(baseline) ?? []), row]);
  }
  return [...byBaseline].map(([baseline, rows]) => ({
    title: `Measured as a multiple of ${baseline} in the same run`,
    kind: "ratio",
    axis: `× ${baseline}`,
    labels: rows.map((row) => row.metric),
    series: [{ name: `ast-mcp ÷ ${baseline}`, values: rows.map((row) => Number(EMBEDDED_RATIO.exec(row.value)[1])) }],
    headers: ["metric", "value", "target"],
    rows: rows.map((row) => [row.metric, row.value, row.target]),
  }));
}

/** The retrieval columns charted, among those its quality tables print. */
const RETRIEVAL_SCORES = ["file acc@1", "acc@5", "function hit@10"];

/** Retrieval quality: one chart per tree, `search` beside the rankings computed in the same run. @param {PhaseReport} report @returns {Chart[]} */
function retrievalCharts(report) {
  return report.peers.flatMap((peer) => {
    if (!peer.headers.includes("acc@5")) return [];
    const columns = RETRIEVAL_SCORES.map((name) => [name, peer.headers.indexOf(name)]).filter(([, index]) => index >= 0);
    return [
      {
        title: peer.title,
        kind: "score",
        axis: "share of tasks (higher is better)",
        labels: peer.rows.map((row) => row[0]),
        series: columns.map(([name, index]) => ({ name, values: peer.rows.map((row) => scoreCell(row[index])) })),
        headers: peer.headers,
        rows: peer.rows,
      },
    ];
  });
}

/** Call accuracy per language, from the phase's rows ("go: recall (…)", "go: precision, default confidence (…)", "go: precision, exact+inferred (recall 0.959)"). @param {PhaseReport} report @returns {Chart[]} */
function accuracyCharts(report) {
  const languages = new Map();
  const entry = (language) => {
    if (!languages.has(language)) languages.set(language, { recall: null, precision: null, confidentRecall: null, confidentPrecision: null });
    return languages.get(language);
  };
  for (const row of report.rows) {
    let match = /^([^:]+): recall \(/.exec(row.metric);
    if (match) entry(match[1]).recall = scoreCell(row.value);
    match = /^([^:]+): precision, default confidence/.exec(row.metric);
    if (match) entry(match[1]).precision = scoreCell(row.value);
    match = /^([^:]+): precision, exact\+inferred \(recall ([\d.]+|—)\)/.exec(row.metric);
    if (match) Object.assign(entry(match[1]), { confidentPrecision: scoreCell(row.value), confidentRecall: scoreCell(match[2]) });
  }
  if (languages.size === 0) return [];
  const labels = [...languages.keys()];
  const scores = [...languages.values()];
  const text = (value) => (value === null ? "—" : value.toFixed(3));
  return [
    {
      title: "Call accuracy of callers against each language's own analyser, per language",
      kind: "score",
      axis: "recall or precision (higher is better)",
      labels,
      series: [
        { name: "recall", values: scores.map((score) => score.recall) },
        { name: "precision", values: scores.map((score) => score.precision) },
        { name: "recall, exact+inferred edges", values: scores.map((score) => score.confidentRecall) },
        { name: "precision, exact+inferred edges", values: scores.map((score) => score.confidentPrecision) },
      ],
      headers: ["language", "recall", "precision", "recall, exact+inferred", "precision, exact+inferred"],
      rows: labels.map((language, i) => [language, text(scores[i].recall), text(scores[i].precision), text(scores[i].confidentRecall), text(scores[i].confidentPrecision)]),
    },
  ];
}

/** Index throughput as a share of the parse-only ceiling measured in the same run ("25% (2.8 / 11.4 MB/s)"). @param {PhaseReport} report @returns {Chart[]} */
function ceilingCharts(report) {
  const rows = report.rows.filter((row) => /: cold index throughput ÷ parse-only ceiling/.test(row.metric) && /^[\d.]+%/.test(row.value));
  if (rows.length === 0) return [];
  return [
    {
      title: "Cold index throughput as a share of the parse-only ceiling (same run, same files)",
      kind: "score",
      axis: "share of the parse-only throughput (1 = as fast as parsing alone)",
      labels: rows.map((row) => row.metric.split(":")[0]),
      series: [{ name: "index ÷ parse-only", values: rows.map((row) => scoreCell(row.value)) }],
      headers: ["metric", "value", "target"],
      rows: rows.map((row) => [row.metric, row.value, row.target]),
    },
  ];
}

/** Seconds to the first answer of a fresh process with an empty cache, and of a restart on its snapshot. @param {PhaseReport} report @returns {Chart[]} */
function firstAnswerCharts(report) {
  const fresh = new Map();
  const restart = new Map();
  for (const row of report.rows) {
    const first = /^([^:]+): first (\S+): answer and progress$/.exec(row.metric);
    if (first) fresh.set(`${first[1]}: ${first[2]}`, { seconds: amountIn(row.value, "s"), row });
    const again = /^([^:]+): restart on the snapshot: first (\S+)$/.exec(row.metric);
    if (again) restart.set(`${again[1]}: ${again[2]}`, { seconds: amountIn(row.value, "s"), row });
  }
  const labels = [...new Set([...fresh.keys(), ...restart.keys()])];
  if (labels.length === 0) return [];
  const series = [{ name: "fresh process, empty cache", values: labels.map((label) => fresh.get(label)?.seconds ?? null) }];
  if (restart.size > 0) series.push({ name: "restart on its snapshot", values: labels.map((label) => restart.get(label)?.seconds ?? null) });
  return [
    {
      title: "First answer of each tool, in seconds",
      kind: "amount",
      axis: "seconds on the machine above (lower is faster)",
      labels,
      series,
      headers: ["metric", "value", "target"],
      rows: [...fresh.values(), ...restart.values()].map(({ row }) => [row.metric, row.value, row.target]),
    },
  ];
}

/** Warm latency per tool ("ts: map warm p50 (n=60)"), one series per corpus. @param {PhaseReport} report @returns {Chart[]} */
function warmLatencyCharts(report) {
  const byCorpus = new Map();
  const tools = [];
  const rows = [];
  for (const row of report.rows) {
    const match = /^([^:]+): (\S+) warm p50/.exec(row.metric);
    const milliseconds = match ? amountIn(row.value, "ms") : null;
    if (!match || milliseconds === null) continue;
    if (!tools.includes(match[2])) tools.push(match[2]);
    byCorpus.set(match[1], { ...byCorpus.get(match[1]), [match[2]]: milliseconds });
    rows.push([row.metric, row.value, row.target]);
  }
  if (tools.length === 0) return [];
  return [
    {
      title: "Warm call latency, p50 per tool and tree, in milliseconds",
      kind: "amount",
      axis: "milliseconds on the machine above (lower is faster)",
      labels: tools,
      series: [...byCorpus].map(([corpus, values]) => ({ name: corpus, values: tools.map((tool) => values[tool] ?? null) })),
      headers: ["metric", "value", "target"],
      rows,
    },
  ];
}

/**
 * The hook's answer time per host event as hosts run it (the installed command), wall time beside CPU
 * time, with `node -e 0` as the floor any Node process pays ("hook: Edit of … (denied) p50 (n=30)").
 * @param {PhaseReport} report @returns {Chart[]}
 */
function hookCharts(report) {
  const events = new Map();
  const rows = [];
  for (const row of report.rows) {
    const match = /^(?:hook: (.+?)|(node -e 0)) (CPU p50|p50)\b/.exec(row.metric);
    const milliseconds = match ? amountIn(row.value, "ms") : null;
    if (!match || milliseconds === null) continue;
    const event = match[1] ?? `${match[2]} (the floor)`;
    events.set(event, { ...events.get(event), [match[3] === "p50" ? "wall" : "cpu"]: milliseconds });
    rows.push([row.metric, row.value, row.target]);
  }
  if (events.size === 0) return [];
  const labels = [...events.keys()];
  return [
    {
      title: "The hook's answer time per event, p50 in milliseconds",
      kind: "amount",
      axis: "milliseconds on the machine above (lower is faster)",
      labels,
      series: [
        { name: "wall p50", values: labels.map((label) => events.get(label).wall ?? null) },
        { name: "CPU p50", values: labels.map((label) => events.get(label).cpu ?? null) },
      ],
      headers: ["metric", "value", "target"],
      rows,
    },
  ];
}

/** Peak memory of the servers a phase ran ("… peak RSS (VmHWM) … | 482.3 MB"). @param {PhaseReport} report @returns {Chart[]} */
function memoryCharts(report) {
  const rows = report.rows.filter((row) => /peak RSS/.test(row.metric) && amountIn(row.value, "MB") !== null);
  if (rows.length === 0) return [];
  return [
    {
      title: "Peak memory (resident set) of the server, in MB",
      kind: "amount",
      axis: "MB on the machine above (lower is less)",
      labels: rows.map((row) => row.metric),
      series: [{ name: "peak RSS", values: rows.map((row) => amountIn(row.value, "MB")) }],
      headers: ["metric", "value", "target"],
      rows: rows.map((row) => [row.metric, row.value, row.target]),
    },
  ];
}

/** Every chart of one phase report, ratios first. @param {PhaseReport} report @returns {Chart[]} */
export function chartsOf(report) {
  return [
    ...peerRatioCharts(report),
    ...embeddedRatioCharts(report),
    ...retrievalCharts(report),
    ...accuracyCharts(report),
    ...ceilingCharts(report),
    ...firstAnswerCharts(report),
    ...warmLatencyCharts(report),
    ...hookCharts(report),
    ...memoryCharts(report),
  ];
}

/** The phase reports of one published run (a whole `npm run bench` run, or one phase run alone). */
function reportsOf(run) {
  return run.phases ? Object.values(run.phases) : run.report ? [run.report] : [];
}

function machineText(machine) {
  const runtimes = [machine.serverRuntime && `server ${machine.serverRuntime}`, machine.clientRuntime && `client ${machine.clientRuntime}`].filter(Boolean).join(", ");
  return `${machine.cpuModel}, ${machine.cpuCount} cores, ${machine.platform}/${machine.arch}${runtimes ? `; ${runtimes}` : ""}`;
}

/**
 * Per phase, the newest published run that has it, with its charts and the tables no chart draws.
 * @param {Array<{ file: string, run: any }>} published  file names (sorted or not) and their parsed JSON
 */
export function publishedPhases(published) {
  const newest = new Map();
  for (const { file, run } of [...published].sort((a, b) => a.file.localeCompare(b.file))) {
    for (const report of reportsOf(run)) {
      const charts = chartsOf(report);
      const drawn = new Set(charts.map((chart) => chart.title));
      const phase = {
        phase: report.phase,
        file,
        date: run.finishedAt,
        commit: run.published.commit,
        command: run.published.command,
        machine: machineText(run.machine),
        loadAverage: run.machine.loadAverage1m ?? null,
        charts,
        tables: report.peers.filter((peer) => !drawn.has(peer.title)),
        rows: report.rows,
        notes: report.notes,
      };
      const previous = newest.get(report.phase);
      if (!previous || previous.date <= phase.date) newest.set(report.phase, phase);
    }
  }
  return [...newest.values()].sort((a, b) => a.phase.localeCompare(b.phase));
}
