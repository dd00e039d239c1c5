/**
 * The file system as the TypeScript compiler sees it: only what the workspace policy lists.
 *
 * The compiler's host is synchronous while the policy is asynchronous, so the compiler runs in
 * rounds: it sees the directories already listed through Workspace.listDirectory, every other
 * directory it asks about is remembered as wanted (and looks empty for now), the wanted ones are
 * listed through the policy, and the compiler runs again. Files are opened only by the real path a
 * policy-approved listing gave; nothing outside the roots is ever stat'ed or read.
 */
import { stat } from "node:fs/promises";
import path from "node:path";
import { isToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { eachLimited } from "../../helpers/concurrency.ts";
import { readBoundedSync, realTarget } from "../../policy/open.ts";
import type { PathKind, Workspace } from "../../policy/workspace.ts";

export interface ApprovedEntry {
  /** The real path the policy resolved; the only path ever opened. */
  real: string;
  kind: PathKind;
}

interface Listing {
  /** listed: entries known; missing: inside the roots but not a directory (yet); refused: the policy will not show it. */
  state: "listed" | "missing" | "refused";
  /** Policy-resolved real path of the directory (listed only). */
  real: string;
  mtimeMs: number;
  entries: Map<string, ApprovedEntry>;
}

const EMPTY = new Map<string, ApprovedEntry>();

function isInside(parent: string, child: string): boolean {
  return child.length > parent.length && child.startsWith(parent) && child[parent.length] === path.sep;
}

/** Directories listed (or files stat'ed) at once. */
export const LIST_CONCURRENCY = 16;

function sameEntries(a: Map<string, ApprovedEntry>, b: Map<string, ApprovedEntry>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, entry] of a) {
    const other = b.get(name);
    if (!other || other.real !== entry.real || other.kind !== entry.kind) return false;
  }
  return true;
}

export class ApprovedFileSystem {
  readonly #listings = new Map<string, Listing>();
  readonly #wanted = new Set<string>();
  #workspace: Workspace;
  /** Set when maxDirectories stopped further listing; answers may then miss files. */
  exhausted = false;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** Directories asked about since the last clearWanted() that are not listed yet. */
  get wanted(): ReadonlySet<string> {
    return this.#wanted;
  }

  clearWanted(): void {
    this.#wanted.clear();
  }

  #want(directory: string): void {
    if (!this.#listings.has(directory)) this.#wanted.add(directory);
  }

