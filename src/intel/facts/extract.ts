/**
 * extractFacts: the symbols, imports, calls and exported names of one file, read from its syntax
 * tree by the language family's extractor (src/intel/facts/lang/). Pure given the tree; parses
 * the text itself when no tree is passed.
 */
import type { Rule, SgRoot } from "@ast-grep/napi";
import { log } from "../../core/log.ts";
import { astGrepLanguageFor, isLanguage, type LanguageId, parseSource, parseTree } from "../../syntax/index.ts";
import { type LanguageExtractor, rulesWithoutCalls, runExtractor } from "./engine.ts";
import { bashExtractor } from "./lang/bash.ts";
import { cFamilyExtractor } from "./lang/c-family.ts";
import { csharpExtractor } from "./lang/csharp.ts";
import { cssExtractor } from "./lang/css.ts";
import { dartExtractor } from "./lang/dart.ts";
import { documentExtractor } from "./lang/documents.ts";
import { elixirExtractor } from "./lang/elixir.ts";
import { goExtractor } from "./lang/go.ts";
import { haskellExtractor } from "./lang/haskell.ts";
import { htmlExtractor } from "./lang/html.ts";
import { javaExtractor } from "./lang/java.ts";
import { kotlinExtractor } from "./lang/kotlin.ts";
import { luaExtractor } from "./lang/lua.ts";
import { markdownExtractor } from "./lang/markdown.ts";
import { phpExtractor } from "./lang/php.ts";
import { pythonExtractor } from "./lang/python.ts";
import { rubyExtractor } from "./lang/ruby.ts";
import { rustExtractor } from "./lang/rust.ts";
import { scalaExtractor } from "./lang/scala.ts";
import { sqlExtractor } from "./lang/sql.ts";
import { swiftExtractor } from "./lang/swift.ts";
import { typescriptExtractor } from "./lang/typescript.ts";
import type { FileFacts } from "./types.ts";

/** Language id → the extractor for it (given the napi language name the id maps to). */
const EXTRACTORS: Readonly<Record<string, (napiLanguage: string) => LanguageExtractor>> = {
  typescript: typescriptExtractor,
  tsx: typescriptExtractor,
  javascript: typescriptExtractor,
  python: () => pythonExtractor,
  go: () => goExtractor,
  rust: () => rustExtractor,
  java: () => javaExtractor,
  kotlin: () => kotlinExtractor,
  scala: () => scalaExtractor,
  c: cFamilyExtractor,
  cpp: cFamilyExtractor,
  csharp: () => csharpExtractor,
  ruby: () => rubyExtractor,
  php: () => phpExtractor,
  swift: () => swiftExtractor,
  lua: () => luaExtractor,
  bash: () => bashExtractor,
  elixir: () => elixirExtractor,
  haskell: () => haskellExtractor,
  dart: () => dartExtractor,
  sql: () => sqlExtractor,
  json: documentExtractor,
  jsonc: documentExtractor,
  yaml: documentExtractor,
  toml: documentExtractor,
  markdown: () => markdownExtractor,
  html: () => htmlExtractor,
  css: () => cssExtractor,
};

export interface ExtractOptions {
  /**
   * Record calls (default true). Calls are most of the extraction cost on call-dense code; an
   * outline-only pass can leave them out (imports made by calls, such as `require("x")`, stay).
   */
  calls?: boolean;
}

const validatedRules = new WeakMap<LanguageExtractor, Map<string, Rule[]>>();

/** Why the grammar of `probe` (an empty tree) rejects a rule (a kind it does not have), or undefined. */
function rejection(probe: SgRoot, rule: Rule): string | undefined {
  try {
    probe.root().findAll({ rule });
    return undefined;
  } catch (error) {
    return String(error);
  }
}

/** The extractor for a language id; undefined when there is none or no grammar for it. */
function extractorFor(id: string): LanguageExtractor | undefined {
  if (!isLanguage(id)) return undefined;
  const napiLanguage = astGrepLanguageFor(id);
  const factory = Object.hasOwn(EXTRACTORS, id) ? EXTRACTORS[id] : undefined;
  return napiLanguage === undefined || factory === undefined ? undefined : factory(napiLanguage);
}

/**
 * The extractor's rules without the kinds this grammar version does not have (napi rejects a
 * whole search over one unknown kind). Each kind is tried once per language on an empty tree.
 */
function rulesFor(extractor: LanguageExtractor, id: LanguageId, calls: boolean): Rule[] {
  let byLanguage = validatedRules.get(extractor);
  if (!byLanguage) validatedRules.set(extractor, byLanguage = new Map());
  const key = calls ? id : `${id}\u0000nocalls`;
  const cached = byLanguage.get(key);
  if (cached) return cached;
  const probe = parseTree(id, "");
  const valid = (calls ? extractor.rules : rulesWithoutCalls(extractor)).filter((rule) => {
    const reason = probe === undefined ? undefined : rejection(probe, rule);
    if (reason !== undefined) log.debug("fact extractor rule left out: the grammar does not know it", { language: id, rule: JSON.stringify(rule), reason });
    return reason === undefined;
  });
  byLanguage.set(key, valid);
  return valid;
}

/**
 * For tests and diagnostics: the rules of a language's extractor (call rules included) that its
 * grammar rejects. Empty when every kind the extractor asks for exists.
 */
export function unknownExtractorRules(language: string): string[] {
  const id = language.trim().toLowerCase();
  const extractor = extractorFor(id);
  const probe = extractor && parseTree(id, "");
  if (extractor === undefined || probe === undefined) return [];
  const rules = [...extractor.rules, ...Object.values(extractor.callKinds ?? {}).filter((rule): rule is Rule => rule !== null)];
  return rules.filter((rule) => rejection(probe, rule) !== undefined).map((rule) => JSON.stringify(rule));
}

function empty(language: string, parseErrors = 0): FileFacts {
  return { language, parseErrors, symbols: [], imports: [], calls: [], exportedNames: [] };
}

/** Whether extractFacts understands this language (it still needs a parser at run time). */
export function hasFactExtractor(language: string): boolean {
  return Object.hasOwn(EXTRACTORS, language.trim().toLowerCase());
}

/**
 * The facts of one file. `root` is the tree of `text` when the caller parsed it already (the
 * index parses in native threads); without it the text is parsed here. `parseErrors` counts the
 * outermost ERROR regions of the tree; when extractFacts parses the text itself it also counts
 * missing tokens (which need a full scan of the tree, too slow for indexing).
 */
export function extractFacts(language: string, text: string, root?: SgRoot, options: ExtractOptions = {}): FileFacts {
  const id = language.trim().toLowerCase();
  const extractor = extractorFor(id);
  if (extractor === undefined || !isLanguage(id)) return empty(id);
  let tree = root;
  let fullErrorCount: number | undefined;
  if (tree === undefined) {
    const parsed = parseSource(id, text);
    if (parsed === undefined) return empty(id);
    tree = parsed.root;
    fullErrorCount = parsed.errorCount;
  }
  const calls = options.calls !== false;
  const run = runExtractor(tree.root(), text, id, extractor, rulesFor(extractor, id, calls), calls);
  return {
    language: id,
    parseErrors: fullErrorCount ?? run.parseErrors,
    ...run.result,
  };
}
