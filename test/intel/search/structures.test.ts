/**
 * The compact search structures against plain references: the allocation-free tokenizer against the
 * string one, the heap selection against a sort, pruned related ranking against full scoring, and an
 * index kept up to date through many changes (with merges and renumbering forced often) against one
 * built fresh from the final files.
 */
import { describe, expect, test } from "bun:test";
import type { SymbolFact } from "../../../src/intel/facts/types.ts";
import { FieldIndex, Liveness } from "../../../src/intel/search/bm25.ts";
import { ScoreBoard, topOf } from "../../../src/intel/search/ranking.ts";
import { TermDictionary } from "../../../src/intel/search/dictionary.ts";
import { NullEmbedder } from "../../../src/intel/search/embedder.ts";
import { SearchIndex, type SearchHit } from "../../../src/intel/search/index.ts";
import { snippetOf } from "../../../src/intel/search/present.ts";
import { countTerms, identifiersIn, identifierTerms, TermCounter } from "../../../src/intel/search/tokenize.ts";
import { MemorySearchSource } from "../../support/search-source.ts";
import { random } from "../../support/random.ts";

/** The regular-expression path alone: term frequencies of a text and its total term count, what countTerms must agree with. */
function termCounts(text: string): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  let length = 0;
  for (const identifier of identifiersIn(text)) {
    for (const term of identifierTerms(identifier)) {
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
  }
  return { counts, length };
}

const WORDS = ["parse", "http", "Response", "token", "bucket", "retry", "limit", "JSON", "read", "full", "buffer", "größe", "naïve", "x", "id", "v2", "URL", "Ω", "δelta", "π"];
const JOINERS = ["", "_", "$", "__", ""];

function identifier(next: () => number): string {
  const parts = 1 + Math.floor(next() * 3);
  let name = next() < 0.1 ? "_" : "";
  for (let part = 0; part < parts; part++) {
    let word = WORDS[Math.floor(next() * WORDS.length)]!;
    if (next() < 0.5) word = word[0]!.toUpperCase() + word.slice(1);
    if (next() < 0.15) word = word.toUpperCase();
    name += (part > 0 ? JOINERS[Math.floor(next() * JOINERS.length)]! : "") + word;
    if (next() < 0.15) name += String(Math.floor(next() * 100));
  }
  return name;
}

function line(next: () => number): string {
  const pieces: string[] = [];
  const count = Math.floor(next() * 8);
  for (let index = 0; index < count; index++) {
    const roll = next();
    pieces.push(roll < 0.7 ? identifier(next) : roll < 0.8 ? String(Math.floor(next() * 1000)) : roll < 0.9 ? "𝒳𝒴" : "(){}.,;=+-*/\"'");
  }
  return pieces.join(next() < 0.5 ? " " : ".");
}

describe("tokenizer", () => {
  test("countTerms counts what termCounts counts", () => {
    const next = random(7);
    const dictionary = new TermDictionary();
    for (let round = 0; round < 400; round++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 6) }, () => line(next)).join(next() < 0.5 ? "\n" : "\r\n");
      const expected = termCounts(text);
      const whole = new TermCounter();
      countTerms(text, 0, text.length, dictionary, whole, true);
      const actual = new Map<string, number>();
      for (let index = 0; index < whole.distinct; index++) actual.set(dictionary.term(whole.ids[index]!), whole.counts[whole.ids[index]!]!);
      expect(whole.length).toBe(expected.length);
      expect(actual).toEqual(expected.counts);
      // A range of the text counts as that slice of it.
      const from = Math.floor(next() * text.length);
      const to = from + Math.floor(next() * (text.length - from));
      const counter = new TermCounter();
      countTerms(text, from, to, dictionary, counter, true);
      expect(counter.length).toBe(termCounts(text.slice(from, to)).length);
    }
  });

  test("lookups without interning skip terms the dictionary does not know", () => {
    const dictionary = new TermDictionary();
    dictionary.intern("parse");
    const counter = new TermCounter();
    countTerms("parseConfig unknownThing parse", 0, 30, dictionary, counter, false);
    expect(counter.distinct).toBe(1);
    expect(counter.counts[dictionary.lookup("parse")!]).toBe(2);
    expect(dictionary.lookup("config")).toBeUndefined();
  });
});

