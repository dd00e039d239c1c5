/**
 * One run of `ast-mcp hook`: payload in, the host's answer out. It must never break the host:
 * a payload that is not JSON, or any failure of our own, lets the call through with a warning on
 * stderr. Configuration and the shell parser load only for calls that need them, so the common
 * case (a tool that is no file edit) answers without either.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { LIMITS } from "../../core/limits.ts";
import type { HookSettings } from "./decide.ts";
import { allowAnswer, denyAnswer, parsePayload, warnAnswer, type HookAnswer } from "./protocol.ts";
import { toolKind } from "./tools.ts";

export interface HookRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  home: string;
  /** Reads the effective [hook] settings for a repository (injected by tests). */
  loadSettings?: (repoRoot: string) => Promise<{ settings: HookSettings; warnings: string[] }>;
  /** Where the full configuration loader comes from on a settings-cache miss (the hook bundle keeps it in its own file). */
  loadConfig?: ConfigLoader;
}

/** Loads the configuration module (zod, smol-toml): a third of a hook run's start-up if it were always loaded. */
export type ConfigLoader = () => Promise<Pick<typeof import("../../config/load.ts"), "loadConfigDetailed">>;

const importConfig: ConfigLoader = () => import("../../config/load.ts");

/** The nearest folder at or above `start` holding .git (a directory, or a worktree's file). */
export async function findRepoRoot(start: string): Promise<string> {
  let dir = path.resolve(start);
  for (;;) {
    try {
      statSync(path.join(dir, ".git"));
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return path.resolve(start);
      dir = parent;
    }
  }
}

/**
 * The [hook] settings from the user and project configuration, validated by the full loader; its
 * answer is remembered until a file it read or the environment changes (settings-cache.ts).
 */
export async function loadHookSettings(repoRoot: string, env: NodeJS.ProcessEnv, loadConfig: ConfigLoader = importConfig): Promise<{ settings: HookSettings; warnings: string[] }> {
  const { cachedHookSettings } = await import("./settings-cache.ts");
  return cachedHookSettings(repoRoot, env, async () => {
    const { loadConfigDetailed } = await loadConfig();
    const { snapshot, fingerprints } = await loadConfigDetailed({ cwd: repoRoot, cliRoots: [repoRoot], env });
    const hook = snapshot.config.hook;
    const warnings = snapshot.problems.map((problem) => `ast-mcp hook: config problem in ${problem.file}: ${problem.keyPath}: ${problem.message}`);
    return { settings: { mode: hook.mode, allowPaths: hook.allow_paths, allowCommands: hook.allow_commands }, warnings, fingerprints };
  });
}

export async function runHook(payload: string, options: HookRunOptions): Promise<HookAnswer> {
  try {
    if (Buffer.byteLength(payload, "utf8") > LIMITS.hosts.hookMaxPayloadBytes) {
      return allowAnswer(`ast-mcp hook: the hook input is larger than ${LIMITS.hosts.hookMaxPayloadBytes} bytes; allowing the call unchecked\n`);
    }
    const parsed = parsePayload(payload);
    if (parsed.kind === "invalid") return allowAnswer(`ast-mcp hook: ${parsed.reason}; allowing the call unchecked\n`);
    if (parsed.kind === "ignore") return allowAnswer();
    const call = parsed.call;
    if (toolKind(call.tool) === "other") return allowAnswer();

    const cwd = path.resolve(options.cwd, call.cwd ?? ".");
    const projectDir = options.env.CLAUDE_PROJECT_DIR;
    const repoRoot = call.dialect === "claude" && projectDir !== undefined && projectDir !== "" ? path.resolve(projectDir) : await findRepoRoot(cwd);
    const load = options.loadSettings ?? ((root: string) => loadHookSettings(root, options.env, options.loadConfig));
    let loaded: { settings: HookSettings; warnings: string[] } | undefined;
    const settings = async () => (loaded ??= await load(repoRoot)).settings;
    const { decide } = await import("./decide.ts");
    const verdict = await decide(call, { repoRoot, cwd, home: options.home, env: options.env, settings });
    const stderr = (loaded?.warnings ?? []).map((warning) => `${warning}\n`).join("");
    if (verdict.kind === "allow") return allowAnswer(stderr);
    const mode = (await settings()).mode;
    const answer = mode === "warn" ? warnAnswer(call.dialect, `${verdict.reason} (warning only: [hook].mode is "warn")`) : denyAnswer(call.dialect, verdict.reason);
    return { ...answer, stderr: stderr + answer.stderr };
  } catch (error) {
    return allowAnswer(`ast-mcp hook: internal error, allowing the call: ${error instanceof Error ? error.message : String(error)}\n`);
  }
}
