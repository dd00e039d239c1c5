/**
 * Hook benchmark: how long `ast-mcp hook` takes to answer a host, run exactly as the installed
 * entry runs it: the command string `ast-mcp install` writes for Claude Code (for this checkout's
 * dist/cli.js, with the empty NODE_EXTRA_CA_CERTS in front), through `sh -c`, in the inherited
 * environment, a new process per tool call with the event on stdin. Target from the hosts issue:
 * within 100 ms. Cases cover the fast path (a tool that edits nothing), a denied edit tool (reads
 * the configuration), a denied shell write and an allowed shell command (both parse the command).
 * Bare `node -e 0` is reported alongside: the floor no hook can beat. When the environment sets
 * NODE_EXTRA_CA_CERTS, the cases run again without it, and the previous entry form (no prefix)
 * runs for comparison. Each row has the child's CPU time (user + system, the shell included),
 * which a shared machine disturbs less than wall time.
 * A phase of `npm run bench`; alone: `bun bench/hook.ts`.
 *
 * Options: --hook-runs N (spawns per case, default 30).
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellQuote } from "../src/helpers/shell-quote.ts";
import { resolveExecutable } from "../src/hosts/executable.ts";
import { hookGroupValue } from "../src/hosts/targets.ts";
import { CLI, ms, type PhaseReport, positiveInt, progressFor, type ResultRow, runPhaseMain, summarize, verdict } from "./lib.ts";

export const HOOK_FLAGS = {
  "hook-runs": { type: "string", default: "30" },
} as const;

export interface HookOptions {
  runs: number;
}

export function hookOptionsFrom(values: { "hook-runs"?: string | boolean | undefined }): HookOptions {
  return { runs: positiveInt("hook-runs", values["hook-runs"] ?? "30") };
}

const TARGET_MS = 100;
const progress = progressFor("hook");

interface HookCase {
  label: string;
  toolName: string;
  toolInput: Record<string, unknown>;
  expect: "allow" | "deny";
  /** Counted against the target (the shell cases are the slow path the issue names). */
  targeted: boolean;
}

function casesFor(repo: string): HookCase[] {
  return [
    { label: "Read (not an edit: allowed)", toolName: "Read", toolInput: { file_path: join(repo, "src/app.ts") }, expect: "allow", targeted: true },
    {
      label: "Edit of a repository file (denied)",
      toolName: "Edit",
      toolInput: { file_path: join(repo, "src/app.ts"), old_string: "a", new_string: "b" },
      expect: "deny",
      targeted: true,
    },
    { label: "Bash `sed -i` on a repository file (denied)", toolName: "Bash", toolInput: { command: "sed -i 's/a/b/' src/app.ts" }, expect: "deny", targeted: true },
    { label: "Bash `npm test | tail -5` (allowed)", toolName: "Bash", toolInput: { command: "npm test 2>&1 | tail -5" }, expect: "allow", targeted: true },
  ];
}

/** One spawn, timed from spawn to exit, with the child's CPU time and the decision it printed. */
function runOnce(argv: string[], input: string, env: NodeJS.ProcessEnv, cwd: string): { ms: number; cpuMs: number; stdout: string; status: number | null } {
  const started = performance.now();
  const result = Bun.spawnSync(argv, { stdin: Buffer.from(input), env, cwd, stdout: "pipe", stderr: "pipe" });
  const elapsed = performance.now() - started;
  const cpu = result.resourceUsage?.cpuTime.total;
  return { ms: elapsed, cpuMs: cpu === undefined ? Number.NaN : Number(cpu) / 1000, stdout: result.stdout?.toString() ?? "", status: result.exitCode };
}

/** The command `node dist/cli.js install --target claude` writes here (the executable resolved as install resolves it). */
export async function installedHookCommand(): Promise<{ command: string; executableWord: string }> {
  const executable = await resolveExecutable({ cliPath: CLI, env: process.env });
  const executableWord = shellQuote(executable.command);
  const group = hookGroupValue("claude", executableWord, process.platform !== "win32") as { hooks: Array<{ command: string }> };
  return { command: (group.hooks[0] as { command: string }).command, executableWord };
}

function decisionOf(stdout: string, status: number | null): "allow" | "deny" | "unknown" {
  if (status === 2) return "deny";
  if (status !== 0) return "unknown";
  if (stdout.trim() === "") return "allow";
  try {
    const answer = JSON.parse(stdout) as { hookSpecificOutput?: { permissionDecision?: string } };
    return answer.hookSpecificOutput?.permissionDecision === "deny" ? "deny" : "allow";
  } catch {
    return "unknown";
  }
}

