/**
 * The walked tree of the code index: which directories and files lie under the roots, why an entry
 * is left out (.gitignore chains, built-in skips, the policy, depth), and each file's status. It
 * reads no file contents but ignore files, and knows nothing of parsing, freshness or snapshots:
 * `scanDirectory` lists a directory through the workspace and reconciles what it holds, so a part of
 * the tree can be walked on its own. `generation` increases on every change the answers can see.
 */
import { lstatSync, type Stats } from "node:fs";
import path from "node:path";
import { isToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { Slicer } from "../../core/slicer.ts";
import { log } from "../../core/log.ts";
import { isIgnored, parseIgnoreFile, type IgnoreFile } from "../../helpers/gitignore.ts";
import { relativeInside, splitSegments } from "../../helpers/path-text.ts";
import type { DirectoryEntry, Workspace } from "../../policy/workspace.ts";
import { type ReadTarget, readBoundedSync, realTarget, resolvedTarget } from "../../policy/open.ts";
import { hasExtension, isParseable, isSkippedDirectory, type LanguageDetector, outputDirectoryNames } from "../../syntax/index.ts";
import type { Coverage, IndexedFile, IndexSettings, SkippedCounts } from "./types.ts";
import type { DirectoryWatcher } from "./watcher.ts";

export type FileStatus = "pending" | "indexed" | "tooLarge" | "unsupported" | "minified" | "unreadable" | "overLimit";

export interface FileState {
  real: string;
  display: string;
  rootReal: string;
  /** Relative to the root, POSIX, as reached through the walk (what ignore rules and overrides see). */
  relative: string;
  /** Real path of the directory whose listing holds this entry. */
  dir: string;
  status: FileStatus;
  /** lstat signature when last processed; undefined before. */
  signature: string | undefined;
  /** Whether the status depends on content (and so on re-checks); false for files unsupported by name. */
  contentDependent: boolean;
  indexed: IndexedFile | undefined;
  /** Walk order key, for a deterministic max_files cut. */
  order: string;
}

export interface DirState {
  real: string;
  rootReal: string;
  rootIndex: number;
  relative: string;
  signature: string;
  parent: string | undefined;
  /** For a root: the ignore files that apply above its own .gitignore (.git/info/exclude). */
  rootInherited: IgnoreFile[];
  /** The ignore files that apply here, root first (ancestors' and this directory's own). */
  chain: IgnoreFile[];
  ignoreSignature: string;
  files: Set<string>;
  dirs: Set<string>;
  ignored: number;
  denied: number;
  /** Directories below the root, this one included (0 for a root). */
  depth: number;
  /** Subdirectories left out because they lie deeper than LIMITS.intel.index.maxDirectoryDepth. */
  tooDeep: number;
}

/** What the tree asks of the index that holds it. */
export interface TreeHost {
  workspace(): Workspace;
  detector(): LanguageDetector;
  /** The watcher new directories join (none when watching is off). */
  watcher(): DirectoryWatcher | undefined;
}

/** How a cut by directory depth is reported: the limit, and what a caller can still do. */
const TOO_DEEP_LIMIT =
  `directory depth ${LIMITS.intel.index.maxDirectoryDepth}: deeper directories are not indexed (not configurable); file_read and the other path tools still open files there by path`;

export function signatureOf(stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number }): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

