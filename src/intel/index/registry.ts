/**
 * The code indexes of one process: one per set of roots, shared by its sessions, the least recently
 * used closed beyond a few. The composition root builds one registry (ToolServices.indexes); a test
 * builds its own. Writes reach the indexes through noteCommitted, which the tools layer calls when
 * the write pipeline reports a commit.
 */
import type { ConfigSnapshot } from "../../config/types.ts";
import { log } from "../../core/log.ts";
import type { Workspace } from "../../policy/workspace.ts";
import { CodeIndex } from "./code-index.ts";
import { type CodeIndexOptions, indexSettingsFrom } from "./settings.ts";
import type { FactsExtractor } from "./types.ts";

export interface RegistryOptions {
  /** Indexes (one per set of roots) kept alive; the least recently used beyond this is closed. */
  maxIndexes?: number;
}

/** What a tool call hands the registry: its workspace, configuration and services. */
export interface IndexContext {
  workspace: Workspace;
  config: ConfigSnapshot;
  services: { indexes: IndexRegistry };
}

export interface LoadedExtractor {
  extract: FactsExtractor;
  version: string | undefined;
}

export class IndexRegistry {
  readonly #indexes = new Map<string, CodeIndex>();
  readonly #maxIndexes: number;
  #extractor: Promise<LoadedExtractor> | undefined;

  constructor(options: RegistryOptions = {}) {
    this.#maxIndexes = options.maxIndexes ?? 8;
  }

  /**
   * The index for this workspace's roots. A newer workspace or settings object replaces the old
   * one; a different policy generation or different settings make the next ensureFresh re-walk
   * every directory.
   */
  for(workspace: Workspace, options: CodeIndexOptions = {}): CodeIndex {
    const key = workspace.roots.map((root) => root.real).join("\0");
    let index = this.#indexes.get(key);
    if (index && !index.closed) {
      this.#indexes.delete(key);
      this.#indexes.set(key, index);
      index.adopt(workspace, options);
      return index;
    }
    index = new CodeIndex(workspace, key, options, {
      extractor: () => this.#defaultExtractor(),
      closed: (closing) => {
        if (this.#indexes.get(closing.key) === closing) this.#indexes.delete(closing.key);
      },
    });
    this.#indexes.set(key, index);
    while (this.#indexes.size > this.#maxIndexes) {
      const oldest = this.#indexes.keys().next().value as string;
      this.#indexes.get(oldest)?.close();
      this.#indexes.delete(oldest);
    }
    return index;
  }

  /** The index a tool call should use: its workspace, with the settings and generation of its configuration. */
  forContext(context: Omit<IndexContext, "services">, options: Omit<CodeIndexOptions, "settings" | "policyGeneration"> = {}): CodeIndex {
    return this.for(context.workspace, { ...options, settings: indexSettingsFrom(context.config.config), policyGeneration: context.config.generation });
  }

  /** These real paths were just written, created, deleted or renamed: every index that may hold them re-reads them on its next refresh. */
  noteCommitted(realPaths: readonly string[]): void {
    for (const index of this.#indexes.values()) index.notifyWritten(realPaths);
  }

  /** Appends to each index's snapshot what it parsed since the last write; gives up waiting after `budgetMs` (shutdown). */
  async flushAll(budgetMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), budgetMs);
      timer.unref?.();
    });
    const flushed = Promise.allSettled([...this.#indexes.values()].map((index) => index.flushSnapshot()));
    const outcome = await Promise.race([flushed, budget]);
    clearTimeout(timer);
    if (outcome === "late") log.warn("the index snapshot was not flushed within the shutdown budget", { budgetMs });
  }

  /** Closes every index (shutdown, the end of a test). */
  closeAll(): void {
    for (const index of [...this.#indexes.values()]) index.close();
    this.#indexes.clear();
  }

  /** The real facts extractor, loaded on first use (it pulls in every grammar's rules); its snapshots are keyed by the package version alone. */
  #defaultExtractor(): Promise<LoadedExtractor> {
    this.#extractor ??= import("../facts/extract.ts").then((module) => ({ extract: module.extractFacts, version: undefined }));
    return this.#extractor;
  }
}
