/**
 * Root bookkeeping: which root a path lies in, decided on text alone. A root reached through
 * a symlink is known by both its given path and its real path, so either spelling works.
 */
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { log } from "../core/log.ts";
import { relativeInside, splitSegments } from "../helpers/path-text.ts";
import type { Root } from "./types.ts";

export interface RootLocation {
  root: Root;
  index: number;
  /** Segments below the root (no "." or ".."). */
  segments: string[];
}

export interface LoadedRoots {
  roots: Root[];
  /** Configured roots that do not exist or are not directories (the config loader reports them too). */
  unusable: string[];
}

/**
 * Realpaths each configured root once; roots are configuration, not tool input, so probing them
 * is fine. An unusable root is left out rather than failing the whole workspace, so the server
 * can still explain itself (config_status).
 */
export async function loadRoots(paths: readonly string[]): Promise<LoadedRoots> {
  const roots: Root[] = [];
  const unusable: string[] = [];
  for (const given of paths) {
    const absolute = path.resolve(given);
    try {
      const real = await realpath(absolute);
      if (!(await stat(real)).isDirectory()) throw new Error("not a directory");
      if (!roots.some((root) => root.real === real)) roots.push(Object.freeze({ path: absolute, real }));
    } catch {
      unusable.push(absolute);
      log.warn("workspace root does not exist or is not a directory; it is not used", { root: absolute });
    }
  }
  return { roots, unusable };
}

/**
 * Maps a normalized absolute path onto the first root whose given or real path contains it.
 * Textual only: never touches the file system.
 */
export function locateLexically(roots: readonly Root[], absolute: string): RootLocation | undefined {
  for (const [index, root] of roots.entries()) {
    const rest = relativeInside(root.real, absolute, path.sep) ?? relativeInside(root.path, absolute, path.sep);
    if (rest !== undefined) return { root, index, segments: splitSegments(rest, path.sep) };
  }
  return undefined;
}

/** Like locateLexically, for a path already in real form (matched against real paths only). */
export function locateReal(roots: readonly Root[], real: string): RootLocation | undefined {
  for (const [index, root] of roots.entries()) {
    const rest = relativeInside(root.real, real, path.sep);
    if (rest !== undefined) return { root, index, segments: splitSegments(rest, path.sep) };
  }
  return undefined;
}

/** The real-form spelling of a located path: root.real joined with its segments. */
export function realForm(location: RootLocation): string {
  return location.segments.length === 0 ? location.root.real : path.join(location.root.real, ...location.segments);
}
