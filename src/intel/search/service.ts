/**
 * The search service of one process: one search index per code index (kept as long as that index
 * lives), and the texts of recently shown files that snippets are cut from. The composition root
 * builds one (createToolServices) and tools reach it through ToolContext.services.search; a test
 * builds its own instead of resetting globals.
 */
import { log } from "../../core/log.ts";
import type { Embedder } from "./embedder.ts";
import { SearchIndex } from "./search-index.ts";
import type { SearchSource, SearchTuning } from "./types.ts";

export interface SearchServiceOptions {
  embedder?: Embedder;
  tuning?: Partial<SearchTuning>;
  /** Bytes of recently shown file texts kept for snippets. */
  snippetCacheBytes?: number;
}

/**
 * Texts keyed by path and content hash (so a changed file is never served stale), least recently
 * used first out once they hold more than `maxBytes`: repeated searches mostly show the same files.
 */
export class RecentTexts {
  readonly #texts = new Map<string, string>();
  #bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): string | undefined {
    const text = this.#texts.get(key);
    if (text !== undefined) {
      // Refresh its place in the eviction order.
      this.#texts.delete(key);
      this.#texts.set(key, text);
    }
    return text;
  }

  remember(key: string, text: string): void {
    if (this.#texts.has(key) || text.length * 2 > this.maxBytes) return;
    this.#texts.set(key, text);
    this.#bytes += text.length * 2;
    for (const [oldKey, oldText] of this.#texts) {
      if (this.#bytes <= this.maxBytes) break;
      this.#texts.delete(oldKey);
      this.#bytes -= oldText.length * 2;
    }
  }
}

export class SearchService {
  readonly #indexes = new WeakMap<SearchSource, SearchIndex>();
  /** Every index made, for the flush at shutdown (an index goes with its code index). */
  readonly #made = new Set<WeakRef<SearchIndex>>();
  readonly #options: Pick<SearchServiceOptions, "embedder" | "tuning">;
  readonly recentTexts: RecentTexts;

  constructor(options: SearchServiceOptions = {}) {
    const { snippetCacheBytes = 8 * 1024 * 1024, ...indexOptions } = options;
    this.#options = indexOptions;
    this.recentTexts = new RecentTexts(snippetCacheBytes);
  }

  /** The search index of a code index, built on first use. */
  indexFor(source: SearchSource): SearchIndex {
    let index = this.#indexes.get(source);
    if (!index) {
      index = new SearchIndex(source, this.#options);
      this.#indexes.set(source, index);
      this.#made.add(new WeakRef(index));
    }
    return index;
  }

  /** At shutdown: writes each index that changed since it was persisted; gives up waiting after `budgetMs`. */
  async flushAll(budgetMs: number): Promise<void> {
    const writes: Array<Promise<void>> = [];
    for (const ref of [...this.#made]) {
      const index = ref.deref();
      if (index === undefined) this.#made.delete(ref);
      else writes.push(index.persist());
    }
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), budgetMs);
      timer.unref?.();
    });
    const outcome = await Promise.race([Promise.allSettled(writes), budget]);
    clearTimeout(timer);
    if (outcome === "late") log.warn("the search index was not persisted within the shutdown budget", { budgetMs });
  }
}
