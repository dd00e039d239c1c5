import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, realpath, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { SymbolFact, SymbolKind } from "../../../src/intel/facts/types.ts";
import { SearchIndex, type SearchPersistence } from "../../../src/intel/search/index.ts";
import { LIMITS } from "../../../src/core/limits.ts";
import { SearchService } from "../../../src/intel/search/service.ts";
import { CHUNK_LINES } from "../../../src/intel/search/chunks.ts";
import { loadPersisted, savePersisted } from "../../../src/intel/search/persist.ts";
import { decodeIndex } from "../../../src/intel/search/persist-state.ts";
import { createToolServices } from "../../../src/tools/index.ts";
import { MemorySearchSource } from "../../support/search-source.ts";
import { DEFAULT_INDEX_SETTINGS } from "../../../src/intel/index/index.ts";
import { makeIndexFixture } from "../index/fixture.ts";
import { random } from "../../support/random.ts";

/** A source that persists its search index in a temp directory. */
class PersistingSource extends MemorySearchSource {
  constructor(public persisted: SearchPersistence) {
    super();
  }

  async persistence(): Promise<SearchPersistence | undefined> {
    return this.persisted;
  }
}

/** A source whose first build is under way: the files in `hidden` are not listed yet. */
class BuildingSource extends PersistingSource {
  built = true;
  readonly hidden = new Set<string>();

  override files() {
    return super.files().filter((file) => !this.hidden.has(file.real));
  }
}

function symbol(name: string, kind: SymbolKind, startLine: number, endLine: number, extra: Partial<SymbolFact> = {}): SymbolFact {
  return { name, qualifiedName: name, kind, visibility: "public", exported: true, startLine, endLine, signature: `${kind} ${name}()`, ...extra };
}

/** A few files with names, docs, members and a term repeated past a byte of frequency. */
function fill(source: MemorySearchSource): void {
  source.put("config.ts", "/** Reads settings. */\nexport function parseConfig(text: string): Config {\n  return JSON.parse(text) as Config;\n}\n", [
    symbol("parseConfig", "function", 2, 4, { signature: "export function parseConfig(text: string): Config", doc: "Reads settings." }),
  ]);
  source.put("main.ts", "import { parseConfig } from \"./config.js\";\nconst a = parseConfig(readA());\nexport function start() { return parseConfig(\"{}\"); }\n", [
    symbol("start", "function", 3, 3),
  ]);
  const methods = Array.from({ length: 6 }, (_, index) => `  retry${index}(count: number) { return backoff(count, ${index}); }`);
  source.put("client.ts", ["/** An HTTP client that retries. */", "export class RetryingClient {", ...methods, "}", ""].join("\n"), [
    symbol("RetryingClient", "class", 2, 9, { doc: "An HTTP client that retries." }),
    ...methods.map((_, index) => symbol(`retry${index}`, "method", 3 + index, 3 + index, { parent: "RetryingClient", qualifiedName: `RetryingClient.retry${index}` })),
  ]);
  source.put("noise.py", `${Array.from({ length: 300 }, () => "token = token + token").join("\n")}\n`, []);
  source.put("windows.py", `${Array.from({ length: 130 }, (_, index) => `value_${index} = compute_window(${index})`).join("\n")}\n`, [], "python");
}

const QUERIES = ["parseConfig", "parse config", "retrying http client", "retry backoff count", "token", "compute window value", "settings", "nothing matches this"];

async function answers(index: SearchIndex) {
  const out = [];
  for (const query of QUERIES) out.push(await index.search(query, { topK: 20 }));
  return out;
}

let dir: string;
let persisted: SearchPersistence;

/** What the index expects of its file (the stamp and its chunking settings), for reading and writing files by hand. */
function expectation() {
  return { stamp: persisted.stamp, settings: JSON.stringify({ maxChunkedFileBytes: LIMITS.intel.search.maxChunkedFileBytes, chunkLines: CHUNK_LINES }) };
}
/** Indexes of the test: their writes after a build are waited for before the directory goes. */
let made: SearchIndex[] = [];

function searchIndex(source: MemorySearchSource): SearchIndex {
  const index = new SearchIndex(source);
  made.push(index);
  return index;
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ast-mcp-search-persist-"));
  persisted = { file: path.join(dir, "0123abcd.search.bin"), stamp: "roots-and-extractor" };
});

