/**
 * A realpath that never leaves the roots. It walks segment by segment from a root's real path
 * with lstat/readlink; a link's target text is resolved lexically and checked against the roots
 * before anything at the target is touched, so nothing outside the roots is ever probed.
 *
 * ".." is resolved lexically (as path.resolve does), in inputs and in link targets alike. The
 * result contains no symlinks up to its last existing segment, so callers must open `real`,
 * never the input, to act on exactly what was checked.
 */
import { fstatSync, lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import type { Stats } from "node:fs";
import { LIMITS } from "../core/limits.ts";
import { ChangedBeneath, changedError, type EntryIdentity, type HeldDirectory, holdRoot, identityOf } from "./beneath.ts";
import { locateLexically, type RootLocation } from "./roots.ts";
import type { PathKind, Root } from "./types.ts";
import * as messages from "./messages.ts";

export interface WalkResult {
  real: string;
  exists: boolean;
  kind: PathKind;
  /** What the last segment was when the walk saw it (absent when it does not exist): readers confirm they opened this entry. */
  identity?: EntryIdentity;
}

export interface WalkOptions {
  /** The roots a path and every link target must stay in. */
  roots: readonly Root[];
  /** The input as given, for error messages. */
  input: string;
  /**
   * Called for every link before it is followed, with the link's own real path and its target
   * in real form (both inside the roots); throws to refuse following it.
   */
  beforeFollow: (link: string, target: string) => void;
}

function kindOf(stats: Stats): PathKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  return "other";
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // ENAMETOOLONG: no such name can exist, which is the same answer as not existing.
  return code === "ENOENT" || code === "ENOTDIR" || code === "ENAMETOOLONG";
}

function joinAll(base: string, segments: readonly string[]): string {
  return segments.length === 0 ? base : path.join(base, ...segments);
}

/** lstat of `name` in a held directory; `real` is what errors show (never the descriptor path). */
function lstatInRoot(named: string, real: string): Stats | undefined {
  try {
    return lstatSync(named);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw messages.ioError(real, error);
  }
}

function found(real: string, stats: Stats): WalkResult {
  return { real, exists: true, kind: kindOf(stats), identity: identityOf(stats) };
}

/**
 * Resolves `start` (a located, in-root path) to its real path. Throws path_outside_roots when a
 * link leads out. Each segment is looked at in the directory held open above it (beneath.ts), so a
 * directory swapped for a link mid-walk cannot make the walk probe outside the roots. Synchronous on purpose: each segment is one lstat of a few microseconds, while
 * an asynchronous call is a thread-pool round trip that cost more than the whole rest of a
 * file_hash call (and the code index walks thousands of directories).
 */
export function walkRealPath(start: RootLocation, options: WalkOptions): WalkResult {
  let current = start.root.real;
  const pending = [...start.segments];
  let held = holdInRoot(current, options.input);
  if (!held) return { real: joinAll(current, pending), exists: false, kind: "missing" };
  let hops = 0;
  let reopened = 0;
  try {
    while (pending.length > 0) {
      const segment = pending.shift() as string;
      const candidate = path.join(current, segment);
      const stats = lstatInRoot(held.at(segment), candidate);
      if (!stats) return { real: joinAll(candidate, pending), exists: false, kind: "missing" };
      if (stats.isSymbolicLink()) {
        hops += 1;
        if (hops > LIMITS.symlinkHops) throw messages.tooManyLinks(options.input);
        let targetText: string;
        try {
          targetText = readlinkSync(held.at(segment));
        } catch (error) {
          if (isMissing(error)) return { real: joinAll(candidate, pending), exists: false, kind: "missing" };
          // EINVAL: no longer a link; look at the segment again.
          if ((error as NodeJS.ErrnoException).code === "EINVAL" && (reopened += 1) <= LIMITS.symlinkHops) {
            pending.unshift(segment);
            continue;
          }
          throw messages.ioError(candidate, error);
        }
        // `current` is real, so a relative target resolves against the link's real directory.
        const target = locateLexically(options.roots, path.resolve(current, targetText));
        if (!target) throw messages.outsideRoots(options.input);
        options.beforeFollow(candidate, joinAll(target.root.real, target.segments));
        held.close();
        current = target.root.real;
        pending.unshift(...target.segments);
        held = holdInRoot(current, options.input);
        if (!held) return { real: joinAll(current, pending), exists: false, kind: "missing" };
        continue;
      }
      if (pending.length === 0) return found(candidate, stats);
      // A file in the middle of a path: nothing below it can exist.
      if (!stats.isDirectory()) return { real: joinAll(candidate, pending), exists: false, kind: "missing" };
      let next: HeldDirectory;
      try {
        next = held.openDirectory(segment);
      } catch (error) {
        if (!(error instanceof ChangedBeneath)) throw messages.ioError(candidate, error);
        // Replaced since the lstat (by a link, a file, or nothing): look at it again, a bounded number of times.
        if ((reopened += 1) > LIMITS.symlinkHops) throw changedError(options.input, error);
        pending.unshift(segment);
        continue;
      }
      held.close();
      held = next;
      current = candidate;
    }
    // Ended on a root itself (the input named a root, or a link pointed at one).
    return found(current, fstatSync(held.fd));
  } finally {
    held?.close();
  }
}

/** The root held open; undefined when it is gone (the path then does not exist). */
function holdInRoot(rootReal: string, input: string): HeldDirectory | undefined {
  try {
    return holdRoot(rootReal);
  } catch (error) {
    if (error instanceof ChangedBeneath) {
      if (error.reason === "missing" || error.reason === "not_directory") return undefined;
      throw changedError(input, error);
    }
    throw messages.ioError(rootReal, error);
  }
}
