/**
 * The indexed files of one index generation, looked up by real path and by directory. Module
 * candidates are checked against this table only: resolving a specifier never touches the disk.
 */
import path from "node:path";
import type { GraphFile } from "./types.ts";

export class FileTable {
  readonly byReal = new Map<string, GraphFile>();
  /** Directory real path → the indexed files directly in it. */
  readonly byDirectory = new Map<string, GraphFile[]>();
  /** Every directory that holds an indexed file somewhere below it (ancestors included, up to the file's root). */
  readonly directories = new Set<string>();

  constructor(files: readonly GraphFile[]) {
    for (const file of files) {
      this.byReal.set(file.real, file);
      const directory = path.dirname(file.real);
      let list = this.byDirectory.get(directory);
      if (!list) this.byDirectory.set(directory, list = []);
      list.push(file);
      let current = directory;
      while (!this.directories.has(current)) {
        this.directories.add(current);
        if (current === file.rootReal || current.length <= file.rootReal.length) break;
        const parent = path.dirname(current);
        if (parent === current) break;
        current = parent;
      }
    }
  }

  has(real: string): boolean {
    return this.byReal.has(real);
  }

  get(real: string): GraphFile | undefined {
    return this.byReal.get(real);
  }

  filesIn(directory: string): readonly GraphFile[] {
    return this.byDirectory.get(directory) ?? [];
  }

  isDirectory(real: string): boolean {
    return this.directories.has(real);
  }

  /** The first candidate that is an indexed file. */
  first(candidates: Iterable<string>): string | undefined {
    for (const candidate of candidates) if (this.byReal.has(candidate)) return candidate;
    return undefined;
  }
}
