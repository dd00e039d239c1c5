/**
 * Terms for lexical code search. An identifier yields itself (lowercased) and its parts, split on
 * snake_case, kebab-case, camelCase/PascalCase humps (acronyms kept whole) and digit runs:
 * `parseHTTPResponse2` → parsehttpresponse2, parse, http, response, 2. So a query for either the whole
 * name or its words finds it, and a whole-name match counts more (it matches more terms).
 */

const IDENTIFIER = /[\p{L}_$][\p{L}\p{N}_$]*/gu;
const WORD = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+|\p{Lo}+/gu;

/** An identifier as a whole term: lowercased, without leading or trailing _ and $. */
export function wholeTerm(identifier: string): string {
  return identifier.replace(/^[_$]+|[_$]+$/g, "").toLowerCase();
}

/** The words of one identifier, lowercased, in order (no whole-identifier entry). */
export function identifierParts(identifier: string): string[] {
  const parts: string[] = [];
  for (const segment of identifier.split(/[_$\-]+/)) {
    for (const match of segment.matchAll(WORD)) parts.push(match[0].toLowerCase());
  }
  return parts;
}

/** Identifiers of one lowercase word split into nothing further (most keywords and locals). */
const PLAIN = /^[a-z]+$/;
/** Identifiers repeat heavily in code, so their terms are computed once; the cache is dropped when it grows this large. */
const TERM_CACHE_LIMIT = 200_000;
let termCache = new Map<string, readonly string[]>();

/** Terms of one identifier: the whole name (lowercased, without leading/trailing _ or $) and each part of two or more characters or digits. */
export function identifierTerms(identifier: string): readonly string[] {
  if (PLAIN.test(identifier)) return [identifier];
  const known = termCache.get(identifier);
  if (known) return known;
  const terms = computeTerms(identifier);
  if (termCache.size >= TERM_CACHE_LIMIT) termCache = new Map();
  termCache.set(identifier, terms);
  return terms;
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

/** Term frequencies of a text (every identifier expanded into its terms), and the total term count. */
export function termCounts(text: string, into: Map<string, number> = new Map()): { counts: Map<string, number>; length: number } {
  let length = 0;
  for (const identifier of identifiersIn(text)) {
    for (const term of identifierTerms(identifier)) {
      into.set(term, (into.get(term) ?? 0) + 1);
      length++;
    }
  }
  return { counts: into, length };
}

/** Distinct whole identifiers of a text, lowercased (for find_related); single characters are left out. */
export function identifierSet(text: string): Set<string> {
  const set = new Set<string>();
  for (const identifier of identifiersIn(text)) {
    const whole = wholeTerm(identifier);
    if (whole.length >= 2) set.add(whole);
  }
  return set;
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
