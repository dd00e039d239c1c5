import { describe, expect, test } from "bun:test";
import { LIMITS } from "../../../src/core/limits.ts";
import type { SymbolFact, SymbolKind } from "../../../src/intel/facts/types.ts";
import { CHUNK_LINES, chunkFile } from "../../../src/intel/search/chunks.ts";
import type { Embedder } from "../../../src/intel/search/embedder.ts";
import { NullEmbedder } from "../../../src/intel/search/embedder.ts";
import { SearchIndex } from "../../../src/intel/search/index.ts";
import { hopsFrom, snippetOf } from "../../../src/intel/search/present.ts";
import { queryMode, wordForms } from "../../../src/intel/search/query.ts";
import { identifierTerms, queryTerms } from "../../../src/intel/search/tokenize.ts";
import { MemorySearchSource } from "../../support/search-source.ts";

function symbol(name: string, kind: SymbolKind, startLine: number, endLine: number, extra: Partial<SymbolFact> = {}): SymbolFact {
  return { name, qualifiedName: name, kind, visibility: "public", exported: true, startLine, endLine, signature: `${kind} ${name}()`, ...extra };
}

describe("tokenizer", () => {
  test("identifiers split on camelCase, acronyms, snake_case and digits, keeping the whole name", () => {
    expect(identifierTerms("parseHTTPResponse2")).toEqual(["parsehttpresponse2", "parse", "http", "response", "2"]);
    expect(identifierTerms("max_retry_count")).toEqual(["max_retry_count", "max", "retry", "count"]);
    expect(identifierTerms("Widget")).toEqual(["widget"]);
    expect(queryTerms("HTTP response-parser 404")).toEqual(["http", "response", "parser", "404"]);
  });
});

describe("chunkFile", () => {
  test("every line falls in exactly one chunk; big symbols split into members, gaps into windows", () => {
    const window = CHUNK_LINES.window;
    const big = CHUNK_LINES.maxSymbol + 20;
    const symbols = [
      symbol("small", "function", 3, 10),
      symbol("Big", "class", 12, 12 + big - 1),
      symbol("first", "method", 14, 30, { parent: "Big", qualifiedName: "Big.first" }),
      symbol("second", "method", 31, 60, { parent: "Big", qualifiedName: "Big.second" }),
      symbol("huge", "function", 200, 200 + big),
    ];
    const lines = 200 + big + window + 5;
    const chunks = chunkFile(lines, symbols);
    let expected = 1;
    for (const chunk of chunks) {
      expect(chunk.startLine).toBe(expected);
      expect(chunk.endLine).toBeGreaterThanOrEqual(chunk.startLine);
      expected = chunk.endLine + 1;
    }
    expect(expected).toBe(lines + 1);
    const smallChunk = chunks.find((chunk) => chunk.owner?.name === "small")!;
    expect([smallChunk.startLine, smallChunk.endLine]).toEqual([3, 10]);
    expect(chunks.find((chunk) => chunk.owner?.qualifiedName === "Big.first")).toMatchObject({ startLine: 14, endLine: 30 });
    // The class head (its first lines) is a chunk of the class and defines it.
    expect(chunks.find((chunk) => chunk.startLine === 12)).toMatchObject({ owner: { name: "Big" } });
    expect(chunks.find((chunk) => chunk.startLine === 12)!.defines.map((s) => s.name)).toEqual(["Big"]);
    // A long symbol without members becomes windows, the first defining it.
    const hugeWindows = chunks.filter((chunk) => chunk.owner?.name === "huge");
    expect(hugeWindows.length).toBeGreaterThan(1);
    expect(hugeWindows[0]!.defines.map((s) => s.name)).toEqual(["huge"]);
    expect(hugeWindows[1]!.defines).toEqual([]);
  });
});