afterEach(async () => {
  await Promise.all(made.map((index) => index.persist()));
  made = [];
  await rm(dir, { recursive: true, force: true });
});

/** An index built over the filled source and persisted, read back as a restart reads it, with the source's files by path. */
async function builtAndLoaded() {
  const source = new PersistingSource(persisted);
  fill(source);
  const built = searchIndex(source);
  await built.refresh();
  await built.persist();
  const loaded = await loadPersisted(persisted.file, expectation());
  if ("problem" in loaded) throw new Error(loaded.problem);
  return { loaded, current: new Map(source.files().map((file) => [file.real, file])) };
}

describe("the persisted search index", () => {
  test("a restarted index answers every query exactly as a freshly built one, without reading a file", async () => {
    const first = new PersistingSource(persisted);
    fill(first);
    const built = searchIndex(first);
    await built.refresh();
    await built.persist();
    const expected = await answers(built);

    const again = new PersistingSource(persisted);
    fill(again);
    const restarted = searchIndex(again);
    const report = await restarted.refresh();
    expect(report).toMatchObject({ rechunked: 0, restored: 5, files: 5 });
    expect(again.reads).toBe(0);
    expect(await answers(restarted)).toEqual(expected);
    expect(restarted.chunkCount).toBe(built.chunkCount);
    // find_related reads the same postings.
    const anchor = restarted.chunkAt("/repo/client.ts", 3)!;
    const text = await again.text(again.files().find((file) => file.display === "client.ts")!);
    expect(restarted.relatedTo(anchor, restarted.anchorTerms(anchor, text), { topK: 5 })).toEqual(built.relatedTo(anchor, built.anchorTerms(anchor, text), { topK: 5 }));
  });

  test("an index persisted after edits (dead chunks, tails) restores to what a fresh build of the same files answers", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const index = searchIndex(source);
    await index.refresh();
    source.put("main.ts", "export function start() { return loadSettings(); }\n", [symbol("start", "function", 1, 1)]);
    source.delete("noise.py");
    await index.refresh();
    await index.persist();

    const restarted = searchIndex(source);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 0, restored: 4 });
    const fresh = searchIndex(source);
    await fresh.refresh();
    expect(await answers(restarted)).toEqual(await answers(fresh));
  });

  test("names of a file whose facts moved on before the write are kept as written, and still answer when the file is back", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const index = searchIndex(source);
    await index.refresh();
    const original = source.entries.get("/repo/client.ts")!;
    const originalText = source.texts.get("/repo/client.ts")!;
    // The code index moved on (an edit not refreshed yet) when the index is written.
    source.put("client.ts", "export const nothing = 1;\n", []);
    await index.persist();

    const back = new PersistingSource(persisted);
    fill(back);
    expect(back.entries.get("/repo/client.ts")).toEqual(original);
    expect(back.texts.get("/repo/client.ts")).toBe(originalText);
    const restarted = searchIndex(back);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 0, restored: 5 });
    const fresh = new SearchIndex(back);
    await fresh.refresh();
    expect(await answers(restarted)).toEqual(await answers(fresh));
    expect((await restarted.search("retry3", { topK: 3 })).hits[0]!.focus?.qualifiedName).toBe("RetryingClient.retry3");
  });

  test("while the code index's first build runs, restored files it has not reached stay out of answers and keep their chunks", async () => {
    const first = new PersistingSource(persisted);
    fill(first);
    const built = searchIndex(first);
    await built.refresh();
    await built.persist();

    const again = new BuildingSource(persisted);
    fill(again);
    again.hidden.add("/repo/config.ts");
    again.built = false;
    again.reads = 0;
    const restarted = searchIndex(again);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 0, removed: 0, restored: 4 });
    const early = await restarted.search("parseConfig", { topK: 10 });
    expect(early.hits.map((hit) => hit.chunk.display)).not.toContain("config.ts");
    expect(early.hits.length).toBeGreaterThan(0);
    // Written while the hidden file still waits for its facts: its names are carried over as they were read.
    again.put("extra.ts", "export function extraThing() { return 3; }\n", [symbol("extraThing", "function", 1, 1)]);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 1 });
    await restarted.persist();
    const third = new PersistingSource(persisted);
    fill(third);
    third.put("extra.ts", "export function extraThing() { return 3; }\n", [symbol("extraThing", "function", 1, 1)]);
    const thirdIndex = searchIndex(third);
    expect(await thirdIndex.refresh()).toMatchObject({ rechunked: 0, restored: 6 });
    const thirdFresh = new SearchIndex(third);
    await thirdFresh.refresh();
    expect(await answers(thirdIndex)).toEqual(await answers(thirdFresh));

    again.hidden.clear();
    again.built = true;
    again.generation++;
    again.reads = 0;
    expect(await restarted.refresh()).toMatchObject({ rechunked: 0, removed: 0 });
    expect(again.reads).toBe(0);
    const fresh = new SearchIndex(again);
    await fresh.refresh();
    expect(await answers(restarted)).toEqual(await answers(fresh));
  });

  test("a file changed between processes is chunked again; the others keep their persisted chunks", async () => {
    const first = new PersistingSource(persisted);
    fill(first);
    const built = searchIndex(first);
    await built.refresh();
    await built.persist();

    const again = new PersistingSource(persisted);
    fill(again);
    again.put("config.ts", "/** Loads the YAML manifest. */\nexport function loadManifest(text: string): Manifest {\n  return yaml(text);\n}\n", [
      symbol("loadManifest", "function", 2, 4, { doc: "Loads the YAML manifest." }),
    ]);
    again.delete("windows.py");
    again.reads = 0;
    const restarted = searchIndex(again);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 1, removed: 1, restored: 3, files: 4 });
    expect(again.reads).toBe(1);
    const manifest = await restarted.search("manifest yaml", { topK: 5 });
    expect(manifest.hits[0]!.chunk.display).toBe("config.ts");
    expect((await restarted.search("parseConfig", { topK: 5 })).hits.map((hit) => hit.chunk.display)).not.toContain("config.ts");
    const fresh = searchIndex(again);
    await fresh.refresh();
    expect(await answers(restarted)).toEqual(await answers(fresh));
  });

  test("a corrupt, cut or other-version file is ignored, the index is built from the files and written anew", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const built = searchIndex(source);
    await built.refresh();
    await built.persist();
    const good = await readFile(persisted.file);
    const expected = await answers(built);

    const headerEnd = 12 + good.readUInt32LE(8);
    const flipped = Buffer.from(good);
    // A byte of the arrays (past the header and its padding).
    const inArrays = headerEnd + 8 + Math.floor((good.length - headerEnd - 8) / 2);
    flipped[inArrays] = flipped[inArrays]! ^ 0xff;
    const header = good.toString("utf8", 12, headerEnd);
    const otherFormat = Buffer.concat([good.subarray(0, 12), Buffer.from(header.replace("\"format\":1,", "\"format\":7,"), "utf8"), good.subarray(headerEnd)]);
    const cases: Array<[string, Buffer, RegExp]> = [
      ["a flipped byte", flipped, /corrupt/],
      ["a cut tail", good.subarray(0, good.length - 100), /cut short/],
      ["another format", otherFormat, /format 7 is not 1/],
      ["garbage", Buffer.from("not an index at all"), /not a persisted search index/],
    ];
    for (const [, bytes, problem] of cases) {
      await writeFile(persisted.file, bytes);
      source.reads = 0;
      const restarted = searchIndex(source);
      expect(await restarted.refresh()).toMatchObject({ rechunked: 5, restored: 0 });
      expect(restarted.persistStats().problem).toMatch(problem);
      expect(await answers(restarted)).toEqual(expected);
      // The build wrote a good file again: the next process restores it.
      await restarted.persist();
      const next = searchIndex(source);
      expect(await next.refresh()).toMatchObject({ rechunked: 0, restored: 5 });
    }
  });

  test("a persisted index whose slot numbers are out of bounds is refused, not allocated", async () => {
    const { loaded, current } = await builtAndLoaded();
    const meta = loaded.meta as { slots: number; files: Array<{ slot: number }> };
    expect("problem" in decodeIndex(loaded, current)).toBe(false);
    for (
      const damage of [
        () => (meta.slots = 1e12),
        () => (meta.slots = 2.5),
        () => (meta.files[0]!.slot = meta.slots + 3),
        () => (meta.files[1]!.slot = meta.files[0]!.slot),
      ]
    ) {
      const saved = JSON.stringify(meta);
      damage();
      expect(decodeIndex(loaded, current)).toMatchObject({ problem: expect.stringMatching(/^corrupt/) });
      Object.assign(meta, JSON.parse(saved));
    }
  });

  test("a persisted index whose offsets, counts or references point outside its arrays is refused, not read", async () => {
    const { loaded, current } = await builtAndLoaded();
    const meta = loaded.meta as { nextId: number; kinds: string[]; strings: unknown[]; totalLengths: unknown[]; files: Array<{ first: number; count: number }> };
    const array = (name: string) => loaded.arrays.get(name)!;
    expect("problem" in decodeIndex(loaded, current)).toBe(false);
    const nextId = meta.nextId;
    const damages: Array<[string, () => void]> = [
      // A run reaching past the postings would be walked for two billion steps by every query.
      ["a run past the postings", () => (array("field3.offsets")[array("field3.offsets").length - 1] = 0x7fffffff)],
      ["a run ending before it starts", () => (array("field3.offsets")[1] = -5)],
      // An entry count is what a merge allocates.
      ["an entry count no run has", () => (array("field0.entries")[0] = 0x7fffffff)],
      ["a posting past the chunks", () => (array("field3.ids")[0] = nextId + 5)],
      ["postings out of order", () => {
        const offsets = array("field3.offsets");
        const term = offsets.findIndex((offset, at) => offsets[at + 1]! - offset >= 2);
        array("field3.ids").subarray(offsets[term], offsets[term + 1]).reverse();
      }],
      ["lengths for more chunks than there are", () => loaded.arrays.set("field1.lengths", new Uint32Array(nextId + 10))],
      ["a frequency that is no number", () => loaded.arrays.set("field3.overflow", new Float64Array([1, Number.NaN]))],
      ["a total length that is no number", () => (meta.totalLengths[2] = "many")],
      ["a term past its pool", () => (array("dictionary.start")[3] = array("dictionary.chars").length)],
      ["a term of negative length", () => (array("dictionary.length")[0] = -1)],
      ["a chunk's symbols past the symbol columns", () => (array("chunks.defineCount")[nextId - 1] = 0x7fffffff)],
      ["a chunk's symbols starting elsewhere", () => (array("chunks.defineFirst")[nextId - 1] = 0)],
      ["a chunk kind no kind has", () => (array("chunks.ownerKind")[1] = 200)],
      ["chunks of a file out of line order", () => (array("chunks.startLine")[nextId - 1] = 1)],
      ["a symbol's terms past the pool", () => (array("defines.termFirst")[0] = array("defines.termPool").length)],
      ["a symbol kind no kind has", () => (array("defines.kind")[0] = 250)],
      ["a name reference past the strings", () => (array("defines.nameRef")[0] = -1000)],
      ["a name that is no string", () => meta.strings.push(5)],
      ["a kind listed twice", () => meta.kinds.push(meta.kinds[0]!)],
      ["no chunk ids at all", () => (meta.nextId = 0)],
      ["a chunk no file holds", () => (meta.files.find((file) => file.count > 0)!.count -= 1)],
    ];
    for (const [what, damage] of damages) {
      const savedMeta = JSON.stringify(meta);
      const savedArrays = new Map([...loaded.arrays].map(([name, values]) => [name, values.slice()]));
      damage();
      expect({ what, decoded: decodeIndex(loaded, current) }).toMatchObject({ what, decoded: { problem: expect.stringMatching(/^corrupt/) } });
      Object.assign(meta, JSON.parse(savedMeta));
      for (const [name, values] of savedArrays) loaded.arrays.set(name, values);
    }
    expect("problem" in decodeIndex(loaded, current)).toBe(false);
  });

  test("a hand-made file with out-of-bounds offsets and a good hash is refused and the index rebuilt from the files", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const built = searchIndex(source);
    await built.refresh();
    await built.persist();
    const expected = await answers(built);
    const loaded = await loadPersisted(persisted.file, expectation());
    if ("problem" in loaded) throw new Error(loaded.problem);
    const offsets = loaded.arrays.get("field3.offsets")!;
    offsets[offsets.length - 1] = 0x7fffffff;
    await savePersisted(persisted.file, expectation(), loaded);
    const restarted = searchIndex(source);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 5, restored: 0 });
    expect(restarted.persistStats().problem).toMatch(/^corrupt: its postings/);
    expect(await answers(restarted)).toEqual(expected);
    await restarted.persist();
    expect(await searchIndex(source).refresh()).toMatchObject({ rechunked: 0, restored: 5 });
  });

  test("whatever number a hand-made file puts anywhere in its arrays, a restart answers or rebuilds and never throws", async () => {
    const { loaded: good } = await builtAndLoaded();
    const names = [...good.arrays.keys()];
    const next = random(0x5eed);
    for (let round = 0; round < 100; round++) {
      const arrays = new Map([...good.arrays].map(([name, values]) => [name, values.slice()]));
      for (let change = 0; change < 1 + Math.floor(next() * 3); change++) {
        const values = arrays.get(names[Math.floor(next() * names.length)]!)!;
        if (values.length === 0) continue;
        const extremes = [-1, 0, 1, values.length, values.length + 1, 0x7fffffff, -0x80000000, 255, Number.NaN];
        values[Math.floor(next() * values.length)] = next() < 0.5 ? extremes[Math.floor(next() * extremes.length)]! : Math.floor(next() * 2 * values.length) - 1;
      }
      await savePersisted(persisted.file, expectation(), { meta: good.meta, arrays });
      const edited = new PersistingSource(persisted);
      fill(edited);
      const restarted = new SearchIndex(edited, { tuning: { persistDelayMs: 60_000 } });
      await restarted.refresh();
      for (const query of QUERIES) await restarted.search(query, { topK: 20 });
      for (const file of edited.files()) restarted.chunkAt(file.real, 3);
      // An edit after the restart merges what was restored with what is new.
      edited.put("main.ts", "export function start() { return parseConfig(token); }\n", [symbol("start", "function", 1, 1)]);
      await restarted.refresh();
      for (const query of QUERIES) await restarted.search(query, { topK: 20 });
      await restarted.persist();
    }
  });

  test("an edit is written once refreshes settle, and edits in a row at most once per interval", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const settling = new SearchIndex(source, { tuning: { persistDelayMs: 10, persistMinIntervalMs: 0 } });
    made.push(settling);
    await settling.refresh();
    await settling.persist();
    source.put("main.ts", "export function zebraCrossing() { return 1; }\n", [symbol("zebraCrossing", "function", 1, 1)]);
    await settling.refresh();
    await Bun.sleep(200);
    const afterSettling = await readFile(persisted.file);
    const seen = searchIndex(source);
    expect(await seen.refresh()).toMatchObject({ rechunked: 0, restored: 5 });

    const throttled = new SearchIndex(source, { tuning: { persistDelayMs: 10, persistMinIntervalMs: 60_000 } });
    made.push(throttled);
    // A file changed since: its first refresh writes the index at once.
    source.put("windows.py", "window = 1\n", [], "python");
    expect(await throttled.refresh()).toMatchObject({ rechunked: 1, restored: 4 });
    await throttled.persist();
    const written = await readFile(persisted.file);
    source.put("main.ts", "export function okapiRanking() { return 2; }\n", [symbol("okapiRanking", "function", 1, 1)]);
    await throttled.refresh();
    await Bun.sleep(200);
    // Within the interval: not written yet; an explicit write (the shutdown's) does it.
    expect((await readFile(persisted.file)).equals(written)).toBe(true);
    await throttled.persist();
    expect((await readFile(persisted.file)).equals(written)).toBe(false);
    expect(afterSettling.equals(written)).toBe(false);
  });

  test("an index made for other roots or another extractor is not used", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const built = searchIndex(source);
    await built.refresh();
    await built.persist();
    source.persisted = { ...persisted, stamp: "another-extractor" };
    const restarted = searchIndex(source);
    expect(await restarted.refresh()).toMatchObject({ rechunked: 5, restored: 0 });
    expect(restarted.persistStats().problem).toMatch(/other roots or another extractor/);
  });

  test("the first build is written at once, so a one-call process leaves it behind", async () => {
    const source = new PersistingSource(persisted);
    fill(source);
    const index = searchIndex(source);
    await index.refresh();
    // persist() queues behind the write the build started: once it resolves, the file is there.
    await index.persist();
    const restarted = searchIndex(source);
    expect(await restarted.refresh()).toMatchObject({ restored: 5 });
  });
});

