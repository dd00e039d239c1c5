/**
 * Where the code index persists its snapshots: the user's cache directory (see userDirectory),
 * never the repository. The directory the snapshots go in is created with mode 0700 and refused
 * when another user owns it or others may write to it: a forged snapshot would feed wrong answers.
 */
import { lstat, mkdir, realpath } from "node:fs/promises";
import path from "node:path";
import { CACHE_DIR_ENV } from "./env.ts";
import { relativeInside } from "../helpers/path-text.ts";
import { userDirectory } from "./state-dir.ts";

/** The subdirectory of the cache directory that holds index snapshots. */
const INDEX_SUBDIR = "index";

/** The cache directory for this environment (nothing is touched). */
export function userCacheDirectory(env: NodeJS.ProcessEnv = process.env, options: { platform?: NodeJS.Platform; homeDir?: string; cwd?: string } = {}): string {
  return userDirectory("cache", env, options).path;
}

/** The real path of `target`, or of its nearest existing ancestor joined with the rest. */
async function realOrNearest(target: string): Promise<string> {
  let current = path.resolve(target);
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return path.resolve(target);
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/** Why `cacheDir` cannot hold snapshots for these roots (it lies inside one), or undefined. */
export async function cacheDirInsideRoots(cacheDir: string, rootReals: readonly string[]): Promise<string | undefined> {
  const real = await realOrNearest(cacheDir);
  for (const root of rootReals) {
    if (relativeInside(root, real, path.sep) !== undefined) {
      return `the cache directory ${real} lies inside the workspace root ${root}; snapshots never go into the repository (set ${CACHE_DIR_ENV} elsewhere)`;
    }
  }
  return undefined;
}

/**
 * Creates (0700) and checks `<cacheDir>/index`; returns its real path, or a reason it cannot be used.
 */
export async function ensureSnapshotDirectory(cacheDir: string, platform: NodeJS.Platform = process.platform): Promise<{ dir: string } | { problem: string }> {
  const dir = path.join(cacheDir, INDEX_SUBDIR);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const stats = await lstat(dir);
    if (stats.isSymbolicLink() || !stats.isDirectory()) return { problem: `${dir} is not a plain directory` };
    if (platform !== "win32") {
      const uid = process.getuid?.();
      if (uid !== undefined && stats.uid !== uid) return { problem: `${dir} belongs to user ${stats.uid}, not to the current user` };
      if ((stats.mode & 0o022) !== 0) return { problem: `${dir} is writable by group or others (mode ${(stats.mode & 0o777).toString(8)})` };
    }
    return { dir: await realpath(dir) };
  } catch (error) {
    return { problem: `cannot use ${dir}: ${(error as Error).message}` };
  }
}