describe("top selection", () => {
  test("the heap picks what a full sort picks, ties included, for any limit", () => {
    const next = random(11);
    for (let round = 0; round < 200; round++) {
      const count = Math.floor(next() * 300);
      const scores = new Float64Array(1000);
      const ids = new Int32Array(count);
      const used = new Set<number>();
      for (let index = 0; index < count; index++) {
        let id = Math.floor(next() * 1000);
        while (used.has(id)) id = (id + 1) % 1000;
        used.add(id);
        ids[index] = id;
        scores[id] = Math.floor(next() * 12) / 4;
      }
      const limit = Math.floor(next() * 40);
      const byId = [...ids].sort((a, b) => scores[b]! - scores[a]! || a - b);
      expect(topOf(ids, count, scores, limit)).toEqual(byId.slice(0, limit));
      const reversed = (a: number, b: number) => b - a;
      const byReversed = [...ids].sort((a, b) => scores[b]! - scores[a]! || reversed(a, b));
      expect(topOf(ids, count, scores, limit, reversed)).toEqual(byReversed.slice(0, limit));
    }
  });
});

describe("pruned related ranking", () => {
  test("topBinary returns what scoring every posting returns", () => {
    const next = random(5);
    for (let round = 0; round < 30; round++) {
      const live = new Liveness();
      const field = new FieldIndex(live);
      const counter = new TermCounter();
      const chunks = 50 + Math.floor(next() * 400);
      const terms = 40;
      for (let id = 1; id <= chunks; id++) {
        counter.reset();
        // Term t is common when t is large: a few rare terms, many common ones.
        for (let term = 0; term < terms; term++) if (next() < (term + 1) / (terms * 1.5)) { for (let times = Math.floor(next() * 3); times >= 0; times--) counter.count(term); }
        live.set(id, true);
        field.add(id, counter);
        if (next() < 0.3) field.merge(undefined, id);
      }
      // Some chunks leave.
      let total = chunks;
      for (let id = 1; id <= chunks; id++) {
        if (next() < 0.1) {
          live.set(id, false);
          field.remove(id);
          total--;
        }
      }
      const query = Array.from({ length: 1 + Math.floor(next() * terms) }, (_, index) => index).sort((a, b) => field.idf(b, total) - field.idf(a, total) || a - b);
      const accept = next() < 0.5 ? undefined : (id: number) => id % 7 !== 0;
      const tieBreak = next() < 0.5 ? undefined : (a: number, b: number) => b - a;
      for (const limit of [1, 3, 10]) {
        const full = new ScoreBoard();
        full.begin(chunks + 1);
        field.score(
          query.map((id) => ({ id, binary: true })),
          total,
          full,
          accept,
        );
        const expected = full.top(limit, tieBreak);
        const pruned = new ScoreBoard();
        const actual = field.topBinary(query, total, pruned, limit, accept, tieBreak);
        expect(actual).toEqual(expected);
        expect(actual.map((id) => pruned.scores[id])).toEqual(expected.map((id) => full.scores[id]));
      }
    }
  });
});

describe("whole-file frequencies", () => {
  test("frequenciesByGroup adds a term's frequency over each group's live, accepted chunks and lists each group once", () => {
    const next = random(23);
    for (let round = 0; round < 20; round++) {
      const live = new Liveness();
      const field = new FieldIndex(live);
      const counter = new TermCounter();
      const chunks = 50 + Math.floor(next() * 300);
      const groups = 1 + Math.floor(next() * 20);
      const group = new Int32Array(chunks + 1);
      const frequencies = Array.from({ length: chunks + 1 }, () => new Map<number, number>());
      for (let id = 1; id <= chunks; id++) {
        group[id] = Math.floor(next() * groups);
        counter.reset();
        for (let term = 0; term < 6; term++) {
          if (next() >= 0.4) continue;
          // Some frequencies pass a byte (stored apart).
          const times = next() < 0.05 ? 300 : 1 + Math.floor(next() * 3);
          for (let time = 0; time < times; time++) counter.count(term);
          frequencies[id]!.set(term, times);
        }
        live.set(id, true);
        field.add(id, counter);
        if (next() < 0.2) field.merge(undefined, id);
      }
      for (let id = 1; id <= chunks; id++) {
        if (next() < 0.1) {
          live.set(id, false);
          field.remove(id);
        }
      }
      const accept = next() < 0.5 ? undefined : (id: number) => id % 5 !== 0;
      for (let term = 0; term < 6; term++) {
        const expected = new Map<number, number>();
        for (let id = 1; id <= chunks; id++) {
          const frequency = frequencies[id]!.get(term);
          if (frequency === undefined || !live.has(id) || (accept && !accept(id))) continue;
          expected.set(group[id]!, (expected.get(group[id]!) ?? 0) + frequency);
        }
        const sums = new Float64Array(groups);
        const touched = new Int32Array(groups);
        const count = field.frequenciesByGroup(term, group, sums, touched, accept);
        const listed = Array.from(touched.subarray(0, count));
        expect(new Set(listed).size).toBe(count);
        expect(listed.sort((a, b) => a - b)).toEqual([...expected.keys()].sort((a, b) => a - b));
        for (const [slot, sum] of expected) expect(sums[slot]).toBe(sum);
      }
    }
  });
});

