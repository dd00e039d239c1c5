/**
 * `ast-mcp install`, `ast-mcp update` and `ast-mcp uninstall`: register the server with coding
 * hosts (entries, guidance block, skill, hooks, optional service), re-point what was installed at
 * the current executable, and remove exactly what was installed.
 */
import { loadConfig } from "../config/load.ts";
import { hostEnvironment } from "../hosts/environment.ts";
import { ExecutableError, resolveExecutable, type ExecutableInfo } from "../hosts/executable.ts";
import { install, renderReport, uninstall, update, type InstallContext, type Report } from "../hosts/install.ts";
import { guidanceTemplate, skillTemplateFiles } from "../hosts/package-files.ts";
import { RecordError } from "../hosts/record.ts";
import { defaultServiceDeps, type ServiceDeps } from "../hosts/service.ts";
import { TARGETS, type Scope, type Target } from "../hosts/targets.ts";
import { parseFlags, parsePort, UsageError } from "./args.ts";
import type { CommandIO } from "./io.ts";

export const INSTALL_USAGE = `Usage: ast-mcp install --target T[,T…]|all [--scope local|global] [--transport stdio|http]
                      [--host H] [--port P] [--no-hooks] [--no-guidance] [--no-skill] [--service] [--dry-run]

Registers ast-mcp with coding hosts, in each host's own configuration format:

  targets   ${TARGETS.join(", ")}, or all
  --scope   local (default): this project's files (.mcp.json, .vscode/mcp.json, .codex/config.toml, …)
            global: your user configuration (~/.claude.json, ~/.codex/config.toml, …)
  --transport stdio (default): hosts start \`ast-mcp mcp\` themselves.
            http: entries point at http://HOST:PORT/mcp (default from [http] in ast-mcp.toml);
            a token is referenced as $AST_MCP_TOKEN, never written.
  --service run the HTTP server as a per-user service (systemd user unit / launchd agent) with a
            token file, point the entries at it, and check GET /healthz. Implies --transport http.

Also installs, unless told not to, the ast-mcp guidance block in AGENTS.md / CLAUDE.md / GEMINI.md
(--no-guidance), the ast-mcp skill in the host's skills folder (--no-skill), and the PreToolUse hook
that steers direct edits to ast-mcp's tools (--no-hooks; Claude Code, Codex, Copilot CLI, VS Code).
Other servers, unknown keys and comments are kept; a malformed file is reported and left as it is;
running it again changes nothing. --dry-run prints the exact diff and writes nothing.
`;

export const UPDATE_USAGE = `Usage: ast-mcp update [--dry-run]

Re-points every entry, hook and service that \`ast-mcp install\` recorded at the current executable
and refreshes the guidance block and the skill. --dry-run prints the diff and writes nothing.
`;

export const UNINSTALL_USAGE = `Usage: ast-mcp uninstall [--target T[,T…]|all] [--scope local|global|all] [--dry-run]

Removes exactly what \`ast-mcp install\` added (entries, hooks, guidance blocks, skills, service),
as recorded in the user state directory, and nothing else; ast-mcp.toml stays. Defaults: all
targets, both the global scope and this project. --dry-run prints the diff and writes nothing.
`;

const INSTALL_FLAGS = {
  help: { type: "boolean" },
  target: { type: "string" },
  scope: { type: "string", choices: ["local", "global"] },
  transport: { type: "string", choices: ["stdio", "http"] },
  host: { type: "string" },
  port: { type: "string" },
  hooks: { type: "boolean" },
  "no-hooks": { type: "boolean" },
  "no-guidance": { type: "boolean" },
  "no-skill": { type: "boolean" },
  service: { type: "boolean" },
  "dry-run": { type: "boolean" },
} as const;

const UPDATE_FLAGS = { help: { type: "boolean" }, "dry-run": { type: "boolean" } } as const;

const UNINSTALL_FLAGS = {
  help: { type: "boolean" },
  target: { type: "string" },
  scope: { type: "string", choices: ["local", "global", "all"] },
  "dry-run": { type: "boolean" },
} as const;

/** What the commands take from the process; tests inject their own. */
export interface InstallCommandDeps {
  executable?: ExecutableInfo;
  serviceDeps?: ServiceDeps;
  platform?: NodeJS.Platform;
  nodePath?: string;
  /** The running CLI script, from which the executable is resolved. */
  cliPath?: string;
}

