/**
 * Every host ast-mcp installs into: where its MCP configuration lives for each scope and in which
 * format, what an entry looks like for stdio and for HTTP, and where its guidance file, skills
 * folder and tool hooks go. The formats follow each host's published documentation (named per
 * host below; the golden files in test/hosts/golden name the same pages and dates).
 */
import { LIMITS } from "../core/limits.ts";
import type { TomlTableValues } from "../helpers/toml-table.ts";
import { appSupport, claudeDir, claudeUserConfig, codexHome, copilotHome, joinPath, type HostEnvironment } from "./environment.ts";

export const TARGETS = ["claude", "codex", "copilot", "vscode", "cursor", "gemini", "claude-desktop"] as const;
export type Target = (typeof TARGETS)[number];
export type Scope = "local" | "global";

/** The name of our entry in every host's server list. */
export const SERVER_NAME = "ast-mcp";
/** The environment variable hosts read the HTTP bearer token from (never the token itself). */
export const TOKEN_ENV_NAME = "AST_MCP_TOKEN";

export const TARGET_TITLES: Readonly<Record<Target, string>> = {
  claude: "Claude Code",
  codex: "Codex",
  copilot: "GitHub Copilot CLI",
  vscode: "VS Code",
  cursor: "Cursor",
  gemini: "Gemini CLI",
  "claude-desktop": "Claude Desktop",
};

/**
 * Environment variables the server is started with, written into every entry and service unit.
 * Each is read only at process start, so it has to come from whoever starts the server:
 * - NODE_OPTIONS=--max-semi-space-size: V8 grows its young generation to 16 MiB a semi-space
 *   while the index is built and keeps it; 2 MiB costs no measurable index time.
 * - On Linux, MALLOC_ARENA_MAX: glibc gives each thread that allocates its own malloc arena, and
 *   every parser thread (libuv's, ast-grep's) then keeps the high-water mark of the largest syntax
 *   trees it built, long after they were freed. Two shared arenas hold the same trees.
 * - On Linux, MALLOC_MMAP_THRESHOLD_: without it glibc raises its mapping threshold each time a
 *   large block is freed, so the search index's replaced arrays land in the heap and stay resident.
 * What each costs and saves: docs/decisions/0011-allocator-settings-in-installed-entries.md.
 * An entry's NODE_OPTIONS replaces one the host would pass on.
 */
export function serverEnvironment(platform: NodeJS.Platform, tuning: ServerMemoryTuning = SERVER_MEMORY_TUNING): Record<string, string> {
  const node = { NODE_OPTIONS: `--max-semi-space-size=${tuning.youngSemiSpaceMiB}` };
  if (platform !== "linux") return node;
  return { ...node, MALLOC_ARENA_MAX: String(tuning.mallocArenas), MALLOC_MMAP_THRESHOLD_: String(tuning.mallocMmapThresholdBytes) };
}

export interface ServerMemoryTuning {
  /** MiB of V8's young generation per semi-space (--max-semi-space-size). */
  youngSemiSpaceMiB: number;
  /** glibc malloc arenas the server may use on Linux (MALLOC_ARENA_MAX). */
  mallocArenas: number;
  /** Allocations from this size up get their own mapping, handed back to the system when freed (MALLOC_MMAP_THRESHOLD_ on Linux). */
  mallocMmapThresholdBytes: number;
}

const SERVER_MEMORY_TUNING: ServerMemoryTuning = { youngSemiSpaceMiB: 2, mallocArenas: 2, mallocMmapThresholdBytes: 128 * 1024 };

export type ServerLaunch =
  | { transport: "stdio"; command: string; env: Record<string, string> }
  /** tokenEnv: the variable that holds the bearer token, when the server requires one. */
  | { transport: "http"; url: string; tokenEnv: string | undefined };

/** Where one JSON value goes: a property, or the element of a list that belongs to us. */
export type JsonSlotSpec = { container: string[]; key: string } | { container: string[]; hookFor: string };

