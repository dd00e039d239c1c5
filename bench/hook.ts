/**
 * Hook benchmark: how long `ast-mcp hook` takes to answer a host, spawned as hosts spawn it (a new
 * Node process per tool call, the event on stdin). Target from the hosts issue: within 100 ms.
 * Cases cover the fast path (a tool that edits nothing), a denied edit tool (reads the
 * configuration), a denied shell write and an allowed shell command (both parse the command).
 * Bare `node -e 0` in the same environment is reported alongside: the floor no hook can beat.
 * A phase of `npm run bench`; alone: `bun bench/hook.ts`.
 *
 * Options: --hook-runs N (spawns per case, default 30).
 */
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { CLI, ms, type PhaseReport, positiveInt, progressFor, type ResultRow, runPhaseAlone, summarize, verdict } from "./lib.ts";

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
    { label: "Edit of a repository file (denied)", toolName: "Edit", toolInput: { file_path: join(repo, "src/app.ts"), old_string: "a", new_string: "b" }, expect: "deny", targeted: true },
    { label: "Bash `sed -i` on a repository file (denied)", toolName: "Bash", toolInput: { command: "sed -i 's/a/b/' src/app.ts" }, expect: "deny", targeted: true },
    { label: "Bash `npm test | tail -5` (allowed)", toolName: "Bash", toolInput: { command: "npm test 2>&1 | tail -5" }, expect: "allow", targeted: true },
  ];
}

/** One spawn, timed from spawn to exit, with the decision it printed. */
function runOnce(command: string, args: string[], input: string, env: NodeJS.ProcessEnv, cwd: string): { ms: number; stdout: string; status: number | null } {
  const started = performance.now();
  const result = spawnSync(command, args, { input, env, cwd, encoding: "utf8" });
  return { ms: performance.now() - started, stdout: result.stdout ?? "", status: result.status };
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
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config"), XDG_CACHE_HOME: join(home, ".cache"), XDG_STATE_HOME: join(home, ".state") };
    delete env.AST_MCP_LOG_LEVEL;
    const rows: ResultRow[] = [];
    let wrongDecisions = 0;
    const details: Record<string, unknown> = { runs: options.runs, nodeExtraCaCerts: env.NODE_EXTRA_CA_CERTS !== undefined };

    /** Every case `runs` times in one environment (after one warm-up spawn each), plus the bare-Node floor. */
    const measure = (runEnv: NodeJS.ProcessEnv, label: string): void => {
      runOnce("node", ["-e", "0"], "", runEnv, repo);
      const bare = summarize(Array.from({ length: options.runs }, () => runOnce("node", ["-e", "0"], "", runEnv, repo).ms));
      for (const hookCase of casesFor(repo)) {
        progress(`${hookCase.label}${label}, ${options.runs} spawns`);
        const payload = JSON.stringify({ session_id: "bench", hook_event_name: "PreToolUse", tool_name: hookCase.toolName, tool_input: hookCase.toolInput, cwd: repo });
        const args = [CLI, "hook", "--host", "claude"];
        runOnce("node", args, payload, runEnv, repo); // page cache warm, as on any host after its first call
        const samples: number[] = [];
        for (let run = 0; run < options.runs; run += 1) {
          const result = runOnce("node", args, payload, runEnv, repo);
          if (decisionOf(result.stdout, result.status) !== hookCase.expect) wrongDecisions += 1;
          samples.push(result.ms);
        }
        const summary = summarize(samples);
        details[`${hookCase.label}${label}`] = summary;
        rows.push({ metric: `hook${label}: ${hookCase.label} p50 (n=${options.runs})`, value: ms(summary.p50), target: hookCase.targeted ? `< ${TARGET_MS} ms` : "—", verdict: hookCase.targeted ? verdict(summary.p50 < TARGET_MS) : "info" });
        rows.push({ metric: `hook${label}: ${hookCase.label} p95`, value: ms(summary.p95), target: "—", verdict: "info" });
      }
      details[`bareNode${label}`] = bare;
      rows.push({ metric: `node -e 0${label} p50 (the floor)`, value: ms(bare.p50), target: "—", verdict: "info" });
    };

    measure(env, "");
    if (env.NODE_EXTRA_CA_CERTS !== undefined) {
      // This machine's environment makes every Node start read a CA bundle; hosts usually do not
      // set it, and the hook opens no TLS connection. The same cases without it, side by side.
      const plain: NodeJS.ProcessEnv = { ...env };
      delete plain.NODE_EXTRA_CA_CERTS;
      measure(plain, " without NODE_EXTRA_CA_CERTS");
    }
    rows.push({ metric: "hook decisions different from expected", value: String(wrongDecisions), target: "0", verdict: verdict(wrongDecisions === 0) });
    const notes = [`each run spawns \`node dist/cli.js hook --host claude\` with a Claude Code PreToolUse event on stdin, as the host does`];
    if (env.NODE_EXTRA_CA_CERTS !== undefined) notes.push("NODE_EXTRA_CA_CERTS is set in this environment: Node reads that bundle at every start (see the node -e 0 row)");
    return { phase: "hook", rows, peers: [], notes, details };
  } finally {
    await rm(home, { recursive: true, force: true });
    await rm(repo, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { ...HOOK_FLAGS, strict: { type: "boolean", default: false } } });
  const options = hookOptionsFrom(values);
  runPhaseAlone("hook", options, () => runHookBench(options), values.strict).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`bench hook failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
