/**
 * Where things live for the current user, computed only from injected values (HOME, XDG_*,
 * APPDATA, LOCALAPPDATA, CODEX_HOME, COPILOT_HOME, the working directory, the platform), so
 * tests point everything at temporary folders.
 */
import os from "node:os";
import path from "node:path";

export interface HostEnvironment {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
}

export function hostEnvironment(options: { cwd: string; env: NodeJS.ProcessEnv; platform?: NodeJS.Platform }): HostEnvironment {
  const platform = options.platform ?? process.platform;
  const fromEnv = platform === "win32" ? options.env.USERPROFILE : options.env.HOME;
  const home = fromEnv !== undefined && fromEnv !== "" ? fromEnv : os.homedir();
  return { home, cwd: path.resolve(options.cwd), env: options.env, platform };
}

function paths(he: HostEnvironment): path.PlatformPath {
  return he.platform === "win32" ? path.win32 : path.posix;
}

export function joinPath(he: HostEnvironment, ...parts: string[]): string {
  return paths(he).join(...parts);
}

/** An absolute directory from an environment variable; a relative or empty value is ignored (XDG rule). */
function absoluteFromEnv(he: HostEnvironment, name: string): string | undefined {
  const value = he.env[name];
  return value !== undefined && value !== "" && paths(he).isAbsolute(value) ? value : undefined;
}

export function xdgConfigHome(he: HostEnvironment): string {
  return absoluteFromEnv(he, "XDG_CONFIG_HOME") ?? joinPath(he, he.home, ".config");
}

/** %APPDATA% (Roaming) on Windows. */
function appData(he: HostEnvironment): string {
  return absoluteFromEnv(he, "APPDATA") ?? joinPath(he, he.home, "AppData", "Roaming");
}

/** The platform's per-user application-support folder (macOS Library, Windows Roaming, XDG config). */
export function appSupport(he: HostEnvironment): string {
  if (he.platform === "darwin") return joinPath(he, he.home, "Library", "Application Support");
  if (he.platform === "win32") return appData(he);
  return xdgConfigHome(he);
}

/**
 * ast-mcp's per-user state directory (install record, journal): $AST_MCP_STATE_DIR, else
 * $XDG_STATE_HOME/ast-mcp, else %LOCALAPPDATA%\ast-mcp on Windows, else ~/.local/state/ast-mcp.
 */
export function stateDir(he: HostEnvironment): string {
  const explicit = he.env.AST_MCP_STATE_DIR;
  if (explicit !== undefined && explicit !== "") return paths(he).resolve(he.cwd, explicit);
  const xdg = absoluteFromEnv(he, "XDG_STATE_HOME");
  if (xdg) return joinPath(he, xdg, "ast-mcp");
  if (he.platform === "win32") return joinPath(he, absoluteFromEnv(he, "LOCALAPPDATA") ?? joinPath(he, he.home, "AppData", "Local"), "ast-mcp");
  return joinPath(he, he.home, ".local", "state", "ast-mcp");
}

/** ast-mcp's per-user config directory (the user ast-mcp.toml and the service token live here). */
export function astMcpConfigDir(he: HostEnvironment): string {
  if (he.platform === "win32") return joinPath(he, appData(he), "ast-mcp");
  return joinPath(he, xdgConfigHome(he), "ast-mcp");
}

export function codexHome(he: HostEnvironment): string {
  return absoluteFromEnv(he, "CODEX_HOME") ?? joinPath(he, he.home, ".codex");
}

export function copilotHome(he: HostEnvironment): string {
  return absoluteFromEnv(he, "COPILOT_HOME") ?? joinPath(he, he.home, ".copilot");
}

/** Claude Code's user folder (~/.claude, or $CLAUDE_CONFIG_DIR). */
export function claudeDir(he: HostEnvironment): string {
  return absoluteFromEnv(he, "CLAUDE_CONFIG_DIR") ?? joinPath(he, he.home, ".claude");
}

/** Claude Code's user-scope MCP file: ~/.claude.json (inside $CLAUDE_CONFIG_DIR when set). */
export function claudeUserConfig(he: HostEnvironment): string {
  const custom = absoluteFromEnv(he, "CLAUDE_CONFIG_DIR");
  return custom ? joinPath(he, custom, ".claude.json") : joinPath(he, he.home, ".claude.json");
}