export type ArtifactSpec =
  | { kind: "json"; file: string; slot: JsonSlotSpec; value: unknown; role: "entry" | "hook" }
  | { kind: "toml"; file: string; table: string[]; values: TomlTableValues; role: "entry" }
  | { kind: "block"; file: string; body: string; role: "guidance" }
  | { kind: "file"; file: string; content: string; role: "skill" | "hook" | "service"; mode?: number };

/**
 * Set empty in front of hook commands a POSIX shell runs. Hosts pass their environment on, and
 * where it names a CA bundle (common behind corporate proxies) Node 20 reads and parses that
 * bundle at every start, and the hook opens no TLS connection. Node treats an empty value as unset.
 */
export const HOOK_ENV_PREFIX = "NODE_EXTRA_CA_CERTS=";

/**
 * The hook command a host runs. `posixShell`: the host runs it through sh/bash (Claude Code and
 * Codex off Windows, Copilot's `bash` key), which takes the variable assignment in front; cmd.exe
 * and PowerShell do not. The `--host` suffix is how our hook entries are recognised, with or
 * without the prefix (entries written before it existed).
 */
export function hookCommand(executableWord: string, host: string, posixShell: boolean): string {
  return `${posixShell ? `${HOOK_ENV_PREFIX} ` : ""}${executableWord} hook --host ${host}`;
}

export function isOurHookCommand(command: unknown, host: string): boolean {
  return typeof command === "string" && command.endsWith(` hook --host ${host}`);
}

/** True when a host's hook list element (Claude/Codex matcher group) runs our hook. */
export function isOurHookGroup(value: unknown, host: string): boolean {
  if (value === null || typeof value !== "object") return false;
  const hooks = (value as { hooks?: unknown }).hooks;
  return Array.isArray(hooks) && hooks.some((hook) => isOurHookCommand((hook as { command?: unknown } | null)?.command, host));
}

function authorization(launch: Extract<ServerLaunch, { transport: "http" }>, reference: (name: string) => string): Record<string, string> | undefined {
  return launch.tokenEnv === undefined ? undefined : { Authorization: `Bearer ${reference(launch.tokenEnv)}` };
}

function withHeaders(entry: Record<string, unknown>, headers: Record<string, string> | undefined): Record<string, unknown> {
  return headers ? { ...entry, headers } : entry;
}

export interface EntryLocation {
  file: string;
  format: "json" | "toml";
  /** JSON: the object holding the server entries; TOML: the entry's own table. */
  container: string[];
}

export interface TargetLayout {
  /** Why the target cannot be installed with these options (then nothing else applies). */
  unsupported?: string;
  entry?: EntryLocation;
  guidance: string[];
  skillDir?: string;
  hooks?: "json-group" | "copilot-file";
  hookFile?: string;
}

