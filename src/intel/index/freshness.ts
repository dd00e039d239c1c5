/**
 * How the index learns what changed on disk since its last refresh: paths written through ast-mcp
 * (noteWritten), the file watcher's events where watching works (see watcher.ts), and otherwise a
 * sweep of lstat calls over every directory and content-dependent file. `collect` turns that into
 * the files to process again and lists changed directories again through the tree.
 */
import path from "node:path";
import { Slicer } from "../../core/slicer.ts";
import { ignoreSignatureSync, type IndexTree, lstatQuiet, signatureOf, type FileState } from "./tree.ts";
import type { CodeIndexOptions, IndexTuning } from "./settings.ts";
import { DirectoryWatcher, watchSupport, type WatchEvent } from "./watcher.ts";

/** Stats made between two looks at the clock (a look and an await per stat would cost as much as the stat). */
const CHECKS_PER_CLOCK_READ = 256;

type FreshnessOptions = Pick<IndexTuning, "fullCheckIntervalMs" | "maxWatchedDirectories"> & Required<Pick<CodeIndexOptions, "watch">>;

export class Freshness {
  #watcher: DirectoryWatcher | undefined;
  #watchReason: string | undefined;
  readonly #dirtyDirs = new Set<string>();
  readonly #dirtyPaths = new Set<string>();
  #lastFullCheck = 0;
  /** How the last refresh found changes. */
  last: "stat" | "watch" = "stat";

  constructor(
    private readonly tree: IndexTree,
    private readonly options: FreshnessOptions,
  ) {}

  get watcher(): DirectoryWatcher | undefined {
    return this.#watcher;
  }

  get watchReason(): string | undefined {
    return this.#watchReason;
  }

  /** These paths changed (written, created, deleted, renamed): the next refresh re-reads them whatever their stats say. */
  noteWritten(real: string): void {
    this.#dirtyPaths.add(real);
    this.#dirtyDirs.add(path.dirname(real));
  }

  /** This directory's listing may be out of date. */
  noteDirectory(dir: string): void {
    this.#dirtyDirs.add(dir);
  }

  /** Before a full walk: what was noted is covered by it; the watcher starts if it can. */
  startFullWalk(): void {
    this.#dirtyDirs.clear();
    this.#dirtyPaths.clear();
    this.#setUpWatcher();
  }

  /** After a full walk, which checked everything against its stats. */
  fullWalkDone(): void {
    this.#lastFullCheck = Date.now();
    this.last = "stat";
  }

  /** Adds the files that changed since the last refresh to `pending`, from the watcher's events when they can be trusted, else by stats. */
  async collect(pending: Set<FileState>): Promise<void> {
    const watcher = this.#watcher;
    if (watcher && !watcher.broken && Date.now() - this.#lastFullCheck < this.options.fullCheckIntervalMs && (await watcher.barrier())) {
      this.last = "watch";
      await this.#applyWatchEvents(pending);
    } else {
      this.last = "stat";
      await this.#statSweep(pending);
      this.#lastFullCheck = Date.now();
    }
  }

  /** Stops watching (close, rebuild). */
  stop(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  #setUpWatcher(): void {
    if (this.#watcher || this.options.watch === "off") {
      if (this.options.watch === "off") this.#watchReason = "watching is off for this index";
      return;
    }
    const support = watchSupport();
    if (!support.supported) {
      this.#watchReason = support.reason;
      return;
    }
    this.#watcher = new DirectoryWatcher(
      (event) => this.#onWatchEvent(event),
      (reason) => {
        this.#watchReason = reason;
      },
      this.options.maxWatchedDirectories,
    );
  }

  #onWatchEvent(event: WatchEvent): void {
    if (event.kind === "error" || event.name === null) {
      this.#dirtyDirs.add(event.directory);
      const parent = this.tree.dirs.get(event.directory)?.parent;
      if (parent !== undefined) this.#dirtyDirs.add(parent);
      return;
    }
    const target = path.join(event.directory, event.name);
    this.#dirtyPaths.add(target);
    if (event.kind === "rename") this.#dirtyDirs.add(event.directory);
  }

  /** Turns the events gathered since the last refresh into work. */
  async #applyWatchEvents(pending: Set<FileState>): Promise<void> {
    const tree = this.tree;
    const paths = [...this.#dirtyPaths];
    const dirs = new Set(this.#dirtyDirs);
    this.#dirtyPaths.clear();
    this.#dirtyDirs.clear();
    const subtrees = new Set<string>();
    for (const target of paths) {
      const state = tree.files.get(target);
      if (state) {
        // A reported change is re-hashed even when size and mtime look the same.
        state.signature = undefined;
        pending.add(state);
        if (path.basename(target) === ".gitignore") subtrees.add(state.dir);
        continue;
      }
      if (tree.dirs.has(target)) {
        dirs.add(target);
        continue;
      }
      const parent = path.dirname(target);
      if (tree.dirs.has(parent)) {
        dirs.add(parent);
        if (path.basename(target) === ".gitignore") subtrees.add(parent);
      }
    }
    // Files reached through links live in directories nobody may watch: check them by stats.
    for (const real of tree.linkedFiles) {
      const state = tree.files.get(real);
      if (state?.contentDependent && !this.#watcher?.has(path.dirname(real))) pending.add(state);
    }
    for (const dir of subtrees) dirs.delete(dir);
    await tree.rescanDirectories([...dirs], pending, false);
    await tree.rescanDirectories([...subtrees], pending, true);
  }

  /** Checks every directory and content-dependent file against its stats. */
  async #statSweep(pending: Set<FileState>): Promise<void> {
    const tree = this.tree;
    const forced = new Set(this.#dirtyPaths);
    const dirtyDirs = new Set(this.#dirtyDirs);
    this.#dirtyPaths.clear();
    this.#dirtyDirs.clear();
    const changedDirs: string[] = [];
    const changedIgnores: string[] = [];
    // Synchronous stats, with a turn of the event loop between time slices (decision 0009).
    const slice = new Slicer();
    let checked = 0;
    for (const dir of [...tree.dirs.values()]) {
      const stats = lstatQuiet(dir.real);
      if (!stats || !stats.isDirectory() || signatureOf(stats) !== dir.signature || dirtyDirs.has(dir.real)) changedDirs.push(dir.real);
      // Editing a .gitignore in place does not touch its directory's mtime.
      if (ignoreSignatureSync(dir.real) !== dir.ignoreSignature) changedIgnores.push(dir.real);
      if (++checked % CHECKS_PER_CLOCK_READ === 0) await slice.turn();
    }
    for (const state of [...tree.files.values()]) {
      if (forced.has(state.real)) {
        state.signature = undefined;
        pending.add(state);
        continue;
      }
      if (!state.contentDependent) continue;
      const stats = lstatQuiet(state.real);
      if (!stats || signatureOf(stats) !== state.signature) pending.add(state);
      if (++checked % CHECKS_PER_CLOCK_READ === 0) await slice.turn();
    }
    for (const forcedPath of forced) {
      const parent = path.dirname(forcedPath);
      if (!tree.files.has(forcedPath) && tree.dirs.has(parent)) changedDirs.push(parent);
    }
    const ignoreSet = new Set(changedIgnores);
    await tree.rescanDirectories(
      changedDirs.filter((dir) => !ignoreSet.has(dir)),
      pending,
      false,
    );
    await tree.rescanDirectories(changedIgnores, pending, true);
  }
}