function parseTargets(value: string | boolean | undefined, fallback: Target[] | undefined): Target[] {
  if (value === undefined || value === true || value === false) {
    if (fallback) return fallback;
    throw new UsageError(`--target is required (${TARGETS.join(", ")}, or all)`);
  }
  const names = value.split(",").map((name) => name.trim()).filter((name) => name !== "");
  if (names.includes("all")) return [...TARGETS];
  const targets: Target[] = [];
  for (const name of names) {
    if (!(TARGETS as readonly string[]).includes(name)) throw new UsageError(`unknown target ${JSON.stringify(name)}; choose from ${TARGETS.join(", ")}, or all`);
    if (!targets.includes(name as Target)) targets.push(name as Target);
  }
  if (targets.length === 0) throw new UsageError("--target names no target");
  return targets;
}

/** Uninstall needs no executable: it only takes back what the record lists. */
const NO_EXECUTABLE: ExecutableInfo = { command: "ast-mcp", absolute: "ast-mcp", source: "path", packageRoot: "" };

async function context(io: CommandIO, deps: InstallCommandDeps, needsExecutable = true): Promise<InstallContext> {
  const he = hostEnvironment({ cwd: io.cwd, env: io.env, ...(deps.platform ? { platform: deps.platform } : {}) });
  let executable = deps.executable;
  if (!executable) {
    try {
      executable = await resolveExecutable({ cliPath: deps.cliPath ?? process.argv[1] ?? "", env: io.env, platform: he.platform });
    } catch (error) {
      if (needsExecutable || !(error instanceof ExecutableError)) throw error;
      executable = NO_EXECUTABLE;
    }
  }
  const snapshot = await loadConfig({ cwd: io.cwd, env: io.env });
  return {
    he,
    executable,
    nodePath: deps.nodePath ?? process.execPath,
    templates: { guidance: guidanceTemplate(), skill: skillTemplateFiles() },
    serviceDeps: deps.serviceDeps ?? defaultServiceDeps(),
    http: { host: snapshot.config.http.host, port: snapshot.config.http.port, tokenSet: snapshot.token !== undefined },
  };
}

function print(io: CommandIO, report: Report): number {
  const rendered = renderReport(report);
  if (rendered.stdout !== "") io.stdout(rendered.stdout);
  if (rendered.stderr !== "") io.stderr(rendered.stderr);
  return report.problems.length > 0 ? 1 : 0;
}

async function guarded(io: CommandIO, command: string, action: () => Promise<number>): Promise<number> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof ExecutableError || error instanceof RecordError) {
      io.stderr(`ast-mcp ${command}: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

export async function runInstallCommand(argv: string[], io: CommandIO, deps: InstallCommandDeps = {}): Promise<number> {
  const flags = parseFlags(argv, INSTALL_FLAGS, INSTALL_USAGE, io.stdout);
  if (!flags) return 0;
  if (flags.hooks && flags["no-hooks"]) throw new UsageError("--hooks and --no-hooks contradict each other");
  if (flags.service && flags.transport === "stdio") throw new UsageError("--service serves over HTTP; drop --transport stdio");
  const targets = parseTargets(flags.target, undefined);
  const port = parsePort(flags.port, 1);
  return guarded(io, "install", async () => {
    const report = await install(
      {
        targets,
        scope: (flags.scope ?? "local") as Scope,
        transport: flags.transport === "http" ? "http" : "stdio",
        ...(typeof flags.host === "string" ? { host: flags.host } : {}),
        ...(port !== undefined ? { port } : {}),
        hooks: !flags["no-hooks"],
        guidance: !flags["no-guidance"],
        skill: !flags["no-skill"],
        service: flags.service === true,
        dryRun: flags["dry-run"] === true,
      },
      await context(io, deps),
    );
    return print(io, report);
  });
}

export async function runUpdateCommand(argv: string[], io: CommandIO, deps: InstallCommandDeps = {}): Promise<number> {
  const flags = parseFlags(argv, UPDATE_FLAGS, UPDATE_USAGE, io.stdout);
  if (!flags) return 0;
  return guarded(io, "update", async () => print(io, await update({ dryRun: flags["dry-run"] === true }, await context(io, deps))));
}

export async function runUninstallCommand(argv: string[], io: CommandIO, deps: InstallCommandDeps = {}): Promise<number> {
  const flags = parseFlags(argv, UNINSTALL_FLAGS, UNINSTALL_USAGE, io.stdout);
  if (!flags) return 0;
  const targets = parseTargets(flags.target, [...TARGETS]);
  const scope = flags.scope ?? "all";
  const scopes: Scope[] = scope === "all" ? ["global", "local"] : [scope as Scope];
  return guarded(io, "uninstall", async () => print(io, await uninstall({ targets, scopes, dryRun: flags["dry-run"] === true }, await context(io, deps, false))));
}
