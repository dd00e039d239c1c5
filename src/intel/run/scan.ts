/**
 * The scan behind `run`, in three steps:
 *  1. read each candidate file once (no link followed, size bounded) and rule it out by the query's
 *     literals on the raw bytes, before any parsing;
 *  2. match the survivors natively with napi's findInFiles (parsing and matching in Rust threads,
 *     UTF-8 as on disk) — only real paths the policy approved are passed, and only regular files;
 *     UTF-16 files, which findInFiles cannot decode, are matched from their decoded text instead;
 *  3. give match text and captures to as many matches as the listing shows, re-parsing just the
 *     few files that hold them.
 * Counting needs only step 2; the rewrite path reads each matched file again (src/tools/run.ts).
 */
import { isUtf8 } from "node:buffer";
import type { SgNode } from "@ast-grep/napi";
import { isToolError } from "../../core/errors.ts";
import { LIMITS } from "../../core/limits.ts";
import { log } from "../../core/log.ts";
import { readBounded, realTarget } from "../../policy/open.ts";
import { eachLimited } from "../../helpers/concurrency.ts";
import { decodeForEdit, detectBom, looksBinary } from "../../text/index.ts";
import {
  astGrepLanguageFor,
  type CompiledQuery,
  describeMatches,
  type LanguageId,
  matchText,
  napi,
  passesLiterals,
  releaseTreesLater,
  type StructuralMatch,
  TreeRelease,
} from "../../syntax/index.ts";

export interface RunFile {
  /** Real path the policy approved for reading. */
  real: string;
  display: string;
  language: LanguageId;
}

export interface ScannedFile {
  file: RunFile;
  /** Matches in the file. */
  count: number;
  /** The first matches with text and captures: as many as the listing can still show. */
  matches: StructuralMatch[];
}

export interface ScanResult {
  /** Files with at least one match, in the order the files were given. */
  matched: ScannedFile[];
  considered: number;
  /** Files the literal pre-filter ruled out without parsing. */
  ruledOut: number;
  parsed: number;
  /** Files that could not be read or decoded as text, and files over LIMITS.intel.run.maxFileBytes. */
  unreadable: string[];
  tooLarge: string[];
}

/** Engine tuning of the scan (not limits a client sees); ScanOptions.tuning may replace any of them. */
const SCAN_DEFAULTS = {
  /** Files read at once for the literal pre-filter. */
  readConcurrency: 16,
  /**
   * Source handed to one findInFiles call; the batch's syntax trees are released before the
   * next starts. Given every file at once, the native side kept hundreds of trees (tens of
   * times their source) in flight. Each batch boundary costs two full collections.
   */
  batchBytes: 4 * 1024 * 1024,
  /** Longest wait for native match results still queued when findInFiles has resolved (then the files are matched in JavaScript). */
  lateResultsMs: 30_000,
  /** Progress notifications sent at most this often during a wide run. */
  progressIntervalMs: 200,
};
export type ScanTuning = typeof SCAN_DEFAULTS;

export interface ScanOptions {
  signal?: AbortSignal;
  tuning?: Partial<ScanTuning>;
  /** Matches listed with text and captures, over all files in the order given (default LIMITS.intel.run.maxListedMatches). */
  listLimit?: number;
  /** Called as files finish reading, never more often than tuning.progressIntervalMs, and once at the end. */
  progress?: (done: number, total: number) => void;
}

type ReadOutcome = Buffer | "too_large" | "unreadable";

async function readForScan(file: RunFile): Promise<ReadOutcome> {
  try {
    // Through the policy's one reader: beneath the file system root, never through a link.
    const loaded = await readBounded(realTarget(file.real, file.display), LIMITS.intel.run.maxFileBytes);
    if (loaded === "gone") return "unreadable";
    if (loaded === "too_large" || "skipped" in loaded) return "too_large";
    return loaded.bytes;
  } catch {
    return "unreadable";
  }
}

/** The text of bytes read for matching; undefined when they are not text. */
function decodedOrUndefined(bytes: Buffer, display: string): string | undefined {
  try {
    return decodeForEdit(bytes, display).text;
  } catch (error) {
    if (!isToolError(error)) throw error;
    return undefined;
  }
}

/** Reads a file for matching; undefined when it is gone, too large or not text. */
async function readText(file: RunFile): Promise<string | undefined> {
  const read = await readForScan(file);
  return typeof read === "string" ? undefined : decodedOrUndefined(read, file.display);
}

