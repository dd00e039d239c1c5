/**
 * Terms for lexical code search. An identifier yields itself (lowercased) and its parts, split on
 * snake_case, kebab-case, camelCase/PascalCase humps (acronyms kept whole) and digit runs:
 * `parseHTTPResponse2` → parsehttpresponse2, parse, http, response, 2. So a query for either the whole
 * name or its words finds it, and a whole-name match counts more (it matches more terms).
 *
 * countTerms has an ASCII path that splits and looks identifiers up straight from the text, with a
 * per-refresh identifier cache, beside the regex path above: it makes building the search index of
 * a large tree markedly cheaper (the measurement is in docs/decisions/0012). A test holds both paths
 * to the same terms.
 */

import { grown } from "./arrays.ts";
import type { TermDictionary } from "./dictionary.ts";

const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]*/gu;
const WORD = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{Lo}+/gu;

/** An identifier as a whole term: lowercased, without leading or trailing _ and $. */
export function wholeTerm(identifier: string): string {
  return identifier.replace(/^[_$]+|[_$]+$/g, "").toLowerCase();
}

/** The words of one identifier, lowercased, in order (no whole-identifier entry). */
function identifierParts(identifier: string): string[] {
  const parts: string[] = [];
  for (const segment of identifier.split(/[_$\-]+/)) {
    for (const match of segment.matchAll(WORD)) parts.push(match[0].toLowerCase());
  }
  return parts;
}

/** Identifiers of one lowercase word split into nothing further (most keywords and locals). */
const PLAIN = /^[a-z]+$/;

/** Terms of one identifier: the whole name (lowercased, without leading/trailing _ or $) and each part of two or more characters or digits. */
export function identifierTerms(identifier: string): readonly string[] {
  if (PLAIN.test(identifier)) return [identifier];
  return computeTerms(identifier);
}

function computeTerms(identifier: string): string[] {
  const whole = wholeTerm(identifier);
  const terms: string[] = [];
  if (whole.length > 0) terms.push(whole);
  const parts = identifierParts(identifier);
  if (parts.length > 1 || (parts.length === 1 && parts[0] !== whole)) {
    for (const part of parts) if (part.length >= 2 || /^\p{N}+$/u.test(part)) terms.push(part);
  }
  return terms;
}

/** Every identifier in a text, as written. */
export function identifiersIn(text: string): string[] {
  return text.match(IDENTIFIER) ?? [];
}

/** Query terms in order of first appearance, without repeats. */
export function queryTerms(query: string): string[] {
  const seen = new Set<string>();
  for (const identifier of identifiersIn(query)) {
    for (const term of identifierTerms(identifier)) seen.add(term);
  }
  // Digits written alone ("2") are not identifiers; keep them as terms too.
  for (const digits of query.match(/(?<![\p{L}\p{N}_$])\p{N}+/gu) ?? []) seen.add(digits);
  return [...seen];
}

/**
 * Term counts of one document (a chunk's text in one field): the distinct term ids in first-seen
 * order with their frequencies, and the document's length in terms. Reused from document to
 * document, so counting allocates nothing per token.
 */
export class TermCounter {
  counts = new Int32Array(1024);
  ids = new Int32Array(256);
  distinct = 0;
  length = 0;
  /** Scratch of countTerms's ASCII path: the term ids of one identifier, and its parts as (start, end, isDigits) triples. */
  found = new Int32Array(64);
  parts = new Int32Array(96);

  count(id: number): void {
    this.counts = grown(this.counts, id + 1);
    this.length++;
    const seen = this.counts[id]!;
    this.counts[id] = seen + 1;
    if (seen !== 0) return;
    this.ids = grown(this.ids, this.distinct + 1);
    this.ids[this.distinct++] = id;
  }

  reset(): void {
    for (let index = 0; index < this.distinct; index++) this.counts[this.ids[index]!] = 0;
    this.distinct = 0;
    this.length = 0;
  }
}

// ASCII character classes of identifiers.
const OTHER = 0;
const UPPER = 1;
const LOWER = 2;
const DIGIT = 3;
const JOINER = 4; // _ and $
const ASCII_CLASS = new Uint8Array(128);
for (let code = 65; code <= 90; code++) ASCII_CLASS[code] = UPPER;
for (let code = 97; code <= 122; code++) ASCII_CLASS[code] = LOWER;
for (let code = 48; code <= 57; code++) ASCII_CLASS[code] = DIGIT;
ASCII_CLASS[95] = JOINER;
ASCII_CLASS[36] = JOINER;

// Classes of other code points as IDENTIFIER sees them: letter, number or neither (BMP cached).
const UNKNOWN = 0;
const LETTER = 1;
const NUMBER = 2;
const NEITHER = 3;
const BMP_CLASS = new Uint8Array(0x10000);
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;

