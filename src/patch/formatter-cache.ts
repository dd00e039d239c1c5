/**
 * The formatter set of a process's workspace, reloaded when the repository's dprint config or the
 * settings change. One instance per process (built with the write services); a test builds its own.
 */
import { lstatSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../core/errors.ts";
import { LIMITS } from "../core/limits.ts";
import { LruMap } from "../helpers/lru-map.ts";
import { readRegularFile } from "../policy/open.ts";
import { Formatters } from "./format.ts";
import type { WriteContext } from "./pipeline.ts";

/**
 * A repository formatter config changed less than this long ago is read again on every write
 * instead of being trusted by its stat signature (timestamps are too coarse for quick edits).
 */
const CONFIG_SETTLE_MS = 2_000;
/** Formatter sets (one per distinct repository config and settings) kept loaded. */
const CACHED_FORMATTER_SETS = 8;

const DPRINT_CONFIG_NAMES = ["dprint.json", ".dprint.json", "dprint.jsonc", ".dprint.jsonc"];

export interface FormatterCacheOptions {
  /** An entry changed less than this long ago is read again on every look (timestamps are coarse). */
  settleMs?: number;
  /** Formatter sets kept loaded, the most recently used. */
  maxSets?: number;
}

/**
 * Type, inode, size and change time of a name (not following a link); null when nothing is there.
 * "unsettled" for an entry changed moments ago: timestamps are too coarse to tell two quick edits
 * of the same size apart, so such an entry is read again every time until it settles.
 */
function entrySignature(file: string, settleMs: number): string | null {
  try {
    const stats = lstatSync(file, { bigint: true });
    if (stats.isSymbolicLink()) return "link";
    if (Date.now() - Number(stats.ctimeNs / 1_000_000n) < settleMs) return "unsettled";
    return `${stats.mode}:${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    return "unreadable";
  }
}

export class FormatterCache {
  /** Loaded formatter sets by configuration, least recently used first. */
  readonly #sets: LruMap<string, Promise<Formatters>>;
  /**
   * What the last look for the repository's dprint config found, with an lstat signature of every
   * name it looked at: while none of them changed and the policy is the same (its rules, and the
   * roots a client's roots narrow per session), the policy-checked read is not repeated. A symbolic
   * link at one of the names, or one changed moments ago, is never trusted this way.
   */
  #dprintConfigSeen: { rules: object; roots: string; signatures: Array<string | null>; text: string | undefined } | undefined;
  readonly #settleMs: number;

  constructor(options: FormatterCacheOptions = {}) {
    this.#settleMs = options.settleMs ?? CONFIG_SETTLE_MS;
    this.#sets = new LruMap(options.maxSets ?? CACHED_FORMATTER_SETS);
  }

  async for(context: WriteContext): Promise<Formatters> {
    const firstRoot = context.workspace.roots[0];
    const dprintText = firstRoot ? await this.#readDprintConfig(context, firstRoot.real) : undefined;
    const key = JSON.stringify([firstRoot?.real, dprintText, context.config.format, context.config.formatters]);
    let set = this.#sets.get(key);
    if (set === undefined) {
      set = Formatters.load({
        firstRootReal: firstRoot?.real,
        dprintConfig: dprintText,
        external: context.config.formatters,
        enabled: context.config.format.enabled,
      });
      set.catch(() => this.#sets.delete(key));
    }
    this.#sets.set(key, set);
    return set;
  }

  async #readDprintConfig(context: WriteContext, rootReal: string): Promise<string | undefined> {
    const names = DPRINT_CONFIG_NAMES.map((name) => path.join(rootReal, name));
    const signature = (name: string) => entrySignature(name, this.#settleMs);
    const rules = context.workspace.policyIdentity;
    const roots = context.workspace.roots.map((root) => root.real).join("\0");
    const seen = this.#dprintConfigSeen;
    if (seen !== undefined && seen.rules === rules && seen.roots === roots) {
      const now = names.slice(0, seen.signatures.length).map(signature);
      if (now.every((current, index) => current === seen.signatures[index] && current !== "link" && current !== "unsettled")) return seen.text;
    }
    const signatures: Array<string | null> = [];
    let text: string | undefined;
    for (const name of names) {
      signatures.push(signature(name));
      try {
        const resolved = await context.workspace.resolve(name, "read");
        if (!resolved.exists || resolved.kind !== "file") continue;
        text = (await readRegularFile(resolved, LIMITS.config.maxFileBytes)).bytes.toString("utf8");
        break;
      } catch (error) {
        // Denied by policy, vanished, or too large: the repository's formatter config is not read.
        if (error instanceof ToolError) continue;
        throw error;
      }
    }
    // A name that changed while it was read is looked at again next time.
    const unchanged = signatures.every((current, index) => current === signature(names[index] as string));
    this.#dprintConfigSeen = unchanged ? { rules, roots, signatures, text } : undefined;
    return text;
  }
}