/** Byte-level pre-filter for UTF-8 files: each literal's UTF-8 bytes must occur. */
function bytesPassLiterals(bytes: Buffer, literals: readonly string[]): boolean {
  for (const literal of literals) if (bytes.indexOf(literal, 0, "utf8") < 0) return false;
  return true;
}

/**
 * The native matches of the files that may still reach the listing. Files arrive in any order; a
 * file is dropped once the kept files before it hold enough matches to fill the listing (files
 * arriving later can only add matches before it), so at the end the kept files are exactly those
 * the listing needs, and their nodes are described without parsing anything again.
 */
class ListingWindow {
  readonly #kept = new Map<number, SgNode[]>();

  constructor(private readonly limit: number) {}

  add(position: number, nodes: SgNode[]): void {
    this.#kept.set(position, nodes);
    let before = 0;
    for (const kept of [...this.#kept.keys()].sort((a, b) => a - b)) {
      if (before >= this.limit) this.#kept.delete(kept);
      else before += this.#kept.get(kept)!.length;
    }
  }

  take(position: number): SgNode[] | undefined {
    return this.#kept.get(position);
  }
}

/**
 * Splits `positions` (in the order given) into batches of at most `limit` bytes of source; a file
 * larger than `limit` makes a batch of its own.
 */
export function batchBySize(positions: readonly number[], sizes: ReadonlyMap<number, number>, limit: number): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  for (const position of positions) {
    const size = sizes.get(position) ?? 0;
    if (batch.length > 0 && bytes + size > limit) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(position);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * One findInFiles call; true once every result it reported has arrived, false when it failed or
 * results were still missing after `lateResultsMs` (results arriving later are ignored).
 */
async function findBatch(name: string, language: LanguageId, query: CompiledQuery, paths: string[], lateResultsMs: number, found: (nodes: SgNode[]) => void): Promise<boolean> {
  let failed = false;
  // findInFiles resolves once every result is queued for this thread, not delivered: its count
  // says how many callbacks to wait for (https://github.com/ast-grep/ast-grep/issues/206).
  let arrived = 0;
  let expected = Number.POSITIVE_INFINITY;
  let closed = false;
  let allArrived: (() => void) | undefined;
  try {
    const total = await napi().findInFiles(name, { paths, matcher: query.config }, (error: Error | null, nodes: SgNode[]) => {
      if (closed) return;
      arrived++;
      if (arrived >= expected) allArrived?.();
      if (error) {
        failed = true;
        log.debug("run: findInFiles reported an error", { language, error: error.message });
        return;
      }
      found(nodes);
    });
    expected = total;
    if (arrived < expected) {
      let timer: NodeJS.Timeout | undefined;
      const complete = await new Promise<boolean>((resolve) => {
        allArrived = () => resolve(true);
        timer = setTimeout(() => resolve(false), lateResultsMs);
      });
      clearTimeout(timer);
      if (!complete) {
        log.warn("run: native results did not all arrive; matching in JavaScript", { language, arrived, expected });
        failed = true;
      }
    }
  } catch (error) {
    log.debug("run: findInFiles failed; matching in JavaScript", { language, error: error instanceof Error ? error.message : String(error) });
    failed = true;
  }
  closed = true;
  return !failed;
}

/**
 * Counts matches in UTF-8 files natively, in batches of tuning.batchBytes of source with
 * the batch's trees released before the next starts: given every path at once, the native side
 * keeps hundreds of trees in flight. Files of a batch findInFiles fails come back for the JS path.
 */
async function countNatively(
  language: LanguageId,
  query: CompiledQuery,
  positions: number[],
  files: readonly RunFile[],
  sizes: ReadonlyMap<number, number>,
  counts: Map<number, number>,
  window: ListingWindow,
  signal: AbortSignal | undefined,
  tuning: ScanTuning,
): Promise<number[]> {
  const name = astGrepLanguageFor(language);
  if (name === undefined || positions.length === 0) return positions;
  const inJs: number[] = [];
  const batches = batchBySize(positions, sizes, tuning.batchBytes);
  const release = new TreeRelease();
  let batchStarted = performance.now();
  for (const [index, batch] of batches.entries()) {
    signal?.throwIfAborted();
    if (index > 0) {
      await release.after(performance.now() - batchStarted);
      batchStarted = performance.now();
    }
    const byReal = new Map(batch.map((position) => [files[position]!.real, position]));
    // Files with matches come back holding their trees; files without are freed natively.
    const complete = await findBatch(name, language, query, [...byReal.keys()], tuning.lateResultsMs, (nodes) => {
      const first = nodes[0];
      if (!first) return;
      const position = byReal.get(first.getRoot().filename());
      if (position === undefined) return;
      counts.set(position, nodes.length);
      window.add(position, nodes);
    });
    if (complete) {
      for (const position of batch) if (!counts.has(position)) counts.set(position, 0);
    } else {
      for (const position of batch) counts.delete(position);
      inJs.push(...batch);
    }
  }
  return inJs;
}

/** Scans `files` with the compiled query of each file's language (files of other languages are skipped). */
export async function scanFiles(files: readonly RunFile[], queries: ReadonlyMap<LanguageId, CompiledQuery>, options: ScanOptions = {}): Promise<ScanResult> {
  const result: ScanResult = { matched: [], considered: 0, ruledOut: 0, parsed: 0, unreadable: [], tooLarge: [] };
  const listLimit = options.listLimit ?? LIMITS.intel.run.maxListedMatches;
  const tuning: ScanTuning = { ...SCAN_DEFAULTS, ...options.tuning };
  let done = 0;
  let lastProgress = 0;
  const report = (final: boolean) => {
    if (!options.progress) return;
    const now = Date.now();
    if (!final && now - lastProgress < tuning.progressIntervalMs) return;
    lastProgress = now;
    options.progress(done, files.length);
  };

  // 1. Read and pre-filter.
  const native = new Map<LanguageId, number[]>();
  const decodedText = new Map<number, string>();
  const sizes = new Map<number, number>();
  await eachLimited(files, tuning.readConcurrency, async (file, position) => {
    const query = queries.get(file.language);
    if (query) {
      result.considered++;
      const read = await readForScan(file);
      if (read === "too_large") result.tooLarge.push(file.display);
      else if (read === "unreadable") result.unreadable.push(file.display);
      else if (detectBom(read).encoding.startsWith("utf-16")) {
        const text = decodedOrUndefined(read, file.display);
        if (text === undefined) result.unreadable.push(file.display);
        else if (passesLiterals(text, query.literals)) decodedText.set(position, text);
        else result.ruledOut++;
      } else if (!bytesPassLiterals(read, query.literals)) result.ruledOut++;
      else if (looksBinary(read) || !isUtf8(read)) result.unreadable.push(file.display);
      else {
        sizes.set(position, read.length);
        const list = native.get(file.language);
        if (list) list.push(position);
        else native.set(file.language, [position]);
      }
    }
    done++;
    report(false);
  }, options.signal);

  // 2. Count: natively where possible, from the decoded text otherwise.
  const counts = new Map<number, number>();
  const details = new Map<number, StructuralMatch[]>();
  const window = new ListingWindow(listLimit);
  const inJs: number[] = [...decodedText.keys()];
  for (const [language, positions] of native) {
    options.signal?.throwIfAborted();
    result.parsed += positions.length;
    inJs.push(...(await countNatively(language, queries.get(language)!, positions, files, sizes, counts, window, options.signal, tuning)));
  }
  result.parsed += decodedText.size;
  for (const position of inJs.sort((a, b) => a - b)) {
    options.signal?.throwIfAborted();
    const file = files[position]!;
    const text = decodedText.get(position) ?? (await readText(file));
    if (text === undefined) {
      result.unreadable.push(file.display);
      continue;
    }
    const found = await matchText(text, queries.get(file.language)!, listLimit);
    counts.set(position, found.count);
    details.set(position, found.matches);
  }

  // 3. Details for the matches the listing shows, in file order.
  let room = listLimit;
  const matchedPositions = [...counts.entries()].filter(([, count]) => count > 0).map(([position]) => position).sort((a, b) => a - b);
  for (const position of matchedPositions) {
    options.signal?.throwIfAborted();
    const file = files[position]!;
    let matches = details.get(position);
    if (matches === undefined && room > 0) {
      const nodes = window.take(position);
      if (nodes && nodes.length > 0) {
        matches = describeMatches(nodes, nodes[0]!.getRoot().root().text(), queries.get(file.language)!, room);
      } else {
        const text = await readText(file);
        matches = text === undefined ? [] : (await matchText(text, queries.get(file.language)!, room)).matches;
      }
    }
    const shown = (matches ?? []).slice(0, Math.max(room, 0));
    room -= shown.length;
    result.matched.push({ file, count: counts.get(position)!, matches: shown });
  }
  report(true);
  releaseTreesLater();
  return result;
}
