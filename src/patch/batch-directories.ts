/**
 * The directories one batch (or one recovery or rollback) works in, held beneath their roots for
 * as long as the batch runs. Journal records name files by real path; every file-system call of
 * the commit machinery turns that path into a name inside a held directory (`at`), so a directory
 * that another process swaps for a link after the check is never followed: the call acts in the
 * directory that was checked, or fails.
 */
import { mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { relativeInside } from "../helpers/path-text.ts";
import { ChangedBeneath, displayBeneath, holdBeneath, holdRoot, sameEntry, type HeldDirectory } from "../policy/beneath.ts";
import { errnoOf } from "./durable-fs.ts";

/** An error a missing directory raises, shaped like the errno error of a by-path call (so isMissing sees it). */
function missingError(changed: ChangedBeneath): Error {
  return Object.assign(new Error(`ENOENT: ${changed.real} does not exist`), { code: "ENOENT" });
}

export class BatchDirectories {
  readonly #held = new Map<string, HeldDirectory>();

  constructor(readonly roots: readonly string[]) {}

  /** The root that contains `dir` (the longest one), or undefined. */
  rootOf(dir: string): string | undefined {
    let best: string | undefined;
    for (const root of this.roots) {
      if (relativeInside(root, dir, path.sep) !== undefined && (best === undefined || root.length > best.length)) best = root;
    }
    return best;
  }

  /**
   * The held directory `dir` (a real path inside a root), opened now if it is not held yet, each
   * segment relative to the one above and never through a link. Throws ChangedBeneath when a
   * segment is a link or not a directory, and an ENOENT error when one is missing.
   */
  dir(dir: string): HeldDirectory {
    const known = this.#held.get(dir);
    if (known !== undefined) return known;
    const root = this.rootOf(dir);
    if (root === undefined) throw new ChangedBeneath(dir, "replaced");
    let held: HeldDirectory;
    try {
      if (dir === root) held = holdRoot(root);
      else {
        const parent = path.dirname(dir);
        held = parent === dir ? holdRoot(dir) : this.dir(parent).openDirectory(path.basename(dir));
      }
    } catch (error) {
      if (error instanceof ChangedBeneath && error.reason === "missing") throw missingError(error);
      throw error;
    }
    this.#held.set(dir, held);
    return held;
  }

  /** A name for `file` (a real path) that resolves through its held parent directory. */
  at(file: string): string {
    return this.dir(path.dirname(file)).at(path.basename(file));
  }

  /** Opens `file` with `flags` through its held parent, never following a link at its name. */
  open(file: string, flags: number, mode?: number): number {
    try {
      return this.dir(path.dirname(file)).openEntry(path.basename(file), flags, mode);
    } catch (error) {
      if (error instanceof ChangedBeneath && error.reason === "missing") throw missingError(error);
      throw error;
    }
  }

  /** Creates directory `dir` in its held parent (an existing one is fine) and holds it. */
  makeDirectory(dir: string): void {
    try {
      mkdirSync(this.at(dir));
    } catch (error) {
      if (errnoOf(error) !== "EEXIST") throw error;
    }
    this.dir(dir);
  }

  /** Creates `dir` and any missing ancestor below its root, each in its held parent. */
  ensureDirectory(dir: string): void {
    try {
      this.dir(dir);
      return;
    } catch (error) {
      if (errnoOf(error) !== "ENOENT") throw error;
    }
    const root = this.rootOf(dir);
    if (root === undefined || dir === root) throw new ChangedBeneath(dir, "missing");
    this.ensureDirectory(path.dirname(dir));
    this.makeDirectory(dir);
  }

  /** Removes the empty directory `dir` through its held parent and stops holding it. */
  removeDirectory(dir: string): void {
    const name = this.at(dir);
    this.#forget(dir);
    rmdirSync(name);
  }

  #forget(dir: string): void {
    for (const [key, held] of this.#held) {
      if (key === dir || relativeInside(dir, key, path.sep) !== undefined) {
        held.close();
        this.#held.delete(key);
      }
    }
  }

  /**
   * Checks that every held directory is still what its path names now: walked again from the
   * root without following links, the same entry. Throws ChangedBeneath for the first that is not.
   */
  verify(dirs: Iterable<string>): void {
    for (const dir of new Set(dirs)) {
      const held = this.#held.get(dir);
      const root = this.rootOf(dir);
      if (held === undefined || root === undefined) continue;
      const rest = relativeInside(root, dir, path.sep) ?? "";
      const again = holdBeneath(root, rest === "" ? [] : rest.split(path.sep));
      const same = sameEntry(again.identity, held.identity);
      again.close();
      if (!same) throw new ChangedBeneath(dir, "replaced");
    }
  }

  /** A held directory's own name (for fsync and readdir), or undefined when it is not held and cannot be. */
  selfOf(dir: string): string | undefined {
    try {
      return this.dir(dir).self();
    } catch {
      return undefined;
    }
  }

  /** `text` with every descriptor path of a held directory replaced by that directory's real path. */
  display(text: string): string {
    return displayBeneath(text, [...this.#held.values()]);
  }

  close(): void {
    for (const held of this.#held.values()) held.close();
    this.#held.clear();
  }
}
