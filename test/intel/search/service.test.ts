import { describe, expect, test } from "bun:test";
import { type Embedder, NullEmbedder, RecentTexts, SearchService } from "../../../src/intel/search/index.ts";
import { MemorySearchSource } from "../../support/search-source.ts";

describe("the search service of one process", () => {
  test("keeps one search index per code index, and another service keeps its own", async () => {
    const source = new MemorySearchSource();
    source.put("a.ts", "export function parseConfig() {}\n", []);
    const service = new SearchService({ embedder: new NullEmbedder() });
    const index = service.indexFor(source);
    expect(service.indexFor(source)).toBe(index);
    expect(service.indexFor(new MemorySearchSource())).not.toBe(index);
    const other = new SearchService();
    expect(other.indexFor(source)).not.toBe(index);
    expect(other.recentTexts).not.toBe(service.recentTexts);
    await index.refresh();
    expect(index.chunkCount).toBeGreaterThan(0);
  });

  test("hands its embedder and tuning to the indexes it builds", async () => {
    const source = new MemorySearchSource();
    for (let file = 0; file < 5; file++) source.put(`f${file}.ts`, `export const value${file} = ${file};\n`, []);
    const batches: number[] = [];
    const embedder: Embedder = {
      id: "recording",
      dimensions: 2,
      embed: async (texts) => {
        batches.push(texts.length);
        return texts.map(() => new Float32Array([1, 0]));
      },
    };
    const index = new SearchService({ embedder, tuning: { embedBatchSize: 2 } }).indexFor(source);
    await index.refresh();
    expect(index.embedder).toBe(embedder);
    expect(batches).toEqual([2, 2, 1]);
  });
});

describe("recent texts for snippets", () => {
  test("keep at most their byte budget, dropping the least recently used first", () => {
    // Two bytes a UTF-16 code unit: 20 bytes hold two five-character texts.
    const texts = new RecentTexts(20);
    texts.remember("a", "aaaaa");
    texts.remember("b", "bbbbb");
    expect(texts.get("a")).toBe("aaaaa"); // a is now the most recently used
    texts.remember("c", "ccccc");
    expect(texts.get("b")).toBeUndefined();
    expect(texts.get("a")).toBe("aaaaa");
    expect(texts.get("c")).toBe("ccccc");
  });

  test("never keep a text larger than the whole budget", () => {
    const texts = new RecentTexts(20);
    texts.remember("big", "x".repeat(11));
    expect(texts.get("big")).toBeUndefined();
  });
});
