/**
 * Terms as small numbers, shared by every field of one search index: an open-addressing hash table
 * over one pool of UTF-16 code units, so a term can be looked up straight from a range of a file's
 * text (no string per token) and no stored term keeps a slice of a file's text alive.
 */
import { grown, withSlack, worthTrimming } from "./arrays.ts";

const EMPTY = 0;

/** A dictionary as persist.ts writes it: the pool of code units and each term's start, length and hash. */
export interface PersistedDictionary {
  chars: Uint16Array<ArrayBuffer>;
  start: Int32Array<ArrayBuffer>;
  length: Int32Array<ArrayBuffer>;
  hash: Int32Array<ArrayBuffer>;
}

/** Why a persisted dictionary cannot be restored, or undefined: every term must lie inside the pool. */
export function persistedDictionaryProblem({ chars, start, length, hash }: PersistedDictionary): string | undefined {
  if (length.length !== start.length || hash.length !== start.length) return "its term columns disagree";
  for (let id = 0; id < start.length; id++) {
    const from = start[id]!;
    const size = length[id]!;
    if (from < 0 || size < 0 || from + size > chars.length) return "a term lies outside its pool";
  }
  return undefined;
}

export class TermDictionary {
  #chars = new Uint16Array(4096);
  #charsUsed = 0;
  #start = new Int32Array(256);
  #length = new Int32Array(256);
  #hash = new Int32Array(256);
  /** Term id + 1 per slot (0: empty); the capacity is a power of two, at most half full. */
  #table = new Int32Array(512);
  #count = 0;

  get size(): number {
    return this.#count;
  }

  /** Id of text[start, end) (ASCII letters lowercased when `lower`), or -1. */
  find(text: string, start: number, end: number, lower: boolean): number {
    return this.#table[this.#slotOf(hashRange(text, start, end, lower), text, start, end, lower)]! - 1;
  }

  /** The table slot holding text[start, end), or the empty slot where it would go. */
  #slotOf(hash: number, text: string, start: number, end: number, lower: boolean): number {
    const mask = this.#table.length - 1;
    for (let slot = hash & mask;; slot = (slot + 1) & mask) {
      const entry = this.#table[slot]!;
      if (entry === EMPTY || (this.#hash[entry - 1] === hash && this.#equals(entry - 1, text, start, end, lower))) return slot;
    }
  }

  /** Id of text[start, end) (ASCII letters lowercased when `lower`), added when new. */
  add(text: string, start: number, end: number, lower: boolean): number {
    const hash = hashRange(text, start, end, lower);
    const slot = this.#slotOf(hash, text, start, end, lower);
    if (this.#table[slot] !== EMPTY) return this.#table[slot]! - 1;
    const id = this.#count++;
    const length = end - start;
    if (id >= this.#start.length) {
      this.#start = grown(this.#start, id + 1);
      this.#length = grown(this.#length, id + 1);
      this.#hash = grown(this.#hash, id + 1);
    }
    this.#chars = grown(this.#chars, this.#charsUsed + length);
    const chars = this.#chars;
    let at = this.#charsUsed;
    for (let index = start; index < end; index++) {
      const code = text.charCodeAt(index);
      chars[at++] = lower && code >= 65 && code <= 90 ? code | 0x20 : code;
    }
    this.#start[id] = this.#charsUsed;
    this.#length[id] = length;
    this.#hash[id] = hash;
    this.#charsUsed = at;
    this.#table[slot] = id + 1;
    if (this.#count * 2 > this.#table.length) this.#rehash();
    return id;
  }

  /** Id of a term, or undefined. */
  lookup(term: string): number | undefined {
    const id = this.find(term, 0, term.length, false);
    return id < 0 ? undefined : id;
  }

  intern(term: string): number {
    return this.add(term, 0, term.length, false);
  }

  term(id: number): string {
    const start = this.#start[id]!;
    const end = start + this.#length[id]!;
    let out = "";
    for (let from = start; from < end; from += 4096) out += String.fromCharCode(...this.#chars.subarray(from, Math.min(end, from + 4096)));
    return out;
  }

  /** Length of a term in UTF-16 code units. */
  termLength(id: number): number {
    return this.#length[id]!;
  }

  /** The terms as plain arrays, for the persisted index (persist.ts); views, not copies. */
  persisted(): PersistedDictionary {
    return {
      chars: this.#chars.subarray(0, this.#charsUsed),
      start: this.#start.subarray(0, this.#count),
      length: this.#length.subarray(0, this.#count),
      hash: this.#hash.subarray(0, this.#count),
    };
  }

  /** Takes the terms persisted() gave (into an empty dictionary); the hash table is rebuilt from their hashes. */
  restore(state: PersistedDictionary): void {
    this.#chars = state.chars;
    this.#charsUsed = state.chars.length;
    this.#start = state.start;
    this.#length = state.length;
    this.#hash = state.hash;
    this.#count = state.start.length;
    let size = 512;
    while (this.#count * 2 > size) size *= 2;
    this.#table = new Int32Array(size / 2);
    this.#rehash();
  }

  /** Gives back the room grown for terms to come, keeping an eighth. */
  trim(): void {
    if (worthTrimming(this.#chars.length, this.#charsUsed)) {
      const chars = new Uint16Array(withSlack(this.#charsUsed));
      chars.set(this.#chars.subarray(0, this.#charsUsed));
      this.#chars = chars;
    }
    if (worthTrimming(this.#start.length, this.#count)) {
      const size = withSlack(this.#count);
      this.#start = this.#start.slice(0, size);
      this.#length = this.#length.slice(0, size);
      this.#hash = this.#hash.slice(0, size);
    }
  }

  #equals(id: number, text: string, start: number, end: number, lower: boolean): boolean {
    if (this.#length[id] !== end - start) return false;
    const chars = this.#chars;
    let at = this.#start[id]!;
    for (let index = start; index < end; index++) {
      let code = text.charCodeAt(index);
      if (lower && code >= 65 && code <= 90) code |= 0x20;
      if (chars[at++] !== code) return false;
    }
    return true;
  }

  #rehash(): void {
    const table = new Int32Array(this.#table.length * 2);
    const mask = table.length - 1;
    for (let id = 0; id < this.#count; id++) {
      let slot = this.#hash[id]! & mask;
      while (table[slot] !== EMPTY) slot = (slot + 1) & mask;
      table[slot] = id + 1;
    }
    this.#table = table;
  }
}

/** FNV-1a over UTF-16 code units, with a final mix so the low bits spread. */
function hashRange(text: string, start: number, end: number, lower: boolean): number {
  let hash = 0x811c9dc5 | 0;
  for (let index = start; index < end; index++) {
    let code = text.charCodeAt(index);
    if (lower && code >= 65 && code <= 90) code |= 0x20;
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  hash ^= hash >>> 12;
  return hash;
}