describe("search ranking", () => {
  test("the definition beats files that only use the name", async () => {
    const source = new MemorySearchSource();
    source.put("config.ts", "/** Reads settings. */\nexport function parseConfig(text: string): Config {\n  return JSON.parse(text) as Config;\n}\n", [
      symbol("parseConfig", "function", 2, 4, { signature: "export function parseConfig(text: string): Config", doc: "Reads settings." }),
    ]);
    source.put(
      "main.ts",
      "import { parseConfig } from \"./config.js\";\nconst a = parseConfig(readA());\nconst b = parseConfig(readB());\nconst c = parseConfig(readC());\nexport function start() { return parseConfig(\"{}\"); }\n",
      [symbol("start", "function", 5, 5)],
    );
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    for (const query of ["parseConfig", "parse config"]) {
      const { hits } = await index.search(query, { topK: 5 });
      expect(hits[0]!.chunk.display).toBe("config.ts");
      expect(hits[0]!.chunk.symbol).toBe("parseConfig");
      expect(hits[0]!.signals).toContain("name");
      expect(hits[0]!.signals).toContain("definition");
      expect(hits.some((hit) => hit.chunk.display === "main.ts")).toBe(true);
    }
  });

  test("camelCase names are found by their words", async () => {
    const source = new MemorySearchSource();
    source.put("net.ts", "export function parseHTTPResponse(raw: Buffer) {\n  return decode(raw);\n}\n", [symbol("parseHTTPResponse", "function", 1, 3)]);
    source.put("other.ts", "export function renderPage() {\n  return html`<p>hello</p>`;\n}\n", [symbol("renderPage", "function", 1, 3)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const { hits } = await index.search("http response", { topK: 5 });
    expect(hits).toHaveLength(1);
    expect(hits[0]!.chunk.symbol).toBe("parseHTTPResponse");
    expect(hits[0]!.signals).toEqual(expect.arrayContaining(["name", "definition"]));
  });

  test("proximity to the context file in the import graph reorders equal candidates", async () => {
    const source = new MemorySearchSource();
    const body = (name: string) => `export function formatDate(value: Date) {\n  return value.toISOString(); // ${name}\n}\n`;
    source.put("a/dates.ts", body("a"), [symbol("formatDate", "function", 1, 3)]);
    source.put("b/dates.ts", body("b"), [symbol("formatDate", "function", 1, 3)]);
    source.put("b/view.ts", "import { formatDate } from \"./dates.js\";\nexport const view = 1;\n", [symbol("view", "constant", 2, 2)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const plain = await index.search("formatDate", { topK: 2 });
    const graph = {
      successors: (real: string) => (real === "/repo/b/view.ts" ? ["/repo/b/dates.ts"] : []),
      predecessors: (real: string) => (real === "/repo/b/dates.ts" ? ["/repo/b/view.ts"] : []),
    };
    const proximity = hopsFrom(graph, "/repo/b/view.ts", LIMITS.intel.search.proximityMaxHops);
    expect(proximity.get("/repo/b/dates.ts")).toBe(1);
    expect(proximity.has("/repo/a/dates.ts")).toBe(false);
    const near = await index.search("formatDate", { topK: 2, proximity });
    // Without context the first file wins the tie; with it the imported one does.
    expect(plain.hits.map((hit) => hit.chunk.display)).toEqual(["a/dates.ts", "b/dates.ts"]);
    expect(near.hits.map((hit) => hit.chunk.display)).toEqual(["b/dates.ts", "a/dates.ts"]);
    expect(near.hits[0]!.signals).toContain("proximity");
  });

  test("filters keep only accepted chunks", async () => {
    const source = new MemorySearchSource();
    source.put("src/a.ts", "export const retryLimit = 3;\n", [symbol("retryLimit", "constant", 1, 1)]);
    source.put("lib/b.py", "retry_limit = 3\n", [symbol("retry_limit", "constant", 1, 1)], "python");
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const both = await index.search("retry limit", { topK: 5 });
    expect(both.hits).toHaveLength(2);
    const python = await index.search("retry limit", { topK: 5, accept: (chunk) => chunk.language === "python" });
    expect(python.hits.map((hit) => hit.chunk.display)).toEqual(["lib/b.py"]);
  });
});

describe("query modes", () => {
  test("identifiers written as code are a lookup; words in prose are a concept", () => {
    expect(queryMode("parseConfig")).toBe("identifier");
    expect(queryMode("page")).toBe("identifier");
    expect(queryMode("Paginator.page get_random_string")).toBe("identifier");
    expect(queryMode("split a string into fields")).toBe("concept");
    expect(queryMode("where is parseConfig called")).toBe("concept");
  });

  test("a function word or a single letter in a concept query cannot make a symbol named after it win", async () => {
    const source = new MemorySearchSource();
    source.put("letters.ts", "export type A = string;\nexport function of<T>(x: T) {\n  return [x];\n}\n", [symbol("A", "type", 1, 1), symbol("of", "function", 2, 4)]);
    source.put("fields.ts", "export function fields(line: string) {\n  const parts = line.split(/\\s+/);\n  return parts.filter((part) => part.length > 0);\n}\n", [
      symbol("fields", "function", 1, 4),
    ]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const found = await index.search("split a line of text into its fields", { topK: 3 });
    expect(found.mode).toBe("concept");
    expect(found.hits[0]!.chunk.symbol).toBe("fields");
    expect(found.hits.some((hit) => hit.chunk.display === "letters.ts")).toBe(false);
    // As a lookup the name still wins.
    expect((await index.search("of", { topK: 1 })).hits[0]!.chunk.symbol).toBe("of");
  });

  test("a concept query's rare word outweighs a common word matched in a name", async () => {
    const source = new MemorySearchSource();
    source.put("value.ts", "export function value(input: unknown) {\n  return input;\n}\n", [symbol("value", "function", 1, 3)]);
    source.put(
      "backoff.ts",
      "export function schedule(value: number) {\n  const delay = exponentialBackoff(value);\n  return delay;\n}\n",
      [symbol("schedule", "function", 1, 4)],
    );
    for (let index = 0; index < 8; index++) source.put(`use${index}.ts`, `export const v${index} = value(${index});\n`, [symbol(`v${index}`, "constant", 1, 1)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const { hits } = await index.search("retry the value later with exponential backoff", { topK: 3 });
    expect(hits[0]!.chunk.symbol).toBe("schedule");
  });

  test("a concept query's words find the forms code spells them in", async () => {
    const source = new MemorySearchSource();
    source.put("split.ts", "export function splitFields(line: string) {\n  return line.split(\",\");\n}\n", [symbol("splitFields", "function", 1, 3)]);
    source.put("join.ts", "export function joinLines(lines: string[]) {\n  return lines.join(\"\\n\");\n}\n", [symbol("joinLines", "function", 1, 3)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    expect((await index.search("splits each record into its field", { topK: 2 })).hits[0]!.chunk.symbol).toBe("splitFields");
    expect(wordForms("splits")).toContain("split");
    expect(wordForms("parsed")).toContain("parse");
    expect(wordForms("field")).toContain("fields");
  });

  test("a concept query ranks a function's code above a declaration holding the same words", async () => {
    const source = new MemorySearchSource();
    // The same line twice: read as a constant in one file and as a function in the other.
    const line = "export const scheduleRetry = (attempt: number) => exponentialBackoff(attempt) + randomJitter();\n";
    source.put("a-table.ts", line, [symbol("scheduleRetry", "constant", 1, 1)]);
    source.put("b-retry.ts", line, [symbol("scheduleRetry", "function", 1, 1)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const concept = await index.search("wait with exponential backoff and random jitter before the next attempt", { topK: 2 });
    expect(concept.hits.map((hit) => hit.chunk.display)).toEqual(["b-retry.ts", "a-table.ts"]);
    expect(concept.hits[0]!.score).toBeGreaterThan(concept.hits[1]!.score);
    // A name lookup weighs no kind: equal matches keep their order by place.
    expect((await index.search("scheduleRetry", { topK: 2 })).hits.map((hit) => hit.chunk.display)).toEqual(["a-table.ts", "b-retry.ts"]);
  });

  test("test files rank below the code they test unless the query asks for tests", async () => {
    const source = new MemorySearchSource();
    const body = "export function trimQuotes(text: string) {\n  return text.replace(/^\"|\"$/g, \"\");\n}\n";
    source.put("src/quotes.ts", body, [symbol("trimQuotes", "function", 1, 3)]);
    source.put("src/quotes.test.ts", `${body}test("trim quotes", () => trimQuotes("x"));\n`, [symbol("trimQuotes", "function", 1, 3)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    expect((await index.search("remove the quotes around text", { topK: 2 })).hits[0]!.chunk.display).toBe("src/quotes.ts");
    expect((await index.search("trimQuotes", { topK: 2 })).hits[0]!.chunk.display).toBe("src/quotes.ts");
    expect((await index.search("tests that remove the quotes around text", { topK: 2 })).hits[0]!.chunk.display).toBe("src/quotes.test.ts");
  });
});

describe("concept answers", () => {
  test("spread their first half over files, then list more places in the leading files", async () => {
    const source = new MemorySearchSource();
    // One file about the concept, four functions in it; four files that touch it once each.
    const functions = ["evictExpired", "evictOldest", "evictOnWrite", "evictAll"];
    const cache = functions.map((name) =>
      `export function ${name}(store: Store) {\n  for (const entry of store.entries()) if (entry.expired) store.evict(entry, "stale cache entry");\n}\n`
    ).join("");
    source.put("src/cache.ts", cache, functions.map((name, index) => symbol(name, "function", 3 * index + 1, 3 * index + 3)));
    for (let file = 0; file < 4; file++) {
      source.put(`src/other${file}.ts`, `export function touch${file}(store: Store) {\n  return store.evict(store.first(), "stale cache");\n}\n`, [
        symbol(`touch${file}`, "function", 1, 3),
      ]);
    }
    for (let file = 0; file < 20; file++) source.put(`src/filler${file}.ts`, `export const filler${file} = ${file};\n`, [symbol(`filler${file}`, "constant", 1, 1)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const { hits, mode } = await index.search("evict each stale cache entry that expired from the store", { topK: 4 });
    expect(mode).toBe("concept");
    const files = hits.map((hit) => hit.chunk.display);
    // First half: the leading file once, then another file (the leading file's second function weighs half there, below it).
    expect(files[0]).toBe("src/cache.ts");
    expect(files[1]).toMatch(/^src\/other\d\.ts$/);
    // Second half: the leading file's other functions, which outscore the other files on their own.
    expect(files.slice(2)).toEqual(["src/cache.ts", "src/cache.ts"]);
    expect(new Set(hits.filter((hit) => hit.chunk.display === "src/cache.ts").map((hit) => hit.chunk.startLine)).size).toBe(3);
  });
});

describe("incremental refresh", () => {
  test("only changed files are chunked again; removed files leave the index", async () => {
    const source = new MemorySearchSource();
    source.put("one.ts", "export function alphaWidget() {}\n", [symbol("alphaWidget", "function", 1, 1)]);
    source.put("two.ts", "export function betaGadget() {}\n", [symbol("betaGadget", "function", 1, 1)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    const first = await index.refresh();
    expect(first).toMatchObject({ rechunked: 2, files: 2 });
    expect(source.reads).toBe(2);
    expect(await index.refresh()).toBe(first); // same generation: nothing to do
    source.put("two.ts", "export function gammaSprocket() {}\n", [symbol("gammaSprocket", "function", 1, 1)]);
    const second = await index.refresh();
    expect(second).toMatchObject({ rechunked: 1, removed: 0, files: 2 });
    expect(source.reads).toBe(3);
    expect((await index.search("betaGadget", { topK: 5 })).hits).toHaveLength(0);
    expect((await index.search("gammaSprocket", { topK: 5 })).hits[0]!.chunk.display).toBe("two.ts");
    source.delete("one.ts");
    expect(await index.refresh()).toMatchObject({ rechunked: 0, removed: 1, files: 1 });
    expect((await index.search("alphaWidget", { topK: 5 })).hits).toHaveLength(0);
  });

  test("reports chunking progress up to the number of changed files", async () => {
    const source = new MemorySearchSource();
    for (let n = 0; n < 5; n++) source.put(`p${n}.ts`, `export const p${n} = ${n};\n`, [symbol(`p${n}`, "constant", 1, 1)]);
    const seen: Array<[number, number]> = [];
    await new SearchIndex(source, { embedder: new NullEmbedder() }).refresh({ onProgress: (done, total) => seen.push([done, total]) });
    expect(seen.at(-1)).toEqual([5, 5]);
    for (let n = 1; n < seen.length; n++) expect(seen[n]![0]).toBeGreaterThan(seen[n - 1]![0]);
  });

  test("a file that cannot be read is retried on the next refresh", async () => {
    const source = new MemorySearchSource();
    source.put("flaky.ts", "export const flakyValue = 1;\n", [symbol("flakyValue", "constant", 1, 1)]);
    let fail = true;
    const original = source.text.bind(source);
    source.text = async (file) => {
      if (fail) throw new Error("EIO");
      return original(file);
    };
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    expect((await index.refresh()).unreadable).toEqual(["flaky.ts"]);
    fail = false;
    expect(await index.refresh()).toMatchObject({ rechunked: 1, unreadable: [] });
    expect((await index.search("flakyValue", { topK: 1 })).hits).toHaveLength(1);
  });
});

/** Maps words to concept dimensions, so "erase" and "delete" embed alike while sharing no letters. */
class ConceptEmbedder implements Embedder {
  readonly id = "concepts-test";
  readonly dimensions = 3;
  calls = 0;
  static readonly CONCEPTS: Record<string, number> = { delete: 0, erase: 0, remove: 0, create: 1, make: 1, user: 2 };

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls++;
    return texts.map((text) => {
      const vector = new Float32Array(this.dimensions);
      for (const identifier of text.match(/[A-Za-z]+/g) ?? []) {
        for (const term of identifierTerms(identifier)) {
          const dimension = ConceptEmbedder.CONCEPTS[term];
          if (dimension !== undefined) vector[dimension]! += 1;
        }
      }
      return vector;
    });
  }
}

describe("embeddings", () => {
  function userSource(): MemorySearchSource {
    const source = new MemorySearchSource();
    source.put("create.ts", "export function createUser(user: User) {\n  users.push(user);\n  return user;\n}\n", [symbol("createUser", "function", 1, 4)]);
    source.put("update.ts", "export function updateUser(user: User) {\n  users.set(user.id, user);\n  return user;\n}\n", [symbol("updateUser", "function", 1, 4)]);
    source.put("delete.ts", "export function deleteUser(id: string) {\n  users.delete(id);\n}\n", [symbol("deleteUser", "function", 1, 3)]);
    return source;
  }

  test("a dense ranking joins the fusion and finds what words alone miss", async () => {
    const embedder = new ConceptEmbedder();
    const index = new SearchIndex(userSource(), { embedder });
    await index.refresh();
    const { hits } = await index.search("erase user", { topK: 3 });
    expect(hits[0]!.chunk.symbol).toBe("deleteUser");
    expect(hits[0]!.signals).toContain("embedding");
    expect(embedder.calls).toBeGreaterThanOrEqual(2);
  });

  test("without a model the ranking is lexical and says so", async () => {
    const index = new SearchIndex(userSource(), { embedder: new NullEmbedder() });
    await index.refresh();
    const { hits } = await index.search("erase user", { topK: 3 });
    expect(hits[0]!.chunk.symbol).not.toBe("deleteUser");
    for (const hit of hits) expect(hit.signals).not.toContain("embedding");
  });
});

describe("related chunks", () => {
  test("chunks sharing rare identifiers rank above chunks sharing common ones", async () => {
    const source = new MemorySearchSource();
    const common = "const value = input;\nreturn value;\n";
    source.put("bucket.ts", `export function take(tokenBucket: Bucket) {\n  tokenBucket.level -= 1;\n  refillRate(tokenBucket);\n  ${common}}\n`, [
      symbol("take", "function", 1, 6),
    ]);
    source.put("refill.ts", "export function refill(tokenBucket: Bucket) {\n  tokenBucket.level = refillRate(tokenBucket);\n}\n", [symbol("refill", "function", 1, 3)]);
    for (let index = 0; index < 6; index++) source.put(`noise${index}.ts`, `export function noise${index}() {\n  ${common}}\n`, [symbol(`noise${index}`, "function", 1, 4)]);
    const index = new SearchIndex(source, { embedder: new NullEmbedder() });
    await index.refresh();
    const anchor = index.chunkAt("/repo/bucket.ts", 3)!;
    expect(anchor.symbol).toBe("take");
    const related = index.relatedTo(anchor, index.anchorTerms(anchor, source.texts.get(anchor.real)!), { topK: 3 });
    expect(related[0]!.chunk.display).toBe("refill.ts");
    expect(related[0]!.shared).toEqual(expect.arrayContaining(["refillrate", "tokenbucket"]));
    // The next best only share what every chunk has.
    expect(related[1]!.shared).toEqual(expect.arrayContaining(["value", "input"]));
    expect(related[1]!.shared).not.toContain("tokenbucket");
    expect(related[0]!.score).toBeGreaterThan(related[1]!.score * 2);
    expect(related.every((hit) => hit.chunk.id !== anchor.id)).toBe(true);
  });
});

describe("snippets", () => {
  test("show the lines where the query terms are", () => {
    const text = Array.from({ length: 30 }, (_, index) => (index === 19 ? "  const retryLimit = computeRetryLimit();" : `  line${index}();`)).join("\n");
    const snippet = snippetOf(text, 1, 30, ["retry", "limit"]);
    expect(snippet.startLine).toBe(19);
    expect(snippet.text.split("\n")[1]).toBe("  const retryLimit = computeRetryLimit();");
    expect(snippet.endLine - snippet.startLine + 1).toBe(LIMITS.intel.search.snippetLines);
  });
});