/** lstat that answers undefined for a path that is gone or whose parent is no longer a directory. */
export function lstatQuiet(target: string): Stats | undefined {
  try {
    return lstatSync(target, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

export function ignoreSignatureSync(dirReal: string): string {
  const stats = lstatQuiet(path.join(dirReal, ".gitignore"));
  return stats?.isFile() ? signatureOf(stats) : "";
}

function readIgnoreText(target: ReadTarget): string | undefined {
  try {
    const loaded = readBoundedSync(target, LIMITS.intel.index.maxIgnoreFileBytes);
    if (loaded === "gone" || loaded === "too_large") return undefined;
    if ("skipped" in loaded) {
      log.warn("an ignore file is too large and is not applied", { file: target.display, bytes: loaded.stats.size });
      return undefined;
    }
    return loaded.bytes.toString("utf8");
  } catch {
    return undefined;
  }
}

function childRelative(parent: string, name: string): string {
  return parent === "" ? name : `${parent}/${name}`;
}

function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** Whether a file's status can depend on its content: a parseable name, or no extension (a shebang may still say). */
export function contentDependentByName(detector: LanguageDetector, relative: string): boolean {
  const byName = detector.fromName(relative);
  return isParseable(byName) || (byName === undefined && !hasExtension(path.basename(relative)));
}

export class IndexTree {
  readonly files = new Map<string, FileState>();
  readonly dirs = new Map<string, DirState>();
  /** Files whose real directory is not the directory that lists them (reached through a link). */
  readonly linkedFiles = new Set<string>();
  indexedCount = 0;
  generation = 0;
  /** Files that joined and left the indexed set since the counters were last reset. */
  counters = { added: 0, removed: 0 };

  constructor(private readonly host: TreeHost) {}

  bump(): void {
    this.generation += 1;
  }

  /** Forgets every file and directory (a rebuild). */
  clear(): void {
    this.files.clear();
    this.dirs.clear();
    this.linkedFiles.clear();
    this.indexedCount = 0;
    this.bump();
  }

  /** Every indexed file, roots in workspace order, then by relative path. */
  indexedFiles(rootReals: readonly string[]): IndexedFile[] {
    const out: IndexedFile[] = [];
    for (const state of this.files.values()) if (state.indexed) out.push(state.indexed);
    const byRelative = (a: IndexedFile, b: IndexedFile) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0);
    return out.sort((a, b) => (a.rootReal === b.rootReal ? byRelative(a, b) : rootReals.indexOf(a.rootReal) - rootReals.indexOf(b.rootReal)));
  }

  /** What the walk and the limits left out, and whether the answer is complete. */
  coverage(settings: IndexSettings): Coverage {
    const skipped: SkippedCounts = { tooLarge: 0, ignored: 0, denied: 0, unsupported: 0, overLimit: 0, minified: 0, unreadable: 0, tooDeep: 0 };
    for (const dir of this.dirs.values()) {
      skipped.ignored += dir.ignored;
      skipped.denied += dir.denied;
      skipped.tooDeep += dir.tooDeep;
    }
    for (const state of this.files.values()) {
      if (state.status !== "pending" && state.status !== "indexed") skipped[state.status] += 1;
    }
    const limits: string[] = [];
    if (skipped.overLimit > 0) limits.push(`index.max_files = ${settings.maxFiles}`);
    if (skipped.tooLarge > 0) limits.push(`index.max_file_bytes = ${settings.maxFileBytes}`);
    if (skipped.tooDeep > 0) limits.push(TOO_DEEP_LIMIT);
    return { complete: limits.length === 0, skipped, limits, files: this.indexedCount };
  }

  /**
   * Walks every root from scratch (first build, or after the policy or settings changed); new and
   * known files become pending. Every directory is listed, whoever listed it before (a call may
   * list a folder ahead of the walk: `listAhead`). `rootsReady` is called once the roots are known
   * and their inherited ignore files read, before any listing; the walk waits whenever `pause`
   * hands it a promise (calls doing their own work first).
   */
  async fullScan(pending: Set<FileState>, options: { rootsReady?: () => void; pause?: () => Promise<void> | undefined } = {}): Promise<void> {
    const roots: DirState[] = [];
    for (const [rootIndex, root] of this.host.workspace().roots.entries()) {
      if (roots.some((dir) => dir.real === root.real)) continue;
      let dir = this.dirs.get(root.real);
      if (!dir) {
        dir = this.#newDir(root.real, root.real, rootIndex, "", undefined, 0);
        this.dirs.set(root.real, dir);
      }
      dir.rootInherited = await this.#rootIgnoreChain(root.real);
      roots.push(dir);
    }
    options.rootsReady?.();
    for (const dir of roots) await this.scanDirectory(dir, pending, "all", options.pause);
    // Directories of roots that are no longer roots (a narrowed workspace never reuses an index, but be safe).
    for (const dir of [...this.dirs.values()]) {
      if (dir.parent === undefined && !roots.includes(dir)) this.removeDirectory(dir.real);
    }
  }

  /**
   * Lists, ahead of a running walk, the directories from a root down to `dirReal` that were never
   * listed, then (with `subtree`) every directory below it, so a call about one folder need not
   * wait for the whole tree. Answers the directories of the scope (`dirReal` alone, or its whole
   * subtree), or undefined when the subtree of a root is asked for (that is the walk itself) or
   * `dirReal` lies outside what the walk covers (ignored, skipped, denied, too deep, reached through
   * a link).
   */
  async listAhead(dirReal: string, subtree: boolean): Promise<DirState[] | undefined> {
    let root: DirState | undefined;
    for (const dir of this.dirs.values()) {
      if (dir.parent !== undefined || relativeInside(dir.real, dirReal, path.sep) === undefined) continue;
      if (!root || dir.real.length > root.real.length) root = dir;
    }
    const relative = root && relativeInside(root.real, dirReal, path.sep);
    if (!root || relative === undefined || (relative === "" && subtree)) return undefined;
    // New files found here are pending for the call; the walk makes every file pending again.
    const pending = new Set<FileState>();
    let dir: DirState = root;
    for (const name of splitSegments(relative, path.sep)) {
      if (!this.#listed(dir)) this.#scanOne(dir, pending, "new");
      const child = this.dirs.get(path.join(dir.real, name));
      if (!child || child.parent !== dir.real) return undefined;
      dir = child;
    }
    if (!this.#listed(dir)) this.#scanOne(dir, pending, "new");
    if (this.dirs.get(dir.real) !== dir) return undefined;
    if (!subtree) return [dir];
    const scope = [dir];
    const slice = new Slicer();
    for (let head = 0; head < scope.length; head++) {
      const current = scope[head]!;
      if (!this.#listed(current)) this.#scanOne(current, pending, "new");
      for (const real of current.dirs) {
        const child = this.dirs.get(real);
        if (child) scope.push(child);
      }
      await slice.turn();
    }
    return scope;
  }

  /** Whether a walk has listed this directory (its signature is taken when it is). */
  #listed(dir: DirState): boolean {
    return dir.signature !== "";
  }

  /** Lists directories again, outermost first; `subtree` also lists every directory below them. */
  async rescanDirectories(reals: string[], pending: Set<FileState>, subtree: boolean): Promise<void> {
    const ordered = [...new Set(reals)].filter((real) => this.dirs.has(real)).sort((a, b) => a.length - b.length);
    for (const real of ordered) {
      const dir = this.dirs.get(real);
      // An earlier rescan in this loop may have removed or rescanned it already.
      if (!dir) continue;
      await this.scanDirectory(dir, pending, subtree ? "all" : "new");
    }
  }

  /** .git/info/exclude applies at the root like a top-level .gitignore. */
  async #rootIgnoreChain(rootReal: string): Promise<IgnoreFile[]> {
    const excludePath = path.join(rootReal, ".git", "info", "exclude");
    try {
      const resolved = await this.host.workspace().resolve(excludePath, "read");
      if (!resolved.exists || resolved.kind !== "file") return [];
      const text = readIgnoreText(resolvedTarget(resolved));
      return text === undefined ? [] : [parseIgnoreFile(text, "")];
    } catch {
      return [];
    }
  }

  #newDir(real: string, rootReal: string, rootIndex: number, relative: string, parent: string | undefined, depth: number): DirState {
    return {
      real,
      rootReal,
      rootIndex,
      relative,
      signature: "",
      parent,
      rootInherited: [],
      chain: [],
      ignoreSignature: "",
      files: new Set(),
      dirs: new Set(),
      ignored: 0,
      denied: 0,
      depth,
      tooDeep: 0,
    };
  }

  /**
   * Lists one directory through the workspace and reconciles what it holds: new files become
   * pending, vanished files and directories leave the index, new subdirectories are walked. With
   * `recurse: "all"` every subdirectory is listed again too (its ignore rules may have changed),
   * new ones included (a call may have listed some of their subdirectories ahead of the walk).
   */
  async scanDirectory(dir: DirState, pending: Set<FileState>, recurse: "new" | "all", pause?: () => Promise<void> | undefined): Promise<void> {
    const queue: Array<{ dir: DirState; recurse: "new" | "all" }> = [{ dir, recurse }];
    const slice = new Slicer();
    for (let head = 0; head < queue.length; head++) {
      const waiting = pause?.();
      if (waiting) await waiting;
      const { dir: current, recurse: mode } = queue[head]!;
      if (this.dirs.get(current.real) !== current) continue;
      for (const child of this.#scanOne(current, pending, mode)) queue.push(child);
      await slice.turn();
    }
  }

  /**
   * Lists one directory with synchronous calls (policy walk, readdir, .gitignore): a thread-pool
   * round trip per lstat cost several times more than the calls themselves on large trees.
   */
  #scanOne(dir: DirState, pending: Set<FileState>, recurse: "new" | "all"): Array<{ dir: DirState; recurse: "new" | "all" }> {
    const stats = lstatQuiet(dir.real);
    if (!stats?.isDirectory()) {
      this.removeDirectory(dir.real);
      return [];
    }
    const watcher = this.host.watcher()?.broken ? undefined : this.host.watcher();
    // Watch before listing: an entry created after the listing then produces an event.
    watcher?.add(dir.real);
    let listing;
    try {
      listing = this.host.workspace().listDirectory(dir.real);
    } catch (error) {
      if (isToolError(error) || errnoOf(error) !== undefined) {
        // Gone, denied now, or unreadable: the directory leaves the index.
        this.removeDirectory(dir.real);
        return [];
      }
      throw error;
    }
    dir.signature = signatureOf(stats);

    // This directory's own .gitignore joins the chain its parent has now.
    const inherited = dir.parent !== undefined ? (this.dirs.get(dir.parent)?.chain ?? []) : dir.rootInherited;
    const ignoreEntry = listing.entries.find((entry) => entry.name === ".gitignore" && entry.kind === "file");
    let own: IgnoreFile | undefined;
    const oldIgnoreSignature = dir.ignoreSignature;
    dir.ignoreSignature = ignoreEntry ? ignoreSignatureSync(dir.real) : "";
    if (ignoreEntry) {
      const text = readIgnoreText(realTarget(ignoreEntry.real, ignoreEntry.display, this.host.workspace().roots));
      if (text !== undefined) own = parseIgnoreFile(text, dir.relative);
    }
    dir.chain = own ? [...inherited, own] : inherited;
    const ignoresChanged = oldIgnoreSignature !== dir.ignoreSignature;

    const nextFiles = new Set<string>();
    const nextDirs = new Set<string>();
    const toWalk: Array<{ dir: DirState; recurse: "new" | "all" }> = [];
    let ignored = 0;
    let tooDeep = 0;
    // Output folders (dist, build, vendor, …) are skipped only at an index root or beside the manifest of a tool that writes them.
    const outputNames = outputDirectoryNames(listing.entries.filter((entry) => entry.kind !== "directory").map((entry) => entry.name), dir.parent === undefined);
    for (const entry of listing.entries) {
      const relative = childRelative(dir.relative, entry.name);
      if (entry.kind === "directory") {
        if (isSkippedDirectory(entry.name, outputNames) || isIgnored(dir.chain, relative, true)) {
          ignored += 1;
          continue;
        }
        // Each level costs a policy walk from the root, so a pathologically deep tree is cut, and said so.
        if (dir.depth + 1 > LIMITS.intel.index.maxDirectoryDepth) {
          tooDeep += 1;
          continue;
        }
        const known = this.dirs.get(entry.real);
        if (known && known.parent !== dir.real) continue; // Reached before through another path (a link).
        if (entry.real === dir.real || this.#isAncestor(entry.real, dir)) continue; // A link back up the tree.
        nextDirs.add(entry.real);
        if (!known) {
          const child = this.#newDir(entry.real, dir.rootReal, dir.rootIndex, relative, dir.real, dir.depth + 1);
          this.dirs.set(entry.real, child);
          toWalk.push({ dir: child, recurse });
        } else if (recurse === "all" || ignoresChanged) {
          toWalk.push({ dir: known, recurse: "all" });
        } else if (watcher && !watcher.has(known.real)) {
          // Recreated under the same name: its old watch went with the old directory.
          toWalk.push({ dir: known, recurse: "new" });
        }
        continue;
      }
      if (entry.kind !== "file") continue;
      if (isIgnored(dir.chain, relative, false)) {
        ignored += 1;
        continue;
      }
      nextFiles.add(entry.real);
      const existing = this.files.get(entry.real);
      if (existing) {
        if (existing.dir === dir.real) {
          existing.display = entry.display;
          existing.relative = relative;
        }
        if (ignoresChanged || recurse === "all") pending.add(existing);
        continue;
      }
      const state = this.#newFile(entry, dir, relative);
      this.files.set(entry.real, state);
      if (path.dirname(entry.real) !== dir.real) this.linkedFiles.add(entry.real);
      pending.add(state);
    }
    for (const real of dir.files) {
      if (!nextFiles.has(real)) {
        const state = this.files.get(real);
        if (state && state.dir === dir.real) this.removeFile(state);
      }
    }
    for (const real of dir.dirs) if (!nextDirs.has(real)) this.removeDirectory(real);
    dir.files = nextFiles;
    dir.dirs = nextDirs;
    if (dir.ignored !== ignored || dir.denied !== listing.hidden || dir.tooDeep !== tooDeep) this.bump();
    dir.ignored = ignored;
    dir.tooDeep = tooDeep;
    dir.denied = listing.hidden;
    return toWalk;
  }

  #isAncestor(real: string, dir: DirState): boolean {
    let current: DirState | undefined = dir;
    while (current) {
      if (current.real === real) return true;
      current = current.parent !== undefined ? this.dirs.get(current.parent) : undefined;
    }
    return false;
  }

  #newFile(entry: DirectoryEntry, dir: DirState, relative: string): FileState {
    const contentDependent = contentDependentByName(this.host.detector(), relative);
    return {
      real: entry.real,
      display: entry.display,
      rootReal: entry.root.real,
      relative,
      dir: dir.real,
      status: contentDependent ? "pending" : "unsupported",
      signature: undefined,
      contentDependent,
      indexed: undefined,
      order: `${String(dir.rootIndex).padStart(4, "0")}/${relative}`,
    };
  }

  removeFile(state: FileState): void {
    if (this.files.get(state.real) !== state) return;
    this.files.delete(state.real);
    this.linkedFiles.delete(state.real);
    if (state.indexed) {
      this.indexedCount -= 1;
      this.counters.removed += 1;
    }
    this.bump();
  }

  removeDirectory(real: string): void {
    const dir = this.dirs.get(real);
    if (!dir) return;
    this.dirs.delete(real);
    this.host.watcher()?.remove(real);
    for (const file of dir.files) {
      const state = this.files.get(file);
      if (state && state.dir === real) this.removeFile(state);
    }
    for (const child of dir.dirs) this.removeDirectory(child);
    if (dir.parent !== undefined) this.dirs.get(dir.parent)?.dirs.delete(real);
    this.bump();
  }

  /** Records a file's status (and facts when indexed), counting files in and out. */
  setStatus(state: FileState, status: FileStatus, indexed: IndexedFile | undefined): void {
    const wasIndexed = state.indexed !== undefined;
    const changed = state.status !== status || state.indexed?.sha256 !== indexed?.sha256 || (wasIndexed && indexed !== undefined && state.indexed !== indexed);
    state.status = status;
    state.indexed = indexed;
    if (wasIndexed && !indexed) this.indexedCount -= 1;
    if (!wasIndexed && indexed) {
      this.indexedCount += 1;
      this.counters.added += 1;
    }
    if (changed) this.bump();
  }
}