describe("persisting beside the code index", () => {
  test("the search index lives in the cache directory's snapshot folder, is flushed at shutdown and restored by the next process", async () => {
    const f = await makeIndexFixture();
    try {
      await f.write("src/config.ts", "/** Reads settings. */\nexport function parseConfig(text: string) {\n  return JSON.parse(text);\n}\n");
      await f.write("src/main.ts", "import { parseConfig } from \"./config.ts\";\nexport function start() { return parseConfig(\"{}\"); }\n");
      const code = f.index({ settings: { persist: true } });
      await code.ensureFresh();
      const service = new SearchService();
      const search = service.indexFor(code);
      await search.refresh();
      const before = await search.search("parse config settings", { topK: 5 });
      await service.flushAll(5_000);
      const located = await code.persistence();
      expect(located?.file.startsWith(path.join(await realpath(f.cacheDir), "index"))).toBe(true);
      expect(located?.file.endsWith(".search.bin")).toBe(true);
      expect((await readFile(located!.file)).subarray(0, 8).toString("latin1")).toBe("ASTMCPSI");

      f.registry.closeAll();
      const restartedCode = f.index({ settings: { persist: true } });
      await restartedCode.ensureFresh();
      const restarted = new SearchService().indexFor(restartedCode);
      expect(await restarted.refresh()).toMatchObject({ rechunked: 0, restored: 2 });
      expect(await restarted.search("parse config settings", { topK: 5 })).toEqual(before);
      await restarted.persist();
    } finally {
      await f.cleanup();
    }
  });

  test("the services' shutdown writes an edit the debounced write had not written yet", async () => {
    const f = await makeIndexFixture();
    try {
      await f.write("a.ts", "export function alpha() { return 1; }\n");
      const services = createToolServices();
      const code = services.indexes.for(f.workspace, { cacheDir: f.cacheDir, watch: "off", settings: { ...DEFAULT_INDEX_SETTINGS, persist: true } });
      await code.ensureFresh();
      const search = services.search.indexFor(code);
      await search.refresh();
      await search.persist();
      await f.write("b.ts", "export function zebraCrossing() { return 2; }\n");
      code.notifyWritten([f.path("b.ts")]);
      await code.ensureFresh();
      expect(await search.refresh()).toMatchObject({ rechunked: 1 });
      // The write after an edit waits persistDelayMs; the shutdown does not.
      await services.shutdown(5_000);

      const next = createToolServices();
      const restartedCode = next.indexes.for(f.workspace, { cacheDir: f.cacheDir, watch: "off", settings: { ...DEFAULT_INDEX_SETTINGS, persist: true } });
      await restartedCode.ensureFresh();
      const restarted = next.search.indexFor(restartedCode);
      expect(await restarted.refresh()).toMatchObject({ rechunked: 0, restored: 2 });
      expect((await restarted.search("zebra crossing", { topK: 1 })).hits[0]?.chunk.display).toBe("b.ts");
      await next.shutdown(5_000);
    } finally {
      await f.cleanup();
    }
  });

  test("older persisted search indexes beyond the snapshot count are pruned, the one written stays", async () => {
    const f = await makeIndexFixture();
    try {
      await f.write("a.ts", "export function alpha() { return 1; }\n");
      const code = f.index({ settings: { persist: true } });
      await code.ensureFresh();
      const located = (await code.persistence())!;
      const dir = path.dirname(located.file);
      const old = new Date(Date.now() - 3_600_000);
      for (let i = 0; i < LIMITS.intel.index.maxSnapshots + 2; i++) {
        const file = path.join(dir, `${String(i).padStart(32, "0")}.search.bin`);
        await writeFile(file, "old");
        await utimes(file, old, old);
      }
      const search = new SearchService().indexFor(code);
      await search.refresh();
      await search.persist();
      const left = (await readdir(dir)).filter((name) => name.endsWith(".search.bin"));
      expect(left.length).toBe(LIMITS.intel.index.maxSnapshots);
      expect(left).toContain(path.basename(located.file));
    } finally {
      await f.cleanup();
    }
  });

  test("with persisting off, or a cache directory inside the roots, nothing is written", async () => {
    const f = await makeIndexFixture();
    try {
      await f.write("a.ts", "export function alpha() { return 1; }\n");
      const off = f.index();
      await off.ensureFresh();
      expect(await off.persistence()).toBeUndefined();
      f.registry.closeAll();
      const inside = f.index({ settings: { persist: true }, cacheDir: f.path(".cache") });
      await inside.ensureFresh();
      expect(await inside.persistence()).toBeUndefined();
    } finally {
      await f.cleanup();
    }
  });
});