describe("postings merged in place", () => {
  test("a merge says when it replaced the main arrays; mid-build they get room to grow, at the end of a refresh they fit", () => {
    const live = new Liveness();
    const growth = 2;
    const field = new FieldIndex(live, growth);
    const counter = new TermCounter();
    let id = 0;
    const addChunks = (count: number) => {
      for (let index = 0; index < count; index++) {
        counter.reset();
        for (let term = 0; term < 20; term++) counter.count(term);
        live.set(++id, true);
        field.add(id, counter);
      }
    };
    addChunks(100);
    expect(field.merge(undefined, id)).toBe(true);
    expect(field.mainCapacity).toBe(2000);
    // Mid-build an outgrown array grows by the field's growth factor…
    addChunks(10);
    expect(field.merge(undefined, id)).toBe(true);
    const roomy = Math.floor(2000 * growth);
    expect(field.mainCapacity).toBe(roomy);
    // …so the next merges fit in place and replace nothing.
    addChunks(10);
    expect(field.merge(undefined, id)).toBe(false);
    expect(field.mainCapacity).toBe(roomy);
    // The last merge of a refresh sizes an outgrown array to fit (an eighth spare), so trimming need not copy it again.
    addChunks(100);
    expect(field.merge(undefined, id, true)).toBe(true);
    expect(field.pairs).toBe(4400);
    expect(field.mainCapacity).toBe(4400 + (4400 >> 3) + 16);
  });

  test("a field merged now and then (runs moved up in place, arrays grown and trimmed) scores like one never merged", () => {
    const next = random(11);
    for (let round = 0; round < 20; round++) {
      const live = new Liveness();
      const merged = new FieldIndex(live);
      const tailOnly = new FieldIndex(live);
      const counter = new TermCounter();
      const chunks = 100 + Math.floor(next() * 600);
      let terms = 5;
      for (let id = 1; id <= chunks; id++) {
        counter.reset();
        // New terms keep arriving (runs past the old main part), and some frequencies pass a byte.
        if (next() < 0.2) terms++;
        for (let term = 0; term < terms; term++) {
          if (next() < 0.3) { for (let times = next() < 0.05 ? 250 + Math.floor(next() * 600) : Math.floor(next() * 3); times >= 0; times--) counter.count(term); }
        }
        live.set(id, true);
        merged.add(id, counter);
        tailOnly.add(id, counter);
        if (next() < 0.1) merged.merge(undefined, id);
        if (next() < 0.02) merged.trim(id + 1, terms);
      }
      merged.merge(undefined, chunks);
      merged.trim(chunks + 1, terms);
      expect(merged.pairs).toBe(tailOnly.pairs);
      for (let term = 0; term < terms; term++) {
        expect(merged.documentFrequency(term)).toBe(tailOnly.documentFrequency(term));
        const expected = new ScoreBoard();
        expected.begin(chunks + 1);
        tailOnly.score([{ id: term }], chunks, expected);
        const actual = new ScoreBoard();
        actual.begin(chunks + 1);
        merged.score([{ id: term }], chunks, actual);
        const top = expected.top(chunks);
        expect(actual.top(chunks)).toEqual(top);
        expect(top.map((id) => actual.scores[id])).toEqual(top.map((id) => expected.scores[id]));
        for (let id = 1; id <= chunks; id += 7) expect(merged.has(term, id)).toBe(tailOnly.has(term, id));
      }
    }
  });
});

describe("snippets", () => {
  test("a known line start gives the same snippet as scanning from the top", () => {
    const lines = Array.from({ length: 60 }, (_, index) => (index % 7 === 3 ? `  retryLimit = ${index};` : `  line${index}();`));
    const text = lines.join("\r\n");
    let offset = 0;
    for (let lineNumber = 1; lineNumber <= 40; lineNumber++) {
      expect(snippetOf(text, 40, 50, ["retry", "limit"], { line: lineNumber, offset })).toEqual(snippetOf(text, 40, 50, ["retry", "limit"]));
      offset += lines[lineNumber - 1]!.length + 2;
    }
    // An offset that does not start a line is not trusted.
    expect(snippetOf(text, 40, 50, ["retry", "limit"], { line: 2, offset: 5 })).toEqual(snippetOf(text, 40, 50, ["retry", "limit"]));
  });
});

