/**
 * What a query asks for, read from its text: a lookup of identifiers (`parseConfig`,
 * `Paginator.page`, `get_random_string`) or a concept in words ("split a string into fields"). A
 * concept query drops English function words and one-letter words, which name symbols (`A`, `of`,
 * `__or__`) without saying anything about the code sought; whether it asks for tests decides
 * whether test files rank as equals.
 */
import { isTestFile } from "../calls/tests.ts";

export type QueryMode = "identifier" | "concept";

/** English function words: frequent in prose queries and in code, and informative in neither. */
const STOPWORDS = new Set(
  (
    "a an the and or nor but not no of to in on at by for from with without into onto over under " +
    "as is are was were be been being it its this that these those there their them they he she we " +
    "you your our his her which who whom whose what when where why how than then so such if else " +
    "do does did done has have had can could should would may might must shall will just only also " +
    "any all each every some more most other same both either neither own very too up out off about " +
    "via per i e g eg ie etc"
  ).split(" "),
);

/** Words that ask for tests: then test files rank like any other. */
const TEST_WORDS = new Set(["test", "tests", "testing", "spec", "specs", "fixture", "fixtures", "mock", "mocks"]);

/** An identifier written as code: case humps inside, underscores, a qualifier (`a.b`, `a::b`) or call parentheses. */
const CODE_FORM = /[a-z0-9][A-Z]|[A-Za-z0-9]_[A-Za-z0-9]|^_|[A-Za-z0-9](?:\.|::)[A-Za-z_]|\(\)$/;

/**
 * Identifier lookup when every word of the query is written as code, or the query is one word;
 * concept search otherwise (prose, even with a code name in it).
 */
export function queryMode(query: string): QueryMode {
  const words = query.trim().replace(/[`'"]/g, "").split(/\s+/).filter((word) => word !== "");
  if (words.length <= 1) return "identifier";
  return words.every((word) => CODE_FORM.test(word)) ? "identifier" : "concept";
}

/** Whether a query term is a function word or a single letter. */
function isStopTerm(term: string): boolean {
  return STOPWORDS.has(term) || (term.length === 1 && !/\p{N}/u.test(term));
}

/** The terms a query ranks by: a concept's informative words (all of its words when none is), a lookup's every term. */
export function rankingTerms(mode: QueryMode, terms: readonly string[]): readonly string[] {
  if (mode === "identifier") return terms;
  const informative = terms.filter((term) => !isStopTerm(term));
  return informative.length > 0 ? informative : terms;
}

/** The identifiers of a query written as code (`parseConfig` in "where is parseConfig called"): only these may name a definition in a concept query. */
export function codeFormIdentifiers(query: string): string[] {
  return (query.match(/[\p{L}_$][\p{L}\p{N}_$]*(?:(?:\.|::)[\p{L}_$][\p{L}\p{N}_$]*)*/gu) ?? []).filter((word) => CODE_FORM.test(word)).flatMap((word) => word.split(/\.|::/));
}

/**
 * Other forms of a prose word that code spells it in: "splits", "splitting" and "split" are one word
 * to a reader, and identifiers mostly hold the base form ("Split", "parseLine", "fields"). A few
 * English endings, no dictionary: a form that is no term of the index finds nothing anyway.
 */
export function wordForms(term: string): string[] {
  if (term.length < 4 || !/^[a-z]+$/.test(term)) return [];
  const forms: string[] = [];
  if (term.endsWith("ies")) forms.push(`${term.slice(0, -3)}y`);
  else if (term.endsWith("es")) forms.push(term.slice(0, -2), term.slice(0, -1));
  else if (term.endsWith("s") && !term.endsWith("ss")) forms.push(term.slice(0, -1));
  else if (term.endsWith("ed")) forms.push(term.slice(0, -2), term.slice(0, -1));
  else if (term.endsWith("ing")) forms.push(term.slice(0, -3), `${term.slice(0, -3)}e`);
  else forms.push(`${term}s`);
  return forms.filter((form) => form.length >= 3 && form !== term);
}

export function asksForTests(terms: readonly string[]): boolean {
  return terms.some((term) => TEST_WORDS.has(term));
}

/** Test files and test data, by the path conventions of each language. */
export function isTestPath(display: string): boolean {
  return isTestFile(display) || /(^|[\\/])testdata[\\/]/.test(display);
}
