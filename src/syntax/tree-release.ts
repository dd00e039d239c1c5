/**
 * Releasing native syntax trees (docs/decisions/0010). V8 does not see their memory (tens of times
 * the source size), and a tree is freed only after two collections with a turn of the event loop
 * between them: the first collects the node wrappers, whose finalizers release the root on a later
 * turn; the second the root itself. Left to V8's schedule, dead trees pile up, so code that parses
 * many files asks for collections (TreeBudget, TreeRelease, releaseTreesLater).
 */
import { createRequire } from "node:module";
import { log } from "../core/log.ts";

const require = createRequire(import.meta.url);

/** Engine tuning of the release (not limits a client sees); the classes and releaseTreesLater take other values. */
export const TREE_RELEASE_DEFAULTS = {
  /** Source parsed between two collections a TreeBudget asks for. */
  budgetBytes: 512 * 1024,
  /** Share of a batch's matching time its full collections may take before TreeRelease turns to young-generation ones. */
  fullCollectionShare: 0.25,
  /** Delay of releaseTreesLater: the answer goes out first. */
  releaseDelayMs: 20,
} as const;

type Collector = (options?: { type: "minor" }) => void;

/**
 * Process-wide by nature: one engine heap holds every dead tree, so the process has one collector
 * (found on first use; null where none can be reached), one pending later release, and one count of
 * the releases run (tests watch it).
 */
export const treeReleaseProcess: { collector?: Collector | null; laterRelease?: NodeJS.Timeout | undefined; runs: number } = { runs: 0 };

/** The engine's collector, or null where it cannot be reached (then trees go on V8's own schedule). */
function gcFunction(): Collector | null {
  if (treeReleaseProcess.collector !== undefined) return treeReleaseProcess.collector;
  let collector: Collector | null = null;
  try {
    const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
    if (bun !== undefined) collector = () => bun.gc(true);
    else {
      // --expose-gc set at run time exposes gc() to contexts created afterwards: one is made for it.
      // Loaded here, not at the top: most commands (the hook above all) never collect.
      (require("node:v8") as typeof import("node:v8")).setFlagsFromString("--expose-gc");
      const found: unknown = (require("node:vm") as typeof import("node:vm")).runInNewContext("typeof gc === 'function' ? gc : undefined");
      if (typeof found === "function") collector = found as Collector;
    }
  } catch (error) {
    log.debug("no garbage collector to call: syntax trees are freed on the engine's schedule", { error: String(error) });
  }
  treeReleaseProcess.collector = collector;
  return collector;
}

/**
 * For code that parses many files in a row: counts parsed bytes and asks for a collection each time
 * `limit` bytes of source have been parsed, so dead trees never add up to much more than that.
 */
export class TreeBudget {
  #bytes = 0;
  /** Collections asked for so far. */
  collections = 0;

  constructor(private readonly limit: number = TREE_RELEASE_DEFAULTS.budgetBytes) {}

  /** Counts `bytes` of parsed source; collects when the budget is spent. */
  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes < this.limit) return;
    this.#bytes = 0;
    if (collectGarbage()) this.collections++;
  }
}

/**
 * For code that parses in batches (run): frees the trees of a finished batch. Full collections free
 * them all but cost time in proportion to the live heap, so they are used while they cost at most
 * `share` of the batch they follow, and young-generation collections after that (a batch's
 * wrappers die young).
 */
export class TreeRelease {
  #young = false;

  constructor(private readonly share: number = TREE_RELEASE_DEFAULTS.fullCollectionShare) {}

  /** True once full collections proved too dear for this run. */
  get young(): boolean {
    return this.#young;
  }

  async after(batchMs: number): Promise<void> {
    const started = performance.now();
    if (await releaseTrees(this.#young) && performance.now() - started > batchMs * this.share) this.#young = true;
  }
}

/** Frees dead syntax trees (two collections, a turn between); false where no code may ask for a collection. */
async function releaseTrees(young = false): Promise<boolean> {
  if (!collectGarbage(young)) return false;
  await new Promise<void>((resolve) => setImmediate(resolve));
  collectGarbage(young);
  return true;
}

/**
 * For work that leaves a batch of dead trees behind when it returns (a run): nothing makes V8
 * collect their small wrappers soon, so repeated runs piled their trees up. Two collections shortly
 * after, once the answer has gone out rather than while it is awaited; calls meanwhile share one release.
 */
export function releaseTreesLater(delayMs: number = TREE_RELEASE_DEFAULTS.releaseDelayMs): void {
  if (treeReleaseProcess.laterRelease !== undefined) return;
  treeReleaseProcess.laterRelease = setTimeout(() => {
    treeReleaseProcess.laterRelease = undefined;
    void releaseTrees().then((released) => {
      if (released) treeReleaseProcess.runs++;
    });
  }, delayMs);
  treeReleaseProcess.laterRelease.unref?.();
}

/**
 * Runs a full garbage collection now, where the engine lets code ask for one (Node through a
 * run-time --expose-gc, Bun through Bun.gc); false where it cannot. For memory V8 does not see
 * or counts late: native syntax trees, and large typed arrays just replaced.
 * `young` asks Node for a collection of the young generation only: milliseconds rather than tens
 * of them with a large heap, and enough for trees whose wrappers never outlived a collection
 * (Bun collects fully).
 */
export function collectGarbage(young = false): boolean {
  const gc = gcFunction();
  if (gc === null) return false;
  if (young && (globalThis as { Bun?: unknown }).Bun === undefined) gc({ type: "minor" });
  else gc();
  return true;
}