function generatedFile(next: () => number): { text: string; symbols: SymbolFact[] } {
  const lineCount = 3 + Math.floor(next() * 60);
  const lines = Array.from({ length: lineCount }, () => line(next));
  const symbols: SymbolFact[] = [];
  let at = 1;
  while (at <= lineCount) {
    const length = 1 + Math.floor(next() * 20);
    if (next() < 0.6) {
      const name = identifier(next);
      const endLine = Math.min(lineCount, at + length - 1);
      symbols.push({
        name,
        qualifiedName: name,
        kind: next() < 0.5 ? "function" : "class",
        visibility: "public",
        exported: true,
        startLine: at,
        endLine,
        signature: `function ${name}(${identifier(next)})`,
        ...(next() < 0.4 ? { doc: line(next) } : {}),
      });
      if (next() < 0.3 && endLine > at) {
        const member = identifier(next);
        symbols.push({
          name: member,
          qualifiedName: `${name}.${member}`,
          kind: "method",
          visibility: "public",
          exported: false,
          startLine: at + 1,
          endLine,
          signature: `${member}()`,
          parent: name,
        });
      }
    }
    at += length;
  }
  return { text: `${lines.join("\n")}\n`, symbols };
}

function describeHits(hits: readonly SearchHit[]) {
  return hits.map((hit) => ({
    path: hit.chunk.display,
    lines: [hit.chunk.startLine, hit.chunk.endLine],
    symbol: hit.chunk.symbol,
    score: hit.score,
    signals: hit.signals,
    focus: hit.focus,
  }));
}

describe("incremental index", () => {
  test("answers like an index built fresh, through changes, deletions, merges and renumbering", async () => {
    // Merges (and renumbering, once chunks have left) run many times within one refresh.
    const tuning = { mergeTailPairs: 40 };
    const next = random(3);
    const source = new MemorySearchSource();
    const names: string[] = [];
    for (let index = 0; index < 30; index++) {
      const name = `f${index}.${index % 4 === 0 ? "py" : "ts"}`;
      names.push(name);
      const { text, symbols } = generatedFile(next);
      source.put(name, text, symbols);
    }
    const kept = new SearchIndex(source, { embedder: new NullEmbedder(), tuning });
    await kept.refresh();
    const queries = [
      "parse http response",
      "retry limit",
      "token bucket",
      "größe",
      "naïve",
      "JSON",
      "readFull",
      "v2",
      "x",
      "URL",
      "δelta π",
      "parseHttpResponse",
      "id",
      "buffer_full",
    ];
    for (let round = 0; round < 12; round++) {
      for (let change = Math.floor(next() * 5); change >= 0; change--) {
        const name = names[Math.floor(next() * names.length)]!;
        if (next() < 0.15) source.delete(name);
        else {
          const { text, symbols } = generatedFile(next);
          source.put(name, text, symbols);
        }
      }
      await kept.refresh();
      const fresh = new SearchIndex(source, { embedder: new NullEmbedder(), tuning });
      await fresh.refresh();
      expect(kept.chunkCount).toBe(fresh.chunkCount);
      for (const query of queries) {
        for (const accept of [undefined, (file: { language: string }) => file.language === "python"]) {
          const options = { topK: 8, ...(accept ? { accept } : {}) };
          expect(describeHits((await kept.search(query, options)).hits)).toEqual(describeHits((await fresh.search(query, options)).hits));
        }
      }
      for (const real of [...source.entries.keys()].slice(0, 6)) {
        for (const lineNumber of [1, 5, 20]) {
          const anchor = kept.chunkAt(real, lineNumber);
          expect(anchor === undefined).toBe(fresh.chunkAt(real, lineNumber) === undefined);
          if (!anchor) continue;
          for (const topK of [1, 4]) {
            const ours = kept.relatedTo(anchor, kept.anchorTerms(anchor, source.texts.get(real)!), { topK }).map((
              hit,
            ) => [hit.chunk.display, hit.chunk.startLine, hit.score, hit.shared]);
            const theirAnchor = fresh.chunkAt(real, lineNumber)!;
            const theirs = fresh.relatedTo(theirAnchor, fresh.anchorTerms(theirAnchor, source.texts.get(real)!), { topK }).map((
              hit,
            ) => [hit.chunk.display, hit.chunk.startLine, hit.score, hit.shared]);
            expect(ours).toEqual(theirs);
          }
        }
      }
    }
  });
});
