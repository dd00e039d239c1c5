/**
 * Search before the search index exists: one pass over the files' texts (while the code index's
 * first build runs), cut into CHUNK_LINES.window-line windows and ranked by BM25 over their text
 * alone, with the same terms and constants as the index's body field. Only the query's terms are
 * counted, and a file holding none of them as a substring is measured but not tokenized. Names,
 * signatures, doc comments and definitions weigh in only once the index is built, so the order may
 * differ from the full index's; every result holds at least one query term.
 */
import type { LanguageId } from "../../syntax/index.ts";
import { lineStarts } from "../../text/index.ts";
import { B, K1 } from "./bm25.ts";
import { CHUNK_LINES } from "./chunks.ts";
import { identifiersIn, identifierTerms } from "./tokenize.ts";

/** A file the scan reads: where it is, its language, and its text. */
export interface ScannedFile {
  real: string;
  display: string;
  language: LanguageId;
}

export interface ColdHit {
  file: ScannedFile;
  startLine: number;
  endLine: number;
  score: number;
}

interface Candidate {
  file: ScannedFile;
  startLine: number;
  endLine: number;
  length: number;
  frequencies: Int32Array;
}

/** Ranks windows of streamed texts for `terms`; `add` takes each file, `top` ranks what was added. */
export class ColdScan {
  readonly #terms: readonly string[];
  readonly #candidates: Candidate[] = [];
  readonly #documentFrequency: Int32Array;
  #windows = 0;
  #characters = 0;
  #files = 0;

  constructor(terms: readonly string[]) {
    this.#terms = terms;
    this.#documentFrequency = new Int32Array(terms.length);
  }

  get files(): number {
    return this.#files;
  }

  get windows(): number {
    return this.#windows;
  }

  add(file: ScannedFile, text: string): void {
    this.#files += 1;
    this.#characters += text.length;
    const lower = text.toLowerCase();
    const starts = lineStarts(text);
    const windowCount = Math.max(1, Math.ceil(starts.length / CHUNK_LINES.window));
    this.#windows += windowCount;
    if (!this.#terms.some((term) => lower.includes(term))) return;
    const index = new Map(this.#terms.map((term, position) => [term, position]));
    for (let window = 0; window < windowCount; window++) {
      const first = window * CHUNK_LINES.window;
      const last = Math.min(starts.length, first + CHUNK_LINES.window) - 1;
      const from = starts[first]!;
      const to = last + 1 < starts.length ? starts[last + 1]! : text.length;
      const body = text.slice(from, to);
      const frequencies = new Int32Array(this.#terms.length);
      let hit = false;
      for (const identifier of identifiersIn(body)) {
        for (const term of identifierTerms(identifier)) {
          const position = index.get(term);
          if (position === undefined) continue;
          frequencies[position] = frequencies[position]! + 1;
          hit = true;
        }
      }
      if (!hit) continue;
      for (let position = 0; position < frequencies.length; position++) if (frequencies[position]! > 0) this.#documentFrequency[position] = this.#documentFrequency[position]! + 1;
      this.#candidates.push({ file, startLine: first + 1, endLine: last + 1, length: body.length, frequencies });
    }
  }

  /** The best `topK` windows, best first (ties by path and line, so answers repeat). */
  top(topK: number): ColdHit[] {
    const total = Math.max(1, this.#windows);
    const averageLength = this.#characters / total || 1;
    const idf = [...this.#documentFrequency].map((frequency) => Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5)));
    const scored: ColdHit[] = [];
    for (const candidate of this.#candidates) {
      const norm = K1 * (1 - B + (B * candidate.length) / averageLength);
      let score = 0;
      candidate.frequencies.forEach((frequency, position) => {
        if (frequency > 0) score += (idf[position]! * frequency * (K1 + 1)) / (frequency + norm);
      });
      scored.push({ file: candidate.file, startLine: candidate.startLine, endLine: candidate.endLine, score });
    }
    scored.sort((a, b) => b.score - a.score || (a.file.display < b.file.display ? -1 : a.file.display > b.file.display ? 1 : a.startLine - b.startLine));
    return scored.slice(0, topK);
  }
}
