/**
 * The private directory that holds the write journal and each process's list of the directories
 * it may leave write-lock entries in (the locks themselves live beside the files: see locks.ts). It must be
 * ours alone: a directory another user owns or may write to could feed us a forged journal whose
 * "rollback" overwrites files, so such a directory is refused rather than used.
 */
import { lstatSync, mkdirSync, realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { CACHE_DIR_ENV, CONFIG_PATH_ENV, STATE_DIR_ENV } from "./env.ts";

const APP_DIR = "ast-mcp";
export const JOURNAL_SUBDIR = "journal";
/** Each process's list of the directories it may leave write-lock entries in (see locks.ts). */
export const LOCK_DIRS_SUBDIR = "lock-dirs";

export interface StateDirOptions {
  platform?: NodeJS.Platform;
  homeDir?: string;
  /** The user the directory must belong to; defaults to process.getuid(). */
  uid?: number;
  cwd?: string;
}

/**
 * The per-user directories: the AST_MCP_* variable that names one outright, the XDG variable, and the
 * platform's place (Windows: the variable that names the base, the AppData folder it defaults to, and
 * what follows the app's folder; below the home directory on macOS and elsewhere).
 */
const USER_DIRECTORIES = {
  config: { override: CONFIG_PATH_ENV, xdg: "XDG_CONFIG_HOME", windows: { base: "APPDATA", appData: "Roaming", under: [] }, darwin: [".config"], other: [".config"] },
  state: {
    override: STATE_DIR_ENV,
    xdg: "XDG_STATE_HOME",
    windows: { base: "LOCALAPPDATA", appData: "Local", under: [] },
    darwin: ["Library", "Application Support"],
    other: [".local", "state"],
  },
  cache: {
    override: CACHE_DIR_ENV,
    xdg: "XDG_CACHE_HOME",
    windows: { base: "LOCALAPPDATA", appData: "Local", under: ["cache"] },
    darwin: ["Library", "Caches"],
    other: [".cache"],
  },
} as const;

/**
 * Where a per-user directory of ast-mcp is for this environment (nothing is touched); `explicit` when
 * its AST_MCP_* variable chose it (for the configuration that variable names the file itself).
 */
export function userDirectory(kind: keyof typeof USER_DIRECTORIES, env: NodeJS.ProcessEnv, options: Omit<StateDirOptions, "uid"> = {}): { path: string; explicit: boolean } {
  const spec = USER_DIRECTORIES[kind];
  const platform = options.platform ?? process.platform;
  const paths = platform === "win32" ? path.win32 : path.posix;
  const home = options.homeDir ?? os.homedir();
  const override = env[spec.override]?.trim();
  if (override !== undefined && override !== "") return { path: paths.resolve(options.cwd ?? process.cwd(), override), explicit: true };
  const xdg = env[spec.xdg];
  // The XDG spec says a relative XDG_*_HOME is invalid and must be ignored.
  if (xdg !== undefined && xdg !== "" && paths.isAbsolute(xdg)) return { path: paths.join(xdg, APP_DIR), explicit: false };
  if (platform === "win32") {
    const base = env[spec.windows.base];
    return { path: paths.join(base !== undefined && base !== "" ? base : paths.join(home, "AppData", spec.windows.appData), APP_DIR, ...spec.windows.under), explicit: false };
  }
  return { path: paths.join(home, ...(platform === "darwin" ? spec.darwin : spec.other), APP_DIR), explicit: false };
}

function stateDirError(message: string): ToolError {
  return new ToolError("io_error", message, {
    retryable: false,
    hint: `Make the directory private to you (chmod 700, owned by you) or point ${STATE_DIR_ENV} at a private directory outside the workspace.`,
  });
}

/** Where the state directory is for this environment (nothing is touched). */
export function stateDirectoryPath(env: NodeJS.ProcessEnv = process.env, options: StateDirOptions = {}): string {
  return userDirectory("state", env, options).path;
}

/** Synchronous like the other metadata calls here: a few µs each, where a thread-pool round trip costs more (the hook runs this per call). */
function ensurePrivateDirectory(dir: string, platform: NodeJS.Platform, uid: number | undefined): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw stateDirError(`Cannot create the state directory ${dir}: ${(error as Error).message}`);
  }
  const stats = lstatSync(dir);
  if (stats.isSymbolicLink()) throw stateDirError(`The state directory ${dir} is a symbolic link; point ${STATE_DIR_ENV} at the real directory.`);
  if (!stats.isDirectory()) throw stateDirError(`The state directory ${dir} exists but is not a directory.`);
  if (platform === "win32") return;
  if (uid !== undefined && stats.uid !== uid) {
    throw stateDirError(`The state directory ${dir} belongs to user ${stats.uid}, not to the current user ${uid}; refusing to use it.`);
  }
  if ((stats.mode & 0o022) !== 0) {
    throw stateDirError(`The state directory ${dir} is writable by group or others (mode ${(stats.mode & 0o777).toString(8)}); refusing to use it.`);
  }
}

/**
 * Creates (mode 0700) and checks the state directory and its journal and lock-dirs subdirectories;
 * returns its real path.
 */
export async function stateDirectory(env: NodeJS.ProcessEnv = process.env, options: StateDirOptions = {}): Promise<string> {
  const platform = options.platform ?? process.platform;
  const uid = options.uid ?? (platform === "win32" ? undefined : process.getuid?.());
  const dir = stateDirectoryPath(env, options);
  ensurePrivateDirectory(dir, platform, uid);
  const real = realpathSync(dir);
  for (const sub of [JOURNAL_SUBDIR, LOCK_DIRS_SUBDIR]) ensurePrivateDirectory(path.join(real, sub), platform, uid);
  return real;
}

/** The journal must never live in the tree it protects: a rollback could then rewrite itself. */
export function assertOutsideRoots(stateDir: string, roots: readonly string[]): void {
  for (const root of roots) {
    if (relativeInside(root, stateDir, path.sep) !== undefined) {
      throw stateDirError(`The state directory ${stateDir} lies inside the workspace root ${root}; set ${STATE_DIR_ENV} to a directory outside the workspace.`);
    }
  }
}
