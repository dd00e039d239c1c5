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

/** Where the write journal and locks live, replacing the platform state directory (src/config/env.ts lists it among the special variables). */
export const STATE_DIR_ENV = "AST_MCP_STATE_DIR";
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

function stateDirError(message: string): ToolError {
  return new ToolError("io_error", message, {
    retryable: false,
    hint: `Make the directory private to you (chmod 700, owned by you) or point ${STATE_DIR_ENV} at a private directory outside the workspace.`,
  });
}

/** Where the state directory is for this environment (nothing is touched). */
export function stateDirectoryPath(env: NodeJS.ProcessEnv = process.env, options: StateDirOptions = {}): string {
  const platform = options.platform ?? process.platform;
  const paths = platform === "win32" ? path.win32 : path.posix;
  const home = options.homeDir ?? os.homedir();
  const override = env[STATE_DIR_ENV]?.trim();
  if (override !== undefined && override !== "") return paths.resolve(options.cwd ?? process.cwd(), override);
  const xdg = env.XDG_STATE_HOME;
  // As with XDG_CONFIG_HOME, a relative XDG_STATE_HOME is invalid and ignored.
  if (xdg !== undefined && xdg !== "" && paths.isAbsolute(xdg)) return paths.join(xdg, APP_DIR);
  if (platform === "win32") {
    const local = env.LOCALAPPDATA;
    return local !== undefined && local !== "" ? paths.join(local, APP_DIR) : paths.join(home, "AppData", "Local", APP_DIR);
  }
  if (platform === "darwin") return paths.join(home, "Library", "Application Support", APP_DIR);
  return paths.join(home, ".local", "state", APP_DIR);
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