function codePointClass(codePoint: number): number {
  if (codePoint < 0x10000) {
    const known = BMP_CLASS[codePoint]!;
    if (known !== UNKNOWN) return known;
  }
  const char = String.fromCodePoint(codePoint);
  const found = IS_LETTER.test(char) ? LETTER : IS_NUMBER.test(char) ? NUMBER : NEITHER;
  if (codePoint < 0x10000) BMP_CLASS[codePoint] = found;
  return found;
}

/**
 * Counts the terms of every identifier in text[start, end) — what termCounts(text.slice(start, end))
 * counts — without a string per identifier: ASCII identifiers are split and looked up straight from
 * the text; others go through identifierTerms. With `intern` false, terms the
 * dictionary does not know are skipped.
 */
export function countTerms(text: string, start: number, end: number, dictionary: TermDictionary, counter: TermCounter, intern: boolean): void {
  let index = start;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code < 128) {
      const kind = ASCII_CLASS[code]!;
      if (kind === OTHER || kind === DIGIT) {
        index++;
        continue;
      }
    } else {
      const codePoint = text.codePointAt(index)!;
      // Half a surrogate pair (the range ends inside it) is no letter either.
      if (codePointClass(codePoint) !== LETTER || (codePoint > 0xffff && index + 2 > end)) {
        index += codePoint > 0xffff && index + 2 <= end ? 2 : 1;
        continue;
      }
    }
    // An identifier starts here: letters, digits, _ and $ follow.
    const from = index;
    let ascii = true;
    while (index < end) {
      const next = text.charCodeAt(index);
      if (next < 128) {
        if (ASCII_CLASS[next] === OTHER) break;
        index++;
      } else {
        const codePoint = text.codePointAt(index)!;
        if (codePointClass(codePoint) === NEITHER) break;
        // A surrogate pair past the end of the range is not read half.
        const width = codePoint > 0xffff ? 2 : 1;
        if (index + width > end) break;
        ascii = false;
        index += width;
      }
    }
    if (ascii) {
      const found = asciiIdentifierTerms(text, from, index, dictionary, intern, counter);
      for (let at = 0; at < found; at++) counter.count(counter.found[at]!);
    } else {
      for (const term of identifierTerms(text.slice(from, index))) {
        const id = intern ? dictionary.intern(term) : dictionary.find(term, 0, term.length, false);
        if (id >= 0) counter.count(id);
      }
    }
  }
}

function emit(counter: TermCounter, at: number, id: number): number {
  if (id < 0) return at;
  counter.found = grown(counter.found, at + 1);
  counter.found[at] = id;
  return at + 1;
}

/** Puts the term ids of the ASCII identifier text[start, end) in counter.found; returns how many. */
function asciiIdentifierTerms(text: string, start: number, end: number, dictionary: TermDictionary, intern: boolean, counter: TermCounter): number {
  let found = 0;
  let wholeStart = start;
  let wholeEnd = end;
  while (wholeStart < wholeEnd && ASCII_CLASS[text.charCodeAt(wholeStart)] === JOINER) wholeStart++;
  while (wholeEnd > wholeStart && ASCII_CLASS[text.charCodeAt(wholeEnd - 1)] === JOINER) wholeEnd--;
  if (wholeStart < wholeEnd) found = emit(counter, found, intern ? dictionary.add(text, wholeStart, wholeEnd, true) : dictionary.find(text, wholeStart, wholeEnd, true));
  // Words: split on _ and $, then on case humps (an upper-case run before a lower-case letter
  // leaves its last letter to the next word) and digit runs.
  let parts = 0;
  let at = start;
  while (at < end) {
    const kind = ASCII_CLASS[text.charCodeAt(at)]!;
    let to = at + 1;
    if (kind === JOINER) {
      at = to;
      continue;
    }
    if (kind === UPPER) {
      while (to < end && ASCII_CLASS[text.charCodeAt(to)] === UPPER) to++;
      if (to < end && ASCII_CLASS[text.charCodeAt(to)] === LOWER) {
        if (to - at >= 2) to--;
        else while (to < end && ASCII_CLASS[text.charCodeAt(to)] === LOWER) to++;
      }
    } else {
      while (to < end && ASCII_CLASS[text.charCodeAt(to)] === kind) to++;
    }
    if (parts * 3 + 3 > counter.parts.length) {
      const grown = new Int32Array(counter.parts.length * 2);
      grown.set(counter.parts);
      counter.parts = grown;
    }
    const partScratch = counter.parts;
    partScratch[parts * 3] = at;
    partScratch[parts * 3 + 1] = to;
    partScratch[parts * 3 + 2] = kind === DIGIT ? 1 : 0;
    parts++;
    at = to;
  }
  // One word is the whole name again (ASCII identifiers have nothing else in them).
  if (parts < 2) return found;
  const partScratch = counter.parts;
  for (let part = 0; part < parts; part++) {
    const from = partScratch[part * 3]!;
    const to = partScratch[part * 3 + 1]!;
    if (to - from < 2 && partScratch[part * 3 + 2] === 0) continue;
    found = emit(counter, found, intern ? dictionary.add(text, from, to, true) : dictionary.find(text, from, to, true));
  }
  return found;
}
