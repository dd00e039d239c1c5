/**
 * Change events for the index's directories, so a freshness check can skip the stat walk.
 *
 * One fs.watch per directory (inotify watches the directory's entries). Events arrive
 * asynchronously, so before trusting "nothing changed" the index calls barrier(): it creates a
 * uniquely named file in a private directory watched the same way and waits for that file's
 * event. Under Node on Linux the events of every handle arrive in order, so once the barrier's
 * event arrives every change made before the call has been delivered too; elsewhere the index
 * keeps the stat walk (docs/decisions/0020-watch-events-only-where-ordered.md). Watching is an
 * optimisation, never a source of stale answers.
 */
import { mkdtempSync, rmSync, watch, writeFileSync, unlinkSync, type FSWatcher } from "node:fs";
import os from "node:os";
import path from "node:path";
import { log } from "../../core/log.ts";

/** How long barrier() waits for its own event before declaring the watcher unreliable. */
const BARRIER_TIMEOUT_MS = 2_000;

/** Whether ordered change events are available here, and why not when they are not. */
export function watchSupport(): { supported: boolean; reason?: string } {
  if (process.versions.bun !== undefined) return { supported: false, reason: "Bun's fs.watch does not deliver events in order" };
  if (process.platform !== "linux") return { supported: false, reason: `ordered per-directory events are only relied on under Linux (this is ${process.platform})` };
  return { supported: true };
}

export type WatchEvent = { directory: string; name: string | null; kind: "rename" | "change" | "error" };

export class DirectoryWatcher {
  readonly #watchers = new Map<string, FSWatcher>();
  readonly #onEvent: (event: WatchEvent) => void;
  readonly #onBroken: (reason: string) => void;
  #barrierDir: string | undefined;
  #barrierWatcher: FSWatcher | undefined;
  #barrierSequence = 0;
  #waiting: { name: string; resolve: (arrived: boolean) => void } | undefined;
  #broken = false;

  /** `maxDirectories`: watched (one fs.watch each) before the index relies on stat checks alone. */
  constructor(
    onEvent: (event: WatchEvent) => void,
    onBroken: (reason: string) => void,
    private readonly maxDirectories = 8192,
  ) {
    this.#onEvent = onEvent;
    this.#onBroken = onBroken;
  }

  get size(): number {
    return this.#watchers.size;
  }

  get broken(): boolean {
    return this.#broken;
  }

  has(directory: string): boolean {
    return this.#watchers.has(directory);
  }

  /** Starts watching `directory`; false when it cannot be watched (the index then relies on stats). */
  add(directory: string): boolean {
    if (this.#broken) return false;
    if (this.#watchers.has(directory)) return true;
    if (this.#watchers.size >= this.maxDirectories) {
      this.#break(`more than ${this.maxDirectories} directories`);
      return false;
    }
    try {
      const watcher = watch(directory, { persistent: false }, (eventType, name) => {
        this.#onEvent({ directory, name: name === null ? null : String(name), kind: eventType === "change" ? "change" : "rename" });
      });
      watcher.on("error", () => {
        // The directory went away or became unreadable: its parent's listing decides what happens next.
        this.remove(directory);
        this.#onEvent({ directory, name: null, kind: "error" });
      });
      this.#watchers.set(directory, watcher);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return false;
      // ENOSPC (inotify watch limit) and the like: partial watching would be a liability.
      this.#break(`fs.watch failed on ${directory}: ${(error as Error).message}`);
      return false;
    }
  }

  remove(directory: string): void {
    const watcher = this.#watchers.get(directory);
    if (!watcher) return;
    this.#watchers.delete(directory);
    try {
      watcher.close();
    } catch {
      // Already closed by the runtime after an error.
    }
  }

  /**
   * Resolves true once every event caused before the call has been delivered; false when the
   * barrier's own event did not arrive in time (the caller then checks with stats).
   */
  async barrier(): Promise<boolean> {
    if (this.#broken) return false;
    if (!this.#ensureBarrierDirectory()) return false;
    const name = `b${this.#barrierSequence++}`;
    const file = path.join(this.#barrierDir!, name);
    const arrived = new Promise<boolean>((resolve) => {
      this.#waiting = { name, resolve };
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), BARRIER_TIMEOUT_MS);
    });
    try {
      writeFileSync(file, "");
      const ok = await Promise.race([arrived, timeout]);
      if (!ok) log.debug("index watcher barrier timed out; checking with stats");
      return ok;
    } catch (error) {
      this.#break(`barrier write failed: ${(error as Error).message}`);
      return false;
    } finally {
      clearTimeout(timer);
      this.#waiting = undefined;
      try {
        unlinkSync(file);
      } catch {
        // Gone already.
      }
    }
  }

  #ensureBarrierDirectory(): boolean {
    if (this.#barrierWatcher) return true;
    try {
      this.#barrierDir = mkdtempSync(path.join(os.tmpdir(), "ast-mcp-watch-"));
      // A server that exits without closing its indexes still leaves no directory behind.
      process.once("exit", this.#removeBarrierDirectory);
      this.#barrierWatcher = watch(this.#barrierDir, { persistent: false }, (_eventType, name) => {
        const waiting = this.#waiting;
        if (waiting && name !== null && String(name) === waiting.name) {
          this.#waiting = undefined;
          waiting.resolve(true);
        }
      });
      this.#barrierWatcher.on("error", () => this.#break("the barrier directory went away"));
      return true;
    } catch (error) {
      this.#break(`cannot set up the barrier directory: ${(error as Error).message}`);
      return false;
    }
  }

  #break(reason: string): void {
    if (this.#broken) return;
    this.#broken = true;
    log.info("code index stops watching; freshness checks use stats", { reason });
    this.close();
    this.#onBroken(reason);
  }

  close(): void {
    for (const directory of [...this.#watchers.keys()]) this.remove(directory);
    try {
      this.#barrierWatcher?.close();
    } catch {
      // Already closed.
    }
    this.#barrierWatcher = undefined;
    this.#removeBarrierDirectory();
    process.removeListener("exit", this.#removeBarrierDirectory);
  }

  readonly #removeBarrierDirectory = (): void => {
    if (this.#barrierDir === undefined) return;
    rmSync(this.#barrierDir, { recursive: true, force: true });
    this.#barrierDir = undefined;
  };
}
