/**
 * What a cheap stat says about a configuration file, so a reader can tell "unchanged" without
 * reading or validating it again (the server's ConfigStore, the hook's settings cache). Kept
 * apart from the schema so that checking costs no schema construction.
 */
import { promises as fs } from "node:fs";
import type { Stats } from "node:fs";

/** What a cheap stat says about a file; equal fingerprints mean "assume unchanged". */
export interface FileFingerprint {
  path: string;
  exists: boolean;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export function fingerprintOf(path: string, stats: Stats | undefined): FileFingerprint {
  if (!stats) return { path, exists: false, size: 0, mtimeMs: 0, ctimeMs: 0, ino: 0 };
  return { path, exists: true, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino };
}

export function sameFingerprint(a: FileFingerprint, b: FileFingerprint): boolean {
  return a.path === b.path && a.exists === b.exists && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/** stat that reports a missing file as undefined and rethrows anything else. */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await fs.stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

export async function fingerprintFile(path: string): Promise<FileFingerprint> {
  try {
    return fingerprintOf(path, await statIfExists(path));
  } catch {
    // An unreadable path still gets a stable fingerprint; the loader reports the real error.
    return { path, exists: true, size: -1, mtimeMs: -1, ctimeMs: -1, ino: -1 };
  }
}