  #listing(directory: string): Listing | undefined {
    const listing = this.#listings.get(directory);
    if (!listing) this.#want(directory);
    return listing;
  }

  // ───── synchronous answers for the compiler ─────

  /** The approved entry for a path, or undefined (unknown paths become wanted). */
  entry(target: string): ApprovedEntry | undefined {
    const normalized = path.resolve(target);
    const listing = this.#listing(path.dirname(normalized));
    if (!listing || listing.state !== "listed") return undefined;
    return listing.entries.get(path.basename(normalized));
  }

  fileExists(target: string): boolean {
    return this.entry(target)?.kind === "file";
  }

  directoryExists(target: string): boolean {
    const normalized = path.resolve(target);
    const own = this.#listings.get(normalized);
    if (own) return own.state === "listed";
    const parent = this.#listings.get(path.dirname(normalized));
    if (parent?.state === "listed") {
      const entry = parent.entries.get(path.basename(normalized));
      if (entry?.kind !== "directory") return false;
      this.#want(normalized);
      return true;
    }
    // A root's parent is refused: ask for the directory itself.
    this.#want(normalized);
    if (!parent) this.#want(path.dirname(normalized));
    return false;
  }

  /** Names of the approved files and subdirectories of a directory. */
  entriesOf(directory: string): { files: string[]; directories: string[] } {
    const listing = this.#listing(path.resolve(directory));
    const files: string[] = [];
    const directories: string[] = [];
    if (listing?.state === "listed") {
      for (const [name, entry] of listing.entries) {
        if (entry.kind === "file") files.push(name);
        else if (entry.kind === "directory") directories.push(name);
      }
    }
    return { files, directories };
  }

  realpath(target: string): string {
    const normalized = path.resolve(target);
    const own = this.#listings.get(normalized);
    if (own?.state === "listed") return own.real;
    return this.entry(normalized)?.real ?? normalized;
  }

  /** Reads an approved file (by its approved real path), or undefined when it is not approved or too large. */
  readFile(target: string): string | undefined {
    const entry = this.entry(target);
    if (entry?.kind !== "file") return undefined;
    try {
      // Through the policy's one reader: beneath its root, never through a link.
      const loaded = readBoundedSync(realTarget(entry.real, entry.real, this.#workspace.roots), LIMITS.intel.typescript.maxFileBytes);
      return typeof loaded === "object" && "bytes" in loaded ? loaded.bytes.toString("utf8") : undefined;
    } catch {
      return undefined;
    }
  }

  // ───── asynchronous policy work between rounds ─────

  /** Lists every wanted directory through the policy; returns how many new records were made. */
  async approveWanted(): Promise<number> {
    const wanted = [...this.#wanted].filter((directory) => !this.#listings.has(directory));
    this.#wanted.clear();
    const room = LIMITS.intel.typescript.maxDirectories - this.#listings.size;
    if (wanted.length > room) this.exhausted = true;
    const batch = wanted.slice(0, Math.max(0, room));
    await eachLimited(batch, LIST_CONCURRENCY, async (directory) => {
      this.#listings.set(directory, await this.#list(directory));
    });
    return batch.length;
  }

  async #list(directory: string): Promise<Listing> {
    try {
      const listing = this.#workspace.listDirectory(directory);
      const entries = new Map<string, ApprovedEntry>();
      for (const entry of listing.entries) entries.set(entry.name, { real: entry.real, kind: entry.kind });
      let mtimeMs = 0;
      try {
        mtimeMs = (await stat(listing.directory.real)).mtimeMs;
      } catch {
        // Gone between listing and stat: the next refresh sees the change.
      }
      return { state: "listed", real: listing.directory.real, mtimeMs, entries };
    } catch (error) {
      if (!isToolError(error)) throw error;
      const refused = error.code === "path_outside_roots" || error.code === "path_denied" || error.code === "invalid_path" || error.code === "no_roots";
      return { state: refused ? "refused" : "missing", real: directory, mtimeMs: 0, entries: EMPTY };
    }
  }

  /**
   * Re-lists directories whose modification time moved (entries added, removed or replaced) and
   * forgets "missing" answers below them. Returns whether any directory's approved content changed.
   */
  async refresh(workspace: Workspace): Promise<boolean> {
    this.#workspace = workspace;
    const listed = [...this.#listings].filter(([, listing]) => listing.state === "listed");
    const moved: string[] = [];
    await eachLimited(listed, LIST_CONCURRENCY, async ([key, listing]) => {
      let mtimeMs = -1;
      try {
        mtimeMs = (await stat(listing.real)).mtimeMs;
      } catch {
        // A vanished directory is re-listed (and becomes missing).
      }
      if (mtimeMs !== listing.mtimeMs) moved.push(key);
    });
    let changed = false;
    await eachLimited(moved, LIST_CONCURRENCY, async (key) => {
      const before = this.#listings.get(key);
      const after = await this.#list(key);
      this.#listings.set(key, after);
      if (!before || before.state !== after.state || before.real !== after.real || !sameEntries(before.entries, after.entries)) changed = true;
    });
    // A directory that appears changes its parent's time: ask again about missing ones below a moved
    // directory (or with no listed ancestor whose time would tell).
    const retry = [...this.#listings]
      .filter(([key, listing]) => listing.state === "missing" && (moved.some((parent) => isInside(parent, key)) || !this.#hasListedAncestor(key)))
      .map(([key]) => key);
    await eachLimited(retry, LIST_CONCURRENCY, async (key) => {
      const after = await this.#list(key);
      this.#listings.set(key, after);
      if (after.state !== "missing") changed = true;
    });
    return changed;
  }

  #hasListedAncestor(key: string): boolean {
    for (let current = path.dirname(key);; current = path.dirname(current)) {
      if (this.#listings.get(current)?.state === "listed") return true;
      if (path.dirname(current) === current) return false;
    }
  }
}