/** Where a target's pieces live for a scope. */
export function targetLayout(target: Target, scope: Scope, he: HostEnvironment): TargetLayout {
  const local = (...parts: string[]) => joinPath(he, he.cwd, ...parts);
  const home = (...parts: string[]) => joinPath(he, he.home, ...parts);
  const isLocal = scope === "local";
  switch (target) {
    // code.claude.com/docs/en/mcp (project .mcp.json; user scope in ~/.claude.json), docs/en/hooks, docs/en/skills, docs/en/memory.
    case "claude":
      return {
        entry: { file: isLocal ? local(".mcp.json") : claudeUserConfig(he), format: "json", container: ["mcpServers"] },
        guidance: [isLocal ? local("CLAUDE.md") : joinPath(he, claudeDir(he), "CLAUDE.md")],
        skillDir: isLocal ? local(".claude", "skills", SERVER_NAME) : joinPath(he, claudeDir(he), "skills", SERVER_NAME),
        hooks: "json-group",
        hookFile: isLocal ? local(".claude", "settings.json") : joinPath(he, claudeDir(he), "settings.json"),
      };
    // developers.openai.com/codex/mcp ([mcp_servers.<name>] in config.toml; .codex/config.toml for trusted projects), /codex/hooks, /codex/skills.
    case "codex":
      return {
        entry: { file: isLocal ? local(".codex", "config.toml") : joinPath(he, codexHome(he), "config.toml"), format: "toml", container: ["mcp_servers", SERVER_NAME] },
        guidance: [isLocal ? local("AGENTS.md") : joinPath(he, codexHome(he), "AGENTS.md")],
        skillDir: isLocal ? local(".agents", "skills", SERVER_NAME) : home(".agents", "skills", SERVER_NAME),
        hooks: "json-group",
        hookFile: isLocal ? local(".codex", "hooks.json") : joinPath(he, codexHome(he), "hooks.json"),
      };
    // docs.github.com/copilot/how-tos/copilot-cli/customize-copilot/add-mcp-servers (.mcp.json; ~/.copilot/mcp-config.json), use-hooks, add-skills, add-custom-instructions.
    case "copilot":
      return {
        entry: { file: isLocal ? local(".mcp.json") : joinPath(he, copilotHome(he), "mcp-config.json"), format: "json", container: ["mcpServers"] },
        guidance: [isLocal ? local("AGENTS.md") : joinPath(he, copilotHome(he), "copilot-instructions.md")],
        skillDir: isLocal ? local(".github", "skills", SERVER_NAME) : joinPath(he, copilotHome(he), "skills", SERVER_NAME),
        hooks: "copilot-file",
        hookFile: isLocal ? local(".github", "hooks", `${SERVER_NAME}.json`) : joinPath(he, copilotHome(he), "hooks", `${SERVER_NAME}.json`),
      };
    // code.visualstudio.com/docs/agents/reference/mcp-configuration (.vscode/mcp.json, "servers", "type"), agent-customization/hooks.
    case "vscode":
      return {
        entry: { file: isLocal ? local(".vscode", "mcp.json") : joinPath(he, appSupport(he), "Code", "User", "mcp.json"), format: "json", container: ["servers"] },
        guidance: isLocal ? [local("AGENTS.md")] : [],
        skillDir: isLocal ? local(".github", "skills", SERVER_NAME) : joinPath(he, copilotHome(he), "skills", SERVER_NAME),
        // VS Code reads Copilot's hook files (.github/hooks/*.json, ~/.copilot/hooks) and converts their event names.
        hooks: "copilot-file",
        hookFile: isLocal ? local(".github", "hooks", `${SERVER_NAME}.json`) : joinPath(he, copilotHome(he), "hooks", `${SERVER_NAME}.json`),
      };
    // cursor.com/docs/context/mcp (.cursor/mcp.json, ~/.cursor/mcp.json), cursor.com/docs/context/skills.
    case "cursor":
      return {
        entry: { file: isLocal ? local(".cursor", "mcp.json") : home(".cursor", "mcp.json"), format: "json", container: ["mcpServers"] },
        guidance: isLocal ? [local("AGENTS.md")] : [],
        skillDir: isLocal ? local(".cursor", "skills", SERVER_NAME) : home(".cursor", "skills", SERVER_NAME),
      };
    // geminicli.com/docs/tools/mcp-server and docs/cli/configuration (.gemini/settings.json, ~/.gemini/settings.json).
    case "gemini":
      return {
        entry: { file: isLocal ? local(".gemini", "settings.json") : home(".gemini", "settings.json"), format: "json", container: ["mcpServers"] },
        guidance: [isLocal ? local("GEMINI.md") : home(".gemini", "GEMINI.md")],
        skillDir: isLocal ? local(".gemini", "skills", SERVER_NAME) : home(".gemini", "skills", SERVER_NAME),
      };
    // modelcontextprotocol.io/docs/develop/connect-local-servers (claude_desktop_config.json; stdio servers only).
    case "claude-desktop":
      if (isLocal) return { unsupported: "Claude Desktop has no project configuration; use --scope global", guidance: [] };
      return {
        entry: { file: joinPath(he, appSupport(he), "Claude", "claude_desktop_config.json"), format: "json", container: ["mcpServers"] },
        guidance: [],
      };
  }
}

