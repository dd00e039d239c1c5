/** A code index stand-in for search tests: files with given texts and facts; every change bumps the generation. */
import { createHash } from "node:crypto";
import type { SymbolFact } from "../../src/intel/facts/types.ts";
import type { SearchFile, SearchSource } from "../../src/intel/search/index.ts";

export class MemorySearchSource implements SearchSource {
  generation = 1;
  readonly texts = new Map<string, string>();
  readonly entries = new Map<string, SearchFile>();
  /** Texts read so far (search reads a file only to build or to show it). */
  reads = 0;

  put(name: string, text: string, symbols: SymbolFact[], language = name.endsWith(".py") ? "python" : "typescript"): void {
    const real = `/repo/${name}`;
    this.texts.set(real, text);
    const lines = text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    this.entries.set(real, {
      real,
      display: name,
      language,
      sha256: createHash("sha256").update(text).digest("hex"),
      size: Buffer.byteLength(text),
      lines,
      facts: { symbols },
    });
    this.generation++;
  }

  delete(name: string): void {
    this.entries.delete(`/repo/${name}`);
    this.generation++;
  }

  files(): SearchFile[] {
    return [...this.entries.values()];
  }

  async text(file: SearchFile): Promise<string> {
    this.reads++;
    return this.texts.get(file.real)!;
  }
}