export async function runHookBench(options: HookOptions): Promise<PhaseReport> {
  const home = await mkdtemp(join(tmpdir(), "ast-mcp-bench-hook-home-"));
  const repo = await mkdtemp(join(tmpdir(), "ast-mcp-bench-hook-repo-"));
  try {
    await mkdir(join(repo, ".git"), { recursive: true });
    await mkdir(join(repo, "src"), { recursive: true });
    await writeFile(join(repo, "src/app.ts"), "export const a = 1;\n");
    // A fresh HOME and XDG dirs: no user configuration, as on a new machine.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".state"),
    };
    delete env.AST_MCP_LOG_LEVEL;
    const rows: ResultRow[] = [];
    let wrongDecisions = 0;
    const details: Record<string, unknown> = { runs: options.runs, nodeExtraCaCerts: env.NODE_EXTRA_CA_CERTS !== undefined };

    const { command: installed, executableWord } = await installedHookCommand();
    const previous = `${executableWord} hook --host claude`;
    const median = (values: number[]) => summarize(values).p50;

    /** Every case `runs` times with one command and environment (after one warm-up spawn each). */
    const measure = (command: string, runEnv: NodeJS.ProcessEnv, label: string, targeted: boolean): void => {
      for (const hookCase of casesFor(repo)) {
        progress(`${hookCase.label}${label}, ${options.runs} spawns`);
        const payload = JSON.stringify({ session_id: "bench", hook_event_name: "PreToolUse", tool_name: hookCase.toolName, tool_input: hookCase.toolInput, cwd: repo });
        const argv = ["sh", "-c", command];
        runOnce(argv, payload, runEnv, repo); // page cache warm, as on any host after its first call
        const samples: number[] = [];
        const cpu: number[] = [];
        for (let run = 0; run < options.runs; run += 1) {
          const result = runOnce(argv, payload, runEnv, repo);
          if (decisionOf(result.stdout, result.status) !== hookCase.expect) wrongDecisions += 1;
          samples.push(result.ms);
          cpu.push(result.cpuMs);
        }
        const summary = summarize(samples);
        const counted = targeted && hookCase.targeted;
        details[`${hookCase.label}${label}`] = { ...summary, cpuP50: median(cpu) };
        rows.push({
          metric: `hook${label}: ${hookCase.label} p50 (n=${options.runs})`,
          value: ms(summary.p50),
          target: counted ? `< ${TARGET_MS} ms` : "—",
          verdict: counted ? verdict(summary.p50 < TARGET_MS) : "info",
        });
        rows.push({ metric: `hook${label}: ${hookCase.label} p95`, value: ms(summary.p95), target: "—", verdict: "info" });
        rows.push({ metric: `hook${label}: ${hookCase.label} CPU p50`, value: ms(median(cpu)), target: "—", verdict: "info" });
      }
    };
    /** Bare Node in an environment: the floor. */
    const floor = (runEnv: NodeJS.ProcessEnv, label: string): void => {
      runOnce(["node", "-e", "0"], "", runEnv, repo);
      const runs = Array.from({ length: options.runs }, () => runOnce(["node", "-e", "0"], "", runEnv, repo));
      const bare = summarize(runs.map((run) => run.ms));
      details[`bareNode${label}`] = { ...bare, cpuP50: median(runs.map((run) => run.cpuMs)) };
      rows.push({ metric: `node -e 0${label} p50 (the floor)`, value: ms(bare.p50), target: "—", verdict: "info" });
      rows.push({ metric: `node -e 0${label} CPU p50`, value: ms(median(runs.map((run) => run.cpuMs))), target: "—", verdict: "info" });
    };

    details.command = installed;
    measure(installed, env, "", true);
    floor(env, "");
    if (env.NODE_EXTRA_CA_CERTS !== undefined) {
      // This machine's environment makes every Node start read a CA bundle; the installed command
      // clears the variable. The same cases without it in the environment, and the previous entry
      // form that inherited it, side by side.
      const plain: NodeJS.ProcessEnv = { ...env };
      delete plain.NODE_EXTRA_CA_CERTS;
      measure(installed, plain, " without NODE_EXTRA_CA_CERTS", true);
      floor(plain, " without NODE_EXTRA_CA_CERTS");
      measure(previous, env, " previous entry form (no prefix)", false);
    }
    rows.push({ metric: "hook decisions different from expected", value: String(wrongDecisions), target: "0", verdict: verdict(wrongDecisions === 0) });
    const notes = [`each run is \`sh -c '${installed}'\` (the command install writes for Claude Code) with a Claude Code PreToolUse event on stdin, as the host does`];
    if (env.NODE_EXTRA_CA_CERTS !== undefined) {
      notes.push("NODE_EXTRA_CA_CERTS is set in this environment: bare Node reads that bundle at every start (see the node -e 0 rows); the installed command clears it");
    }
    return { phase: "hook", rows, peers: [], notes, details };
  } finally {
    await rm(home, { recursive: true, force: true });
    await rm(repo, { recursive: true, force: true });
  }
}

if (import.meta.main) runPhaseMain("hook", HOOK_FLAGS, hookOptionsFrom, runHookBench);
