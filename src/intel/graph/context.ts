/** What every language resolver shares during one graph build. */
import path from "node:path";
import type { ConfigFiles, ConfigRead } from "./config-files.ts";
import type { FileTable } from "./file-table.ts";
import type { GraphFile, Resolution } from "./types.ts";
import type { ImportFact } from "../facts/types.ts";

export interface ResolveContext {
  table: FileTable;
  configs: ConfigFiles;
}

export interface LanguageResolver {
  /** Reads what must be known before any file of the language resolves (module and crate manifests). */
  prepare?(files: readonly GraphFile[]): Promise<void>;
  resolve(file: GraphFile, fact: ImportFact): Promise<Resolution>;
}

export function unresolved(reason: Extract<Resolution, { kind: "unresolved" }>["reason"], detail: string, candidates?: string[]): Resolution {
  return candidates && candidates.length > 0 ? { kind: "unresolved", reason, detail, candidates } : { kind: "unresolved", reason, detail };
}

/**
 * The nearest ancestor directory (from `start` up to `root`, both real) holding one of `names`,
 * probed through ConfigFiles and memoized per directory.
 */
export class NearestFile {
  readonly #configs: ConfigFiles;
  readonly #names: readonly string[];
  readonly #memo = new Map<string, Promise<Extract<ConfigRead, { status: "ok" }> | undefined>>();

  constructor(configs: ConfigFiles, names: readonly string[]) {
    this.#configs = configs;
    this.#names = names;
  }

  find(start: string, root: string): Promise<Extract<ConfigRead, { status: "ok" }> | undefined> {
    let pending = this.#memo.get(start);
    if (!pending) {
      pending = this.#find(start, root);
      this.#memo.set(start, pending);
    }
    return pending;
  }

  async #find(directory: string, root: string): Promise<Extract<ConfigRead, { status: "ok" }> | undefined> {
    for (const name of this.#names) {
      const read = await this.#configs.read(path.join(directory, name));
      if (read.status === "ok") return read;
    }
    if (directory === root || directory.length <= root.length) return undefined;
    const parent = path.dirname(directory);
    if (parent === directory) return undefined;
    return this.find(parent, root);
  }
}