function stdioEntry(target: Target, scope: Scope, cmd: string): Record<string, unknown> {
  switch (target) {
    case "claude":
      return { type: "stdio", command: cmd, args: ["mcp"] };
    case "codex":
      return { command: cmd, args: ["mcp"] };
    case "copilot":
      // The project file is shared with Claude Code, so it takes the same entry; the user file has Copilot's "tools".
      return scope === "local" ? { type: "stdio", command: cmd, args: ["mcp"] } : { type: "stdio", command: cmd, args: ["mcp"], tools: ["*"] };
    case "vscode":
    case "cursor":
      // Neither host promises the workspace as the server's working directory; both expand ${workspaceFolder}.
      return { type: "stdio", command: cmd, args: ["mcp", "${workspaceFolder}"] };
    case "gemini":
    case "claude-desktop":
      return { command: cmd, args: ["mcp"] };
  }
}

/** The server entry a target expects, in its own format. */
export function entryValue(target: Target, scope: Scope, launch: ServerLaunch): Record<string, unknown> | TomlTableValues | string {
  if (launch.transport === "stdio") {
    const entry = stdioEntry(target, scope, launch.command);
    return Object.keys(launch.env).length > 0 ? { ...entry, env: { ...launch.env } } : entry;
  }
  switch (target) {
    case "claude":
      return withHeaders({ type: "http", url: launch.url }, authorization(launch, (name) => `\${${name}}`));
    case "codex": {
      const values: TomlTableValues = { url: launch.url };
      if (launch.tokenEnv !== undefined) values.bearer_token_env_var = launch.tokenEnv;
      return values;
    }
    case "copilot": {
      const entry = withHeaders({ type: "http", url: launch.url }, authorization(launch, (name) => `\${${name}}`));
      return scope === "local" ? entry : { ...entry, tools: ["*"] };
    }
    case "vscode":
      return withHeaders({ type: "http", url: launch.url }, authorization(launch, (name) => `\${env:${name}}`));
    case "cursor":
      return withHeaders({ url: launch.url }, authorization(launch, (name) => `\${env:${name}}`));
    case "gemini":
      return withHeaders({ httpUrl: launch.url }, authorization(launch, (name) => `\${${name}}`));
    case "claude-desktop":
      return "Claude Desktop takes stdio servers only; install it with --transport stdio";
  }
}

/**
 * The hook entry for hosts that keep hooks in a shared settings file (Claude Code, Codex).
 * `posixShell`: false when installing on Windows, where the host may hand the command to cmd.exe.
 */
export function hookGroupValue(target: Target, executableWord: string, posixShell: boolean): Record<string, unknown> {
  const matcher = target === "codex" ? "Bash|apply_patch" : "Edit|Write|MultiEdit|NotebookEdit|Bash";
  return { matcher, hooks: [{ type: "command", command: hookCommand(executableWord, target, posixShell), timeout: LIMITS.hosts.hookTimeoutSeconds }] };
}

/**
 * The whole hook file for Copilot CLI (also read by VS Code, which runs `bash` on Linux and macOS
 * and `powershell` on Windows). The `bash` command is always run by a POSIX shell.
 */
export function copilotHookFile(executableWord: string, windowsWord: string): string {
  const document = {
    version: 1,
    hooks: {
      preToolUse: [
        {
          type: "command",
          bash: hookCommand(executableWord, "copilot", true),
          powershell: hookCommand(windowsWord, "copilot", false),
          timeoutSec: LIMITS.hosts.hookTimeoutSeconds,
        },
      ],
    },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
